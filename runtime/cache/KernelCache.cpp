#include "runtime/cache/KernelCache.h"

#include "runtime/cache/CompilerBuildId.inc"

#include "llvm/Config/llvm-config.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <optional>

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "unknown"
#endif

using namespace tessera::runtime;

namespace {
constexpr char kMagic[8] = {'T', 'E', 'S', 'S', 'K', 'O', 'B', 'J'};
constexpr uint32_t kFormatVersion = 1;
// magic, format version, key length, payload size, payload checksum.
constexpr size_t kFixedHeader = 8 + 4 + 4 + 8 + 8;

std::string envOr(const char *name) {
  const char *value = std::getenv(name);
  return value ? std::string(value) : std::string();
}
} // namespace

KernelCache &tessera::runtime::tuningRecordCache() {
  // Never destroyed, as gpuKernelCache(): records may be stored at exit.
  static KernelCache *cache = new KernelCache(KernelCache::defaultDirectory("tuning"),
                                              KernelCache::enabledByEnvironment());
  return *cache;
}

llvm::StringRef tessera::runtime::tesseraVersion() {
  return TESSERA_VERSION "+" TESSERA_COMPILER_BUILD_ID;
}
llvm::StringRef tessera::runtime::llvmVersion() { return LLVM_VERSION_STRING; }

std::string tessera::runtime::sha256Hex(llvm::StringRef text) {
  llvm::SHA256 hash;
  hash.update(text);
  std::array<uint8_t, 32> bytes = hash.final();
  return llvm::toHex(bytes, /*LowerCase=*/true);
}

std::string tessera::runtime::keyedModuleText(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                              /*prettyForm=*/false));
  return text;
}

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

KernelCache::KernelCache(std::string directory, bool enabled, uint64_t maxBytes)
    : directory_(std::move(directory)), enabled_(enabled), maxBytes_(maxBytes) {}

uint64_t KernelCache::defaultMaxBytes() {
  uint64_t megabytes = 0;
  if (llvm::StringRef(envOr("TESSERA_CACHE_MAX_MB")).getAsInteger(10, megabytes) || !megabytes)
    megabytes = 1024;
  return megabytes << 20;
}

std::string KernelCache::defaultDirectory(llvm::StringRef kind) {
  llvm::SmallString<256> path;
  if (std::string dir = envOr("TESSERA_CACHE_DIR"); !dir.empty()) {
    path = dir;
  } else if (std::string xdg = envOr("XDG_CACHE_HOME"); !xdg.empty()) {
    path = xdg;
    llvm::sys::path::append(path, "tessera");
  } else if (std::string home = envOr("HOME"); !home.empty()) {
    path = home;
    llvm::sys::path::append(path, ".cache", "tessera");
  } else {
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, path);
    llvm::sys::path::append(path, "tessera-cache");
  }
  llvm::sys::path::append(path, kind);
  return std::string(path);
}

bool KernelCache::enabledByEnvironment() {
  std::string value = envOr("TESSERA_CACHE");
  return value != "0" && !llvm::StringRef(value).equals_insensitive("off");
}

std::string KernelCache::pathFor(llvm::StringRef keyText) const {
  llvm::SmallString<256> path(directory_);
  llvm::sys::path::append(path, sha256Hex(keyText) + ".tkobj");
  return std::string(path);
}

namespace {
/// The key text and payload of an entry file's bytes, where its header is
/// whole: the magic, the format version, sizes that add up to the file's,
/// and the payload's checksum.
struct EntryParts {
  llvm::StringRef keyText, payload;
};
std::optional<EntryParts> entryParts(llvm::StringRef bytes) {
  if (bytes.size() < kFixedHeader || std::memcmp(bytes.data(), kMagic, 8) != 0)
    return std::nullopt;
  using llvm::support::endian::read32le;
  using llvm::support::endian::read64le;
  const char *p = bytes.data() + 8;
  uint32_t format = read32le(p);
  uint32_t keyLength = read32le(p + 4);
  uint64_t payloadSize = read64le(p + 8);
  uint64_t checksum = read64le(p + 16);
  if (format != kFormatVersion)
    return std::nullopt;
  uint64_t headerSize = kFixedHeader + uint64_t(keyLength);
  if (headerSize > bytes.size() || bytes.size() - headerSize != payloadSize)
    return std::nullopt;
  EntryParts parts{bytes.substr(kFixedHeader, keyLength), bytes.substr(headerSize)};
  if (llvm::xxh3_64bits(parts.payload) != checksum)
    return std::nullopt;
  return parts;
}

bool isTemporary(llvm::StringRef name) { return name.contains(".tkobj.tmp-"); }
} // namespace

std::unique_ptr<llvm::MemoryBuffer> KernelCache::lookup(llvm::StringRef keyText) {
  if (!enabled_)
    return nullptr;
  std::string path = pathFor(keyText);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return nullptr; // Absent (or unreadable): an ordinary miss.
  std::optional<EntryParts> parts = entryParts((*file)->getBuffer());
  if (!parts || parts->keyText != keyText) {
    file->reset();
    reject(keyText);
    return nullptr;
  }
  ++diskHits_;
  // Used now: the last entry trim() would remove.
  (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  // A copy: the JIT takes ownership, and aligned storage suits the object reader.
  return llvm::MemoryBuffer::getMemBufferCopy(parts->payload, path);
}

std::vector<CacheEntry> KernelCache::entries() const {
  std::vector<CacheEntry> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory_, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.ends_with(".tkobj") && !isTemporary(name))
      continue;
    CacheEntry entry;
    entry.path = it->path();
    entry.temporary = isTemporary(name);
    auto file = llvm::MemoryBuffer::getFile(entry.path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file)
      continue; // Gone meanwhile (another process's clear or rename).
    entry.bytes = (*file)->getBufferSize();
    std::optional<EntryParts> parts =
        entry.temporary ? std::nullopt : entryParts((*file)->getBuffer());
    entry.whole = parts && name == sha256Hex(parts->keyText) + ".tkobj";
    if (parts)
      for (llvm::StringRef line : llvm::split(parts->keyText, '\n'))
        if (line.consume_front("kernel="))
          entry.kernel = line.str();
    found.push_back(std::move(entry));
  }
  llvm::sort(found, [](const CacheEntry &a, const CacheEntry &b) { return a.path < b.path; });
  return found;
}

llvm::Error KernelCache::store(llvm::StringRef keyText, llvm::StringRef payload) {
  if (!enabled_)
    return llvm::Error::success();
  auto fail = [&](const llvm::Twine &what, std::error_code ec) {
    ++writeErrors_;
    return llvm::createStringError(ec, "kernel cache: cannot " + what + " in '" + directory_ +
                                           "': " + ec.message());
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(directory_))
    return fail("create the directory", ec);

  std::string header(kFixedHeader, '\0');
  std::memcpy(header.data(), kMagic, 8);
  using llvm::support::endian::write32le;
  using llvm::support::endian::write64le;
  write32le(header.data() + 8, kFormatVersion);
  write32le(header.data() + 12, static_cast<uint32_t>(keyText.size()));
  write64le(header.data() + 16, payload.size());
  write64le(header.data() + 24, llvm::xxh3_64bits(payload));

  std::string path = pathFor(keyText);
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return fail("create a temporary file", ec);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << header << keyText << payload;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      (void)llvm::sys::fs::remove(temp);
      return fail("write an entry", ec);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    (void)llvm::sys::fs::remove(temp);
    return fail("rename an entry into place", ec);
  }
  ++stores_;
  noteStored(header.size() + keyText.size() + payload.size());
  return llvm::Error::success();
}

namespace {
// A usage count older than this is counted again: other processes' lost
// updates and removed files make it drift.
constexpr int64_t kRecountAfterSeconds = 24 * 60 * 60;

int64_t secondsNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
} // namespace

std::optional<KernelCache::Usage> KernelCache::readUsage() const {
  auto file = llvm::MemoryBuffer::getFile(directory_ + "/usage", /*IsText=*/true);
  if (!file)
    return std::nullopt;
  auto [bytes, countedAt] = (*file)->getBuffer().trim().split(' ');
  Usage usage;
  if (bytes.getAsInteger(10, usage.bytes) || countedAt.getAsInteger(10, usage.countedAt))
    return std::nullopt;
  return usage;
}

void KernelCache::writeUsage(const Usage &usage) const {
  // Through a renamed temporary file: a reader never sees half a line.
  llvm::SmallString<256> temp;
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(directory_ + "/usage.tmp-%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << usage.bytes << ' ' << usage.countedAt << '\n';
  }
  if (llvm::sys::fs::rename(temp, directory_ + "/usage"))
    (void)llvm::sys::fs::remove(temp);
}

void KernelCache::noteStored(uint64_t bytes) {
  std::optional<Usage> usage = readUsage();
  if (!usage || usage->countedAt + kRecountAfterSeconds < secondsNow() ||
      usage->bytes + bytes > maxBytes_) {
    trim();
    return;
  }
  writeUsage({usage->bytes + bytes, usage->countedAt});
}

unsigned KernelCache::trim() {
  struct File {
    std::string path;
    uint64_t bytes;
    llvm::sys::TimePoint<> modified;
  };
  std::vector<File> files;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory_, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (!llvm::sys::path::filename(it->path()).ends_with(".tkobj") ||
        llvm::sys::fs::status(it->path(), status))
      continue;
    files.push_back({it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes_) {
    writeUsage({total, secondsNow()});
    return 0;
  }
  llvm::sort(files, [](const File &a, const File &b) { return a.modified < b.modified; });
  unsigned removed = 0;
  for (const File &file : files) {
    if (total <= maxBytes_ / 10 * 9)
      break;
    if (llvm::sys::fs::remove(file.path))
      continue;
    total -= file.bytes;
    ++removed;
  }
  evicted_ += removed;
  writeUsage({total, secondsNow()});
  return removed;
}

void KernelCache::reject(llvm::StringRef keyText) {
  ++rejected_;
  (void)llvm::sys::fs::remove(pathFor(keyText));
}

CacheStats KernelCache::stats() const {
  CacheStats stats;
  stats.memoryHits = memoryHits_;
  stats.diskHits = diskHits_;
  stats.misses = misses_;
  stats.stores = stores_;
  stats.rejected = rejected_;
  stats.writeErrors = writeErrors_;
  stats.evicted = evicted_;
  return stats;
}

// The kernel cache stays under its size limit by removing the least recently
// used entries; `entries()` tells whole entries, broken ones and leftovers of
// unfinished writes apart, and ignores files that are not the cache's.
#include "runtime/cache/KernelCache.h"

#include "tests/unit/runtime/cache/CacheTestUtils.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <set>

using namespace tessera::runtime;
using namespace tessera::runtime::cache_testing;

namespace {

std::string keyOf(int i) { return "kernel=k" + std::to_string(i) + "\nstage=test\n"; }

/// Sets the modification time of `path` to `seconds` after the epoch.
void age(const std::string &path, long seconds) {
  timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

uint64_t totalBytes(const KernelCache &cache) {
  uint64_t total = 0;
  for (const CacheEntry &entry : cache.entries())
    total += entry.bytes;
  return total;
}

} // namespace

TEST(KernelCacheTrim, TheLeastRecentlyUsedEntriesGoFirst) {
  TempDir dir;
  std::string payload(1000, 'x');
  // Ten entries of about 1 KB under no limit, aged oldest (0) to newest (9).
  KernelCache filler(dir.str(), true, /*maxBytes=*/1 << 30);
  for (int i = 0; i < 10; ++i) {
    ASSERT_FALSE(static_cast<bool>(filler.store(keyOf(i), payload)));
    age(filler.pathFor(keyOf(i)), 1000000 + i);
  }
  KernelCache cache(dir.str(), true, /*maxBytes=*/5000);
  ASSERT_NE(cache.lookup(keyOf(0)), nullptr); // the oldest, used now
  EXPECT_GE(cache.trim(), 5u);
  EXPECT_LE(totalBytes(cache), 4500u);
  EXPECT_GE(cache.stats().evicted, 5u);
  std::set<std::string> kept;
  for (const CacheEntry &entry : cache.entries())
    kept.insert(entry.kernel);
  EXPECT_TRUE(kept.count("k0")) << "used just now";
  EXPECT_TRUE(kept.count("k9")) << "the newest";
  EXPECT_FALSE(kept.count("k1")) << "the least recently used";
  EXPECT_EQ(cache.lookup(keyOf(1)), nullptr);
  EXPECT_EQ(cache.stats().rejected, 0u) << "evicted entries are misses, not rejections";
}

TEST(KernelCacheTrim, StoresKeepTheDirectoryUnderTheLimit) {
  TempDir dir;
  std::string payload(1000, 'y');
  KernelCache cache(dir.str(), true, /*maxBytes=*/8000);
  for (int i = 0; i < 40; ++i) {
    ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(i), payload)));
    // The limit plus what a tenth of it lets through before the next trim.
    EXPECT_LE(totalBytes(cache), 8000u + 800u + 1100u) << "after store " << i;
  }
  EXPECT_NE(cache.lookup(keyOf(39)), nullptr) << "the last one stored stays";
  EXPECT_GT(cache.stats().evicted, 25u);
}

namespace {
std::string readFile(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  return file ? (*file)->getBuffer().str() : std::string();
}
void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec);
  os << text;
}
uint64_t usageBytes(const std::string &dir) {
  uint64_t bytes = 0;
  EXPECT_FALSE(llvm::StringRef(readFile(dir + "/usage")).split(' ').first.getAsInteger(10, bytes));
  return bytes;
}
} // namespace

TEST(KernelCacheTrim, StoresKeepACountInsteadOfListingTheDirectory) {
  TempDir dir;
  std::string usage = dir.str() + "/usage";
  std::string payload(1000, 'z');
  KernelCache cache(dir.str(), true, /*maxBytes=*/1 << 20);
  // No count yet: the store counts the directory.
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(0), payload)));
  uint64_t entry = totalBytes(cache);
  EXPECT_EQ(usageBytes(dir.str()), entry);
  // A fresh count is added to, not recounted: another process's 100 bytes stay.
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  writeFile(usage, "100 " + std::to_string(now) + "\n");
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(1), payload)));
  EXPECT_EQ(usageBytes(dir.str()), 100 + entry);
  // A day-old count, or a garbled one, is counted again.
  writeFile(usage, "100 " + std::to_string(now - 2 * 24 * 3600) + "\n");
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(2), payload)));
  EXPECT_EQ(usageBytes(dir.str()), 3 * entry);
  writeFile(usage, "a lot\n");
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(3), payload)));
  EXPECT_EQ(usageBytes(dir.str()), 4 * entry);
  // A count past the limit trims.
  writeFile(usage, std::to_string(1 << 20) + " " + std::to_string(now) + "\n");
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(4), payload)));
  EXPECT_EQ(usageBytes(dir.str()), 5 * entry) << "counted again, under the limit: nothing removed";
  EXPECT_EQ(cache.stats().evicted, 0u);
  EXPECT_EQ(cache.entries().size(), 5u) << "the count is not an entry";
}

TEST(KernelCacheEntries, WholeBrokenAndTemporaryFilesAreToldApart) {
  TempDir dir;
  KernelCache cache(dir.str());
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(1), "payload one")));
  ASSERT_FALSE(static_cast<bool>(cache.store(keyOf(2), "payload two")));
  auto write = [&](llvm::StringRef name, llvm::StringRef bytes) {
    llvm::SmallString<128> path(dir.path);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  };
  // Entry 2's bytes under another name: whole header, wrong file name.
  auto bytes = llvm::MemoryBuffer::getFile(cache.pathFor(keyOf(2)));
  ASSERT_TRUE(static_cast<bool>(bytes));
  write(std::string(64, 'a') + ".tkobj", (*bytes)->getBuffer());
  write(std::string(64, 'b') + ".tkobj", "TESSKOBJ garbage");
  write(std::string(64, 'c') + ".tkobj.tmp-12345678", "half an entry");
  write("notes.txt", "the user's own file");

  unsigned whole = 0, broken = 0, temporary = 0;
  std::set<std::string> kernels;
  for (const CacheEntry &entry : cache.entries()) {
    EXPECT_NE(llvm::sys::path::filename(entry.path), "notes.txt");
    EXPECT_GT(entry.bytes, 0u);
    if (entry.temporary)
      ++temporary;
    else if (entry.whole)
      ++whole, kernels.insert(entry.kernel);
    else
      ++broken;
  }
  EXPECT_EQ(whole, 2u);
  EXPECT_EQ(broken, 2u);
  EXPECT_EQ(temporary, 1u);
  EXPECT_EQ(kernels, (std::set<std::string>{"k1", "k2"}));
}

TEST(KernelCacheTrim, TheLimitComesFromTheEnvironment) {
  const char *saved = std::getenv("TESSERA_CACHE_MAX_MB");
  std::string previous = saved ? saved : "";
  setenv("TESSERA_CACHE_MAX_MB", "64", 1);
  EXPECT_EQ(KernelCache::defaultMaxBytes(), 64u << 20);
  setenv("TESSERA_CACHE_MAX_MB", "lots", 1);
  EXPECT_EQ(KernelCache::defaultMaxBytes(), 1024u << 20);
  unsetenv("TESSERA_CACHE_MAX_MB");
  EXPECT_EQ(KernelCache::defaultMaxBytes(), 1024u << 20);
  if (saved)
    setenv("TESSERA_CACHE_MAX_MB", previous.c_str(), 1);
}

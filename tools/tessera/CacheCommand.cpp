// `tessera cache`: what the on-disk kernel cache holds (runtime/cache), its
// broken entries removed, or all of it cleared. Only the cache's own files
// (`*.tkobj` and the temporary files of its writes) are ever touched.
#include "tools/tessera/Commands.h"

#include "runtime/cache/KernelCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using tessera::runtime::CacheEntry;
using tessera::runtime::KernelCache;

namespace {

constexpr const char *kUsage =
    "usage: tessera cache [info|list|verify|clear] [--kind cpu|gpu|tuning]\n"
    "  info    each cache's directory, entries and size (the default)\n"
    "  list    every entry: its kernel, size and file\n"
    "  verify  check every entry as a lookup would; remove the broken ones\n"
    "  clear   remove every entry (other files in the directories stay)\n"
    "The directories: $TESSERA_CACHE_DIR/{cpu,gpu,tuning} (kernels and autotuning records),\n"
    "else $XDG_CACHE_HOME/tessera/..., else\n"
    "~/.cache/tessera/...; TESSERA_CACHE=0 turns the caches off; each keeps its least\n"
    "recently used entries removed beyond $TESSERA_CACHE_MAX_MB megabytes (default 1024).\n";

// The caches' folders: compiled kernels for the CPU and GPUs, autotuning records.
constexpr llvm::StringLiteral kKinds[] = {"cpu", "gpu", "tuning"};

std::string megabytes(uint64_t bytes) {
  return llvm::formatv("{0:F1} MB", double(bytes) / (1024.0 * 1024.0)).str();
}

struct Tally {
  unsigned whole = 0, broken = 0, temporary = 0;
  uint64_t bytes = 0;
};

Tally tally(const std::vector<CacheEntry> &entries) {
  Tally t;
  for (const CacheEntry &entry : entries) {
    t.bytes += entry.bytes;
    (entry.temporary ? t.temporary : entry.whole ? t.whole : t.broken) += 1;
  }
  return t;
}

/// Removes `entries` where `which` says so; the count removed, errors
/// reported on stderr.
unsigned removeEntries(const std::vector<CacheEntry> &entries,
                       bool (*which)(const CacheEntry &)) {
  unsigned removed = 0;
  for (const CacheEntry &entry : entries) {
    if (!which(entry))
      continue;
    if (std::error_code ec = llvm::sys::fs::remove(entry.path))
      llvm::errs() << "tessera cache: cannot remove " << entry.path << ": " << ec.message()
                   << "\n";
    else
      ++removed;
  }
  return removed;
}

} // namespace

int tessera::cli::runCache(llvm::ArrayRef<llvm::StringRef> args) {
  llvm::StringRef action = "info";
  std::vector<llvm::StringRef> kinds(std::begin(kKinds), std::end(kKinds));
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg == "-h" || arg == "--help") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (arg == "--kind" && i + 1 < args.size() &&
        llvm::is_contained(kKinds, args[i + 1])) {
      kinds = {args[++i]};
    } else if (arg == "info" || arg == "list" || arg == "verify" || arg == "clear") {
      action = arg;
    } else {
      llvm::errs() << "tessera cache: unexpected argument '" << arg << "'\n" << kUsage;
      return 2;
    }
  }

  for (llvm::StringRef kind : kinds) {
    std::string directory = KernelCache::defaultDirectory(kind);
    std::vector<CacheEntry> entries = KernelCache(directory).entries();
    Tally before = tally(entries);
    llvm::outs() << kind << ": " << directory << ": ";
    if (action == "info" || action == "list") {
      llvm::outs() << before.whole + before.broken << " entries, " << megabytes(before.bytes)
                   << " (kept under " << megabytes(KernelCache::defaultMaxBytes()) << ")";
      if (before.broken)
        llvm::outs() << ", " << before.broken << " broken (`tessera cache verify` removes them)";
      if (before.temporary)
        llvm::outs() << ", " << before.temporary << " temporary files of unfinished writes";
      if (!KernelCache::enabledByEnvironment())
        llvm::outs() << " (off: TESSERA_CACHE=" << std::getenv("TESSERA_CACHE") << ")";
      llvm::outs() << "\n";
      if (action == "list")
        for (const CacheEntry &entry : entries)
          llvm::outs() << llvm::formatv("  {0,-28} {1,10} B  {2}\n",
                                        entry.temporary ? "(temporary)"
                                        : entry.whole   ? entry.kernel
                                                        : "(broken)",
                                        entry.bytes, entry.path);
    } else if (action == "verify") {
      unsigned removed =
          removeEntries(entries, [](const CacheEntry &e) { return !e.whole && !e.temporary; });
      llvm::outs() << before.whole << " entries whole, " << removed << " broken removed\n";
    } else {
      unsigned removed = removeEntries(entries, [](const CacheEntry &) { return true; });
      llvm::outs() << "removed " << removed << " files (" << megabytes(before.bytes) << ")\n";
    }
  }
  return 0;
}

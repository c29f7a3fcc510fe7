// The on-disk cache of compiled kernels, shared by the CPU runtime (object
// files) and the GPU compilers (cubin, HSACO, SPIR-V with their launch facts).
//
// An entry is one file, `<dir>/<digest>.tkobj`, where digest is the SHA-256 of
// the key's canonical text (what a kernel depends on, one `name=value` per
// line; runtime/cpu/CacheKey.h and GpuKernelCache.h make them). The file holds
// a header (magic, format version, the full key text, payload size, xxh3-64
// checksum of the payload) followed by the payload. A lookup re-reads and
// checks all of it: an entry whose key differs, whose size is wrong
// (truncated) or whose checksum fails (flipped bytes) is removed and reported
// as a miss, never trusted. Writes go to a unique temporary file renamed into
// place, so readers see whole entries only.
#ifndef TESSERA_RUNTIME_CACHE_KERNELCACHE_H
#define TESSERA_RUNTIME_CACHE_KERNELCACHE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::runtime {

struct CacheStats {
  uint64_t memoryHits = 0;  ///< Compiles answered by an in-memory cache.
  uint64_t diskHits = 0;    ///< Compiles answered by a valid disk entry.
  uint64_t misses = 0;      ///< Compiles that ran the compiler.
  uint64_t stores = 0;      ///< Entries written.
  uint64_t rejected = 0;    ///< Entries found corrupt or mismatched and removed.
  uint64_t writeErrors = 0; ///< Entries that could not be written (compile still succeeds).
  uint64_t evicted = 0;     ///< Least recently used entries removed to keep under the limit.
};

/// An entry file as `tessera cache` shows it, or a temporary file a writer
/// left (a crash between its write and its rename).
struct CacheEntry {
  std::string path;
  uint64_t bytes = 0;
  /// The kernel its key names ("" where the header is not whole).
  std::string kernel;
  /// The checks of a lookup but the caller's key: header, sizes, checksum,
  /// and the file named for the digest of the key it holds.
  bool whole = false;
  bool temporary = false;
};

class KernelCache {
public:
  /// A disabled cache never touches the disk (lookups miss, stores do
  /// nothing) but still counts. Its entries are kept under `maxBytes`: a
  /// store that takes the directory's size past it removes the least
  /// recently used entries (a hit renews an entry's modification time) until
  /// a tenth is free again. The size is the last trim's count of the
  /// directory plus what stores added since, kept in `<dir>/usage`, so that
  /// a store does not list the directory; a missing or garbled file, or one
  /// whose count is a day old, makes the store count afresh.
  explicit KernelCache(std::string directory, bool enabled = true,
                       uint64_t maxBytes = defaultMaxBytes());

  /// The `kind` subfolder ("cpu", "gpu") of $TESSERA_CACHE_DIR, else of
  /// $XDG_CACHE_HOME/tessera, else of ~/.cache/tessera.
  static std::string defaultDirectory(llvm::StringRef kind);
  /// False when $TESSERA_CACHE is "0" or "off": no disk cache at all.
  static bool enabledByEnvironment();
  /// $TESSERA_CACHE_MAX_MB megabytes where it is a positive integer, else 1 GiB.
  static uint64_t defaultMaxBytes();

  const std::string &directory() const { return directory_; }
  bool enabled() const { return enabled_; }
  uint64_t maxBytes() const { return maxBytes_; }
  std::string pathFor(llvm::StringRef keyText) const;

  /// The payload of a valid entry for `keyText`, or null (absent,
  /// unreadable, or rejected and removed).
  std::unique_ptr<llvm::MemoryBuffer> lookup(llvm::StringRef keyText);
  /// Writes the entry atomically.
  llvm::Error store(llvm::StringRef keyText, llvm::StringRef payload);
  /// Removes an entry whose payload passed the checks but that its user
  /// cannot take (an object the JIT cannot link, a payload that does not
  /// decode), counting it as rejected.
  void reject(llvm::StringRef keyText);

  /// The directory's entry and temporary files, by path (none where it
  /// does not exist). Other files are not the cache's and are left out.
  std::vector<CacheEntry> entries() const;
  /// Removes the least recently modified entries until they take at most
  /// nine tenths of maxBytes(), and records what is left in `<dir>/usage`;
  /// the number removed.
  unsigned trim();

  void noteMemoryHit() { ++memoryHits_; }
  void noteMiss() { ++misses_; }
  CacheStats stats() const;

private:
  std::string directory_;
  bool enabled_;
  uint64_t maxBytes_;
  std::atomic<uint64_t> memoryHits_{0}, diskHits_{0}, misses_{0}, stores_{0}, rejected_{0},
      writeErrors_{0}, evicted_{0};

  /// `<dir>/usage`: the directory's bytes and when a trim last counted them.
  struct Usage {
    uint64_t bytes = 0;
    int64_t countedAt = 0; ///< Seconds since the epoch.
  };
  std::optional<Usage> readUsage() const;
  void writeUsage(const Usage &usage) const;
  /// Adds a stored entry's `bytes` to the usage, trimming where it passes
  /// the limit or is not known.
  void noteStored(uint64_t bytes);
};

/// The process's store of autotuning records (the Python autotuner's
/// `cache_results`): KernelCache::defaultDirectory("tuning"), off where
/// $TESSERA_CACHE says so. A record is a small JSON payload keyed by what its
/// timings depend on; the entry format's checks apply to it as to kernels.
KernelCache &tuningRecordCache();

/// This build's Tessera version (the project version, `+`, a hash of the
/// code generator's sources) and LLVM version: part of every key.
llvm::StringRef tesseraVersion();
llvm::StringRef llvmVersion();

/// SHA-256 of `text`, in lowercase hex.
std::string sha256Hex(llvm::StringRef text);

/// The text of `module` that a key hashes: printed with its locations,
/// which assert messages and debug info carry.
std::string keyedModuleText(mlir::ModuleOp module);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_CACHE_KERNELCACHE_H

// The on-disk cache of compiled CPU kernels (object files).
//
// An entry is one file, `<dir>/<digest>.tkobj`, where digest is the SHA-256 of
// the key's canonical text. The file holds a header (magic, format version,
// the full key text, payload size, xxh3-64 checksum of the payload) followed
// by the payload. A lookup re-reads and checks all of it: an entry whose key
// differs, whose size is wrong (truncated) or whose checksum fails (flipped
// bytes) is removed and reported as a miss, never trusted. Writes go to a
// unique temporary file renamed into place, so readers see whole entries only.
#ifndef TESSERA_RUNTIME_CPU_KERNELCACHE_H
#define TESSERA_RUNTIME_CPU_KERNELCACHE_H

#include "runtime/cpu/CpuCompiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera::runtime::cpu {

/// Everything a compiled kernel depends on. `source` is the IR text the
/// kernel was compiled from (the lowered LLVM-dialect module, or the tile
/// module when the runtime lowers it itself); only its SHA-256 is kept.
struct CacheKey {
  std::string kernel;
  std::string stage;       ///< What `source` is: "llvm" (lowered) or "tile".
  std::string sourceHash;  ///< SHA-256 (hex) of the source IR text.
  std::string triple, cpu, features;
  unsigned vectorBits = 0;
  unsigned optLevel = 3;
  std::string tesseraVersion;
  std::string llvmVersion;
  std::string extra;       ///< Anything else a caller wants keyed (signature, ...).

  /// A key for `sourceText`, with this build's Tessera and LLVM versions.
  static CacheKey make(llvm::StringRef sourceText, llvm::StringRef stage, llvm::StringRef kernel,
                       const CompilerOptions &options, llvm::StringRef extra = "");

  /// `name=value` lines, in a fixed order: what the header stores and the
  /// digest hashes.
  std::string canonicalText() const;
  /// SHA-256 (hex) of canonicalText(): the entry's file name.
  std::string digest() const;
};

struct CacheStats {
  uint64_t memoryHits = 0;  ///< Compiles answered by a device's in-memory cache.
  uint64_t diskHits = 0;    ///< Compiles answered by a valid disk entry.
  uint64_t misses = 0;      ///< Compiles that ran the compiler.
  uint64_t stores = 0;      ///< Entries written.
  uint64_t rejected = 0;    ///< Entries found corrupt or mismatched and removed.
  uint64_t writeErrors = 0; ///< Entries that could not be written (compile still succeeds).
};

class KernelCache {
public:
  /// `directory` empty: defaultDirectory(). A disabled cache never touches
  /// the disk (lookups miss, stores do nothing) but still counts.
  explicit KernelCache(std::string directory = "", bool enabled = true);

  /// $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera
  /// (a `cpu` subfolder of it holds the CPU entries).
  static std::string defaultDirectory();

  const std::string &directory() const { return directory_; }
  bool enabled() const { return enabled_; }
  std::string pathFor(const CacheKey &key) const;

  /// The payload of a valid entry for `key`, or null (absent, unreadable, or
  /// rejected and removed).
  std::unique_ptr<llvm::MemoryBuffer> lookup(const CacheKey &key);
  /// Writes the entry atomically.
  llvm::Error store(const CacheKey &key, llvm::StringRef payload);

  void noteMemoryHit() { ++memoryHits_; }
  void noteMiss() { ++misses_; }
  CacheStats stats() const;

private:
  std::string directory_;
  bool enabled_;
  std::atomic<uint64_t> memoryHits_{0}, diskHits_{0}, misses_{0}, stores_{0}, rejected_{0},
      writeErrors_{0};
};

/// This build's Tessera version (the project version) and LLVM version.
llvm::StringRef tesseraVersion();
llvm::StringRef llvmVersion();

} // namespace tessera::runtime::cpu

#endif // TESSERA_RUNTIME_CPU_KERNELCACHE_H

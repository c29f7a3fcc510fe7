// What a compiled CPU kernel depends on: the key of its entry in the kernel
// cache (runtime/cache/KernelCache.h).
#ifndef TESSERA_RUNTIME_CPU_CACHEKEY_H
#define TESSERA_RUNTIME_CPU_CACHEKEY_H

#include "runtime/cpu/CpuCompiler.h"

#include "llvm/ADT/StringRef.h"

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

  /// `name=value` lines, in a fixed order: what the entry's header stores
  /// and its file name hashes.
  std::string canonicalText() const;
  /// SHA-256 (hex) of canonicalText().
  std::string digest() const;
};

} // namespace tessera::runtime::cpu

#endif // TESSERA_RUNTIME_CPU_CACHEKEY_H

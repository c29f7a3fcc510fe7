// The CPU machine code is generated for. The code generator sizes vectors and
// micro-kernels by it; the runtime compiles with it and keys its cache on it.
#ifndef TESSERA_LOWERING_CPU_CPUTARGET_H
#define TESSERA_LOWERING_CPU_CPUTARGET_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tessera::cpu {

/// An LLVM target triple, CPU name and feature string (`+avx2,+fma,...`),
/// and the width of the vector registers in bits.
struct CpuTarget {
  std::string triple, cpu, features;
  unsigned vectorBits = 128;

  /// The machine this process runs on, as LLVM detects it, with the features
  /// sorted so that the description (part of cache keys) is deterministic.
  static CpuTarget host();
  /// 512 with AVX-512, 256 with AVX or AVX2 (which implies it), else 128.
  static unsigned vectorBitsFor(llvm::StringRef features);
  /// `triple=..., cpu=..., features=..., vector-bits=...`.
  std::string str() const;
  bool operator==(const CpuTarget &) const = default;
};

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_CPUTARGET_H

// The passes of the CPU code generator (lowering/cpu/Passes.td).
#ifndef TESSERA_LOWERING_CPU_PASSES_H
#define TESSERA_LOWERING_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::cpu {

/// Attribute that marks the func.func of a kernel after tile-cpu-prepare-kernels.
inline constexpr llvm::StringLiteral kKernelAttr = "tessera.kernel";
/// Number of grid arguments appended to every kernel (pid x/y/z, num x/y/z).
inline constexpr unsigned kNumGridArgs = 6;

#define GEN_PASS_DECL
#include "lowering/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/cpu/Passes.h.inc"

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_PASSES_H

// Integer values seen as a variable plus a constant term (`x + c` in
// arith.addi): the distribution moves such terms outward (DistributeToThreads)
// and compares offsets that differ by them (TensorMapStores).
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_CONSTANTTERMS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_CONSTANTTERMS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/APInt.h"

#include <optional>
#include <utility>

namespace tessera::gpu {

/// The value of an integer constant, else nullopt.
std::optional<llvm::APInt> constantOf(mlir::Value value);

/// `value` as a variable plus a constant term: (x, c) for `x + c` or
/// `c + x`, else (value, nullopt).
std::pair<mlir::Value, std::optional<llvm::APInt>> splitConstantTerm(mlir::Value value);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_CONSTANTTERMS_H

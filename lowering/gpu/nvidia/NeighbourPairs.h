// Scalar conversions of a distributed kernel paired with their neighbours, for
// the PTX instructions that convert two values at once.
#ifndef TESSERA_LOWERING_GPU_NVIDIA_NEIGHBOURPAIRS_H
#define TESSERA_LOWERING_GPU_NVIDIA_NEIGHBOURPAIRS_H

#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessera::gpu {

/// Calls `lower(first, second)` for each op under `root` that `pairingType`
/// gives a type, paired with the next op of its block of the same name and
/// type whose first operand is available at it (a tile's registers are
/// converted in order, neighbours one after the other); `lower(op, nullptr)`
/// for an op left without a partner. `lower` replaces and erases both.
void lowerInNeighbourPairs(mlir::Operation *root,
                           llvm::function_ref<mlir::Type(mlir::Operation *)> pairingType,
                           llvm::function_ref<void(mlir::Operation *, mlir::Operation *)> lower);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_NEIGHBOURPAIRS_H

// Helpers shared by the lowerings of tile.reduce and tile.scan.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_REDUCTIONS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_REDUCTIONS_H

#include "lowering/gpu/LinearLayout.h"
#include "lowering/gpu/distribute/SharedMemory.h"

#include "mlir/IR/Builders.h"

namespace tessera::gpu {

/// Reductions and scans need each basis of the operand layout to move along
/// the axis only or not at all; an error at `op` otherwise.
mlir::LogicalResult checkAxisBases(mlir::Operation *op, const LinearLayout &layout, unsigned axis);

/// One workgroup buffer of `elements` per operand of `srcs`, in the memory
/// type of its registers.
llvm::SmallVector<SharedMemory::BufferRequest> bufferPerOperand(mlir::ValueRange srcs,
                                                               int64_t elements);

/// `value` from lane `lane ^ mask` of a warp of `width` lanes, for any scalar
/// type (moved as one or two 32-bit words).
mlir::Value shuffleXor(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                       unsigned mask, unsigned width);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_REDUCTIONS_H

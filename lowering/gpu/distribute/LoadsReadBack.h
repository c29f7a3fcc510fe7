// Which loads of a loop body may be copied into shared memory ahead of their
// iteration and read back into registers in it (docs/gpu-backends.md, "Loads
// read back"), decided on the tile IR: tile-gpu-distribute reads them back,
// and tile-gpu-prefetch-loads leaves them to it.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_LOADSREADBACK_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_LOADSREADBACK_H

#include "ir/TileDialect.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/distribute/Pipeline.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessera::gpu {

/// Whether `mode` reads any load back on `target`: `always` everywhere,
/// `cp-async` where the target has cp.async.
bool readsLoadsBack(const GpuTarget &target, ReadBackLoads mode);

/// True for a splat of +0 (what cp.async's zero fill writes).
bool isPositiveZero(mlir::Value value);

/// Whether elements a pointer or descriptor load does not read are zero: its
/// `other` or its descriptor's padding.
bool fillsWithZero(mlir::Operation *load);

/// Whether `load`'s elements can go through shared memory and back as they
/// are: it is not volatile, something reads it, elements it does not read
/// are zero (what cp.async fills) and its element type is its memory type
/// (no i1 or pointer widening).
bool canReadBack(tile::LoadOp load);

/// The kernel argument that every pointer in `pointer` points into, followed
/// through the ops that offset, splat and reshape pointer tiles, selects and
/// branches between them and the iteration arguments of loops; null where
/// that is not one argument.
mlir::Value pointerArgument(mlir::Value pointer);

/// The kernel arguments that `body` (its nested regions included) writes
/// through: stores and atomics, each through pointers into one argument
/// (pointerArgument). Prints, assertions and promises write nothing a load
/// reads. Nullopt where some other write, or a write through pointers into
/// no single argument, is there.
std::optional<llvm::SmallPtrSet<mlir::Value, 2>> writtenArguments(mlir::Block *body);

/// The loads among `body`'s own ops (not nested) that may be read back:
/// canReadBack, and each through pointers into a kernel argument that the
/// body does not write, so that copied ahead it passes no write of an
/// earlier iteration. None where the body writes where that cannot be told.
llvm::SmallVector<tile::LoadOp> loadsReadBack(mlir::Block *body);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_LOADSREADBACK_H

// Tensor-descriptor stores written by the tensor memory accelerator (TMA,
// sm_90a), as Triton writes a GEMM's epilogue.
//
// With KernelLowering::tensorMaps, a 2-D block stored through a descriptor
// that has a tensor map (hasTensorMap) goes into shared memory as panels of
// 32, 64 or 128 bytes of each row, swizzled as TMA reads them (the layout
// wgmma reads, swizzledPanelIndex), with stmatrix where the block's layout
// holds its fragments (a tensor-core accumulator does). After a fence for
// the async proxy and a barrier, one `cp.async.bulk.tensor` per panel (the
// panels spread over the warps) copies the buffer to global memory, and TMA
// drops what lies outside the shape, as the element-wise lowering's masks
// do, but only in whole 16-byte chunks of a row: a descriptor whose last
// extent is not proved to fill them (by the extent's divisibility, as a
// signature's `tensordesc<...>:16` gives it) is stored element-wise. A
// block that does not fit in the shared memory left goes out a few panels
// at a time through one buffer (TensorStorePlan). The block is written
// from the layout it has: a layout conversion whose only user is such a
// store (the blocked layout that coalesces global stores) is not lowered,
// which saves the conversion's round trip through shared memory.
//
// The copies' reads of the buffer are waited for before the barrier that
// ends the store (its shared memory is free for the next user), but in the
// body of a software-pipelined loop (a persistent GEMM's epilogue), which
// reserves its stores' buffers beside its rings: there a run of a store
// waits for the copies of the run before to have read the buffer before it
// writes it, and the loop for the last run's after its end (Triton's
// pipelined TMA stores), so that one tile's copies read while the next
// tile's dots run. The copies' writes to global memory are waited for
// where their reads are only where another op may read or write through
// the same kernel argument (arguments are taken not to overlap, as for
// Triton's descriptors), or where inline assembly or a library call with
// effects may: a persistent GEMM's next tiles run while a tile's stores
// drain. Each TMA store first waits for the writes of those before it (a
// loop's previous iteration's), so TMA stores through one argument do not
// need each other waited for.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPSTORES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPSTORES_H

#include "lowering/gpu/distribute/KernelLowering.h"

#include <optional>

namespace tessera::gpu {

/// How TMA stores a block: its panels (the block's rows as lines, the
/// widest swizzle (128, 64 or 32 bytes) that divides a row), written into
/// one shared buffer and copied `piecePanels` at a time: all of them where
/// the shared memory left holds the block, else half, a quarter... (each
/// register's panel must then be the same in every thread).
struct TensorStorePlan {
  SwizzledPanels panels;
  int64_t piecePanels = 0;
};

/// The panels TMA would store `store`'s block as, whatever shared memory is
/// left; nullopt where TMA cannot write it: without k.tensorMaps, a block
/// not of rank 2 or of more than 256 rows, of elements that are not 1 to 8
/// whole bytes, or with rows of less than 32 bytes, a descriptor without a
/// tensor map or whose last extent may end inside a 16-byte chunk.
std::optional<SwizzledPanels> tensorStorePanels(KernelLowering &k,
                                                tile::DescriptorStoreOp store);

/// How TMA stores `store`'s block: tensorStorePanels, in the pieces the
/// shared memory left holds; nullopt where the store stays element-wise
/// (no panels, or too little shared memory for one).
std::optional<TensorStorePlan> planTensorStore(KernelLowering &k,
                                               tile::DescriptorStoreOp store);

/// Reserves the buffers of the TMA stores in `loop`'s body (those
/// tensorStorePanels accepts) for the loop, where all of them fit, each in
/// the pieces it would take as a user of its own, beside `otherUserBytes` of
/// the body's other users of shared memory: from then on planTensorStore
/// gives those pieces and storeWithTensorMap writes the reserved buffer.
/// Call right after the loop's own reservations.
mlir::LogicalResult reserveTensorStoreBuffers(KernelLowering &k, mlir::scf::ForOp loop,
                                              int64_t otherUserBytes);

/// After `loop`, before the barrier that precedes the release of its
/// reservations: waits for the copies of reserved store buffers to have read
/// them, and forgets the reservations.
void releaseTensorStoreBuffers(KernelLowering &k, mlir::scf::ForOp loop,
                               mlir::OpBuilder &builder, mlir::Location loc);

/// Moves each layout conversion whose only user is a descriptor store in its
/// block to just before the store, so that the store's descriptor (made
/// anywhere before the store) is known when the conversion is lowered.
void placeConversionsAtTheirStores(tile::FuncOp kernel);

/// The descriptor store that is `convert`'s only user, storing its result,
/// where TMA could write it (tensorStorePanels); null otherwise.
tile::DescriptorStoreOp tensorStoreOf(KernelLowering &k, ConvertLayoutOp convert);

/// Whether `convert` only brings a block that a TMA store writes into the
/// store's layout: it is not lowered, the store writes its source.
bool convertsForTensorStore(KernelLowering &k, ConvertLayoutOp convert);

/// Lowers `store` as `plan` (planTensorStore) says.
mlir::LogicalResult storeWithTensorMap(KernelLowering &k, tile::DescriptorStoreOp store,
                                       const TensorStorePlan &plan, mlir::OpBuilder &builder);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPSTORES_H

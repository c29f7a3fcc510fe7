// Rewrites a kernel to the layouts LayoutPropagation chose: fixed tiles get
// their layouts in place, every operand is handed its demanded layout, by
// recomputing on-demand tiles in it (cloning their producers, memoized per
// value and layout) or by a tgpu.convert_layout of a fixed tile (one per
// value and layout, placed right after the value is defined).
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_REMATERIALIZE_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_REMATERIALIZE_H

#include "lowering/gpu/distribute/LayoutPropagation.h"

namespace tessera::gpu {

/// Applies `assignment` to `kernel`, then folds chains of conversions and
/// conversions to the same layout and erases what is left unused.
void applyLayouts(tile::FuncOp kernel, const LayoutAssignment &assignment,
                  OnDemandTiles &onDemand);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_REMATERIALIZE_H

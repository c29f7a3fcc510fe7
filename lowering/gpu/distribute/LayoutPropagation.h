// Which layout each tile of a kernel gets, and in which layout each op needs
// each tile operand (docs/gpu-backends.md, "Layouts"). An analysis only: the
// IR is rewritten by Rematerialize.h.
//
// Tiles fall into two kinds:
//  * fixed: computed once, in one layout (anchors, elementwise ops on fixed
//    tiles, shape ops other than broadcast on fixed tiles, loop-carried tiles
//    and the results of scf ops);
//  * on demand: computed again in every layout a user asks for. These are the
//    cheap tiles (made only of make_range, splat, constants, loads that are
//    only broadcast, and elementwise or shape ops on those) and broadcasts
//    (with the shape ops above them), whose operand is fetched in the layout
//    that makes the broadcast a renaming.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTPROPAGATION_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTPROPAGATION_H

#include "lowering/gpu/distribute/LayoutAnchors.h"

#include "llvm/ADT/DenseMap.h"

namespace tessera::gpu {

/// True for the ops that apply one function to each element: every tensor
/// operand and result has one shape (arith, math, tile.clamp, precise_*,
/// addptr, pointer casts, extern_elementwise).
bool isElementwise(mlir::Operation *op);

/// Classifies tiles as on demand (see above), with memoization.
class OnDemandTiles {
public:
  /// Made only of make_range, splat, dense constants, broadcast-only loads,
  /// and pure elementwise or shape ops on such tiles.
  bool isCheap(mlir::Value value);
  /// Cheap, a broadcast, or an expand_dims/reshape/trans of an on-demand tile.
  bool isOnDemand(mlir::Value value);

private:
  /// A non-volatile tile.load whose result reaches only broadcasts (through
  /// pure elementwise and shape ops): a bias or a row of weights, which each
  /// thread reads in the layout of the tile it is broadcast over instead of
  /// receiving it through shared memory. Its clone stays where the load is.
  bool isBroadcastOnlyLoad(mlir::Operation *op);
  bool feedsOnlyBroadcasts(mlir::Value value);

  llvm::DenseMap<mlir::Value, bool> cheap, onDemand, broadcastOnly;
};

/// The result of the assignment.
struct LayoutAssignment {
  /// The layout of every fixed tile (op results and block arguments).
  llvm::DenseMap<mlir::Value, LinearLayout> fixed;
  /// The layout each tile operand must be given in; absent for operands of
  /// on-demand ops, which are rebuilt with their operands.
  llvm::DenseMap<mlir::OpOperand *, LinearLayout> demands;
};

/// Assigns the layouts of `kernel`. Fails (with an error at the op naming the
/// target) on ops it cannot place.
mlir::FailureOr<LayoutAssignment> propagateLayouts(tile::FuncOp kernel, LayoutAnchors &anchors,
                                                   OnDemandTiles &onDemand);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTPROPAGATION_H

// tile-merge-scalars: one value for each scalar expression a kernel spells
// more than once (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEMERGESCALARS
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;

namespace {

/// Ops equal in name, attributes, operands and result types.
struct EquivalentOps : DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue, OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() || rhs == getEmptyKey() ||
        rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(const_cast<Operation *>(lhs),
                                                const_cast<Operation *>(rhs),
                                                OperationEquivalence::IgnoreLocations);
  }
};

using Seen = llvm::DenseMap<Operation *, Operation *, EquivalentOps>;

/// A pure op without regions whose results are all scalars: merging two
/// such ops gives no tile two users that want it in different layouts.
bool isScalarExpression(Operation &op) {
  return op.getNumRegions() == 0 && op.getNumResults() > 0 && isMemoryEffectFree(&op) &&
         llvm::none_of(op.getResultTypes(), [](Type type) { return isa<ShapedType>(type); });
}

/// Merges the scalar expressions of `block` into the equal ones before them
/// there or in the blocks around it (`seen`, which dominate it).
void mergeScalars(Block &block, Seen seen) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isScalarExpression(op)) {
      auto [it, inserted] = seen.try_emplace(&op, &op);
      if (!inserted) {
        op.replaceAllUsesWith(it->second);
        op.erase();
      }
      continue;
    }
    // Control flow reads the values around it; a combining region (of
    // tile.reduce or tile.scan) starts afresh, so that its lowering finds in
    // it what it wrote there.
    bool controlFlow = isa<RegionBranchOpInterface>(op);
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        mergeScalars(nested, controlFlow ? seen : Seen());
  }
}

struct MergeScalars : tessera::tile::impl::TileMergeScalarsBase<MergeScalars> {
  void runOnOperation() override {
    getOperation()->walk([](tessera::tile::FuncOp func) {
      for (Block &block : func.getBody())
        mergeScalars(block, Seen());
    });
  }
};

} // namespace

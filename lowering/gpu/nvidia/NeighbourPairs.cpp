#include "lowering/gpu/nvidia/NeighbourPairs.h"

#include "mlir/IR/Dominance.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;

void tessera::gpu::lowerInNeighbourPairs(
    Operation *root, llvm::function_ref<Type(Operation *)> pairingType,
    llvm::function_ref<void(Operation *, Operation *)> lower) {
  DominanceInfo dominance(root);
  SmallVector<Block *> blocks;
  root->walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    // The unpaired op of each name and type, awaiting a partner.
    llvm::MapVector<std::pair<OperationName, Type>, Operation *> waiting;
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      Type type = pairingType(&op);
      if (!type)
        continue;
      Operation *&partner = waiting[{op.getName(), type}];
      if (!partner) {
        partner = &op;
        continue;
      }
      if (dominance.properlyDominates(op.getOperand(0), partner)) {
        lower(partner, &op);
        partner = nullptr;
        continue;
      }
      lower(partner, nullptr);
      partner = &op;
    }
    for (auto &[kind, op] : waiting)
      if (op)
        lower(op, nullptr);
  }
}

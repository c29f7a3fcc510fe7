// tile-gpu-issue-loads-early: a load that does not depend on a reduction,
// scan or dot written above it is issued before them, so that its memory
// latency overlaps theirs (docs/gpu-backends.md, "Loads issued early").
//
// The distribution lowers those ops with barriers and shared memory, and
// neither LLVM nor ptxas moves a global load across a barrier; at the tile
// level nothing in between writes memory, so the move is the one a
// scheduler would make without the barriers. A load moves with the pure,
// region-free ops of its block that compute its operands, to just after the
// last op it cannot pass: one that defines another of their operands, one
// that may write memory (a store, an atomic, a volatile load, tile.assume, a
// loop or branch holding any of these), or another load (loads keep their
// order).
#include "lowering/gpu/distribute/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUISSUELOADSEARLY
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// Ops the distribution lowers with barriers between the threads.
bool exchangesBetweenThreads(Operation *op) {
  return isa<tile::ReduceOp, tile::ScanOp, tile::DotOp, tile::GatherOp, tile::HistogramOp>(op);
}

bool mayWriteMemory(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return true;
  return llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Write, MemoryEffects::Allocate, MemoryEffects::Free>(
        effect.getEffect());
  });
}

/// The load and the ops of its block that compute its operands and may move
/// with it, in block order.
llvm::SetVector<Operation *> movableSlice(tile::LoadOp load) {
  Block *block = load->getBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist{load};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == block && def->getNumRegions() == 0 &&
          isMemoryEffectFree(def))
        worklist.push_back(def);
    }
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
}

/// The last op above `load` that its slice cannot pass: one defining an
/// operand from outside the slice, one that may write memory, or another
/// load; nullptr for none (the slice can go to the top of the block).
Operation *lastBarrierAbove(tile::LoadOp load, const llvm::SetVector<Operation *> &slice) {
  Operation *fence = nullptr;
  auto raise = [&](Operation *op) {
    if (!fence || fence->isBeforeInBlock(op))
      fence = op;
  };
  for (Operation *op : slice)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == load->getBlock() && !slice.contains(def))
        raise(def);
  // Loads keep their order among themselves.
  for (Operation *op = load->getPrevNode(); op && op != fence; op = op->getPrevNode())
    if (!slice.contains(op) && (isa<tile::LoadOp>(op) || mayWriteMemory(op))) {
      raise(op);
      break;
    }
  return fence;
}

/// Moves `load` and the part of its slice below the barrier up to just
/// after it, if that passes a reduction, scan or dot.
void issueEarly(tile::LoadOp load) {
  llvm::SetVector<Operation *> slice = movableSlice(load);
  Operation *fence = lastBarrierAbove(load, slice);
  bool passesExchange = false;
  for (Operation *op = load->getPrevNode(); op && op != fence; op = op->getPrevNode())
    passesExchange |= !slice.contains(op) && exchangesBetweenThreads(op);
  if (!passesExchange)
    return;
  Operation *after = fence;
  for (Operation *op : slice) {
    if (fence && op->isBeforeInBlock(fence))
      continue;
    if (after)
      op->moveAfter(after);
    else
      op->moveBefore(&load->getBlock()->front());
    after = op;
  }
}

struct IssueLoadsEarly : tessera::gpu::impl::TileGpuIssueLoadsEarlyBase<IssueLoadsEarly> {
  void runOnOperation() override {
    SmallVector<tile::LoadOp> loads;
    getOperation().walk([&](tile::LoadOp load) {
      if (!load.getIsVolatile())
        loads.push_back(load);
    });
    for (tile::LoadOp load : loads)
      issueEarly(load);
  }
};

} // namespace

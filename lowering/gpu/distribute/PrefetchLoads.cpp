// tile-gpu-prefetch-loads: a loop that asks for num_stages >= 2 (Triton's
// `tl.range(..., num_stages=S)`) and has no dot gets each load whose
// pointers, mask and `other` come from the induction variable and values
// defined outside the loop issued one iteration ahead, into a loop-carried
// tile (docs/gpu-backends.md, "Loads prefetched across iterations").
//
// Dot operands are pipelined through shared memory by tile-gpu-distribute;
// other loads, such as a persistent row kernel's rows, would wait for their
// data at the top of every iteration. Issued an iteration ahead, the next
// row is on its way while this one is reduced and stored. As in Triton, the
// loop's own stores do not hold the early loads back: the loop asked for it.
//
// Where tile-gpu-distribute reads loads back (cp.async on sm_80 and later),
// the loads it can read back are left to it: cp.async copies them ahead into
// shared memory, and the loop carries no registers for them.
#include "lowering/gpu/distribute/Passes.h"

#include "ir/TileDialect.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/distribute/LoadsReadBack.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUPREFETCHLOADS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// The ops of the loop's body computing `load`'s operands, in block order,
/// where all of them are pure and region-free and reach nothing of the loop
/// but its induction variable; none otherwise.
std::optional<llvm::SetVector<Operation *>> addressSlice(scf::ForOp loop, tile::LoadOp load) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(load->getOperands());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (value == loop.getInductionVar())
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == body)
        return std::nullopt; // a loop-carried value
      if (loop->isAncestor(arg.getOwner()->getParentOp()))
        return std::nullopt;
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (!loop->isAncestor(def))
      continue; // defined before the loop
    if (def->getBlock() != body || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return std::nullopt;
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
}

struct Prefetched {
  tile::LoadOp load;
  llvm::SetVector<Operation *> slice;
};

/// `load` for the iteration whose induction variable `mapping` gives,
/// predicated on `runs` (that iteration exists).
Value loadFor(OpBuilder &builder, const Prefetched &prefetched, IRMapping &mapping, Value runs) {
  for (Operation *op : prefetched.slice)
    builder.clone(*op, mapping);
  tile::LoadOp load = prefetched.load;
  Location loc = load.getLoc();
  auto pointers = cast<RankedTensorType>(load.getPtr().getType());
  Value mask = tile::SplatOp::create(
      builder, loc, RankedTensorType::get(pointers.getShape(), builder.getI1Type()), runs);
  if (Value own = load.getMask())
    mask = arith::AndIOp::create(builder, loc, mapping.lookupOrDefault(own), mask);
  Value other = load.getOther() ? mapping.lookupOrDefault(load.getOther()) : Value();
  return tile::LoadOp::create(builder, loc, load.getType(), mapping.lookupOrDefault(load.getPtr()),
                              mask, other, load.getCacheAttr(), load.getEvictAttr(),
                              load.getIsVolatileAttr());
}

void prefetch(scf::ForOp loop, ArrayRef<Prefetched> loads) {
  IRRewriter builder(loop.getContext());
  builder.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value lower = loop.getLowerBound(), upper = loop.getUpperBound();
  IRMapping first;
  first.map(loop.getInductionVar(), lower);
  auto below = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value runs = arith::CmpIOp::create(builder, loc, below, lower, upper);
  SmallVector<Value> initial;
  for (const Prefetched &prefetched : loads)
    initial.push_back(loadFor(builder, prefetched, first, runs));

  // The callback may run before the old body moves into the new loop, its
  // ops still reading the old induction variable: both map to the next one.
  Value oldIv = loop.getInductionVar();
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      builder, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &inside, Location, ArrayRef<BlockArgument> carried) {
        scf::ForOp body = cast<scf::ForOp>(carried.front().getOwner()->getParentOp());
        inside.setInsertionPointToStart(body.getBody());
        Value iv = body.getInductionVar();
        Value next = arith::AddIOp::create(inside, loc, iv, body.getStep());
        // Not `next < upper`: next wraps past the type's end in the last
        // iterations of a loop that ends there. Inside the body iv < upper,
        // so upper - iv is exact as an unsigned value, and the next iteration
        // exists when it exceeds the (positive) step.
        Value left = arith::SubIOp::create(inside, loc, body.getUpperBound(), iv);
        Value nextRuns = arith::CmpIOp::create(inside, loc, arith::CmpIPredicate::ugt, left,
                                               body.getStep());
        IRMapping ahead;
        ahead.map(iv, next);
        ahead.map(oldIv, next);
        SmallVector<Value> nextLoads;
        for (auto [prefetched, current] : llvm::zip(loads, carried)) {
          nextLoads.push_back(loadFor(inside, prefetched, ahead, nextRuns));
          prefetched.load->getResult(0).replaceAllUsesWith(current);
        }
        return nextLoads;
      });
  if (failed(grown))
    return;
  for (const Prefetched &prefetched : loads)
    prefetched.load->erase();
}

/// Whether the addresses of `load` read a value that an op of `loop`'s body
/// loads (a gather's indices), followed through the body's ops and the
/// loop's iteration arguments: the distribution pipelines no load of such a
/// loop.
bool addressesReadLoadedValues(scf::ForOp loop, tile::LoadOp load) {
  Block *body = loop.getBody();
  SmallVector<Value> worklist(load->getOperands());
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar())
        worklist.push_back(body->getTerminator()->getOperand(arg.getArgNumber() - 1));
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (!loop->isProperAncestor(def))
      continue;
    if (!isMemoryEffectFree(def))
      return true;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// The loads of `loop` that tile-gpu-distribute is to read back on `target`
/// with `threads` threads: those it may read back (loadsReadBack) whose
/// addresses the loop computes from its induction variable, each thread's
/// share of one 4 bytes or more (what a cp.async copies), where a stage of
/// them all takes at most half of the shared memory (the rest left to the
/// body's own users) and no such load's addresses read loaded values. None
/// otherwise. (Loads through pointers the loop carries are not prefetched
/// here; the distribution reads them back with the others.)
SmallVector<tile::LoadOp> loadsLeftToReadBack(scf::ForOp loop,
                                              const tessera::gpu::GpuTarget &target,
                                              int64_t threads) {
  SmallVector<tile::LoadOp> left;
  if (loop.getUnsignedCmp())
    return left;
  int64_t stageBytes = 0;
  for (tile::LoadOp load : tessera::gpu::loadsReadBack(loop.getBody())) {
    auto type = cast<RankedTensorType>(load.getType());
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    if (addressesReadLoadedValues(loop, load))
      return {};
    if (!addressSlice(loop, load) || type.getNumElements() * elementBytes < 4 * threads)
      continue;
    stageBytes += std::max(type.getNumElements(), threads) * elementBytes;
    left.push_back(load);
  }
  if (2 * stageBytes > target.maxSharedMemoryBytes)
    left.clear();
  return left;
}

struct PrefetchLoads : tessera::gpu::impl::TileGpuPrefetchLoadsBase<PrefetchLoads> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<tessera::gpu::GpuTarget> gpu;
    if (!target.empty()) {
      llvm::Expected<tessera::gpu::GpuTarget> parsed = tessera::gpu::GpuTarget::parse(target);
      if (!parsed) {
        getOperation().emitError()
            << "tile-gpu-prefetch-loads: " << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      gpu = *parsed;
    }
    bool readBack = gpu && tessera::gpu::readsLoadsBack(*gpu, readBackLoads);
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      auto stages = loop->getAttrOfType<IntegerAttr>(tile::TileDialect::kNumStagesAttr);
      if (stages && stages.getInt() >= 2)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (loop->walk([](tile::DotOp) { return WalkResult::interrupt(); }).wasInterrupted())
        continue;
      SmallVector<tile::LoadOp> left;
      if (readBack)
        left = loadsLeftToReadBack(loop, *gpu, int64_t(numWarps) * gpu->warpSize);
      SmallVector<Prefetched> loads;
      for (auto load : loop.getBody()->getOps<tile::LoadOp>()) {
        if (load.getIsVolatile() || !isa<RankedTensorType>(load.getType()) ||
            llvm::is_contained(left, load))
          continue;
        if (std::optional<llvm::SetVector<Operation *>> slice = addressSlice(loop, load))
          loads.push_back({load, std::move(*slice)});
      }
      if (!loads.empty())
        prefetch(loop, loads);
    }
  }
};

} // namespace

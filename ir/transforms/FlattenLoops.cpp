// tile-flatten-loops (Passes.td): one loop over (tile, K block) pairs in place
// of a persistent kernel's tile loop and the K loop inside it, carrying the
// tile's work before the K loop from the tile's first step.
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEFLATTENLOOPS
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// `for t { pre; results = for k (inits) { body }; post(results) }`.
struct LoopNest {
  scf::ForOp outer, inner;
  SmallVector<Operation *> pre, post;
};

bool hasPositiveConstantStep(scf::ForOp loop) {
  APInt step;
  return matchPattern(loop.getStep(), m_ConstantInt(&step)) && step.isStrictlyPositive();
}

std::optional<LoopNest> flattenableNest(scf::ForOp outer) {
  if (outer.getNumResults() != 0 || outer.getUnsignedCmp() || !hasPositiveConstantStep(outer))
    return std::nullopt;
  LoopNest nest{outer, {}, {}, {}};
  for (Operation &op : outer.getBody()->without_terminator()) {
    auto inner = dyn_cast<scf::ForOp>(op);
    if (inner && !nest.inner) {
      nest.inner = inner;
      continue;
    }
    (nest.inner ? nest.post : nest.pre).push_back(&op);
  }
  scf::ForOp inner = nest.inner;
  if (!inner || inner.getUnsignedCmp() || !hasPositiveConstantStep(inner))
    return std::nullopt;
  // The flattened loop starts each tile's inner steps from the same bounds
  // and restarts their carried values from the same initial values.
  SmallVector<Value> invariant{inner.getLowerBound(), inner.getUpperBound()};
  llvm::append_range(invariant, inner.getInitArgs());
  if (!llvm::all_of(invariant, [&](Value v) { return outer.isDefinedOutsideOfLoop(v); }) ||
      !llvm::all_of(nest.pre, tile::hasNoEffectsButPromises))
    return std::nullopt;
  return nest;
}

/// max(0, ceil((hi - lo) / step)) in 64 bits, for a positive step; `zero`
/// and `one` are i64 constants.
Value tripCount(OpBuilder &b, Location loc, scf::ForOp loop, Value zero, Value one) {
  auto wide = [&](Value v) { return getValueOrCreateCastToIndexLike(b, loc, b.getI64Type(), v); };
  Value lo = wide(loop.getLowerBound());
  Value hi = wide(loop.getUpperBound());
  Value step = wide(loop.getStep());
  Value rounded = arith::AddIOp::create(b, loc, arith::SubIOp::create(b, loc, hi, lo),
                                        arith::SubIOp::create(b, loc, step, one));
  return arith::MaxSIOp::create(b, loc, arith::DivSIOp::create(b, loc, rounded, step), zero);
}

/// Clones `ops` at `b` through `mapping`.
void cloneAll(OpBuilder &b, ArrayRef<Operation *> ops, IRMapping &mapping) {
  for (Operation *op : ops)
    b.clone(*op, mapping);
}

/// The results of the nest's `pre` that the rest of the nest reads: what a
/// step needs of its tile's work before the K loop.
SmallVector<Value> tileWorkRead(const LoopNest &nest) {
  llvm::SmallPtrSet<Operation *, 16> pre(nest.pre.begin(), nest.pre.end());
  Block *tileBody = nest.inner->getBlock();
  SmallVector<Value> read;
  for (Operation *op : nest.pre)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !pre.contains(tileBody->findAncestorOpInBlock(*user));
          }))
        read.push_back(result);
  return read;
}

/// The work after the K loop at `b` on the K loop's results `results`,
/// what it reads of the work before it mapped by `epilogue`, and the
/// terminator of the region it ends.
void clonePost(OpBuilder &b, Location loc, const LoopNest &nest, IRMapping &epilogue,
               ValueRange results) {
  epilogue.map(scf::ForOp(nest.inner).getResults(), results);
  cloneAll(b, nest.post, epilogue);
  scf::YieldOp::create(b, loc);
}

/// A tile's epilogue at `b`: its own copy of the work before the K loop for
/// tile `tile`, then clonePost.
void cloneEpilogue(OpBuilder &b, Location loc, const LoopNest &nest, Value tile,
                   ValueRange results) {
  IRMapping epilogue;
  epilogue.map(scf::ForOp(nest.outer).getInductionVar(), tile);
  cloneAll(b, nest.pre, epilogue);
  clonePost(b, loc, nest, epilogue, results);
}

bool isUnsignedDivision(Operation *op) {
  return isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op);
}

bool isIntegerDivision(Operation *op) {
  return isUnsignedDivision(op) ||
         isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op);
}

/// `op` cloned at `b` through `mapping`, an integer division's divisor
/// raised to at least 1 first: the tile it works for may not exist, and a
/// division by zero (or INT_MIN / -1) would be undefined.
void cloneDividingSafely(OpBuilder &b, Location loc, Operation *op, IRMapping &mapping) {
  if (!isIntegerDivision(op)) {
    b.clone(*op, mapping);
    return;
  }
  bool isUnsigned = isUnsignedDivision(op);
  Value divisor = mapping.lookupOrDefault(op->getOperand(1));
  Value one = arith::ConstantOp::create(b, loc, b.getOneAttr(divisor.getType()));
  Value safe = isUnsigned ? arith::MaxUIOp::create(b, loc, divisor, one).getResult()
                          : arith::MaxSIOp::create(b, loc, divisor, one).getResult();
  Operation *clone = b.clone(*op, mapping);
  clone->setOperand(1, safe);
}

/// The initial values of the carried tile work: the work of the first tile
/// (the tile loop's lower bound), never read, since each tile's first step
/// computes its own. What the analyses learn of a carried value joins its
/// initial value with the steps': zeros would make every element of a
/// carried column range the same to them, and the loads through it
/// element-wise (Triton's persistent tutorial carries its offsets so). The
/// tile may not exist: divisions divide by at least 1, and promises
/// (tile.assume) are left to the first step. Zeros where the work has an op
/// that could fault otherwise.
SmallVector<Value> firstTileWork(OpBuilder &b, Location loc, const LoopNest &nest,
                                 ArrayRef<Value> tileWork) {
  auto clonable = [](Operation *op) {
    return isa<tile::AssumeOp>(op) || isPure(op) || isIntegerDivision(op);
  };
  SmallVector<Value> inits;
  if (!llvm::all_of(nest.pre, clonable)) {
    for (Value value : tileWork)
      inits.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType())));
    return inits;
  }
  IRMapping first;
  first.map(scf::ForOp(nest.outer).getInductionVar(), scf::ForOp(nest.outer).getLowerBound());
  for (Operation *op : nest.pre)
    if (!isa<tile::AssumeOp>(op))
      cloneDividingSafely(b, loc, op, first);
  for (Value value : tileWork)
    inits.push_back(first.lookup(value));
  return inits;
}

/// Moves the ops of `pre` that are the same for every tile (pure, reading
/// nothing the tile loop defines: `tl.arange(0, BLOCK_K)`, constants) above
/// the tile loop. Carried, such a value would be a loop argument the
/// analyses follow through the first step's branch, and the copies through
/// it (a K offset range) would lose their runs.
void hoistInvariantWork(LoopNest &nest) {
  scf::ForOp outer = nest.outer;
  SmallVector<Operation *> kept;
  for (Operation *op : nest.pre) {
    bool invariant = isPure(op) && op->getNumRegions() == 0 &&
                     llvm::all_of(op->getOperands(), [&](Value operand) {
                       return outer.isDefinedOutsideOfLoop(operand);
                     });
    if (invariant)
      op->moveBefore(outer);
    else
      kept.push_back(op);
  }
  nest.pre = std::move(kept);
}

/// Flattens `nest`. With `carryTileWork` (and a zero for each of its values
/// that the nest reads), the tile's work before the K loop runs once per
/// tile, at its first step, and the loop carries its results, as Triton's
/// flattening and its persistent tutorial do; else every step redoes it for
/// the loads and the epilogue once more.
void flatten(const LoopNest &nest, bool carryTileWork) {
  scf::ForOp outer = nest.outer, inner = nest.inner;
  Location loc = outer.getLoc();
  OpBuilder b(outer);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
  Value innerTrips = tripCount(b, loc, inner, zero, one);
  Value steps = arith::MulIOp::create(b, loc, tripCount(b, loc, outer, zero, one), innerTrips);
  Value lastInner = arith::SubIOp::create(b, loc, innerTrips, one);
  // The carried work needs a zero type (firstTileWork): a value without one
  // (a pointer, a descriptor) is redone in every step instead.
  SmallVector<Value> tileWork;
  if (carryTileWork)
    tileWork = tileWorkRead(nest);
  carryTileWork = carryTileWork && llvm::all_of(tileWork, [&](Value value) {
                    return static_cast<bool>(b.getZeroAttr(value.getType()));
                  });
  if (!carryTileWork)
    tileWork.clear();
  SmallVector<Value> inits{zero, outer.getLowerBound()};
  llvm::append_range(inits, firstTileWork(b, loc, nest, tileWork));
  llvm::append_range(inits, inner.getInitArgs());
  SmallVector<Operation *> body;
  for (Operation &op : inner.getBody()->without_terminator())
    body.push_back(&op);
  Operation *innerYield = inner.getBody()->getTerminator();

  auto flat = scf::ForOp::create(
      b, loc, zero, steps, one, inits,
      [&](OpBuilder &fb, Location loc, Value, ValueRange args) {
        Value ki = args[0], tile = args[1];
        ValueRange carriedWork = args.slice(2, tileWork.size());
        ValueRange carried = args.drop_front(2 + tileWork.size());
        IRMapping step;
        step.map(outer.getInductionVar(), tile);
        Type kType = inner.getInductionVar().getType();
        Value k = arith::AddIOp::create(
            fb, loc, inner.getLowerBound(),
            arith::MulIOp::create(fb, loc, getValueOrCreateCastToIndexLike(fb, loc, kType, ki),
                                  inner.getStep()));
        step.map(inner.getInductionVar(), k);
        step.map(inner.getRegionIterArgs(), carried);
        SmallVector<Value> work;
        if (carryTileWork) {
          // A tile's first step does its work; the others read it carried.
          Value first = arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::eq, ki, zero);
          auto fresh = scf::IfOp::create(
              fb, loc, first,
              [&](OpBuilder &tb, Location loc) {
                IRMapping own;
                own.map(outer.getInductionVar(), tile);
                cloneAll(tb, nest.pre, own);
                SmallVector<Value> done;
                for (Value value : tileWork)
                  done.push_back(own.lookup(value));
                scf::YieldOp::create(tb, loc, done);
              },
              [&](OpBuilder &eb, Location loc) { scf::YieldOp::create(eb, loc, carriedWork); });
          work.assign(fresh.getResults().begin(), fresh.getResults().end());
          step.map(tileWork, work);
        } else {
          cloneAll(fb, nest.pre, step);
        }
        cloneAll(fb, body, step);
        SmallVector<Value> next;
        for (Value yielded : innerYield->getOperands())
          next.push_back(step.lookupOrDefault(yielded));
        Value last = arith::CmpIOp::create(fb, loc, arith::CmpIPredicate::eq, ki, lastInner);
        scf::IfOp::create(fb, loc, last, [&](OpBuilder &eb, Location loc) {
          if (!carryTileWork) {
            // The tile's epilogue computes its own `pre`: a step that is
            // not a tile's last then computes only what the loads need.
            cloneEpilogue(eb, loc, nest, tile, next);
            return;
          }
          IRMapping epilogue;
          epilogue.map(outer.getInductionVar(), tile);
          epilogue.map(tileWork, work);
          clonePost(eb, loc, nest, epilogue, next);
        });
        SmallVector<Value> yields{
            arith::SelectOp::create(fb, loc, last, zero, arith::AddIOp::create(fb, loc, ki, one)),
            arith::SelectOp::create(fb, loc, last,
                                    arith::AddIOp::create(fb, loc, tile, outer.getStep()), tile)};
        llvm::append_range(yields, work);
        for (auto [init, value] : llvm::zip(inner.getInitArgs(), next))
          yields.push_back(arith::SelectOp::create(fb, loc, last, init, value));
        scf::YieldOp::create(fb, loc, yields);
      });

  // A producer warpgroup asked for the nest is the flattened loop's.
  if (outer->hasAttr(tile::TileDialect::kWarpSpecializeAttr))
    flat->setAttr(tile::TileDialect::kWarpSpecializeAttr, b.getUnitAttr());

  // Where the inner loop runs no step, the flattened loop runs none either:
  // each tile's epilogue then reads the initial values.
  Value noInnerSteps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, innerTrips, zero);
  Value end = arith::SelectOp::create(b, loc, noInnerSteps, outer.getUpperBound(),
                                      outer.getLowerBound());
  scf::ForOp::create(b, loc, outer.getLowerBound(), end, outer.getStep(), ValueRange{},
                     [&](OpBuilder &eb, Location loc, Value tile, ValueRange) {
                       cloneEpilogue(eb, loc, nest, tile, inner.getInitArgs());
                     });
  outer.erase();
}

struct TileFlattenLoops : tile::impl::TileFlattenLoopsBase<TileFlattenLoops> {
  using TileFlattenLoopsBase::TileFlattenLoopsBase;
  void runOnOperation() override {
    SmallVector<LoopNest> nests;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(tile::TileDialect::kFlattenAttr))
        return WalkResult::advance();
      if (std::optional<LoopNest> nest = flattenableNest(loop))
        nests.push_back(*nest);
      return WalkResult::skip();
    });
    // A producer warpgroup's loop keeps the form it was measured in: every
    // step redoes the tile's work (on an H200, 2026-11-27).
    for (LoopNest &nest : nests) {
      hoistInvariantWork(nest);
      flatten(nest, carryTileWork &&
                        !nest.outer->hasAttr(tile::TileDialect::kWarpSpecializeAttr));
    }
  }
};

} // namespace

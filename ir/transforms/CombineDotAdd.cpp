// tile-combine-dot-add: `acc + dot(a, b)` becomes `dot(a, b, acc)`
// (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILECOMBINEDOTADD
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;

namespace {

/// The dot that `value` is, where its accumulator is zero, nothing else reads
/// it, and its sum may take another accumulator: an fp8 dot that promotes
/// its partial sums every `max_num_imprecise_acc` products would promote a
/// different accumulator.
tessera::tile::DotOp zeroAccumulatorDot(Value value) {
  auto dot = value.getDefiningOp<tessera::tile::DotOp>();
  if (!dot || !dot->hasOneUse() || dot.getMaxNumImpreciseAcc() != 0)
    return {};
  Value acc = dot.getAcc();
  bool zero = isa<FloatType>(getElementTypeOrSelf(acc)) ? matchPattern(acc, m_AnyZeroFloat())
                                                         : matchPattern(acc, m_Zero());
  return zero ? dot : tessera::tile::DotOp();
}

/// Rewrites `add` into the dot it adds to, where it is such an addition.
template <typename AddOp>
void accumulateInDot(AddOp add, IRRewriter &rewriter) {
  for (auto [product, other] : {std::pair(add.getLhs(), add.getRhs()),
                                std::pair(add.getRhs(), add.getLhs())}) {
    tessera::tile::DotOp dot = zeroAccumulatorDot(product);
    if (!dot || dot.getType() != add.getType())
      continue;
    rewriter.setInsertionPoint(add);
    rewriter.replaceOpWithNewOp<tessera::tile::DotOp>(add, dot.getA(), dot.getB(), other,
                                                      dot.getInputPrecision(),
                                                      dot.getMaxNumImpreciseAcc());
    rewriter.eraseOp(dot);
    return;
  }
}

// A walk rather than the greedy driver, which would also fold and erase
// dead ops: later passes report some of those (an unused call of a function
// the target lacks) at their op.
struct CombineDotAdd : tessera::tile::impl::TileCombineDotAddBase<CombineDotAdd> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto add = dyn_cast<arith::AddFOp>(op))
        accumulateInDot(add, rewriter);
      else if (auto add = dyn_cast<arith::AddIOp>(op))
        accumulateInDot(add, rewriter);
    });
  }
};

} // namespace

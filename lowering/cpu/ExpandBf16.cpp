// tile-cpu-expand-bf16: bf16 conversions as integer arithmetic and bf16 dots
// on f32 operands, so that bf16 tiles are only moved when tile-cpu-lower-tiles
// carries them as i16 lanes (lowering/cpu/Passes.td).
#include "lowering/cpu/Passes.h"

#include "ir/TileDialect.h"
#include "ir/transforms/DotWidening.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUEXPANDBF16
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

bool isBf16(Value value) { return getElementTypeOrSelf(value.getType()).isBF16(); }

Value convertElements(OpBuilder &b, Location loc, Value value, Type element) {
  Type type = value.getType();
  Type to = isa<ShapedType>(type) ? cast<ShapedType>(type).clone(element) : element;
  if (element.getIntOrFloatBitWidth() > getElementTypeOrSelf(type).getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

/// bf16 <-> f64 goes through f32, which upstream's expansion converts: bf16
/// to f64 is exact, f64 to bf16 rounds twice (as fp8 does from f64).
template <typename Conversion> struct ConvertBf16ThroughF32 : OpRewritePattern<Conversion> {
  using OpRewritePattern<Conversion>::OpRewritePattern;

  LogicalResult matchAndRewrite(Conversion op, PatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getIn().getType());
    Type to = getElementTypeOrSelf(op.getType());
    if (from.isBF16() == to.isBF16() || from.isF32() || to.isF32())
      return failure();
    Value f32 = convertElements(rewriter, op.getLoc(), op.getIn(), rewriter.getF32Type());
    rewriter.replaceOp(op, convertElements(rewriter, op.getLoc(), f32, to));
    return success();
  }
};

struct ExpandBf16 : tessera::cpu::impl::TileCpuExpandBf16Base<ExpandBf16> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // A bf16 dot (its accumulator is f32) multiplies the f32 values of its
    // operands: the micro-kernel widens any operand narrower than f32 anyway.
    IRRewriter rewriter(context);
    SmallVector<tile::DotOp> dots;
    getOperation()->walk([&](tile::DotOp dot) {
      if (isBf16(dot.getA()))
        dots.push_back(dot);
    });
    for (tile::DotOp dot : dots)
      tile::widenDotOperands(rewriter, dot, rewriter.getF32Type());
    // Walks rather than a greedy rewrite: nothing but the conversions changes
    // (no constant leaves a combine region, no dead op goes before the
    // lowering reports it). The first walk leaves only bf16 <-> f32.
    RewritePatternSet throughF32(context);
    throughF32.add<ConvertBf16ThroughF32<arith::ExtFOp>, ConvertBf16ThroughF32<arith::TruncFOp>>(
        context);
    walkAndApplyPatterns(getOperation(), std::move(throughF32));
    RewritePatternSet expand(context);
    arith::populateExpandBFloat16Patterns(expand);
    walkAndApplyPatterns(getOperation(), std::move(expand));
  }
};

} // namespace

// tile-widen-float8-dots: fp8 dot operands widened to a type every backend
// multiplies (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEWIDENFLOAT8DOTS
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;
namespace tile = tessera::tile;

namespace {

Value widen(OpBuilder &builder, Location loc, Value operand, Type element) {
  auto type = cast<RankedTensorType>(operand.getType());
  return arith::ExtFOp::create(builder, loc, type.clone(element), operand);
}

struct WidenFloat8Dots : tile::impl::TileWidenFloat8DotsBase<WidenFloat8Dots> {
  using TileWidenFloat8DotsBase::TileWidenFloat8DotsBase;

  void runOnOperation() override {
    if (operandType != "f16" && operandType != "f32") {
      getOperation()->emitError() << "tile-widen-float8-dots: operand-type must be f16 or f32, "
                                  << "not '" << operandType << "'";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](tile::DotOp dot) {
      if (!tile::isFloat8(getElementTypeOrSelf(dot.getA().getType())))
        return;
      Type accElement = getElementTypeOrSelf(dot.getAcc().getType());
      if (f16AccumulatorsOnly && !accElement.isF16())
        return;
      Type element = operandType == "f32" && accElement.isF32() ? Type(rewriter.getF32Type())
                                                                : Type(rewriter.getF16Type());
      rewriter.setInsertionPoint(dot);
      Location loc = dot.getLoc();
      auto precision = element.isF32() ? tile::InputPrecision::IEEE : tile::InputPrecision::TF32;
      Value a = widen(rewriter, loc, dot.getA(), element);
      Value b = widen(rewriter, loc, dot.getB(), element);
      rewriter.replaceOpWithNewOp<tile::DotOp>(dot, a, b, dot.getAcc(), precision,
                                               /*maxNumImpreciseAcc=*/0);
    });
  }
};

} // namespace

// tile-widen-float8-dots: fp8 dot operands widened to a type every backend
// multiplies (ir/transforms/Passes.td).
#include "ir/transforms/DotWidening.h"
#include "ir/transforms/Passes.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEWIDENFLOAT8DOTS
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;
namespace tile = tessera::tile;

bool tile::hasFloat8Operands(DotOp dot) {
  return isFloat8(getElementTypeOrSelf(dot.getA().getType()));
}

void tile::widenDotOperands(RewriterBase &rewriter, DotOp dot, Type element) {
  rewriter.setInsertionPoint(dot);
  Location loc = dot.getLoc();
  auto widen = [&](Value operand) -> Value {
    auto type = cast<RankedTensorType>(operand.getType());
    return arith::ExtFOp::create(rewriter, loc, type.clone(element), operand);
  };
  auto precision = element.isF32() ? InputPrecision::IEEE : InputPrecision::TF32;
  Value a = widen(dot.getA());
  Value b = widen(dot.getB());
  rewriter.replaceOpWithNewOp<DotOp>(dot, a, b, dot.getAcc(), precision,
                                     /*maxNumImpreciseAcc=*/0);
}

namespace {

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
      if (!tile::hasFloat8Operands(dot))
        return;
      // An f32 dot accumulates in f32 only.
      bool f32 = operandType == "f32" && getElementTypeOrSelf(dot.getAcc().getType()).isF32();
      tile::widenDotOperands(rewriter, dot,
                           f32 ? Type(rewriter.getF32Type()) : Type(rewriter.getF16Type()));
    });
  }
};

} // namespace

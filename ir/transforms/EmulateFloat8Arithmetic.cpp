// tile-emulate-float8-arithmetic: arith and math ops on fp8 computed in f32
// (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEEMULATEFLOAT8ARITHMETIC
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;

namespace {

struct EmulateFloat8Arithmetic
    : tessera::tile::impl::TileEmulateFloat8ArithmeticBase<EmulateFloat8Arithmetic> {
  using TileEmulateFloat8ArithmeticBase::TileEmulateFloat8ArithmeticBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    SmallVector<Type, 3> emulated{Float8E4M3FNType::get(context), Float8E5M2Type::get(context)};
    if (bf16)
      emulated.push_back(BFloat16Type::get(context));
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(converter, emulated,
                                                       Float32Type::get(context));
    RewritePatternSet patterns(context);
    arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
    ConversionTarget target(*context);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    // Upstream's legality covers arith alone; math ops and some tile ops
    // compute as well.
    auto computesOnLegalTypes = [&](Operation *op) -> std::optional<bool> {
      return converter.isLegal(op);
    };
    target.addDynamicallyLegalDialect<math::MathDialect>(computesOnLegalTypes);
    target.addDynamicallyLegalOp<tessera::tile::ClampOp, tessera::tile::PreciseSqrtOp,
                                 tessera::tile::PreciseDivFOp>(computesOnLegalTypes);
    // printf has no narrow floats: the value is printed from f32, its bits
    // as they are.
    target.addDynamicallyLegalOp<tessera::tile::PrintOp>(
        [&](tessera::tile::PrintOp op) { return op.getHex() || converter.isLegal(op); });
    target.addLegalOp<arith::SelectOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

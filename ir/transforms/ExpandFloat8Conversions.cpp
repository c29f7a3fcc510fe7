// tile-expand-float8-conversions: conversions to and from fp8 as integer
// arithmetic on the bits (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILEEXPANDFLOAT8CONVERSIONS
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;

namespace {

/// An fp8 format: sign, exponent and `mantissaBits` mantissa bits.
struct Float8Format {
  unsigned mantissaBits;
  int bias;
  /// The largest finite magnitude's bits, and whether the encodings above it
  /// are infinity (0x7c) and NaNs (E5M2) or only NaN (0x7f, E4M3FN).
  uint32_t largestFinite;
  bool hasInfinity;
};

Float8Format formatOf(Type type) {
  if (isa<Float8E5M2Type>(type))
    return {2, 15, 0x7b, true};
  return {3, 7, 0x7e, false};
}

constexpr uint32_t kFloat32Infinity = 0x7f800000, kFloat32NaN = 0x7fc00000;

/// Builds elementwise integer and float arithmetic on values of one shape
/// (a scalar, a vector or a tensor of any encoding).
class ShapedBuilder {
public:
  ShapedBuilder(OpBuilder &rewriter, Location loc, Type shapeOf)
      : b(rewriter), loc(loc), shaped(dyn_cast<ShapedType>(shapeOf)) {}

  Type typeOf(Type element) { return shaped ? shaped.clone(element) : element; }

  Value i32(uint32_t value) {
    return createScalarOrSplatConstant(b, loc, typeOf(b.getI32Type()), APInt(32, value));
  }
  Value i16(uint16_t value) {
    return createScalarOrSplatConstant(b, loc, typeOf(b.getI16Type()), APInt(16, value));
  }
  Value f32(float value) {
    return createScalarOrSplatConstant(b, loc, typeOf(b.getF32Type()), APFloat(value));
  }

  Value bitcast(Value value, Type element) {
    return arith::BitcastOp::create(b, loc, typeOf(element), value);
  }
  Value extui(Value value, Type element) {
    return arith::ExtUIOp::create(b, loc, typeOf(element), value);
  }
  Value trunci(Value value, Type element) {
    return arith::TruncIOp::create(b, loc, typeOf(element), value);
  }
  Value uitofp(Value value) {
    return arith::UIToFPOp::create(b, loc, typeOf(b.getF32Type()), value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value ugt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, x, y);
  }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value maxu(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }

  OpBuilder &b;

private:
  Location loc;
  ShapedType shaped;
};

/// The f32 value of the fp8 bits in `bits` (i32, 0..255).
Value float8BitsToF32(ShapedBuilder &sb, Value bits, const Float8Format &format) {
  unsigned m = format.mantissaBits;
  Value magnitude = sb.band(bits, sb.i32(0x7f));
  Value sign = sb.shl(sb.band(bits, sb.i32(0x80)), sb.i32(24));
  // A normal value: the exponent rebased, the mantissa moved to the top.
  Value normal = sb.add(sb.shl(magnitude, sb.i32(23 - m)),
                        sb.i32(static_cast<uint32_t>(127 - format.bias) << 23));
  // A subnormal (or zero) is mantissa * 2^(1 - bias - m): exact, and never
  // an f32 subnormal.
  Value subnormal = sb.bitcast(
      sb.mulf(sb.uitofp(magnitude), sb.f32(std::ldexp(1.0f, 1 - format.bias - int(m)))),
      sb.b.getI32Type());
  Value result = sb.select(sb.ult(magnitude, sb.i32(1u << m)), subnormal, normal);
  Value beyondFinite = sb.ugt(magnitude, sb.i32(format.largestFinite));
  Value special = sb.i32(kFloat32NaN);
  if (format.hasInfinity)
    special = sb.select(sb.eq(magnitude, sb.i32(format.largestFinite + 1)),
                        sb.i32(kFloat32Infinity), special);
  result = sb.select(beyondFinite, special, result);
  return sb.bitcast(sb.bor(result, sign), sb.b.getF32Type());
}

/// The fp8 bits (i32, 0..255) of the f32 `value`, rounded to nearest even
/// and saturated to the largest finite value.
Value f32ToFloat8Bits(ShapedBuilder &sb, Value value, const Float8Format &format) {
  unsigned m = format.mantissaBits;
  Value bits = sb.bitcast(value, sb.b.getI32Type());
  Value sign = sb.band(sb.shr(bits, sb.i32(24)), sb.i32(0x80));
  Value magnitude = sb.band(bits, sb.i32(0x7fffffff));
  unsigned dropped = 23 - m;
  // Normal: round the mantissa's dropped bits to nearest even, then rebase
  // the exponent (a carry out of the mantissa bumps it, as it should).
  Value odd = sb.band(sb.shr(magnitude, sb.i32(dropped)), sb.i32(1));
  Value rounded = sb.add(magnitude, sb.add(sb.i32((1u << (dropped - 1)) - 1), odd));
  Value normal = sb.sub(sb.shr(rounded, sb.i32(dropped)),
                        sb.i32(static_cast<uint32_t>(127 - format.bias) << m));
  // Subnormal: the 24-bit significand shifted right to units of the
  // smallest subnormal, 2^(1 - bias - m), rounded to nearest even. Shifts
  // past 31 leave less than half a unit: 0, as a shift of 31 gives. The
  // shift is kept in [1, 31] on the normal lanes too, which the select
  // drops, so that no lane shifts by its width or more (poison).
  Value significand = sb.bor(sb.band(magnitude, sb.i32(0x7fffff)), sb.i32(0x800000));
  Value shift = sb.minu(
      sb.maxu(sb.sub(sb.i32(151 - format.bias - m), sb.shr(magnitude, sb.i32(23))), sb.i32(1)),
      sb.i32(31));
  Value half = sb.shl(sb.i32(1), sb.sub(shift, sb.i32(1)));
  Value subnormalOdd = sb.band(sb.shr(significand, shift), sb.i32(1));
  Value subnormal = sb.shr(
      sb.add(significand, sb.add(sb.sub(half, sb.i32(1)), subnormalOdd)), shift);
  uint32_t smallestNormal = static_cast<uint32_t>(128 - format.bias) << 23;
  Value result = sb.select(sb.ult(magnitude, sb.i32(smallestNormal)), subnormal, normal);
  // Beyond the largest finite value (infinity included): that value.
  uint32_t largestFinite =
      (static_cast<uint32_t>(127 - format.bias) << 23) + (format.largestFinite << (23 - m));
  result = sb.select(sb.ugt(magnitude, sb.i32(largestFinite)), sb.i32(format.largestFinite),
                     result);
  result = sb.select(sb.ugt(magnitude, sb.i32(kFloat32Infinity)), sb.i32(0x7f), result);
  return sb.bor(result, sign);
}

/// Converts `value` (f32) to a float type at least as wide as f16 exactly.
Value fromF32(ShapedBuilder &sb, Location loc, Value value, FloatType to) {
  if (to.isF32())
    return value;
  Type type = sb.typeOf(to);
  if (to.getWidth() > 32)
    return arith::ExtFOp::create(sb.b, loc, type, value);
  return arith::TruncFOp::create(sb.b, loc, type, value);
}

/// The bits of an fp8 `op.getIn()` as the wider float `op` gives.
Value expandExtF(OpBuilder &builder, arith::ExtFOp op) {
  Type from = getElementTypeOrSelf(op.getIn().getType());
  auto to = cast<FloatType>(getElementTypeOrSelf(op.getType()));
  Location loc = op.getLoc();
  ShapedBuilder sb(builder, loc, op.getType());
  Value byte = sb.bitcast(op.getIn(), builder.getI8Type());
  // E5M2 is the top byte of an f16.
  if (isa<Float8E5M2Type>(from) && to.isF16()) {
    Value half = sb.shl(sb.extui(byte, builder.getI16Type()), sb.i16(8));
    return sb.bitcast(half, builder.getF16Type());
  }
  Value single = float8BitsToF32(sb, sb.extui(byte, builder.getI32Type()), formatOf(from));
  return fromF32(sb, loc, single, to);
}

/// `op.getIn()` rounded to the fp8 type `op` gives.
Value expandTruncF(OpBuilder &builder, arith::TruncFOp op) {
  Type to = getElementTypeOrSelf(op.getType());
  Location loc = op.getLoc();
  ShapedBuilder sb(builder, loc, op.getType());
  Value value = op.getIn();
  Type f32 = sb.typeOf(builder.getF32Type());
  unsigned fromWidth = getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
  if (fromWidth < 32)
    value = arith::ExtFOp::create(builder, loc, f32, value);
  else if (fromWidth > 32)
    value = arith::TruncFOp::create(builder, loc, f32, value);
  Value bits = f32ToFloat8Bits(sb, value, formatOf(to));
  return sb.bitcast(sb.trunci(bits, builder.getI8Type()), to);
}

// A walk rather than a greedy rewrite: nothing but the conversions changes
// (no dead code goes, so a later check still reports an op nobody reads).
struct ExpandFloat8Conversions
    : tessera::tile::impl::TileExpandFloat8ConversionsBase<ExpandFloat8Conversions> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      rewriter.setInsertionPoint(op);
      auto ext = dyn_cast<arith::ExtFOp>(op);
      if (ext && tessera::tile::isFloat8(getElementTypeOrSelf(ext.getIn().getType())))
        rewriter.replaceOp(op, expandExtF(rewriter, ext));
      auto trunc = dyn_cast<arith::TruncFOp>(op);
      if (trunc && tessera::tile::isFloat8(getElementTypeOrSelf(trunc.getType())))
        rewriter.replaceOp(op, expandTruncF(rewriter, trunc));
    });
  }
};

} // namespace

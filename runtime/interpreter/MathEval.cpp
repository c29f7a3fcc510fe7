// Semantics of the math dialect and of the tile dialect's float ops (clamp,
// precise_sqrt, precise_divf), computed in double and rounded to the declared
// float type: at least as accurate as any backend's libm.
#include "runtime/interpreter/Elementwise.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/bit.h"

#include <cmath>

using namespace mlir;

namespace tessera::interp {

void registerMathHandlers(HandlerTable &table) {
  addFloatOp<math::ExpOp, 1>(table, [](double x) { return std::exp(x); });
  addFloatOp<math::Exp2Op, 1>(table, [](double x) { return std::exp2(x); });
  addFloatOp<math::ExpM1Op, 1>(table, [](double x) { return std::expm1(x); });
  addFloatOp<math::LogOp, 1>(table, [](double x) { return std::log(x); });
  addFloatOp<math::Log2Op, 1>(table, [](double x) { return std::log2(x); });
  addFloatOp<math::Log10Op, 1>(table, [](double x) { return std::log10(x); });
  addFloatOp<math::Log1pOp, 1>(table, [](double x) { return std::log1p(x); });
  addFloatOp<math::SqrtOp, 1>(table, [](double x) { return std::sqrt(x); });
  addFloatOp<math::RsqrtOp, 1>(table, [](double x) { return 1.0 / std::sqrt(x); });
  addFloatOp<math::CbrtOp, 1>(table, [](double x) { return std::cbrt(x); });
  addFloatOp<math::SinOp, 1>(table, [](double x) { return std::sin(x); });
  addFloatOp<math::CosOp, 1>(table, [](double x) { return std::cos(x); });
  addFloatOp<math::TanOp, 1>(table, [](double x) { return std::tan(x); });
  addFloatOp<math::AtanOp, 1>(table, [](double x) { return std::atan(x); });
  addFloatOp<math::AcosOp, 1>(table, [](double x) { return std::acos(x); });
  addFloatOp<math::AsinOp, 1>(table, [](double x) { return std::asin(x); });
  addFloatOp<math::AcoshOp, 1>(table, [](double x) { return std::acosh(x); });
  addFloatOp<math::AsinhOp, 1>(table, [](double x) { return std::asinh(x); });
  addFloatOp<math::AtanhOp, 1>(table, [](double x) { return std::atanh(x); });
  addFloatOp<math::CoshOp, 1>(table, [](double x) { return std::cosh(x); });
  addFloatOp<math::SinhOp, 1>(table, [](double x) { return std::sinh(x); });
  addFloatOp<math::ErfcOp, 1>(table, [](double x) { return std::erfc(x); });
  addFloatOp<math::TanhOp, 1>(table, [](double x) { return std::tanh(x); });
  addFloatOp<math::ErfOp, 1>(table, [](double x) { return std::erf(x); });
  addFloatOp<math::AbsFOp, 1>(table, [](double x) { return std::fabs(x); });
  addFloatOp<math::FloorOp, 1>(table, [](double x) { return std::floor(x); });
  addFloatOp<math::CeilOp, 1>(table, [](double x) { return std::ceil(x); });
  addFloatOp<math::TruncOp, 1>(table, [](double x) { return std::trunc(x); });
  addFloatOp<math::RoundOp, 1>(table, [](double x) { return std::round(x); });
  addFloatOp<math::RoundEvenOp, 1>(table, [](double x) { return std::nearbyint(x); });
  addFloatOp<math::PowFOp, 2>(table, [](double x, double y) { return std::pow(x, y); });
  table.add<math::FPowIOp>([](Executor &exec, math::FPowIOp op) {
    const Tile &x = exec.tile(op.getLhs()), &n = exec.tile(op.getRhs());
    unsigned width = intWidth(getElementTypeOrSelf(op.getRhs()));
    Type type = getElementTypeOrSelf(op.getType());
    return mapResult(exec, op, [&](int64_t lane) {
      double exponent = static_cast<double>(signExtend(n.at(lane).bits, width));
      return makeFloat(std::pow(x.at(lane).real, exponent), type);
    });
  });
  // Float classes answer an i1.
  auto addTest = [&](auto op, bool (*holds)(double)) {
    using OpTy = decltype(op);
    table.add<OpTy>([holds](Executor &exec, OpTy test) {
      const Tile &x = exec.tile(test.getOperand());
      return mapResult(exec, test, [&](int64_t lane) { return makeBool(holds(x.at(lane).real)); });
    });
  };
  addTest(math::IsNaNOp(), [](double x) { return std::isnan(x); });
  addTest(math::IsInfOp(), [](double x) { return std::isinf(x); });
  addTest(math::IsFiniteOp(), [](double x) { return std::isfinite(x); });
  addFloatOp<math::Atan2Op, 2>(table, [](double y, double x) { return std::atan2(y, x); });
  addFloatOp<math::CopySignOp, 2>(table, [](double x, double y) { return std::copysign(x, y); });
  // std::fma rounds once to double; the second rounding to a narrower type
  // differs from a single rounding only at rare exact ties.
  addFloatOp<math::FmaOp, 3>(table,
                             [](double a, double b, double c) { return std::fma(a, b, c); });
  addFloatOp<tile::PreciseSqrtOp, 1>(table, [](double x) { return std::sqrt(x); });
  addFloatOp<tile::PreciseDivFOp, 2>(table, [](double x, double y) { return x / y; });
  table.add<tile::ClampOp>([](Executor &exec, tile::ClampOp op) {
    const Tile &x = exec.tile(op.getX());
    const Tile &lo = exec.tile(op.getMin()), &hi = exec.tile(op.getMax());
    bool propagateNan = op.getPropagateNan() == tile::PropagateNan::All;
    return mapResult(exec, op, [&](int64_t lane) {
      double value = x.at(lane).real;
      if (std::isnan(value) && propagateNan)
        return x.at(lane);
      // fmax/fmin drop a NaN `x` in favour of a bound, as `none` allows.
      Element result;
      result.real = std::fmin(std::fmax(value, lo.at(lane).real), hi.at(lane).real);
      return result;
    });
  });
  addIntOp<math::AbsIOp, 1>(table, [](unsigned width, uint64_t x) {
    int64_t value = signExtend(x, width);
    return static_cast<uint64_t>(value < 0 ? 0 - static_cast<uint64_t>(value) : value);
  });
  // The operands are zero-extended to 64 bits: count within the width.
  addIntOp<math::CtPopOp, 1>(table,
                             [](unsigned, uint64_t x) { return uint64_t(llvm::popcount(x)); });
  addIntOp<math::CountLeadingZerosOp, 1>(table, [](unsigned width, uint64_t x) {
    return uint64_t(llvm::countl_zero(x) - (64 - width));
  });
  // Integer powers wrap as repeated multiplication does; negative exponents
  // give 0 but for bases 1 and -1 (math.ipowi's semantics).
  addIntOp<math::IPowIOp, 2>(table, [](unsigned width, uint64_t base, uint64_t exponent) {
    int64_t n = signExtend(exponent, width), b = signExtend(base, width);
    if (n < 0)
      return static_cast<uint64_t>(b == 1 ? 1 : b == -1 ? (n % 2 ? -1 : 1) : 0);
    uint64_t result = 1; // by squaring: log2(n) steps for any exponent
    for (uint64_t power = base; n > 0; n >>= 1, power *= power)
      if (n & 1)
        result *= power;
    return result;
  });
  addIntOp<math::CountTrailingZerosOp, 1>(table, [](unsigned width, uint64_t x) {
    return x ? uint64_t(llvm::countr_zero(x)) : uint64_t(width);
  });
}

} // namespace tessera::interp

// tile.extern_elementwise of libdevice functions (`__nv_*`), computed with
// the C++ library in double and rounded to the declared type. This is the
// reference for both ways the backends compute them: NVIDIA calls libdevice,
// the other targets the math op that tile-libdevice-to-math picks; so it
// does not go through that pass. Calls of other libraries are errors.
#include "runtime/interpreter/Elementwise.h"

#include "ir/TileDialect.h"

#include "llvm/ADT/bit.h"

#include <cmath>
#include <numbers>

using namespace mlir;

namespace tessera::interp {

namespace {

/// The x with f(x) = y, by Newton's method from `x` (f increasing or
/// decreasing, `slope` its derivative): converges to double precision in a
/// few steps from any start inside the domain.
template <class F, class Slope> double solve(F f, Slope slope, double y, double x) {
  for (int step = 0; step < 100; ++step) {
    double next = x - (f(x) - y) / slope(x);
    if (!std::isfinite(next) || next == x)
      break;
    x = next;
  }
  return x;
}

double erfinv(double y) {
  if (y <= -1 || y >= 1)
    return y == 1 ? INFINITY : y == -1 ? -INFINITY : NAN;
  return solve([](double x) { return std::erf(x); },
               [](double x) { return 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x); }, y, 0.0);
}

double erfcinv(double y) {
  if (y <= 0 || y >= 2)
    return y == 0 ? INFINITY : y == 2 ? -INFINITY : NAN;
  // Started from erfinv(1 - y), then solved on erfc itself, which keeps the
  // precision of small y that 1 - y loses.
  return solve([](double x) { return std::erfc(x); },
               [](double x) { return -2 / std::sqrt(std::numbers::pi) * std::exp(-x * x); }, y,
               erfinv(1 - y));
}

/// An even Bessel function of the first kind from C++'s (which takes x >= 0).
double evenBessel(double (*f)(double, double), double order, double x) {
  return f(order, std::fabs(x));
}
/// An odd one.
double oddBessel(double (*f)(double, double), double order, double x) {
  double magnitude = f(order, std::fabs(x));
  return x < 0 ? -magnitude : magnitude;
}

/// A Bessel function of the second kind: NaN below 0 and -inf at 0, as
/// libdevice's (C++'s throws a domain_error below 0).
double secondKind(double order, double x) {
  if (x < 0)
    return NAN;
  if (x == 0)
    return -INFINITY;
  return std::cyl_neumann(order, x);
}

/// `__nv_<name>f` on f32 and `__nv_<name>` on f64.
struct FloatFunction {
  llvm::StringLiteral name;
  unsigned arity;
  double (*compute)(const double *x);
};

constexpr FloatFunction kFloatFunctions[] = {
    {"acos", 1, [](const double *x) { return std::acos(x[0]); }},
    {"acosh", 1, [](const double *x) { return std::acosh(x[0]); }},
    {"asin", 1, [](const double *x) { return std::asin(x[0]); }},
    {"asinh", 1, [](const double *x) { return std::asinh(x[0]); }},
    {"atan", 1, [](const double *x) { return std::atan(x[0]); }},
    {"atanh", 1, [](const double *x) { return std::atanh(x[0]); }},
    {"cbrt", 1, [](const double *x) { return std::cbrt(x[0]); }},
    {"ceil", 1, [](const double *x) { return std::ceil(x[0]); }},
    {"cos", 1, [](const double *x) { return std::cos(x[0]); }},
    {"cosh", 1, [](const double *x) { return std::cosh(x[0]); }},
    {"cospi", 1, [](const double *x) { return std::cos(std::numbers::pi * x[0]); }},
    {"erf", 1, [](const double *x) { return std::erf(x[0]); }},
    {"erfc", 1, [](const double *x) { return std::erfc(x[0]); }},
    {"exp", 1, [](const double *x) { return std::exp(x[0]); }},
    {"exp10", 1, [](const double *x) { return std::pow(10.0, x[0]); }},
    {"exp2", 1, [](const double *x) { return std::exp2(x[0]); }},
    {"expm1", 1, [](const double *x) { return std::expm1(x[0]); }},
    {"fabs", 1, [](const double *x) { return std::fabs(x[0]); }},
    {"floor", 1, [](const double *x) { return std::floor(x[0]); }},
    {"lgamma", 1, [](const double *x) { return std::lgamma(x[0]); }},
    {"erfinv", 1, [](const double *x) { return erfinv(x[0]); }},
    {"erfcinv", 1, [](const double *x) { return erfcinv(x[0]); }},
    {"normcdfinv", 1, [](const double *x) { return -std::numbers::sqrt2 * erfcinv(2 * x[0]); }},
    {"erfcx", 1, [](const double *x) { return std::exp(x[0] * x[0]) * std::erfc(x[0]); }},
    {"j0", 1, [](const double *x) { return evenBessel(std::cyl_bessel_j, 0, x[0]); }},
    {"j1", 1, [](const double *x) { return oddBessel(std::cyl_bessel_j, 1, x[0]); }},
    {"y0", 1, [](const double *x) { return secondKind(0, x[0]); }},
    {"y1", 1, [](const double *x) { return secondKind(1, x[0]); }},
    {"cyl_bessel_i0", 1, [](const double *x) { return evenBessel(std::cyl_bessel_i, 0, x[0]); }},
    {"cyl_bessel_i1", 1, [](const double *x) { return oddBessel(std::cyl_bessel_i, 1, x[0]); }},
    {"log", 1, [](const double *x) { return std::log(x[0]); }},
    {"log10", 1, [](const double *x) { return std::log10(x[0]); }},
    {"log1p", 1, [](const double *x) { return std::log1p(x[0]); }},
    {"log2", 1, [](const double *x) { return std::log2(x[0]); }},
    {"nearbyint", 1, [](const double *x) { return std::nearbyint(x[0]); }},
    {"normcdf", 1, [](const double *x) { return 0.5 * std::erfc(-x[0] / std::numbers::sqrt2); }},
    {"rcbrt", 1, [](const double *x) { return 1.0 / std::cbrt(x[0]); }},
    {"rint", 1, [](const double *x) { return std::nearbyint(x[0]); }},
    {"round", 1, [](const double *x) { return std::round(x[0]); }},
    {"rsqrt", 1, [](const double *x) { return 1.0 / std::sqrt(x[0]); }},
    {"sin", 1, [](const double *x) { return std::sin(x[0]); }},
    {"sinh", 1, [](const double *x) { return std::sinh(x[0]); }},
    {"sinpi", 1, [](const double *x) { return std::sin(std::numbers::pi * x[0]); }},
    {"sqrt", 1, [](const double *x) { return std::sqrt(x[0]); }},
    {"tan", 1, [](const double *x) { return std::tan(x[0]); }},
    {"tanh", 1, [](const double *x) { return std::tanh(x[0]); }},
    {"tgamma", 1, [](const double *x) { return std::tgamma(x[0]); }},
    {"trunc", 1, [](const double *x) { return std::trunc(x[0]); }},
    {"atan2", 2, [](const double *x) { return std::atan2(x[0], x[1]); }},
    {"copysign", 2, [](const double *x) { return std::copysign(x[0], x[1]); }},
    {"fdim", 2, [](const double *x) { return std::fdim(x[0], x[1]); }},
    {"fmax", 2, [](const double *x) { return std::fmax(x[0], x[1]); }},
    {"fmin", 2, [](const double *x) { return std::fmin(x[0], x[1]); }},
    {"fmod", 2, [](const double *x) { return std::fmod(x[0], x[1]); }},
    {"hypot", 2, [](const double *x) { return std::hypot(x[0], x[1]); }},
    {"pow", 2, [](const double *x) { return std::pow(x[0], x[1]); }},
    {"remainder", 2, [](const double *x) { return std::remainder(x[0], x[1]); }},
    {"fma", 3, [](const double *x) { return std::fma(x[0], x[1], x[2]); }},
};

/// `__nv_fast_<name>f`: f32 approximations of these, computed here exactly.
constexpr llvm::StringLiteral kFastFunctions[] = {"cos", "exp", "exp10", "log", "log10",
                                                  "log2", "pow", "sin", "tan", "tanh"};

/// Tests of a float answering an i32, 1 or 0.
struct FloatPredicate {
  llvm::StringLiteral f32Name, f64Name;
  bool (*holds)(double x);
};

constexpr FloatPredicate kFloatPredicates[] = {
    {"isnanf", "isnand", [](double x) { return std::isnan(x); }},
    {"isinff", "isinfd", [](double x) { return std::isinf(x); }},
    {"finitef", "isfinited", [](double x) { return std::isfinite(x); }},
    {"signbitf", "signbitd", [](double x) { return std::signbit(x); }},
};

/// The high half of the product of two `width`-bit integers.
uint64_t highHalf(uint64_t a, uint64_t b, unsigned width, bool isSigned) {
  if (isSigned) {
    __int128 product = static_cast<__int128>(signExtend(a, width)) * signExtend(b, width);
    return static_cast<uint64_t>(product >> width);
  }
  unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product >> width);
}

/// `__nv_<name>` on integers of `operandBits` answering `resultBits`.
struct IntegerFunction {
  llvm::StringLiteral name;
  unsigned arity, operandBits, resultBits;
  uint64_t (*compute)(const uint64_t *x, unsigned width);
};

constexpr IntegerFunction kIntegerFunctions[] = {
    {"abs", 1, 32, 32, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) < 0 ? 0 - x[0] : x[0];
     }},
    {"llabs", 1, 64, 64, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) < 0 ? 0 - x[0] : x[0];
     }},
    {"popc", 1, 32, 32, [](const uint64_t *x, unsigned) { return uint64_t(llvm::popcount(x[0])); }},
    {"popcll", 1, 64, 32, [](const uint64_t *x, unsigned) { return uint64_t(llvm::popcount(x[0])); }},
    {"clz", 1, 32, 32, [](const uint64_t *x, unsigned) {
       return uint64_t(llvm::countl_zero(static_cast<uint32_t>(x[0])));
     }},
    {"clzll", 1, 64, 32, [](const uint64_t *x, unsigned) { return uint64_t(llvm::countl_zero(x[0])); }},
    {"brev", 1, 32, 32, [](const uint64_t *x, unsigned) {
       return uint64_t(llvm::reverseBits(static_cast<uint32_t>(x[0])));
     }},
    {"brevll", 1, 64, 64, [](const uint64_t *x, unsigned) { return llvm::reverseBits(x[0]); }},
    {"min", 2, 32, 32, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) < signExtend(x[1], w) ? x[0] : x[1];
     }},
    {"llmin", 2, 64, 64, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) < signExtend(x[1], w) ? x[0] : x[1];
     }},
    {"umin", 2, 32, 32, [](const uint64_t *x, unsigned) { return std::min(x[0], x[1]); }},
    {"ullmin", 2, 64, 64, [](const uint64_t *x, unsigned) { return std::min(x[0], x[1]); }},
    {"max", 2, 32, 32, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) > signExtend(x[1], w) ? x[0] : x[1];
     }},
    {"llmax", 2, 64, 64, [](const uint64_t *x, unsigned w) {
       return signExtend(x[0], w) > signExtend(x[1], w) ? x[0] : x[1];
     }},
    {"umax", 2, 32, 32, [](const uint64_t *x, unsigned) { return std::max(x[0], x[1]); }},
    {"ullmax", 2, 64, 64, [](const uint64_t *x, unsigned) { return std::max(x[0], x[1]); }},
    {"mulhi", 2, 32, 32, [](const uint64_t *x, unsigned w) { return highHalf(x[0], x[1], w, true); }},
    {"umulhi", 2, 32, 32, [](const uint64_t *x, unsigned w) { return highHalf(x[0], x[1], w, false); }},
    {"mul64hi", 2, 64, 64, [](const uint64_t *x, unsigned w) { return highHalf(x[0], x[1], w, true); }},
    {"umul64hi", 2, 64, 64, [](const uint64_t *x, unsigned w) {
       return highHalf(x[0], x[1], w, false);
     }},
};

/// The float function `name` (after `__nv_`) names on `operand`: `tanhf` and
/// `fast_tanhf` on f32, `tanh` on f64.
const FloatFunction *floatFunction(llvm::StringRef name, Type operand, unsigned arity) {
  if (operand.isF32()) {
    if (!name.consume_back("f"))
      return nullptr;
    if (name.consume_front("fast_") && !llvm::is_contained(kFastFunctions, name))
      return nullptr;
  } else if (!operand.isF64()) {
    return nullptr;
  }
  for (const FloatFunction &function : kFloatFunctions)
    if (function.name == name && function.arity == arity)
      return &function;
  return nullptr;
}

llvm::Error evaluate(Executor &exec, tile::ExternElementwiseOp op) {
  llvm::StringRef name = op.getSymbol();
  if (op.getLibname() != "libdevice" || !op.getLibpath().empty() || !name.consume_front("__nv_"))
    return exec.fail(op, "calls '" + op.getSymbol() + "' of library '" + op.getLibname() +
                             "': the interpreter computes libdevice's functions (__nv_*) only");
  SmallVector<const Tile *> operands;
  for (Value operand : op.getSrcs())
    operands.push_back(&exec.tile(operand));
  Type result = getElementTypeOrSelf(op.getType());
  Type operand = operands.empty() ? result : operands.front()->elementType;
  bool sameOperands = llvm::all_of(operands, [&](const Tile *tile) {
    return tile->elementType == operand;
  });

  if (const FloatFunction *function = floatFunction(name, operand, operands.size());
      function && sameOperands && result == operand)
    return mapResult(exec, op, [&](int64_t lane) {
      SmallVector<double, 3> x;
      for (const Tile *tile : operands)
        x.push_back(tile->at(lane).real);
      return makeFloat(function->compute(x.data()), result);
    });
  for (const FloatPredicate &predicate : kFloatPredicates)
    if (operands.size() == 1 && result.isInteger(32) &&
        name == (operand.isF32() ? predicate.f32Name : operand.isF64() ? predicate.f64Name : ""))
      return mapResult(exec, op, [&](int64_t lane) {
        return makeInt(predicate.holds(operands[0]->at(lane).real) ? 1 : 0, 32);
      });
  for (const IntegerFunction &function : kIntegerFunctions)
    if (name == function.name && operands.size() == function.arity && sameOperands &&
        operand.isInteger(function.operandBits) && result.isInteger(function.resultBits))
      return mapResult(exec, op, [&](int64_t lane) {
        SmallVector<uint64_t, 2> x;
        for (const Tile *tile : operands)
          x.push_back(tile->at(lane).bits);
        return makeInt(function.compute(x.data(), function.operandBits), function.resultBits);
      });

  std::string types;
  llvm::raw_string_ostream os(types);
  os << "(";
  llvm::interleaveComma(op->getOperandTypes(), os);
  os << ") -> " << op.getType();
  return exec.fail(op, "the interpreter does not compute libdevice's '" + op.getSymbol() +
                           "' on " + types);
}

} // namespace

void registerLibdeviceHandlers(HandlerTable &table) {
  table.add<tile::ExternElementwiseOp>(evaluate);
}

} // namespace tessera::interp

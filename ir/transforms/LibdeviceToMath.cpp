// tile-libdevice-to-math: libdevice calls whose function a math or arith op
// computes become that op (ir/transforms/Passes.td).
#include "ir/transforms/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {
#define GEN_PASS_DEF_TILELIBDEVICETOMATH
#include "ir/transforms/Passes.h.inc"
} // namespace tessera::tile

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// A floating-point function of libdevice: `__nv_<name>f` on f32,
/// `__nv_<name>` on f64.
struct FloatFunction {
  llvm::StringLiteral name;
  unsigned arity;
  llvm::StringLiteral op;
};

constexpr FloatFunction kFloatFunctions[] = {
    {"acos", 1, "math.acos"},       {"acosh", 1, "math.acosh"},     {"asin", 1, "math.asin"},
    {"asinh", 1, "math.asinh"},     {"atan", 1, "math.atan"},       {"atanh", 1, "math.atanh"},
    {"cbrt", 1, "math.cbrt"},       {"ceil", 1, "math.ceil"},       {"cos", 1, "math.cos"},
    {"cosh", 1, "math.cosh"},       {"erf", 1, "math.erf"},         {"erfc", 1, "math.erfc"},
    {"exp", 1, "math.exp"},         {"exp2", 1, "math.exp2"},       {"expm1", 1, "math.expm1"},
    {"fabs", 1, "math.absf"},       {"floor", 1, "math.floor"},     {"log", 1, "math.log"},
    {"log10", 1, "math.log10"},     {"log1p", 1, "math.log1p"},     {"log2", 1, "math.log2"},
    {"nearbyint", 1, "math.roundeven"}, {"rint", 1, "math.roundeven"}, {"round", 1, "math.round"},
    {"rsqrt", 1, "math.rsqrt"},     {"sin", 1, "math.sin"},         {"sinh", 1, "math.sinh"},
    {"sqrt", 1, "math.sqrt"},       {"tan", 1, "math.tan"},         {"tanh", 1, "math.tanh"},
    {"trunc", 1, "math.trunc"},     {"atan2", 2, "math.atan2"},     {"copysign", 2, "math.copysign"},
    {"fmax", 2, "arith.maxnumf"},   {"fmin", 2, "arith.minnumf"},   {"fmod", 2, "arith.remf"},
    {"pow", 2, "math.powf"},        {"fma", 3, "math.fma"},
};

/// `__nv_fast_<name>f`: f32 approximations, computed here by the accurate op.
constexpr llvm::StringLiteral kFastFunctions[] = {"cos", "exp", "log",  "log10", "log2",
                                                  "pow", "sin", "tan",  "tanh"};

enum class Test { IsNan, IsInf, IsFinite };

/// A test of a float (`__nv_<f32 name>`, `__nv_<f64 name>`) answering an i32.
struct FloatPredicate {
  llvm::StringLiteral f32Name, f64Name;
  Test test;
};

/// Written with arith.cmpf, which every backend lowers (the CPU backend has
/// no lowering of math.isinf).
constexpr FloatPredicate kFloatPredicates[] = {
    {"isnanf", "isnand", Test::IsNan},
    {"isinff", "isinfd", Test::IsInf},
    {"finitef", "isfinited", Test::IsFinite},
};

/// An integer function: `__nv_<name>` on iN operands, answering an iM.
struct IntegerFunction {
  llvm::StringLiteral name;
  unsigned arity;
  llvm::StringLiteral op;
  unsigned operandBits, resultBits;
};

constexpr IntegerFunction kIntegerFunctions[] = {
    {"abs", 1, "math.absi", 32, 32},     {"llabs", 1, "math.absi", 64, 64},
    {"popc", 1, "math.ctpop", 32, 32},   {"popcll", 1, "math.ctpop", 64, 32},
    {"clz", 1, "math.ctlz", 32, 32},     {"clzll", 1, "math.ctlz", 64, 32},
    {"min", 2, "arith.minsi", 32, 32},   {"llmin", 2, "arith.minsi", 64, 64},
    {"umin", 2, "arith.minui", 32, 32},  {"ullmin", 2, "arith.minui", 64, 64},
    {"max", 2, "arith.maxsi", 32, 32},   {"llmax", 2, "arith.maxsi", 64, 64},
    {"umax", 2, "arith.maxui", 32, 32},  {"ullmax", 2, "arith.maxui", 64, 64},
    {"mulhi", 2, "arith.mulsi_extended", 32, 32},
    {"umulhi", 2, "arith.mului_extended", 32, 32},
    {"mul64hi", 2, "arith.mulsi_extended", 64, 64},
    {"umul64hi", 2, "arith.mului_extended", 64, 64},
};

/// What a call computes: the op (or the test of a predicate), and the
/// element types of its operands and result as the function declares them.
struct Counterpart {
  llvm::StringRef op;
  unsigned arity;
  Type operand, result;
  std::optional<Test> test;
};

std::optional<Counterpart> counterpartOf(llvm::StringRef symbol, MLIRContext *context) {
  llvm::StringRef name = symbol;
  if (!name.consume_front("__nv_"))
    return std::nullopt;
  Type f32 = Float32Type::get(context), f64 = Float64Type::get(context);
  Type i32 = IntegerType::get(context, 32);
  for (const FloatFunction &function : kFloatFunctions) {
    if (name == function.name)
      return Counterpart{function.op, function.arity, f64, f64};
    if (name.size() == function.name.size() + 1 && name.starts_with(function.name) &&
        name.back() == 'f')
      return Counterpart{function.op, function.arity, f32, f32};
  }
  llvm::StringRef fast = name;
  if (fast.consume_front("fast_") && fast.consume_back("f"))
    for (llvm::StringRef function : kFastFunctions)
      if (fast == function)
        for (const FloatFunction &accurate : kFloatFunctions)
          if (accurate.name == function)
            return Counterpart{accurate.op, accurate.arity, f32, f32};
  for (const FloatPredicate &predicate : kFloatPredicates) {
    if (name == predicate.f32Name)
      return Counterpart{"", 1, f32, i32, predicate.test};
    if (name == predicate.f64Name)
      return Counterpart{"", 1, f64, i32, predicate.test};
  }
  for (const IntegerFunction &function : kIntegerFunctions)
    if (name == function.name)
      return Counterpart{function.op, function.arity,
                         IntegerType::get(context, function.operandBits),
                         IntegerType::get(context, function.resultBits)};
  return std::nullopt;
}

/// `value` (of element type i1, or an integer as wide as the operands) as
/// `type`: predicates answer 0 or 1, `__nv_popcll` and `__nv_clzll` an i32.
Value convertResult(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  if (getElementTypeOrSelf(value).getIntOrFloatBitWidth() <
      getElementTypeOrSelf(type).getIntOrFloatBitWidth())
    return arith::ExtUIOp::create(builder, loc, type, value);
  return arith::TruncIOp::create(builder, loc, type, value);
}

/// The i1 answer of `test` on `x`.
Value buildPredicate(OpBuilder &builder, Location loc, Test test, Value x) {
  if (test == Test::IsNan)
    return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO, x, x);
  auto element = cast<FloatType>(getElementTypeOrSelf(x));
  TypedAttr inf = builder.getFloatAttr(element, APFloat::getInf(element.getFloatSemantics()));
  if (auto shaped = dyn_cast<ShapedType>(x.getType()))
    inf = DenseElementsAttr::get(shaped, inf);
  Value magnitude = math::AbsFOp::create(builder, loc, x);
  Value infinity = arith::ConstantOp::create(builder, loc, inf);
  // `one` is false for NaN, as isfinite must be.
  return arith::CmpFOp::create(builder, loc,
                               test == Test::IsInf ? arith::CmpFPredicate::OEQ
                                               : arith::CmpFPredicate::ONE,
                               magnitude, infinity);
}

/// The op `call` computes, built before it; null where the call is not one
/// of a function this pass knows with that function's types.
Value buildCounterpart(OpBuilder &builder, tile::ExternElementwiseOp call) {
  std::optional<Counterpart> counterpart = counterpartOf(call.getSymbol(), call.getContext());
  if (!counterpart || call.getSrcs().size() != counterpart->arity ||
      getElementTypeOrSelf(call.getType()) != counterpart->result ||
      llvm::any_of(call.getSrcs(), [&](Value operand) {
        return operand.getType() != call.getSrcs().front().getType() ||
               getElementTypeOrSelf(operand) != counterpart->operand;
      }))
    return nullptr;
  Location loc = call.getLoc();
  if (counterpart->test)
    return convertResult(builder, loc,
                         buildPredicate(builder, loc, *counterpart->test, call.getSrcs().front()),
                         call.getType());
  Type operandType = call.getSrcs().front().getType();
  SmallVector<Type> resultTypes{operandType};
  if (counterpart->op.ends_with("_extended"))
    resultTypes.push_back(operandType); // the low half, then the high half
  Operation *op = builder.create(loc, builder.getStringAttr(counterpart->op), call.getSrcs(),
                                 resultTypes);
  return convertResult(builder, loc, op->getResults().back(), call.getType());
}

struct LibdeviceToMath : tessera::tile::impl::TileLibdeviceToMathBase<LibdeviceToMath> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](tile::ExternElementwiseOp call) {
      rewriter.setInsertionPoint(call);
      if (Value counterpart = buildCounterpart(rewriter, call))
        rewriter.replaceOp(call, counterpart);
    });
  }
};

} // namespace

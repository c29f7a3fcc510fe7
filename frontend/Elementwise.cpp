// KernelBuilder: promotion, broadcasting, arithmetic, comparisons, math, casts.
#include "frontend/KernelBuilder.h"
#include "frontend/Typing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace tessera::frontend {

//===----------------------------------------------------------------------===//
// Typing rules
//===----------------------------------------------------------------------===//

Type typing::promote(Type lhs, Type rhs) {
  if (lhs == rhs)
    return lhs;
  // bf16's 8 mantissa bits hold neither integers nor other narrow floats
  // (Triton: bf16 meets them in f32).
  auto narrow = [](Type type) { return !isFloat(type) || type.getIntOrFloatBitWidth() < 32; };
  if ((lhs.isBF16() && narrow(rhs)) || (rhs.isBF16() && narrow(lhs)))
    return Float32Type::get(lhs.getContext());
  if (isFloat(lhs) != isFloat(rhs))
    return isFloat(lhs) ? lhs : rhs;
  unsigned lhsBits = lhs.getIntOrFloatBitWidth(), rhsBits = rhs.getIntOrFloatBitWidth();
  if (lhsBits != rhsBits)
    return lhsBits > rhsBits ? lhs : rhs;
  // Same width, different floats (f16 and bf16): neither holds the other.
  return isFloat(lhs) ? Float32Type::get(lhs.getContext()) : lhs;
}

std::optional<std::vector<int64_t>> typing::broadcastShapes(ArrayRef<int64_t> lhs,
                                                            ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  std::vector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align on the right: missing leading dimensions act as size 1.
    int64_t l = i + lhs.size() >= rank ? lhs[i + lhs.size() - rank] : 1;
    int64_t r = i + rhs.size() >= rank ? rhs[i + rhs.size() - rank] : 1;
    if (l != r && l != 1 && r != 1)
      return std::nullopt;
    result[i] = l == 1 ? r : l;
  }
  return result;
}

bool typing::broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  auto shape = broadcastShapes(from, to);
  return shape && ArrayRef<int64_t>(*shape) == to;
}

Value KernelBuilder::broadcastTo(Value value, ArrayRef<int64_t> shape, const SourceLocation &loc) {
  std::vector<int64_t> from = shapeOf(value);
  if (!typing::broadcastsTo(from, shape))
    fail(loc, "cannot broadcast " + str(from) + " to " + str(shape));
  if (from.empty())
    return splat(value, shape, loc);
  Location where = at(loc);
  while (from.size() < shape.size()) {
    from.insert(from.begin(), 1);
    value = tile::ExpandDimsOp::create(builder_, where, withShape(elementType(value), from),
                                       value, 0u);
  }
  if (ArrayRef<int64_t>(from) != shape)
    value = tile::BroadcastOp::create(builder_, where, withShape(elementType(value), shape), value);
  return value;
}

std::vector<Value> KernelBuilder::broadcastAll(ArrayRef<Value> values, const SourceLocation &loc) {
  std::vector<int64_t> shape;
  for (Value value : values) {
    std::vector<int64_t> next = shapeOf(value);
    auto joined = typing::broadcastShapes(shape, next);
    if (!joined)
      fail(loc, "shapes " + str(shape) + " and " + str(next) + " cannot be broadcast");
    shape = *joined;
  }
  std::vector<Value> result;
  for (Value value : values)
    result.push_back(broadcastTo(value, shape, loc));
  return result;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

static const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div:
  case BinaryOp::TrueDiv: return "/";
  case BinaryOp::PreciseDiv: return "div_rn";
  case BinaryOp::Mod: return "%";
  case BinaryOp::And: return "&";
  case BinaryOp::Or: return "|";
  case BinaryOp::Xor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::Maximum:
  case BinaryOp::MaximumPropagatingNan: return "maximum";
  case BinaryOp::Minimum:
  case BinaryOp::MinimumPropagatingNan: return "minimum";
  }
  llvm_unreachable("unknown binary op");
}

Value KernelBuilder::pointerArithmetic(BinaryOp op, Value lhs, Value rhs,
                                       const SourceLocation &loc) {
  bool lhsPtr = isa<tile::PointerType>(elementType(lhs));
  bool rhsPtr = isa<tile::PointerType>(elementType(rhs));
  if (op != BinaryOp::Add && op != BinaryOp::Sub)
    fail(loc, std::string("operator ") + spelling(op) + " is not defined for pointers");
  if (lhsPtr && rhsPtr)
    fail(loc, op == BinaryOp::Add ? "cannot add two pointers" : "cannot subtract two pointers");
  if (op == BinaryOp::Sub && rhsPtr)
    fail(loc, "cannot subtract a pointer from " + str(elementType(lhs)));
  Value ptr = lhsPtr ? lhs : rhs, offset = lhsPtr ? rhs : lhs;
  Type offsetType = elementType(offset);
  if (!typing::isInteger(offsetType) || typing::isBool(offsetType))
    fail(loc, op == BinaryOp::Add ? "cannot add " + str(offsetType) + " to a pointer"
                                  : "cannot subtract " + str(offsetType) + " from a pointer");
  if (op == BinaryOp::Sub)
    offset = unary(UnaryOp::Neg, offset, loc);
  std::vector<Value> both = broadcastAll({ptr, offset}, loc);
  return tile::AddPtrOp::create(builder_, at(loc), both[0], both[1]);
}

Value KernelBuilder::binary(BinaryOp op, Value lhs, Value rhs, const SourceLocation &loc,
                            Signedness sign) {
  if (isa<tile::PointerType>(elementType(lhs)) || isa<tile::PointerType>(elementType(rhs)))
    return pointerArithmetic(op, lhs, rhs, loc);
  Type elem = typing::promote(elementType(lhs), elementType(rhs));
  if ((op == BinaryOp::TrueDiv || op == BinaryOp::PreciseDiv) && !typing::isFloat(elem))
    elem = builder_.getF32Type();
  bool bitwise = op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor ||
                 op == BinaryOp::Shl || op == BinaryOp::Shr;
  if (bitwise && !typing::isInteger(elem))
    fail(loc, std::string("operator ") + spelling(op) + " needs integer or boolean operands, got " +
                  str(elementType(lhs)) + " and " + str(elementType(rhs)));
  std::vector<Value> both = broadcastAll({cast(lhs, elem, loc), cast(rhs, elem, loc)}, loc);
  Value a = both[0], b = both[1];
  Location where = at(loc);
  bool isFloat = typing::isFloat(elem);
  bool isUnsigned = sign == Signedness::Unsigned;
  switch (op) {
  case BinaryOp::Add:
    return isFloat ? Value(arith::AddFOp::create(builder_, where, a, b))
                   : Value(arith::AddIOp::create(builder_, where, a, b));
  case BinaryOp::Sub:
    return isFloat ? Value(arith::SubFOp::create(builder_, where, a, b))
                   : Value(arith::SubIOp::create(builder_, where, a, b));
  case BinaryOp::Mul:
    return isFloat ? Value(arith::MulFOp::create(builder_, where, a, b))
                   : Value(arith::MulIOp::create(builder_, where, a, b));
  case BinaryOp::Div:
  case BinaryOp::TrueDiv:
    if (isFloat)
      return arith::DivFOp::create(builder_, where, a, b);
    return isUnsigned ? Value(arith::DivUIOp::create(builder_, where, a, b))
                      : Value(arith::DivSIOp::create(builder_, where, a, b));
  case BinaryOp::PreciseDiv: return tile::PreciseDivFOp::create(builder_, where, a, b);
  case BinaryOp::Mod:
    if (isFloat)
      return arith::RemFOp::create(builder_, where, a, b);
    return isUnsigned ? Value(arith::RemUIOp::create(builder_, where, a, b))
                      : Value(arith::RemSIOp::create(builder_, where, a, b));
  case BinaryOp::And: return arith::AndIOp::create(builder_, where, a, b);
  case BinaryOp::Or: return arith::OrIOp::create(builder_, where, a, b);
  case BinaryOp::Xor: return arith::XOrIOp::create(builder_, where, a, b);
  case BinaryOp::Shl: return arith::ShLIOp::create(builder_, where, a, b);
  case BinaryOp::Shr:
    return isUnsigned ? Value(arith::ShRUIOp::create(builder_, where, a, b))
                      : Value(arith::ShRSIOp::create(builder_, where, a, b));
  // maxnumf/minnumf: a NaN operand loses to a number (Triton's default,
  // propagate_nan=none); maximumf/minimumf: it wins.
  case BinaryOp::Maximum:
  case BinaryOp::MaximumPropagatingNan:
    if (!isFloat)
      return integerExtremum(/*maximum=*/true, a, b, isUnsigned, where);
    return op == BinaryOp::Maximum ? Value(arith::MaxNumFOp::create(builder_, where, a, b))
                                   : Value(arith::MaximumFOp::create(builder_, where, a, b));
  case BinaryOp::Minimum:
  case BinaryOp::MinimumPropagatingNan:
    if (!isFloat)
      return integerExtremum(/*maximum=*/false, a, b, isUnsigned, where);
    return op == BinaryOp::Minimum ? Value(arith::MinNumFOp::create(builder_, where, a, b))
                                   : Value(arith::MinimumFOp::create(builder_, where, a, b));
  }
  llvm_unreachable("unknown binary op");
}

Value KernelBuilder::integerExtremum(bool maximum, Value a, Value b, bool isUnsigned,
                                     Location where) {
  if (typing::isBool(getElementTypeOrSelf(a.getType()))) {
    // Unsigned, true is 1: the larger is `or`; signed, true is -1: `and`.
    if (maximum == isUnsigned)
      return arith::OrIOp::create(builder_, where, a, b);
    return arith::AndIOp::create(builder_, where, a, b);
  }
  if (maximum)
    return isUnsigned ? Value(arith::MaxUIOp::create(builder_, where, a, b))
                      : Value(arith::MaxSIOp::create(builder_, where, a, b));
  return isUnsigned ? Value(arith::MinUIOp::create(builder_, where, a, b))
                    : Value(arith::MinSIOp::create(builder_, where, a, b));
}

Value KernelBuilder::compare(CompareOp op, Value lhs, Value rhs, const SourceLocation &loc,
                             Signedness sign) {
  Type lhsElem = elementType(lhs), rhsElem = elementType(rhs);
  bool lhsPtr = isa<tile::PointerType>(lhsElem), rhsPtr = isa<tile::PointerType>(rhsElem);
  if (lhsPtr != rhsPtr)
    fail(loc, "cannot compare " + str(lhsElem) + " with " + str(rhsElem));
  Type elem;
  if (lhsPtr) {
    // Pointers compare as addresses.
    elem = builder_.getI64Type();
    lhs = tile::PtrToIntOp::create(builder_, at(loc), withShape(elem, shapeOf(lhs)), lhs);
    rhs = tile::PtrToIntOp::create(builder_, at(loc), withShape(elem, shapeOf(rhs)), rhs);
  } else {
    elem = typing::promote(lhsElem, rhsElem);
  }
  std::vector<Value> both = broadcastAll({cast(lhs, elem, loc), cast(rhs, elem, loc)}, loc);
  Location where = at(loc);
  if (typing::isFloat(elem)) {
    // Ordered predicates, except `!=`, which holds for NaN as in C and Python.
    arith::CmpFPredicate predicate = arith::CmpFPredicate::OEQ;
    switch (op) {
    case CompareOp::Eq: predicate = arith::CmpFPredicate::OEQ; break;
    case CompareOp::Ne: predicate = arith::CmpFPredicate::UNE; break;
    case CompareOp::Lt: predicate = arith::CmpFPredicate::OLT; break;
    case CompareOp::Le: predicate = arith::CmpFPredicate::OLE; break;
    case CompareOp::Gt: predicate = arith::CmpFPredicate::OGT; break;
    case CompareOp::Ge: predicate = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(builder_, where, predicate, both[0], both[1]);
  }
  // Addresses are unsigned; integers as the front end reads them.
  bool isUnsigned = lhsPtr || sign == Signedness::Unsigned;
  using P = arith::CmpIPredicate;
  P predicate = P::eq;
  switch (op) {
  case CompareOp::Eq: predicate = P::eq; break;
  case CompareOp::Ne: predicate = P::ne; break;
  case CompareOp::Lt: predicate = isUnsigned ? P::ult : P::slt; break;
  case CompareOp::Le: predicate = isUnsigned ? P::ule : P::sle; break;
  case CompareOp::Gt: predicate = isUnsigned ? P::ugt : P::sgt; break;
  case CompareOp::Ge: predicate = isUnsigned ? P::uge : P::sge; break;
  }
  return arith::CmpIOp::create(builder_, where, predicate, both[0], both[1]);
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

static const char *spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Not: return "~";
  case UnaryOp::Exp: return "exp";
  case UnaryOp::Exp2: return "exp2";
  case UnaryOp::Log: return "log";
  case UnaryOp::Log2: return "log2";
  case UnaryOp::Sqrt: return "sqrt";
  case UnaryOp::Rsqrt: return "rsqrt";
  case UnaryOp::Sin: return "sin";
  case UnaryOp::Cos: return "cos";
  case UnaryOp::Abs: return "abs";
  case UnaryOp::Sigmoid: return "sigmoid";
  case UnaryOp::Erf: return "erf";
  case UnaryOp::Floor: return "floor";
  case UnaryOp::Ceil: return "ceil";
  }
  llvm_unreachable("unknown unary op");
}

Value KernelBuilder::unary(UnaryOp op, Value value, const SourceLocation &loc) {
  Type elem = elementType(value);
  if (isa<tile::PointerType>(elem))
    fail(loc, std::string(spelling(op)) + " is not defined for pointers");
  bool isFloat = typing::isFloat(elem);
  Location where = at(loc);
  switch (op) {
  case UnaryOp::Neg:
    if (isFloat)
      return arith::NegFOp::create(builder_, where, value);
    return arith::SubIOp::create(builder_, where, constant(int64_t{0}, value.getType(), loc), value);
  case UnaryOp::Not:
    if (isFloat)
      fail(loc, "operator ~ needs an integer or boolean operand, got " + str(elem));
    return arith::XOrIOp::create(builder_, where, value,
                                 constant(int64_t{-1}, value.getType(), loc));
  case UnaryOp::Abs:
    return isFloat ? Value(math::AbsFOp::create(builder_, where, value))
                   : Value(math::AbsIOp::create(builder_, where, value));
  default:
    break;
  }
  if (!isFloat)
    fail(loc, std::string(spelling(op)) + " needs a floating-point operand, got " + str(elem) +
                  "; convert it with to<float>() first");
  switch (op) {
  case UnaryOp::Exp: return math::ExpOp::create(builder_, where, value);
  case UnaryOp::Exp2: return math::Exp2Op::create(builder_, where, value);
  case UnaryOp::Log: return math::LogOp::create(builder_, where, value);
  case UnaryOp::Log2: return math::Log2Op::create(builder_, where, value);
  case UnaryOp::Sqrt: return math::SqrtOp::create(builder_, where, value);
  case UnaryOp::Rsqrt: return math::RsqrtOp::create(builder_, where, value);
  case UnaryOp::Sin: return math::SinOp::create(builder_, where, value);
  case UnaryOp::Cos: return math::CosOp::create(builder_, where, value);
  case UnaryOp::Erf: return math::ErfOp::create(builder_, where, value);
  case UnaryOp::Floor: return math::FloorOp::create(builder_, where, value);
  case UnaryOp::Ceil: return math::CeilOp::create(builder_, where, value);
  case UnaryOp::Sigmoid: {
    // 1 / (1 + exp(-x)): exact at both tails (exp overflows to inf, 1/inf = 0).
    Value one = constant(1.0, value.getType(), loc);
    Value e = math::ExpOp::create(builder_, where, arith::NegFOp::create(builder_, where, value));
    return arith::DivFOp::create(builder_, where, one, arith::AddFOp::create(builder_, where, one, e));
  }
  default:
    llvm_unreachable("handled above");
  }
}

Value KernelBuilder::where(Value cond, Value lhs, Value rhs, const SourceLocation &loc) {
  if (!typing::isBool(elementType(cond)))
    fail(loc, "where needs a boolean condition, got " + str(elementType(cond)));
  Type lhsElem = elementType(lhs), rhsElem = elementType(rhs);
  bool lhsPtr = isa<tile::PointerType>(lhsElem), rhsPtr = isa<tile::PointerType>(rhsElem);
  if ((lhsPtr || rhsPtr) && lhsElem != rhsElem)
    fail(loc, "where cannot choose between " + str(lhsElem) + " and " + str(rhsElem));
  Type elem = lhsPtr ? lhsElem : typing::promote(lhsElem, rhsElem);
  std::vector<Value> all = broadcastAll({cond, cast(lhs, elem, loc), cast(rhs, elem, loc)}, loc);
  return arith::SelectOp::create(builder_, at(loc), all[0], all[1], all[2]);
}

Value KernelBuilder::fma(Value a, Value b, Value c, const SourceLocation &loc) {
  Type elem = typing::promote(typing::promote(elementType(a), elementType(b)), elementType(c));
  if (!typing::isFloat(elem))
    fail(loc, "fma needs floating-point operands, got " + str(elem));
  std::vector<Value> all =
      broadcastAll({cast(a, elem, loc), cast(b, elem, loc), cast(c, elem, loc)}, loc);
  return math::FmaOp::create(builder_, at(loc), all[0], all[1], all[2]);
}

Value KernelBuilder::clamp(Value x, Value lo, Value hi, bool propagateNan,
                           const SourceLocation &loc, Signedness sign) {
  Type elem = promotedType({x, lo, hi});
  if (!typing::isFloat(elem)) // integers have no NaN
    return binary(BinaryOp::Minimum, binary(BinaryOp::Maximum, x, lo, loc, sign), hi, loc, sign);
  std::vector<Value> all =
      broadcastAll({cast(x, elem, loc), cast(lo, elem, loc), cast(hi, elem, loc)}, loc);
  return tile::ClampOp::create(builder_, at(loc), all[0], all[1], all[2],
                               propagateNan ? tile::PropagateNan::All : tile::PropagateNan::None);
}

Type KernelBuilder::promotedType(ArrayRef<Value> values) const {
  Type common;
  for (Value value : values)
    common = common ? typing::promote(common, elementType(value)) : elementType(value);
  return common;
}

Value KernelBuilder::externElementwise(StringRef symbol, StringRef library, StringRef path,
                                       ArrayRef<Value> args, Type result, bool pure,
                                       const SourceLocation &loc) {
  if (args.empty())
    fail(loc, "the call of " + symbol.str() + " has no arguments; extern_elementwise applies a "
              "function to the elements of at least one");
  std::vector<Value> all = broadcastAll(args, loc);
  return tile::ExternElementwiseOp::create(builder_, at(loc), withShape(result, shapeOf(all[0])),
                                           all, symbol, library, path, pure);
}

std::vector<Value> KernelBuilder::inlineAsmElementwise(StringRef assembly, StringRef constraints,
                                                       ArrayRef<Value> args,
                                                       ArrayRef<Type> results, bool pure,
                                                       int pack, const SourceLocation &loc) {
  if (results.empty())
    fail(loc, "inline_asm_elementwise needs at least one result dtype");
  std::vector<Value> all = broadcastAll(args, loc);
  std::vector<int64_t> shape = all.empty() ? std::vector<int64_t>{} : shapeOf(all[0]);
  SmallVector<Type> types;
  for (Type result : results)
    types.push_back(withShape(result, shape));
  auto op = tile::InlineAsmElementwiseOp::create(builder_, at(loc), types, all, assembly,
                                                 constraints, pure, pack);
  return {op.getResults().begin(), op.getResults().end()};
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

Value KernelBuilder::cast(Value value, Type elem, const SourceLocation &loc, CastOptions options) {
  Type from = elementType(value);
  if (from == elem)
    return value;
  Type type = withShape(elem, shapeOf(value));
  Location where = at(loc);
  bool fromPtr = isa<tile::PointerType>(from), toPtr = isa<tile::PointerType>(elem);
  if (fromPtr && toPtr)
    return tile::BitcastOp::create(builder_, where, type, value);
  if (fromPtr || toPtr) {
    if (fromPtr && elem.isInteger(64))
      return tile::PtrToIntOp::create(builder_, where, type, value);
    if (toPtr && from.isInteger(64))
      return tile::IntToPtrOp::create(builder_, where, type, value);
    fail(loc, "cannot convert " + str(from) + " to " + str(elem) +
                  " (pointers convert to and from i64 only)");
  }
  if (isa<tile::TensorDescType>(from) || !elem.isIntOrFloat())
    fail(loc, "cannot convert " + str(from) + " to " + str(elem));
  if (options.bitcast) {
    if (from.getIntOrFloatBitWidth() != elem.getIntOrFloatBitWidth())
      fail(loc, "cannot bitcast " + str(from) + " to " + str(elem) + ": the bit widths differ");
    return arith::BitcastOp::create(builder_, where, type, value);
  }
  if (typing::isBool(elem)) {
    // A boolean is `value != 0`, not its truncated low bit.
    if (typing::isFloat(from))
      return arith::CmpFOp::create(builder_, where, arith::CmpFPredicate::UNE, value,
                                   constant(0.0, value.getType(), loc));
    return arith::CmpIOp::create(builder_, where, arith::CmpIPredicate::ne, value,
                                 constant(int64_t{0}, value.getType(), loc));
  }
  bool isUnsigned = options.sourceUnsigned || typing::isBool(from);
  unsigned fromBits = from.getIntOrFloatBitWidth(), toBits = elem.getIntOrFloatBitWidth();
  if (typing::isInteger(from) && typing::isInteger(elem)) {
    if (toBits < fromBits)
      return arith::TruncIOp::create(builder_, where, type, value);
    return isUnsigned ? Value(arith::ExtUIOp::create(builder_, where, type, value))
                      : Value(arith::ExtSIOp::create(builder_, where, type, value));
  }
  if (typing::isInteger(from))
    return isUnsigned ? Value(arith::UIToFPOp::create(builder_, where, type, value))
                      : Value(arith::SIToFPOp::create(builder_, where, type, value));
  if (typing::isInteger(elem))
    return options.targetUnsigned ? Value(arith::FPToUIOp::create(builder_, where, type, value))
                                  : Value(arith::FPToSIOp::create(builder_, where, type, value));
  if (fromBits == toBits) // f16 <-> bf16: through f32, which holds both exactly.
    return cast(cast(value, builder_.getF32Type(), loc), elem, loc);
  return toBits > fromBits ? Value(arith::ExtFOp::create(builder_, where, type, value))
                           : Value(arith::TruncFOp::create(builder_, where, type, value));
}

} // namespace tessera::frontend

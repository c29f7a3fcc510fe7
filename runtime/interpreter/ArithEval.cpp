// Semantics of the arith dialect: integers wrap at their bit width, signed
// and unsigned views are explicit, floats round to their declared type.
#include "runtime/interpreter/Elementwise.h"
#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace tessera::interp {
namespace {

int64_t sval(uint64_t bits, unsigned width) { return signExtend(bits, width); }

// Quotient and remainder of signed integers of `width` bits, rounded toward
// zero; INT_MIN / -1 wraps as the hardware does instead of trapping.
int64_t signedDiv(int64_t a, int64_t b) {
  return b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a / b;
}
int64_t signedRem(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

uint64_t shiftLeft(unsigned width, uint64_t a, uint64_t b) { return b >= width ? 0 : a << b; }
uint64_t shiftRightUnsigned(unsigned width, uint64_t a, uint64_t b) {
  return b >= width ? 0 : a >> b;
}
uint64_t shiftRightSigned(unsigned width, uint64_t a, uint64_t b) {
  return static_cast<uint64_t>(sval(a, width) >> std::min<uint64_t>(b, width - 1));
}

// Division ops check every lane's divisor first: division by zero is
// undefined behaviour in the IR and a bug the user wants to hear about.
template <typename OpTy, typename Fn> void addDivision(HandlerTable &table, Fn fn) {
  table.add<OpTy>([fn](Executor &exec, OpTy op) -> llvm::Error {
    const Tile &lhs = exec.tile(op.getLhs()), &rhs = exec.tile(op.getRhs());
    for (int64_t lane = 0; lane < std::max(lhs.size(), rhs.size()); ++lane)
      if (rhs.at(lane).bits == 0)
        return exec.fail(op, "integer division by zero in lane " + llvm::Twine(lane));
    unsigned width = intWidth(lhs.elementType);
    return mapResult(exec, op, [&](int64_t lane) {
      return makeInt(fn(width, lhs.at(lane).bits, rhs.at(lane).bits), width);
    });
  });
}

void addIntegerOps(HandlerTable &table) {
  addIntOp<arith::AddIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a + b; });
  addIntOp<arith::SubIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a - b; });
  addIntOp<arith::MulIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a * b; });
  addIntOp<arith::AndIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a & b; });
  addIntOp<arith::OrIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a | b; });
  addIntOp<arith::XOrIOp, 2>(table, [](unsigned, uint64_t a, uint64_t b) { return a ^ b; });
  addIntOp<arith::ShLIOp, 2>(table, shiftLeft);
  addIntOp<arith::ShRUIOp, 2>(table, shiftRightUnsigned);
  addIntOp<arith::ShRSIOp, 2>(table, shiftRightSigned);
  addIntOp<arith::MaxSIOp, 2>(table, [](unsigned w, uint64_t a, uint64_t b) {
    return sval(a, w) >= sval(b, w) ? a : b;
  });
  addIntOp<arith::MinSIOp, 2>(table, [](unsigned w, uint64_t a, uint64_t b) {
    return sval(a, w) <= sval(b, w) ? a : b;
  });
  addIntOp<arith::MaxUIOp, 2>(table,
                              [](unsigned, uint64_t a, uint64_t b) { return std::max(a, b); });
  addIntOp<arith::MinUIOp, 2>(table,
                              [](unsigned, uint64_t a, uint64_t b) { return std::min(a, b); });

  addDivision<arith::DivUIOp>(table, [](unsigned, uint64_t a, uint64_t b) { return a / b; });
  addDivision<arith::RemUIOp>(table, [](unsigned, uint64_t a, uint64_t b) { return a % b; });
  addDivision<arith::CeilDivUIOp>(table, [](unsigned, uint64_t a, uint64_t b) {
    return a / b + (a % b != 0);
  });
  addDivision<arith::DivSIOp>(table, [](unsigned w, uint64_t a, uint64_t b) {
    return static_cast<uint64_t>(signedDiv(sval(a, w), sval(b, w)));
  });
  addDivision<arith::RemSIOp>(table, [](unsigned w, uint64_t a, uint64_t b) {
    return static_cast<uint64_t>(signedRem(sval(a, w), sval(b, w)));
  });
  addDivision<arith::CeilDivSIOp>(table, [](unsigned w, uint64_t a, uint64_t b) {
    int64_t x = sval(a, w), y = sval(b, w);
    int64_t q = signedDiv(x, y), r = signedRem(x, y);
    return static_cast<uint64_t>(r != 0 && ((r < 0) == (y < 0)) ? q + 1 : q);
  });
  addDivision<arith::FloorDivSIOp>(table, [](unsigned w, uint64_t a, uint64_t b) {
    int64_t x = sval(a, w), y = sval(b, w);
    int64_t q = signedDiv(x, y), r = signedRem(x, y);
    return static_cast<uint64_t>(r != 0 && ((r < 0) != (y < 0)) ? q - 1 : q);
  });
}

// IEEE 754-2019 maximum/minimum: NaN wins, and -0 orders below +0.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

void addFloatOps(HandlerTable &table) {
  addFloatOp<arith::AddFOp, 2>(table, [](double a, double b) { return a + b; });
  addFloatOp<arith::SubFOp, 2>(table, [](double a, double b) { return a - b; });
  addFloatOp<arith::MulFOp, 2>(table, [](double a, double b) { return a * b; });
  addFloatOp<arith::DivFOp, 2>(table, [](double a, double b) { return a / b; });
  addFloatOp<arith::RemFOp, 2>(table, [](double a, double b) { return std::fmod(a, b); });
  addFloatOp<arith::MaximumFOp, 2>(table, maximum);
  addFloatOp<arith::MinimumFOp, 2>(table, minimum);
  addFloatOp<arith::MaxNumFOp, 2>(table, [](double a, double b) { return std::fmax(a, b); });
  addFloatOp<arith::MinNumFOp, 2>(table, [](double a, double b) { return std::fmin(a, b); });
  addFloatOp<arith::NegFOp, 1>(table, [](double a) { return -a; });
}

bool compareInt(arith::CmpIPredicate predicate, uint64_t a, uint64_t b, unsigned width) {
  int64_t x = sval(a, width), y = sval(b, width);
  switch (predicate) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return x < y;
  case arith::CmpIPredicate::sle:
    return x <= y;
  case arith::CmpIPredicate::sgt:
    return x > y;
  case arith::CmpIPredicate::sge:
    return x >= y;
  case arith::CmpIPredicate::ult:
    return a < b;
  case arith::CmpIPredicate::ule:
    return a <= b;
  case arith::CmpIPredicate::ugt:
    return a > b;
  case arith::CmpIPredicate::uge:
    return a >= b;
  }
  llvm_unreachable("unknown cmpi predicate");
}

bool compareFloat(arith::CmpFPredicate predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (predicate) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  llvm_unreachable("unknown cmpf predicate");
}

void addComparisons(HandlerTable &table) {
  table.add<arith::CmpIOp>([](Executor &exec, arith::CmpIOp op) {
    const Tile &lhs = exec.tile(op.getLhs()), &rhs = exec.tile(op.getRhs());
    unsigned width = intWidth(lhs.elementType);
    return mapResult(exec, op, [&](int64_t lane) {
      return makeBool(compareInt(op.getPredicate(), lhs.at(lane).bits, rhs.at(lane).bits, width));
    });
  });
  table.add<arith::CmpFOp>([](Executor &exec, arith::CmpFOp op) {
    const Tile &lhs = exec.tile(op.getLhs()), &rhs = exec.tile(op.getRhs());
    return mapResult(exec, op, [&](int64_t lane) {
      return makeBool(compareFloat(op.getPredicate(), lhs.at(lane).real, rhs.at(lane).real));
    });
  });
  table.add<arith::SelectOp>([](Executor &exec, arith::SelectOp op) {
    const Tile &cond = exec.tile(op.getCondition());
    const Tile &yes = exec.tile(op.getTrueValue()), &no = exec.tile(op.getFalseValue());
    return mapResult(exec, op,
                     [&](int64_t lane) { return cond.at(lane).bits ? yes.at(lane) : no.at(lane); });
  });
}

llvm::Expected<Element> constantElement(Executor &exec, Operation *op, Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return makeInt(integer.getValue().getZExtValue(), intWidth(integer.getType()));
  if (auto real = dyn_cast<FloatAttr>(attr))
    return makeFloat(real.getValueAsDouble(), real.getType());
  return exec.fail(op, "unsupported constant element in the interpreter");
}

void addConstant(HandlerTable &table) {
  table.add<arith::ConstantOp>([](Executor &exec, arith::ConstantOp op) -> llvm::Error {
    Tile result = Tile::zeros(op.getType());
    Attribute value = op.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (dense.isSplat()) {
        llvm::Expected<Element> element =
            constantElement(exec, op, dense.getSplatValue<Attribute>());
        if (!element)
          return element.takeError();
        std::fill(result.elements.begin(), result.elements.end(), *element);
      } else {
        for (auto [lane, attr] : llvm::enumerate(dense.getValues<Attribute>())) {
          llvm::Expected<Element> element = constantElement(exec, op, attr);
          if (!element)
            return element.takeError();
          result.elements[lane] = *element;
        }
      }
    } else {
      llvm::Expected<Element> element = constantElement(exec, op, value);
      if (!element)
        return element.takeError();
      result.elements[0] = *element;
    }
    exec.bind(op.getResult(), std::move(result));
    return llvm::Error::success();
  });
}

// A cast maps each element with `fn(element, from, to)`, where `from` and
// `to` are the operand and result element types.
template <typename OpTy, typename Fn> void addCast(HandlerTable &table, Fn fn) {
  table.add<OpTy>([fn](Executor &exec, OpTy op) {
    const Tile &src = exec.tile(op->getOperand(0));
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    return mapResult(exec, op,
                     [&](int64_t lane) { return fn(src.at(lane), src.elementType, to); });
  });
}

// Integer to float goes through APFloat so that wide integers round once,
// straight to the target format. fp8 saturates instead of overflowing
// (roundToType), after a rounding to double that cannot change its result
// (double has more than twice fp8's precision, plus two bits).
Element intToFloat(const Element &e, Type from, Type to, bool isSigned) {
  unsigned width = intWidth(from);
  if (tessera::tile::isFloat8(to)) {
    llvm::APInt value(width, e.bits);
    return makeFloat(isSigned ? llvm::APIntOps::RoundSignedAPIntToDouble(value)
                              : llvm::APIntOps::RoundAPIntToDouble(value),
                     to);
  }
  llvm::APFloat number(cast<FloatType>(to).getFloatSemantics());
  number.convertFromAPInt(llvm::APInt(width, e.bits), isSigned,
                          llvm::APFloat::rmNearestTiesToEven);
  bool losesInfo = false;
  number.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  Element result;
  result.real = number.convertToDouble();
  return result;
}

// Float to integer rounds toward zero; out-of-range values (poison in the IR)
// saturate so that the host conversion stays defined.
Element floatToInt(const Element &e, Type to, bool isSigned) {
  unsigned width = intWidth(to);
  llvm::APSInt result(width, !isSigned);
  bool exact = false;
  llvm::APFloat(e.real).convertToInteger(result, llvm::APFloat::rmTowardZero, &exact);
  return makeInt(result.getZExtValue(), width);
}

void addCasts(HandlerTable &table) {
  addCast<arith::ExtSIOp>(table, [](const Element &e, Type from, Type to) {
    return makeInt(signExtend(e.bits, intWidth(from)), intWidth(to));
  });
  auto zeroExtendOrTruncate = [](const Element &e, Type, Type to) {
    return makeInt(e.bits, intWidth(to));
  };
  addCast<arith::ExtUIOp>(table, zeroExtendOrTruncate);
  addCast<arith::TruncIOp>(table, zeroExtendOrTruncate);
  addCast<arith::IndexCastUIOp>(table, zeroExtendOrTruncate);
  addCast<arith::IndexCastOp>(table, [](const Element &e, Type from, Type to) {
    return makeInt(signExtend(e.bits, intWidth(from)), intWidth(to));
  });
  addCast<arith::SIToFPOp>(table, [](const Element &e, Type from, Type to) {
    return intToFloat(e, from, to, /*isSigned=*/true);
  });
  addCast<arith::UIToFPOp>(table, [](const Element &e, Type from, Type to) {
    return intToFloat(e, from, to, /*isSigned=*/false);
  });
  addCast<arith::FPToSIOp>(table, [](const Element &e, Type, Type to) {
    return floatToInt(e, to, /*isSigned=*/true);
  });
  addCast<arith::FPToUIOp>(table, [](const Element &e, Type, Type to) {
    return floatToInt(e, to, /*isSigned=*/false);
  });
  auto roundFloat = [](const Element &e, Type, Type to) { return makeFloat(e.real, to); };
  addCast<arith::ExtFOp>(table, roundFloat);
  addCast<arith::TruncFOp>(table, roundFloat);
  addCast<arith::BitcastOp>(table, [](const Element &e, Type from, Type to) {
    return fromBits(toBits(e, from), to);
  });
}

} // namespace

void registerArithHandlers(HandlerTable &table) {
  addIntegerOps(table);
  addFloatOps(table);
  addComparisons(table);
  addConstant(table);
  addCasts(table);
}

} // namespace tessera::interp

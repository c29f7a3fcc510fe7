// C++ operators on EDSL handles, with Triton's broadcasting and promotion.
//
// Each handle type H derives from Operators<H>, whose hidden friends take the
// handle as `At<H>`: a non-deduced parameter, so the implicit conversion to
// At<H> runs, and its defaulted std::source_location names the user's line.
// A literal on the left (`2 * x`) pairs with At<H> on the right.
#ifndef TESSERA_LANG_OPERATORS_H
#define TESSERA_LANG_OPERATORS_H

#include "lang/Handle.h"

namespace tessera::lang {

/// The handle type of `a op b` for arithmetic operators.
template <class A, class B>
using BinaryResult = HandleOf<Promote<ElementOf<A>, ElementOf<B>>,
                              IsTile<A>::value || IsTile<B>::value>;
/// The handle type of a comparison.
template <class A, class B>
using CompareResult = HandleOf<bool, IsTile<A>::value || IsTile<B>::value>;

namespace detail {

/// The operands of `a op b` as MLIR values: of their common element type
/// where one is unsigned (the builder promotes others itself); pointer
/// arithmetic takes its offset as it is.
template <class A, class B>
std::pair<mlir::Value, mlir::Value> operands(const A &a, const B &b,
                                             const std::source_location &loc) {
  using Common = Promote<lang::ElementOf<A>, lang::ElementOf<B>>;
  if constexpr (IsPtr<Common>::value) {
    mlir::Value lhs = toValue(a, peerOf(b), loc);
    return {lhs, toValue(b, mlir::getElementTypeOrSelf(lhs.getType()), loc)};
  } else {
    return {valueAs<Common>(a, loc), valueAs<Common>(b, loc)};
  }
}

template <class A, class B>
BinaryResult<A, B> binary(frontend::BinaryOp op, const A &a, const B &b,
                          const std::source_location &loc) {
  auto [lhs, rhs] = operands(a, b, loc);
  return BinaryResult<A, B>(builder(loc).binary(
      op, lhs, rhs, here(loc), signednessOf<Promote<lang::ElementOf<A>, lang::ElementOf<B>>>()));
}

template <class A, class B>
CompareResult<A, B> compare(frontend::CompareOp op, const A &a, const B &b,
                            const std::source_location &loc) {
  auto [lhs, rhs] = operands(a, b, loc);
  return CompareResult<A, B>(builder(loc).compare(
      op, lhs, rhs, here(loc), signednessOf<Promote<lang::ElementOf<A>, lang::ElementOf<B>>>()));
}

} // namespace detail

#define TESSERA_BINARY_OPERATOR(OP, KIND, IMPL, RESULT)                                     \
  template <Operand B>                                                                      \
  friend RESULT<Self, B> operator OP(At<Self> a, const B &b) {                              \
    return detail::IMPL(frontend::KIND, a.handle, b, a.loc);                                \
  }                                                                                         \
  template <Literal A>                                                                      \
  friend RESULT<A, Self> operator OP(const A &a, At<Self> b) {                              \
    return detail::IMPL(frontend::KIND, a, b.handle, b.loc);                                \
  }

// `x op= y` must keep x's type, as a re-assignment in a Triton kernel must.
#define TESSERA_COMPOUND_OPERATOR(OP, KIND)                                                 \
  template <Operand B>                                                                      \
    requires std::is_same_v<BinaryResult<Self, B>, Self>                                    \
  friend Self &operator OP(AtMut<Self> a, const B &b) {                                     \
    return a.handle = detail::binary(frontend::KIND, a.handle, b, a.loc);                   \
  }

template <class Self> class Operators {
public:
  TESSERA_BINARY_OPERATOR(+, BinaryOp::Add, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(-, BinaryOp::Sub, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(*, BinaryOp::Mul, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(/, BinaryOp::Div, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(%, BinaryOp::Mod, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(&, BinaryOp::And, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(|, BinaryOp::Or, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(^, BinaryOp::Xor, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(<<, BinaryOp::Shl, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(>>, BinaryOp::Shr, binary, BinaryResult)
  TESSERA_BINARY_OPERATOR(==, CompareOp::Eq, compare, CompareResult)
  TESSERA_BINARY_OPERATOR(!=, CompareOp::Ne, compare, CompareResult)
  TESSERA_BINARY_OPERATOR(<, CompareOp::Lt, compare, CompareResult)
  TESSERA_BINARY_OPERATOR(<=, CompareOp::Le, compare, CompareResult)
  TESSERA_BINARY_OPERATOR(>, CompareOp::Gt, compare, CompareResult)
  TESSERA_BINARY_OPERATOR(>=, CompareOp::Ge, compare, CompareResult)

  TESSERA_COMPOUND_OPERATOR(+=, BinaryOp::Add)
  TESSERA_COMPOUND_OPERATOR(-=, BinaryOp::Sub)
  TESSERA_COMPOUND_OPERATOR(*=, BinaryOp::Mul)
  TESSERA_COMPOUND_OPERATOR(/=, BinaryOp::Div)

  friend Self operator-(At<Self> a) {
    return Self(detail::builder(a.loc).unary(frontend::UnaryOp::Neg, a.handle.value(),
                                             detail::here(a.loc)));
  }
  friend Self operator~(At<Self> a) {
    return Self(detail::builder(a.loc).unary(frontend::UnaryOp::Not, a.handle.value(),
                                             detail::here(a.loc)));
  }
  /// Logical not of a boolean; bitwise not otherwise, like `~`.
  friend Self operator!(At<Self> a) {
    return Self(detail::builder(a.loc).unary(frontend::UnaryOp::Not, a.handle.value(),
                                             detail::here(a.loc)));
  }
};

#undef TESSERA_BINARY_OPERATOR
#undef TESSERA_COMPOUND_OPERATOR

} // namespace tessera::lang

#endif // TESSERA_LANG_OPERATORS_H

// What every EDSL handle shares: the traced MLIR value, the builder that is
// tracing, and the plumbing that carries the user's source line into ops.
#ifndef TESSERA_LANG_HANDLE_H
#define TESSERA_LANG_HANDLE_H

#include "frontend/KernelBuilder.h"
#include "lang/DType.h"

#include <source_location>
#include <type_traits>

namespace tessera::lang {

using frontend::KernelError;
using frontend::SourceLocation;

template <class T> class Scalar;
template <class T> class Tile;
template <class T> class Ptr;

namespace detail {

/// The builder of the trace in progress on this thread; a KernelError when
/// an EDSL function is called outside `trace`.
frontend::KernelBuilder &builder(const std::source_location &loc);

inline SourceLocation here(const std::source_location &loc) { return SourceLocation::from(loc); }

/// Checks that `value` has the static element type T (and is a scalar when
/// `scalar`): the EDSL's compile-time types must agree with the builder's.
void checkType(mlir::Value value, mlir::Type elem, bool scalar);

} // namespace detail

/// A handle used as the left or only operand of an operator, with the
/// position of the expression. Operators cannot take a defaulted
/// std::source_location parameter; the constructor of this wrapper can, and
/// its default argument is evaluated where the user wrote the operator.
template <class H> struct At {
  At(const H &handle, std::source_location loc = std::source_location::current())
      : handle(handle), loc(loc) {}
  const H &handle;
  std::source_location loc;
};

/// The same for the left operand of a compound assignment (`acc += x`).
template <class H> struct AtMut {
  AtMut(H &handle, std::source_location loc = std::source_location::current())
      : handle(handle), loc(loc) {}
  H &handle;
  std::source_location loc;
};

/// The traced value behind a handle.
class Handle {
public:
  mlir::Value value() const { return value_; }

protected:
  Handle() = default;
  explicit Handle(mlir::Value value) : value_(value) {}
  mlir::Value value_;
};

template <class H> struct IsTile : std::false_type {};
template <class T> struct IsTile<Tile<T>> : std::true_type {};
template <class H> struct IsScalar : std::false_type {};
template <class T> struct IsScalar<Scalar<T>> : std::true_type {};
template <class H> struct IsPtr : std::false_type {};
template <class T> struct IsPtr<Ptr<T>> : std::true_type {};

/// A value handle: a scalar, a scalar pointer or a tile.
template <class H>
concept ValueHandle = IsTile<H>::value || IsScalar<H>::value || IsPtr<H>::value;
/// A compile-time integer parameter of a kernel (Triton's tl.constexpr);
/// converts to int64_t and acts as an integer literal in expressions.
template <int64_t N> using Const = std::integral_constant<int64_t, N>;

template <class X> struct IsConst : std::false_type {};
template <int64_t N> struct IsConst<Const<N>> : std::true_type {};

/// A C++ number written in a kernel; it becomes a constant.
template <class L>
concept Literal = std::is_arithmetic_v<L> || IsConst<L>::value;
template <class X>
concept Operand = ValueHandle<X> || Literal<X>;

namespace detail {

template <class X> struct ElementOf;
template <class T> struct ElementOf<Scalar<T>> { using type = T; };
template <class T> struct ElementOf<Tile<T>> { using type = T; };
template <class T> struct ElementOf<Ptr<T>> { using type = Ptr<T>; };
template <Literal L> struct ElementOf<L> {
  using type = std::conditional_t<std::is_same_v<L, bool>, bool,
                                  std::conditional_t<std::is_floating_point_v<L>, WeakFloat, WeakInt>>;
};

} // namespace detail

/// The element type of a handle or a literal.
template <class X> using ElementOf = typename detail::ElementOf<std::remove_cvref_t<X>>::type;

/// The handle holding elements E: a tile when any operand is one, else a
/// scalar (a scalar pointer for pointer elements).
template <class E, bool AnyTile>
using HandleOf = std::conditional_t<AnyTile, Tile<E>,
                                    std::conditional_t<IsPtr<E>::value, E, Scalar<E>>>;

namespace detail {

/// The MLIR value of an operand; a literal becomes a constant typed after
/// the element type `peer` of its partner (Triton's rules for Python literals).
template <class X>
mlir::Value toValue(const X &x, mlir::Type peer, const std::source_location &loc) {
  if constexpr (ValueHandle<X>) {
    return x.value();
  } else if constexpr (std::is_same_v<X, bool>) {
    auto &kb = builder(loc);
    return kb.constant(int64_t{x}, kb.opBuilder().getI1Type(), here(loc));
  } else if constexpr (std::is_floating_point_v<X>) {
    return builder(loc).literal(static_cast<double>(x), peer, here(loc));
  } else {
    return builder(loc).literal(static_cast<int64_t>(x), peer, here(loc));
  }
}

/// The element type literals next to `x` take after (null for a literal).
template <class X> mlir::Type peerOf(const X &x) {
  if constexpr (ValueHandle<X>)
    return mlir::getElementTypeOrSelf(x.value().getType());
  else
    return {};
}

/// How the builder reads elements of T where the sign matters.
template <class T> constexpr frontend::Signedness signednessOf() {
  return DType<T>::isUnsigned ? frontend::Signedness::Unsigned : frontend::Signedness::Signed;
}

/// `x` (a handle or a literal) as elements of E: a literal typed as E, a
/// handle converted by its value where either side is unsigned (zero
/// extension, uitofp, fptoui), which the builder's own conversions, reading
/// integers as signed, would not do; other handles are left to the builder.
template <class E, class X> mlir::Value valueAs(const X &x, const std::source_location &loc) {
  auto &kb = builder(loc);
  mlir::Type elem = DType<E>::get(&kb.context());
  mlir::Value value = toValue(x, elem, loc);
  if constexpr (ValueHandle<X>) {
    using From = lang::ElementOf<X>;
    if constexpr (!std::is_same_v<From, E> && (DType<From>::isUnsigned || DType<E>::isUnsigned))
      return kb.cast(value, elem, here(loc),
                     {.sourceUnsigned = DType<From>::isUnsigned,
                      .targetUnsigned = DType<E>::isUnsigned});
  }
  return value;
}

/// What a pointer handle points to: literals stored or loaded through it
/// take this type.
inline mlir::Type pointeeOf(mlir::Value ptr) {
  return tile::getPointeeType(mlir::getElementTypeOrSelf(ptr.getType()));
}

} // namespace detail

/// An optional value argument (the `other` of a load): any handle, a
/// literal, or nothing.
class OptionalValue {
public:
  OptionalValue() = default;
  template <ValueHandle H>
  OptionalValue(const H &handle)
      : value_(handle.value()), isUnsigned_(DType<ElementOf<H>>::isUnsigned) {}
  template <Literal L>
  OptionalValue(L literal)
      : literal_(static_cast<double>(literal)), isInteger_(!std::is_floating_point_v<L>) {}

  /// Whether the value is a handle of unsigned integers.
  bool isUnsigned() const { return isUnsigned_; }

  /// The value; literals become constants typed after the element type `peer`.
  mlir::Value get(mlir::Type peer, const std::source_location &loc) const {
    if (value_ || !literal_)
      return value_;
    auto &kb = detail::builder(loc);
    return isInteger_ ? kb.literal(static_cast<int64_t>(*literal_), peer, detail::here(loc))
                      : kb.literal(*literal_, peer, detail::here(loc));
  }

private:
  mlir::Value value_;
  std::optional<double> literal_;
  bool isInteger_ = false;
  bool isUnsigned_ = false;
};

/// An integer argument given as a handle or a literal (descriptor shapes,
/// strides and offsets).
class IntArg {
public:
  IntArg(const Scalar<int32_t> &value);
  IntArg(const Scalar<int64_t> &value);
  template <class L>
    requires std::is_integral_v<L>
  IntArg(L literal) : literal_(literal) {}

  mlir::Value get(const std::source_location &loc) const {
    return value_ ? value_ : detail::builder(loc).literal(literal_, {}, detail::here(loc));
  }

private:
  mlir::Value value_;
  int64_t literal_ = 0;
};

} // namespace tessera::lang

#endif // TESSERA_LANG_HANDLE_H

// Element types of the EDSL and Triton's promotion rules, at C++ compile
// time: `Tile<int32_t> + Tile<float>` is statically a `Tile<float>`, as the
// KernelBuilder will make it at trace time.
#ifndef TESSERA_LANG_DTYPE_H
#define TESSERA_LANG_DTYPE_H

#include "ir/TileDialect.h"

#include <cstdint>
#include <type_traits>

namespace tessera::lang {

/// Tags for the element types C++ has no arithmetic type for. f8e4m3 and
/// f8e5m2 are Triton's float8e4nv and float8e5 (docs/float8.md).
struct f16 {};
struct bf16 {};
struct f8e4m3 {};
struct f8e5m2 {};

template <class T> class Ptr;

enum class Kind { Bool, Int, Float, Pointer };

/// What the EDSL knows about an element type: its kind, width and MLIR type.
template <class T> struct DType;

namespace detail {
template <Kind K, unsigned Bits, bool Unsigned = false> struct DTypeBase {
  static constexpr Kind kind = K;
  static constexpr unsigned bits = Bits;
  /// Unsigned integers are stored as signless MLIR integers; the EDSL uses
  /// this to convert them by their values and to pick the unsigned forms of
  /// division, remainder, right shift, comparisons, max/min and atomics.
  static constexpr bool isUnsigned = Unsigned;
};
} // namespace detail

// Unsigned, as in Triton: true (1) is greater than false (0) in comparisons,
// maximum and minimum, and sums of booleans are uint32_t.
template <> struct DType<bool> : detail::DTypeBase<Kind::Bool, 1, true> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 1); }
};
template <> struct DType<int8_t> : detail::DTypeBase<Kind::Int, 8> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 8); }
};
template <> struct DType<uint8_t> : detail::DTypeBase<Kind::Int, 8, true> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 8); }
};
template <> struct DType<int16_t> : detail::DTypeBase<Kind::Int, 16> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 16); }
};
template <> struct DType<uint16_t> : detail::DTypeBase<Kind::Int, 16, true> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 16); }
};
template <> struct DType<uint32_t> : detail::DTypeBase<Kind::Int, 32, true> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 32); }
};
template <> struct DType<uint64_t> : detail::DTypeBase<Kind::Int, 64, true> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 64); }
};
template <> struct DType<int32_t> : detail::DTypeBase<Kind::Int, 32> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 32); }
};
template <> struct DType<int64_t> : detail::DTypeBase<Kind::Int, 64> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 64); }
};
template <> struct DType<f16> : detail::DTypeBase<Kind::Float, 16> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::Float16Type::get(c); }
};
template <> struct DType<bf16> : detail::DTypeBase<Kind::Float, 16> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::BFloat16Type::get(c); }
};
template <> struct DType<f8e4m3> : detail::DTypeBase<Kind::Float, 8> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::Float8E4M3FNType::get(c); }
};
template <> struct DType<f8e5m2> : detail::DTypeBase<Kind::Float, 8> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::Float8E5M2Type::get(c); }
};
template <> struct DType<float> : detail::DTypeBase<Kind::Float, 32> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::Float32Type::get(c); }
};
template <> struct DType<double> : detail::DTypeBase<Kind::Float, 64> {
  static mlir::Type get(mlir::MLIRContext *c) { return mlir::Float64Type::get(c); }
};
template <class T> struct DType<Ptr<T>> : detail::DTypeBase<Kind::Pointer, 64> {
  static mlir::Type get(mlir::MLIRContext *c) { return tile::PointerType::get(DType<T>::get(c)); }
};

template <class T>
concept Element = requires { DType<T>::kind; };
template <class T>
concept FloatElement = Element<T> && DType<T>::kind == Kind::Float;
template <class T>
concept PointerElement = Element<T> && DType<T>::kind == Kind::Pointer;
template <class T>
concept Float8Element = std::is_same_v<T, f8e4m3> || std::is_same_v<T, f8e5m2>;
/// Operand types a dot multiplies: one type (not unsigned: integer dots
/// multiply int8), or two fp8 types (an e4m3 A times an e5m2 B, as FP8
/// training's gradient GEMMs).
template <class A, class B>
concept DotOperands = Element<A> && Element<B> && !DType<A>::isUnsigned &&
                      (std::is_same_v<A, B> || (Float8Element<A> && Float8Element<B>));

namespace detail {

/// C++ literals are "weakly typed", as Python literals are in Triton: an
/// integer takes the type of its integer or float partner, a float the type
/// of its float partner.
struct WeakInt {};
struct WeakFloat {};

template <class A, class B> struct PromoteImpl {
  static constexpr bool aFloat = DType<A>::kind == Kind::Float;
  static constexpr bool bFloat = DType<B>::kind == Kind::Float;
  /// bf16 meets integers and other floats narrower than 32 bits in float.
  template <class T>
  static constexpr bool narrow = DType<T>::kind != Kind::Float || DType<T>::bits < 32;
  static constexpr bool bf16MeetsNarrow =
      !std::is_same_v<A, B> &&
      ((std::is_same_v<A, bf16> && narrow<B>) || (std::is_same_v<B, bf16> && narrow<A>));
  using type = std::conditional_t<
      DType<A>::kind == Kind::Pointer, A,
      std::conditional_t<
          DType<B>::kind == Kind::Pointer, B,
          std::conditional_t<bf16MeetsNarrow, float, std::conditional_t<
              aFloat != bFloat, std::conditional_t<aFloat, A, B>,
              std::conditional_t<
                  (DType<A>::bits > DType<B>::bits), A,
                  std::conditional_t<(DType<A>::bits < DType<B>::bits), B,
                                     // Same width: f16 with bf16 meet in float,
                                     // a signed with an unsigned integer in the
                                     // unsigned one (C's usual conversions).
                                     std::conditional_t<aFloat && !std::is_same_v<A, B>, float,
                                                        std::conditional_t<DType<B>::isUnsigned, B,
                                                                           A>>>>>>>>;
};
template <class A> struct PromoteImpl<A, WeakInt> {
  using type = std::conditional_t<DType<A>::kind == Kind::Bool, int32_t, A>;
};
template <class A> struct PromoteImpl<A, WeakFloat> {
  using type = std::conditional_t<DType<A>::kind == Kind::Float || DType<A>::kind == Kind::Pointer,
                                  A, float>;
};
template <class B> struct PromoteImpl<WeakInt, B> : PromoteImpl<B, WeakInt> {};
template <class B> struct PromoteImpl<WeakFloat, B> : PromoteImpl<B, WeakFloat> {};

} // namespace detail

/// The element type of `a op b` for elements (or literal kinds) A and B.
template <class A, class B> using Promote = typename detail::PromoteImpl<A, B>::type;

/// The accumulator `dot` uses by default.
template <class T>
using DotAccumulator = std::conditional_t<std::is_same_v<T, int8_t>, int32_t,
                                          std::conditional_t<std::is_same_v<T, double>, double, float>>;

/// The element type of a sum: small integers are summed in int32_t
/// (uint32_t for unsigned ones and booleans).
template <class T>
using SumType = std::conditional_t<DType<T>::kind != Kind::Float && (DType<T>::bits < 32),
                                   std::conditional_t<DType<T>::isUnsigned, uint32_t, int32_t>, T>;

} // namespace tessera::lang

#endif // TESSERA_LANG_DTYPE_H

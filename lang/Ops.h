// EDSL functions that make, combine and reshape tiles, Triton's `tl.*`:
// program ids, arange/zeros/full, math, where, dot, reductions, shapes.
#ifndef TESSERA_LANG_OPS_H
#define TESSERA_LANG_OPS_H

#include "lang/Tile.h"

#include <functional>
#include <optional>
#include <string>

namespace tessera::lang {

using frontend::BinaryOp;
using frontend::ReduceKind;
using frontend::UnaryOp;
using tile::InputPrecision;
using tile::PropagateNan;

using SrcLoc = std::source_location;

//===----------------------------------------------------------------------===//
// The grid and making tiles
//===----------------------------------------------------------------------===//

inline Int program_id(int axis, SrcLoc loc = SrcLoc::current()) {
  return Int(detail::builder(loc).programId(axis, detail::here(loc)));
}

inline Int num_programs(int axis, SrcLoc loc = SrcLoc::current()) {
  return Int(detail::builder(loc).numPrograms(axis, detail::here(loc)));
}

/// The int32 tile [start, end); its length must be a power of two.
inline Tile<int32_t> arange(int64_t start, int64_t end, SrcLoc loc = SrcLoc::current()) {
  return Tile<int32_t>(detail::builder(loc).arange(start, end, detail::here(loc)));
}

template <Element T>
Tile<T> zeros(const std::vector<int64_t> &shape, SrcLoc loc = SrcLoc::current()) {
  auto &kb = detail::builder(loc);
  return Tile<T>(kb.zeros(shape, DType<T>::get(&kb.context()), detail::here(loc)));
}

/// The tile of `shape` whose every element is `value` (a handle or literal).
template <Element T, Operand V>
Tile<T> full(const std::vector<int64_t> &shape, const V &value, SrcLoc loc = SrcLoc::current()) {
  auto &kb = detail::builder(loc);
  mlir::Value scalar = kb.cast(detail::valueAs<T>(value, loc), DType<T>::get(&kb.context()),
                               detail::here(loc));
  return Tile<T>(kb.full(shape, scalar, detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

#define TESSERA_UNARY_FUNCTION(NAME, KIND)                                                  \
  template <ValueHandle H> H NAME(const H &x, SrcLoc loc = SrcLoc::current()) {             \
    return H(detail::builder(loc).unary(UnaryOp::KIND, x.value(), detail::here(loc)));      \
  }
TESSERA_UNARY_FUNCTION(exp, Exp)
TESSERA_UNARY_FUNCTION(exp2, Exp2)
TESSERA_UNARY_FUNCTION(log, Log)
TESSERA_UNARY_FUNCTION(log2, Log2)
TESSERA_UNARY_FUNCTION(sqrt, Sqrt)
TESSERA_UNARY_FUNCTION(rsqrt, Rsqrt)
TESSERA_UNARY_FUNCTION(sin, Sin)
TESSERA_UNARY_FUNCTION(cos, Cos)
TESSERA_UNARY_FUNCTION(sigmoid, Sigmoid)
TESSERA_UNARY_FUNCTION(erf, Erf)
TESSERA_UNARY_FUNCTION(floor, Floor)
TESSERA_UNARY_FUNCTION(ceil, Ceil)
#undef TESSERA_UNARY_FUNCTION

/// |x|; an unsigned x is its own.
template <ValueHandle H> H abs(const H &x, SrcLoc loc = SrcLoc::current()) {
  if constexpr (DType<ElementOf<H>>::isUnsigned)
    return x;
  else
    return H(detail::builder(loc).unary(UnaryOp::Abs, x.value(), detail::here(loc)));
}

/// Elementwise maximum and minimum; a NaN loses to a number.
template <Operand A, Operand B>
  requires(ValueHandle<A> || ValueHandle<B>)
BinaryResult<A, B> maximum(const A &a, const B &b, SrcLoc loc = SrcLoc::current()) {
  return detail::binary(BinaryOp::Maximum, a, b, loc);
}
template <Operand A, Operand B>
  requires(ValueHandle<A> || ValueHandle<B>)
BinaryResult<A, B> minimum(const A &a, const B &b, SrcLoc loc = SrcLoc::current()) {
  return detail::binary(BinaryOp::Minimum, a, b, loc);
}

/// `x` kept within [lo, hi] (handles or literals, of x's element type);
/// with PropagateNan::All a NaN `x` stays NaN, else the result is a bound.
template <ValueHandle H, Operand L, Operand U>
H clamp(const H &x, const L &lo, const U &hi, PropagateNan nan = PropagateNan::None,
        SrcLoc loc = SrcLoc::current()) {
  using T = ElementOf<H>;
  return H(detail::builder(loc).clamp(x.value(), detail::valueAs<T>(lo, loc),
                                      detail::valueAs<T>(hi, loc), nan == PropagateNan::All,
                                      detail::here(loc), detail::signednessOf<T>()));
}

/// a / b rounded as IEEE 754 requires, of floating-point operands; `/` may
/// be approximate on NVIDIA GPUs (within 2 ulp, as Triton's).
template <Operand A, Operand B>
  requires((ValueHandle<A> || ValueHandle<B>) && FloatElement<Promote<ElementOf<A>, ElementOf<B>>>)
BinaryResult<A, B> div_rn(const A &a, const B &b, SrcLoc loc = SrcLoc::current()) {
  return detail::binary(BinaryOp::PreciseDiv, a, b, loc);
}

/// a * b + c, fused.
template <Operand A, Operand B, Operand C>
  requires(ValueHandle<A> || ValueHandle<B> || ValueHandle<C>)
BinaryResult<BinaryResult<A, B>, C> fma(const A &a, const B &b, const C &c,
                                        SrcLoc loc = SrcLoc::current()) {
  using Result = BinaryResult<BinaryResult<A, B>, C>;
  using T = ElementOf<Result>;
  return Result(detail::builder(loc).fma(detail::valueAs<T>(a, loc), detail::valueAs<T>(b, loc),
                                         detail::valueAs<T>(c, loc), detail::here(loc)));
}

/// A function of elements, applied to handles broadcast together: what
/// extern_elementwise and inline_asm_elementwise give, called on the
/// arguments (`f(y, x)`). Its result holds `R`s.
template <Element R> class ElementwiseFunction {
public:
  using Build = std::function<mlir::Value(llvm::ArrayRef<mlir::Value>)>;
  explicit ElementwiseFunction(Build build) : build(std::move(build)) {}

  template <ValueHandle... Args>
    requires(sizeof...(Args) > 0)
  HandleOf<R, (IsTile<Args>::value || ...)> operator()(const Args &...args) const {
    return HandleOf<R, (IsTile<Args>::value || ...)>(build({args.value()...}));
  }

private:
  Build build;
};

/// The function `symbol` of the device library `library`:
/// `extern_elementwise<float>("__nv_atan2f", "libdevice")(y, x)`. The
/// arguments must have the element types the function takes. NVIDIA targets
/// link libdevice, AMD targets ocml and ockl; the CPU and Vulkan compute the
/// libdevice functions that a math op computes (docs/edsl-guide.md).
template <Element R>
ElementwiseFunction<R> extern_elementwise(std::string symbol, std::string library,
                                          SrcLoc loc = SrcLoc::current()) {
  return ElementwiseFunction<R>([=](llvm::ArrayRef<mlir::Value> args) {
    auto &kb = detail::builder(loc);
    return kb.externElementwise(symbol, library, "", args, DType<R>::get(&kb.context()),
                                /*pure=*/true, detail::here(loc));
  });
}

/// GPU assembly run on every `pack` elements, one result:
/// `inline_asm_elementwise<float>("tanh.approx.f32 $0, $1;", "=r,r")(x)`
/// (docs/language-reference/tile-dialect.md, tile.inline_asm_elementwise).
template <Element R>
ElementwiseFunction<R> inline_asm_elementwise(std::string assembly, std::string constraints,
                                              bool pure = true, int pack = 1,
                                              SrcLoc loc = SrcLoc::current()) {
  return ElementwiseFunction<R>([=](llvm::ArrayRef<mlir::Value> args) {
    auto &kb = detail::builder(loc);
    return kb.inlineAsmElementwise(assembly, constraints, args, {DType<R>::get(&kb.context())},
                                   pure, pack, detail::here(loc))
        .front();
  });
}

/// Picks `a` where `cond` holds, else `b`; all three broadcast together.
template <Operand C, Operand A, Operand B>
  requires std::is_same_v<ElementOf<C>, bool>
HandleOf<Promote<ElementOf<A>, ElementOf<B>>, IsTile<C>::value || IsTile<A>::value || IsTile<B>::value>
where(const C &cond, const A &a, const B &b, SrcLoc loc = SrcLoc::current()) {
  using Result = HandleOf<Promote<ElementOf<A>, ElementOf<B>>,
                          IsTile<C>::value || IsTile<A>::value || IsTile<B>::value>;
  auto [lhs, rhs] = detail::operands(a, b, loc);
  return Result(detail::builder(loc).where(detail::toValue(cond, {}, loc), lhs, rhs,
                                           detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

template <Element T> Tile<T> expand_dims(const Tile<T> &x, int axis, SrcLoc loc = SrcLoc::current()) {
  return x.expand(axis, loc);
}

template <Element T>
Tile<T> broadcast_to(const Tile<T> &x, const std::vector<int64_t> &shape,
                     SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).broadcastTo(x.value(), shape, detail::here(loc)));
}

template <Element T>
Tile<T> reshape(const Tile<T> &x, const std::vector<int64_t> &shape, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).reshape(x.value(), shape, detail::here(loc)));
}

template <Element T> Tile<T> trans(const Tile<T> &x, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).trans(x.value(), detail::here(loc)));
}

/// Result dimension i is dimension order[i] of x.
template <Element T>
Tile<T> permute(const Tile<T> &x, const std::vector<int> &order, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).permute(x.value(), order, detail::here(loc)));
}

/// a and b stacked along a new minor dimension of size 2 ([..., 2]).
template <Element T>
Tile<T> join(const Tile<T> &a, const Tile<T> &b, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).join(a.value(), b.value(), detail::here(loc)));
}

/// The two halves of a tile whose last dimension is 2: the inverse of join.
template <Element T>
std::pair<Tile<T>, Tile<T>> split(const Tile<T> &x, SrcLoc loc = SrcLoc::current()) {
  auto [lhs, rhs] = detail::builder(loc).split(x.value(), detail::here(loc));
  return {Tile<T>(lhs), Tile<T>(rhs)};
}

/// The elements of a and b alternating along the last dimension.
template <Element T>
Tile<T> interleave(const Tile<T> &a, const Tile<T> &b, SrcLoc loc = SrcLoc::current()) {
  Tile<T> joined = join(a, b, loc);
  std::vector<int64_t> shape = joined.shape();
  shape.pop_back();
  shape.back() *= 2;
  return reshape(joined, shape, loc);
}

/// a then b along `axis` (tiles of one shape).
template <Element T>
Tile<T> cat(const Tile<T> &a, const Tile<T> &b, int axis = 0, SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).cat(a.value(), b.value(), axis, detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// gather and histogram
//===----------------------------------------------------------------------===//

template <class T>
concept IntegerElement = Element<T> && DType<T>::kind == Kind::Int;

namespace detail {
/// Unsigned integers in the signed type that holds their values (uint8_t and
/// uint16_t in int32_t, uint32_t in int64_t; uint64_t as it is), the others
/// as they are: the IR reads integers as signed.
template <IntegerElement I> mlir::Value signedIntegers(const Tile<I> &x, SrcLoc loc) {
  if constexpr (DType<I>::isUnsigned && DType<I>::bits < 32)
    return x.template to<int32_t>(false, loc).value();
  else if constexpr (DType<I>::isUnsigned && DType<I>::bits == 32)
    return x.template to<int64_t>(false, loc).value();
  else
    return x.value();
}
} // namespace detail

/// src[.., indices[.., i, ..], ..] along `axis`: `indices` has the rank of
/// `src` and its extents on every other axis, and gives the result its shape.
template <Element T, IntegerElement I>
Tile<T> gather(const Tile<T> &src, const Tile<I> &indices, int axis,
               SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc).gather(src.value(), detail::signedIntegers(indices, loc),
                                             axis, detail::here(loc)));
}

/// int32 counts of the values 0 .. numBins-1 (a power of two) in the 1-D tile
/// `x`, where `mask` holds; values outside the bins are not counted.
template <IntegerElement I>
Tile<int32_t> histogram(const Tile<I> &x, int64_t numBins, const OptionalValue &mask = {},
                        SrcLoc loc = SrcLoc::current()) {
  return Tile<int32_t>(detail::builder(loc).histogram(detail::signedIntegers(x, loc), numBins,
                                                      mask.get({}, loc), detail::here(loc)));
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

/// a [M, K] times b [K, N], accumulated in zeros of DotAccumulator<A>.
template <Element A, Element B>
  requires DotOperands<A, B>
Tile<DotAccumulator<A>> dot(const Tile<A> &a, const Tile<B> &b, SrcLoc loc = SrcLoc::current()) {
  return Tile<DotAccumulator<A>>(
      detail::builder(loc).dot(a.value(), b.value(), {}, InputPrecision::TF32, detail::here(loc)));
}

/// a * b + acc. `precision` picks how f32 operands are multiplied.
template <Element A, Element B, Element Acc>
  requires DotOperands<A, B>
Tile<Acc> dot(const Tile<A> &a, const Tile<B> &b, const Tile<Acc> &acc,
              InputPrecision precision = InputPrecision::TF32, SrcLoc loc = SrcLoc::current()) {
  return Tile<Acc>(
      detail::builder(loc).dot(a.value(), b.value(), acc.value(), precision, detail::here(loc)));
}

/// a * b + acc of fp8 operands, of which the backend may add
/// `maxNumImpreciseAcc` products at reduced precision before promoting
/// them into f32 (Triton's max_num_imprecise_acc; 0: no bound; at most K).
template <Float8Element A, Float8Element B, Element Acc>
Tile<Acc> dot(const Tile<A> &a, const Tile<B> &b, const Tile<Acc> &acc,
              unsigned maxNumImpreciseAcc, SrcLoc loc = SrcLoc::current()) {
  return Tile<Acc>(detail::builder(loc).dot(a.value(), b.value(), acc.value(),
                                            InputPrecision::TF32, detail::here(loc),
                                            maxNumImpreciseAcc));
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

namespace detail {
template <class R, class T>
R reduce(ReduceKind kind, const Tile<T> &x, std::optional<int> axis, bool keepDims,
         const SrcLoc &loc) {
  return R(builder(loc).reduce(kind, x.value(), axis, keepDims, here(loc), signednessOf<T>()));
}
} // namespace detail

// Along `axis` (the result drops it, or keeps it as size 1 with keep_dims;
// a 1-D tile reduces to a rank-0 tile), or over all elements to a scalar. The
// elements are reduced as OPERAND: sums of small integers in 32 bits, so that
// they do not wrap.
#define TESSERA_REDUCTION(NAME, KIND, OPERAND, RESULT)                                      \
  template <Element T>                                                                      \
  Tile<RESULT> NAME(const Tile<T> &x, int axis, bool keep_dims = false,                     \
                    SrcLoc loc = SrcLoc::current()) {                                       \
    return detail::reduce<Tile<RESULT>>(ReduceKind::KIND, x.template to<OPERAND>(false, loc), \
                                        axis, keep_dims, loc);                              \
  }                                                                                         \
  template <Element T> Scalar<RESULT> NAME(const Tile<T> &x, SrcLoc loc = SrcLoc::current()) { \
    return detail::reduce<Scalar<RESULT>>(ReduceKind::KIND, x.template to<OPERAND>(false, loc), \
                                          std::nullopt, false, loc);                        \
  }
TESSERA_REDUCTION(sum, Sum, SumType<T>, SumType<T>)
TESSERA_REDUCTION(max, Max, T, T)
TESSERA_REDUCTION(min, Min, T, T)
TESSERA_REDUCTION(argmax, ArgMax, T, int32_t)
TESSERA_REDUCTION(argmin, ArgMin, T, int32_t)
#undef TESSERA_REDUCTION

namespace detail {
/// The region callback of a combining reduction or scan of one tile of T.
template <Element T, class F>
frontend::KernelBuilder::Combine combineOf(F combine, const SrcLoc &loc) {
  return [combine, loc](llvm::ArrayRef<mlir::Value> sides) {
    auto result = combine(Scalar<T>(sides[0]), Scalar<T>(sides[1]));
    return std::vector<mlir::Value>{toValue(result, DType<T>::get(sides[0].getContext()), loc)};
  };
}
} // namespace detail

/// Along `axis`, combined by `combine(Scalar<T> a, Scalar<T> b)` (associative
/// and commutative): Triton's tl.reduce with a combine function.
template <Element T, class F>
Tile<T> reduce(const Tile<T> &x, int axis, F combine, bool keep_dims = false,
               SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc)
                     .reduceWith({x.value()}, axis, keep_dims, detail::combineOf<T>(combine, loc),
                                 detail::here(loc))
                     .front());
}

/// Inclusive scan along `axis` by `combine(running, next)` (associative),
/// from the end with `reverse`: Triton's tl.associative_scan.
template <Element T, class F>
Tile<T> associative_scan(const Tile<T> &x, int axis, F combine, bool reverse = false,
                         SrcLoc loc = SrcLoc::current()) {
  return Tile<T>(detail::builder(loc)
                     .scanWith({x.value()}, axis, reverse, detail::combineOf<T>(combine, loc),
                               detail::here(loc))
                     .front());
}

/// Inclusive prefix sums along `axis` (from the end with `reverse`).
template <Element T>
Tile<SumType<T>> cumsum(const Tile<T> &x, int axis = 0, bool reverse = false,
                        SrcLoc loc = SrcLoc::current()) {
  return Tile<SumType<T>>(detail::builder(loc).cumsum(x.template to<SumType<T>>(false, loc).value(),
                                                      axis, reverse, detail::here(loc)));
}

} // namespace tessera::lang

#endif // TESSERA_LANG_OPS_H

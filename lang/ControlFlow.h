// Structured control flow: counted loops, if/else and while loops whose
// values flow in and out as typed handles. Each body is a C++ callable,
// called once while tracing to build the loop or branch body.
#ifndef TESSERA_LANG_CONTROLFLOW_H
#define TESSERA_LANG_CONTROLFLOW_H

#include "lang/Ops.h"

#include <tuple>
#include <utility>

namespace tessera::lang {

namespace detail {

template <class... Ts> std::vector<mlir::Value> valuesOf(const std::tuple<Ts...> &handles) {
  return std::apply([](const auto &...h) { return std::vector<mlir::Value>{h.value()...}; },
                    handles);
}

template <class... Ts, size_t... I>
std::tuple<Ts...> handlesOf(llvm::ArrayRef<mlir::Value> values, std::index_sequence<I...>) {
  return std::tuple<Ts...>(Ts(values[I])...);
}
template <class... Ts> std::tuple<Ts...> handlesOf(llvm::ArrayRef<mlir::Value> values) {
  return handlesOf<Ts...>(values, std::index_sequence_for<Ts...>{});
}

/// What a body returns, as values: nothing, one handle or a tuple of them.
template <class R> std::vector<mlir::Value> returned(const R &result) {
  if constexpr (ValueHandle<R>)
    return {result.value()};
  else
    return valuesOf(result);
}

/// The handles a region gives back, shaped as the body returned them.
template <class R> R fromReturned(llvm::ArrayRef<mlir::Value> values) {
  if constexpr (std::is_void_v<R>)
    return;
  else if constexpr (ValueHandle<R>)
    return R(values[0]);
  else
    return []<class... Ts>(std::type_identity<std::tuple<Ts...>>, llvm::ArrayRef<mlir::Value> v) {
      return handlesOf<Ts...>(v);
    }(std::type_identity<R>{}, values);
}

/// The induction variable: Int64 when a bound is an Int64 handle, else Int
/// (C++ integer literals are weakly typed, i32 when they fit).
template <class Lo, class Hi, class Step>
using InductionVar = std::conditional_t<std::is_same_v<Lo, Int64> || std::is_same_v<Hi, Int64> ||
                                            std::is_same_v<Step, Int64>,
                                        Int64, Int>;

template <class X> mlir::Value bound(const X &x, const SrcLoc &loc) { return toValue(x, {}, loc); }

} // namespace detail

/// `for k in range(lo, hi, step)` carrying `init`, a tuple of handles:
/// `body(k, carried...)` returns the next values as a tuple; the loop gives
/// the last ones.
template <Operand Lo, Operand Hi, Operand Step, ValueHandle... Ts, class Body>
std::tuple<Ts...> for_range(const Lo &lo, const Hi &hi, const Step &step, const std::tuple<Ts...> &init,
                            Body body, SrcLoc loc = SrcLoc::current()) {
  using IV = detail::InductionVar<Lo, Hi, Step>;
  std::vector<mlir::Value> results = detail::builder(loc).forLoop(
      detail::bound(lo, loc), detail::bound(hi, loc), detail::bound(step, loc),
      detail::valuesOf(init),
      [&](mlir::Value iv, llvm::ArrayRef<mlir::Value> carried) {
        std::tuple<Ts...> next = std::apply(
            [&](const Ts &...args) { return std::tuple<Ts...>(body(IV(iv), args...)); },
            detail::handlesOf<Ts...>(carried));
        return detail::valuesOf(next);
      },
      detail::here(loc));
  return detail::handlesOf<Ts...>(results);
}

/// The same with one carried handle: `body(k, acc)` returns the next acc.
template <Operand Lo, Operand Hi, Operand Step, ValueHandle T, class Body>
T for_range(const Lo &lo, const Hi &hi, const Step &step, const T &init, Body body,
            SrcLoc loc = SrcLoc::current()) {
  using IV = detail::InductionVar<Lo, Hi, Step>;
  return std::get<0>(for_range(
      lo, hi, step, std::tuple<T>(init),
      [&](const IV &iv, const T &carried) { return std::tuple<T>(T(body(iv, carried))); }, loc));
}

namespace detail {
template <Operand Lo, Operand Hi, Operand Step, class Body>
void forEach(const Lo &lo, const Hi &hi, const Step &step, Body &body, bool flatten,
             const SrcLoc &loc) {
  frontend::LoopHints hints;
  hints.flatten = flatten;
  using IV = InductionVar<Lo, Hi, Step>;
  builder(loc).forLoop(
      bound(lo, loc), bound(hi, loc), bound(step, loc), {},
      [&](mlir::Value iv, llvm::ArrayRef<mlir::Value>) {
        body(IV(iv));
        return std::vector<mlir::Value>{};
      },
      here(loc), hints);
}
} // namespace detail

/// The same carrying nothing: `body(k)` returns nothing.
template <Operand Lo, Operand Hi, Operand Step, class Body>
  requires std::is_invocable_v<Body, detail::InductionVar<Lo, Hi, Step>>
void for_range(const Lo &lo, const Hi &hi, const Step &step, Body body,
               SrcLoc loc = SrcLoc::current()) {
  detail::forEach(lo, hi, step, body, /*flatten=*/false, loc);
}

/// A persistent kernel's loop over output tiles, carrying nothing, to be
/// flattened on GPU targets with the one K loop in its body (Triton's
/// `tl.range(..., flatten=True)`; docs/gpu-backends.md, "Flattened loop
/// nests"), so that the pipeline runs across tiles.
template <Operand Lo, Operand Hi, Operand Step, class Body>
  requires std::is_invocable_v<Body, detail::InductionVar<Lo, Hi, Step>>
void for_range_flattened(const Lo &lo, const Hi &hi, const Step &step, Body body,
                         SrcLoc loc = SrcLoc::current()) {
  detail::forEach(lo, hi, step, body, /*flatten=*/true, loc);
}

/// `then_fn()` where `cond` holds, else `else_fn()`. Both return the same:
/// nothing, a handle or a tuple of handles, which the branch gives back.
template <class Then, class Else>
std::invoke_result_t<Then> if_then_else(const Bool &cond, Then then_fn, Else else_fn,
                                        SrcLoc loc = SrcLoc::current()) {
  using R = std::invoke_result_t<Then>;
  static_assert(std::is_same_v<R, std::invoke_result_t<Else>>,
                "if_then_else: both branches must return the same handle types");
  auto branch = [](auto &fn) {
    return [&fn]() -> std::vector<mlir::Value> {
      if constexpr (std::is_void_v<R>) {
        fn();
        return {};
      } else {
        return detail::returned<R>(fn());
      }
    };
  };
  std::vector<mlir::Value> results =
      detail::builder(loc).ifThenElse(cond.value(), branch(then_fn), branch(else_fn), detail::here(loc));
  return detail::fromReturned<R>(results);
}

/// `then_fn()` where `cond` holds.
template <class Then>
  requires std::is_void_v<std::invoke_result_t<Then>>
void if_then(const Bool &cond, Then then_fn, SrcLoc loc = SrcLoc::current()) {
  detail::builder(loc).ifThenElse(
      cond.value(),
      [&]() {
        then_fn();
        return std::vector<mlir::Value>{};
      },
      {}, detail::here(loc));
}

/// `while cond_fn(values...): values = body_fn(values...)`, starting from
/// the tuple `init`; gives the values when `cond_fn` turns false.
template <ValueHandle... Ts, class Cond, class Body>
std::tuple<Ts...> while_loop(const std::tuple<Ts...> &init, Cond cond_fn, Body body_fn,
                             SrcLoc loc = SrcLoc::current()) {
  auto apply = [](auto &fn, llvm::ArrayRef<mlir::Value> values) {
    return std::apply([&](const Ts &...args) { return fn(args...); },
                      detail::handlesOf<Ts...>(values));
  };
  std::vector<mlir::Value> results = detail::builder(loc).whileLoop(
      detail::valuesOf(init),
      [&](llvm::ArrayRef<mlir::Value> values) {
        return std::vector<mlir::Value>{Bool(apply(cond_fn, values)).value()};
      },
      [&](llvm::ArrayRef<mlir::Value> values) {
        return detail::valuesOf(std::tuple<Ts...>(apply(body_fn, values)));
      },
      detail::here(loc));
  return detail::handlesOf<Ts...>(results);
}

} // namespace tessera::lang

#endif // TESSERA_LANG_CONTROLFLOW_H

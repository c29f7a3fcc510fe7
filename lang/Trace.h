// Tracing: a kernel is a C++ callable taking handles; calling it once with
// handles for the arguments of a fresh `tile.func` records its ops.
//
//   auto kernel = [](Ptr<float> x, Ptr<float> out, Int n, Const<1024> BLOCK) { ... };
//   TracedKernel traced = trace("copy", kernel);
//
// Parameters of type Const<N> are compile-time constants (Triton's
// tl.constexpr): they are passed to the callable but are not kernel arguments.
#ifndef TESSERA_LANG_TRACE_H
#define TESSERA_LANG_TRACE_H

#include "lang/Memory.h"

#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>
#include <tuple>

namespace tessera::lang {

/// A traced kernel with the context that owns its IR.
struct TracedKernel {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module; // Declared after the context: destroyed first.

  /// The kernel's IR, as tessera-opt would print it.
  std::string str() const;
};

namespace detail {

/// Makes `kb` the builder EDSL calls on this thread use while it lives.
class TraceScope {
public:
  explicit TraceScope(frontend::KernelBuilder &kb);
  ~TraceScope();
  TraceScope(const TraceScope &) = delete;
  TraceScope &operator=(const TraceScope &) = delete;

private:
  frontend::KernelBuilder *previous_;
};

template <class F> struct Signature : Signature<decltype(&F::operator())> {};
template <class R, class... A> struct Signature<R (*)(A...)> {
  using Args = std::tuple<std::remove_cvref_t<A>...>;
};
template <class C, class R, class... A> struct Signature<R (C::*)(A...) const> {
  using Args = std::tuple<std::remove_cvref_t<A>...>;
};
template <class C, class R, class... A> struct Signature<R (C::*)(A...)> {
  using Args = std::tuple<std::remove_cvref_t<A>...>;
};

/// How a parameter of the kernel callable becomes a kernel argument.
template <class A> struct Param;
template <Element T> struct Param<Ptr<T>> {
  static constexpr bool isArgument = true;
  /// Pointers are assumed 16-byte aligned, as Triton assumes by default.
  static constexpr unsigned divisibility = 16;
  static mlir::Type type(mlir::MLIRContext *c) { return DType<Ptr<T>>::get(c); }
};
template <Element T> struct Param<Scalar<T>> {
  static constexpr bool isArgument = true;
  static constexpr unsigned divisibility = 0;
  static mlir::Type type(mlir::MLIRContext *c) { return DType<T>::get(c); }
};
template <int64_t N> struct Param<Const<N>> {
  static constexpr bool isArgument = false;
};

/// The handles the callable is called with: the next kernel argument for a
/// handle, the constant for a Const<N>.
template <class Args, size_t... I>
Args makeHandles(const std::vector<mlir::Value> &values, std::index_sequence<I...>) {
  size_t next = 0;
  auto make = [&]<class A>(std::type_identity<A>) {
    if constexpr (Param<A>::isArgument)
      return A(values[next++]);
    else
      return A{};
  };
  // Braced initialization evaluates left to right, keeping `next` in order.
  return Args{make(std::type_identity<std::tuple_element_t<I, Args>>{})...};
}

} // namespace detail

/// Traces `kernel` into a `tile.func @name` of a new module in `context`.
/// `divisibility` gives, per kernel argument, the power of two it is a
/// multiple of (0: nothing known); empty means 16 for pointers, nothing else.
/// `equalToOne` lists the integer arguments specialized to the value 1
/// (unit strides), as Triton specializes them.
template <class Fn>
mlir::OwningOpRef<mlir::ModuleOp> trace(mlir::MLIRContext &context, const std::string &name,
                                        Fn &&kernel, std::vector<unsigned> divisibility = {},
                                        std::vector<size_t> equalToOne = {},
                                        SrcLoc loc = SrcLoc::current()) {
  using Args = typename detail::Signature<std::decay_t<Fn>>::Args;
  frontend::KernelBuilder kb(context);
  detail::TraceScope scope(kb);

  std::vector<frontend::KernelArg> args;
  [&]<size_t... I>(std::index_sequence<I...>) {
    auto add = [&]<class A>(std::type_identity<A>) {
      if constexpr (detail::Param<A>::isArgument)
        args.push_back({detail::Param<A>::type(&context), detail::Param<A>::divisibility});
    };
    (add(std::type_identity<std::tuple_element_t<I, Args>>{}), ...);
  }(std::make_index_sequence<std::tuple_size_v<Args>>{});
  if (!divisibility.empty()) {
    if (divisibility.size() != args.size())
      throw KernelError(detail::here(loc), "trace: " + std::to_string(divisibility.size()) +
                                               " divisibility hints for " +
                                               std::to_string(args.size()) + " kernel arguments");
    for (size_t i = 0; i < args.size(); ++i)
      args[i].divisibility = divisibility[i];
  }
  for (size_t index : equalToOne) {
    if (index >= args.size())
      throw KernelError(detail::here(loc), "trace: equal-to-1 hint for argument #" +
                                               std::to_string(index) + " of " +
                                               std::to_string(args.size()));
    args[index].equalToOne = true;
  }

  std::vector<mlir::Value> values = kb.beginKernel(name, args, detail::here(loc));
  std::apply(kernel, detail::makeHandles<Args>(
                         values, std::make_index_sequence<std::tuple_size_v<Args>>{}));
  return kb.finish(detail::here(loc));
}

/// The same in a context of its own, returned with the module.
template <class Fn>
TracedKernel trace(const std::string &name, Fn &&kernel, std::vector<unsigned> divisibility = {},
                   std::vector<size_t> equalToOne = {}, SrcLoc loc = SrcLoc::current()) {
  TracedKernel traced{std::make_unique<mlir::MLIRContext>(), nullptr};
  traced.module = trace(*traced.context, name, std::forward<Fn>(kernel), std::move(divisibility),
                        std::move(equalToOne), loc);
  return traced;
}

} // namespace tessera::lang

#endif // TESSERA_LANG_TRACE_H

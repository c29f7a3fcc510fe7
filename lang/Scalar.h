// Scalar handles: `Int`, `Int64`, `Float`, `Bool` and friends.
#ifndef TESSERA_LANG_SCALAR_H
#define TESSERA_LANG_SCALAR_H

#include "lang/Operators.h"

namespace tessera::lang {

/// One traced value of element type T (a kernel argument, a program id, a
/// loop counter, a full reduction).
template <class T> class Scalar : public Handle, public Operators<Scalar<T>> {
public:
  using element_type = T;

  explicit Scalar(mlir::Value value) : Handle(value) {
    detail::checkType(value, DType<T>::get(value.getContext()), /*scalar=*/true);
  }
  /// A constant: `Float total = 0.0f;`.
  Scalar(T literal, std::source_location loc = std::source_location::current())
    requires std::is_arithmetic_v<T>
      : Handle(makeConstant(literal, loc)) {}
  /// The rank-0 tile a reduction over a 1-D tile gives.
  Scalar(const Tile<T> &tile, std::source_location loc = std::source_location::current());

  /// Converts to element type U (`x.to<float>()`); `bitcast` keeps the bits.
  template <Element U>
  HandleOf<U, false> to(bool bitcast = false,
                        std::source_location loc = std::source_location::current()) const {
    return HandleOf<U, false>(detail::builder(loc).cast(
        value_, DType<U>::get(value_.getContext()), detail::here(loc),
        {.bitcast = bitcast,
         .sourceUnsigned = DType<T>::isUnsigned,
         .targetUnsigned = DType<U>::isUnsigned}));
  }

private:
  static mlir::Value makeConstant(T literal, const std::source_location &loc) {
    auto &kb = detail::builder(loc);
    mlir::Type type = DType<T>::get(&kb.context());
    if constexpr (std::is_floating_point_v<T>)
      return kb.constant(static_cast<double>(literal), type, detail::here(loc));
    else
      return kb.constant(static_cast<int64_t>(literal), type, detail::here(loc));
  }
};

using Bool = Scalar<bool>;
using Int = Scalar<int32_t>;
using Int64 = Scalar<int64_t>;
using Float = Scalar<float>;
using Double = Scalar<double>;

inline IntArg::IntArg(const Scalar<int32_t> &value) : value_(value.value()) {}
inline IntArg::IntArg(const Scalar<int64_t> &value) : value_(value.value()) {}

} // namespace tessera::lang

#endif // TESSERA_LANG_SCALAR_H

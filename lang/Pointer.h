// Pointer handles: `Ptr<float>`, `Ptr<f16>`, ... Adding integer offsets (a
// scalar or a tile) advances by elements, as in Triton: `x + offsets` is a
// `Tile<Ptr<float>>`.
#ifndef TESSERA_LANG_POINTER_H
#define TESSERA_LANG_POINTER_H

#include "lang/Operators.h"

namespace tessera::lang {

/// A pointer to elements of type T in global memory (a kernel argument, or
/// one advanced by a scalar offset).
template <class T> class Ptr : public Handle, public Operators<Ptr<T>> {
public:
  using element_type = Ptr<T>;
  using pointee_type = T;

  explicit Ptr(mlir::Value value) : Handle(value) {
    detail::checkType(value, DType<Ptr<T>>::get(value.getContext()), /*scalar=*/true);
  }

  /// Reinterprets as a pointer to U (`p.to<Ptr<int32_t>>()`), or converts
  /// the address to `int64_t`.
  template <Element U>
  HandleOf<U, false> to(std::source_location loc = std::source_location::current()) const {
    return HandleOf<U, false>(
        detail::builder(loc).cast(value_, DType<U>::get(value_.getContext()), detail::here(loc)));
  }
};

} // namespace tessera::lang

#endif // TESSERA_LANG_POINTER_H

// Tile handles: `Tile<float>`, `Tile<int32_t>`, `Tile<bool>` (masks),
// `Tile<Ptr<f16>>` (pointer tiles). The shape is static, known when the
// kernel is traced and checked then; a rank-0 tile is a scalar.
#ifndef TESSERA_LANG_TILE_H
#define TESSERA_LANG_TILE_H

#include "lang/Pointer.h"
#include "lang/Scalar.h"

#include <vector>

namespace tessera::lang {

template <class T> class Tile : public Handle, public Operators<Tile<T>> {
public:
  using element_type = T;

  explicit Tile(mlir::Value value) : Handle(value) {
    detail::checkType(value, DType<T>::get(value.getContext()), /*scalar=*/false);
  }
  /// A scalar is a rank-0 tile: it broadcasts against any tile.
  Tile(const HandleOf<T, false> &scalar) : Handle(scalar.value()) {}

  std::vector<int64_t> shape() const { return frontend::KernelBuilder::shapeOf(value_); }
  size_t rank() const { return shape().size(); }

  /// Converts the elements to U (`x.to<float>()`); `bitcast` keeps the bits.
  template <Element U>
  Tile<U> to(bool bitcast = false, std::source_location loc = std::source_location::current()) const {
    return Tile<U>(detail::builder(loc).cast(
        value_, DType<U>::get(value_.getContext()), detail::here(loc),
        {.bitcast = bitcast,
         .sourceUnsigned = DType<T>::isUnsigned,
         .targetUnsigned = DType<U>::isUnsigned}));
  }

  /// Inserts a dimension of size 1 at `axis`: `x.expand(0)` is Triton's
  /// `x[None, :]`, `x.expand(1)` is `x[:, None]`.
  Tile expand(int axis, std::source_location loc = std::source_location::current()) const {
    return Tile(detail::builder(loc).expandDims(value_, axis, detail::here(loc)));
  }
};

/// A tile of booleans, as comparisons give and loads and stores take.
using Mask = Tile<bool>;

template <class T>
Scalar<T>::Scalar(const Tile<T> &tile, std::source_location loc) : Handle(tile.value()) {
  if (tile.rank() != 0)
    throw KernelError(detail::here(loc), "expected a scalar, got a tile of shape " +
                                             frontend::KernelBuilder::str(tile.shape()));
}

} // namespace tessera::lang

#endif // TESSERA_LANG_TILE_H

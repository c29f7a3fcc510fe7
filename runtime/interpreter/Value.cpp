#include "runtime/interpreter/Value.h"

#include "ir/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;

namespace tessera::interp {

Tile Tile::zeros(Type type) {
  Tile tile;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    tile.elementType = tensor.getElementType();
    tile.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  } else {
    tile.elementType = type;
  }
  tile.elements.resize(numElements(tile.shape));
  return tile;
}

Tile Tile::scalar(Type type, Element element) {
  Tile tile;
  tile.elementType = type;
  tile.elements.push_back(element);
  return tile;
}

unsigned intWidth(Type type) {
  if (type.isIndex())
    return 64;
  return cast<IntegerType>(type).getWidth();
}

unsigned storageBytes(Type type) {
  if (isa<tile::PointerType>(type))
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

uint64_t truncateBits(uint64_t value, unsigned width) {
  return width >= 64 ? value : value & llvm::maskTrailingOnes<uint64_t>(width);
}

int64_t signExtend(uint64_t value, unsigned width) { return llvm::SignExtend64(value, width); }

Element makeInt(uint64_t value, unsigned width) {
  Element element;
  element.bits = truncateBits(value, width);
  return element;
}

Element makeBool(bool value) { return makeInt(value, 1); }

// Rounds through APFloat so that the narrow formats (f16, bf16, f8) get their
// own rounding and NaN rules. fp8 saturates: a value (or infinity) beyond the
// largest finite one becomes it, as NVIDIA's cvt.rn.satfinite and every
// backend's conversion do (tile-expand-float8-conversions).
double roundToType(double value, Type type) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return static_cast<double>(static_cast<float>(value));
  const llvm::fltSemantics &semantics = cast<FloatType>(type).getFloatSemantics();
  if (tessera::tile::isFloat8(type)) {
    double largest = llvm::APFloat::getLargest(semantics).convertToDouble();
    if (std::fabs(value) > largest)
      return std::copysign(largest, value);
  }
  llvm::APFloat number(value);
  bool losesInfo = false;
  number.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  number.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return number.convertToDouble();
}

Element makeFloat(double value, Type type) {
  Element element;
  element.real = roundToType(value, type);
  return element;
}

uint64_t toBits(const Element &element, Type type) {
  if (!isa<FloatType>(type))
    return element.bits;
  llvm::APFloat number(element.real);
  bool losesInfo = false;
  number.convert(cast<FloatType>(type).getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return number.bitcastToAPInt().getZExtValue();
}

Element fromBits(uint64_t bits, Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  // A stored i1 is a byte; any non-zero byte reads as true.
  if (!floatType)
    return intWidth(type) == 1 ? makeBool((bits & 0xff) != 0) : makeInt(bits, intWidth(type));
  unsigned width = floatType.getWidth();
  llvm::APFloat number(floatType.getFloatSemantics(),
                       llvm::APInt(width, truncateBits(bits, width)));
  bool losesInfo = false;
  number.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  Element element;
  element.real = number.convertToDouble();
  return element;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  return strides;
}

SmallVector<int64_t, 4> delinearize(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> index(shape.size());
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0; --dim) {
    index[dim] = flat % shape[dim];
    flat /= shape[dim];
  }
  return index;
}

int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, stride] : llvm::zip(index, strides))
    flat += i * stride;
  return flat;
}

} // namespace tessera::interp

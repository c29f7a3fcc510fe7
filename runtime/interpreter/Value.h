// Run-time values of the tile IR interpreter: tiles as flat row-major arrays
// of elements, and tensor descriptors.
#ifndef TESSERA_RUNTIME_INTERPRETER_VALUE_H
#define TESSERA_RUNTIME_INTERPRETER_VALUE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace tessera::interp {

/// One element of a tile. The element type of the tile says which fields
/// hold it, so that every type keeps its exact semantics:
/// - integers: `bits`, the value zero-extended from its bit width;
/// - floats: `real`, the value already rounded to the element type (every
///   supported float type is exactly representable in a double);
/// - pointers: `buffer` and the byte offset into it in `bits` (two's
///   complement), or `buffer == kNoBuffer` and a raw address in `bits`.
struct Element {
  static constexpr int32_t kNoBuffer = -1;

  uint64_t bits = 0;
  double real = 0;
  int32_t buffer = kNoBuffer;

  int64_t offset() const { return static_cast<int64_t>(bits); }
};

/// A tile, or a scalar as a tile of rank 0 with one element.
struct Tile {
  mlir::Type elementType;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<Element> elements;

  /// A zero-filled tile of `type` (a ranked tensor or a scalar type).
  static Tile zeros(mlir::Type type);
  static Tile scalar(mlir::Type type, Element element);

  bool isScalar() const { return shape.empty(); }
  int64_t size() const { return static_cast<int64_t>(elements.size()); }
  /// Element `lane`, or the only element of a scalar: scalars broadcast in
  /// elementwise ops (arith.select with an i1 condition, for instance).
  const Element &at(int64_t lane) const { return elements[isScalar() ? 0 : lane]; }
};

/// A tensor descriptor: a strided global tensor read and written in blocks.
struct Descriptor {
  Element base;
  mlir::Type elementType;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> strides;
  llvm::SmallVector<int64_t, 4> blockShape;
  bool nanPadding = false;
};

using RuntimeValue = std::variant<Tile, Descriptor>;

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// Bits of an integer type; 64 for `index`.
unsigned intWidth(mlir::Type type);
/// Bytes that one element of `type` occupies in memory (i1 takes a byte).
unsigned storageBytes(mlir::Type type);

uint64_t truncateBits(uint64_t value, unsigned width);
int64_t signExtend(uint64_t value, unsigned width);
Element makeInt(uint64_t value, unsigned width);
Element makeBool(bool value);
/// `value` rounded to nearest-even in the float type `type`.
double roundToType(double value, mlir::Type type);
Element makeFloat(double value, mlir::Type type);

/// The in-memory bit pattern of `element` as a value of `type`, and back.
uint64_t toBits(const Element &element, mlir::Type type);
Element fromBits(uint64_t bits, mlir::Type type);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

int64_t numElements(llvm::ArrayRef<int64_t> shape);
llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> shape);
/// The multi-index of flat row-major position `flat` in `shape`.
llvm::SmallVector<int64_t, 4> delinearize(int64_t flat, llvm::ArrayRef<int64_t> shape);
int64_t linearize(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> strides);

} // namespace tessera::interp

#endif // TESSERA_RUNTIME_INTERPRETER_VALUE_H

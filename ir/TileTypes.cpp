#include "ir/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#define GET_TYPEDEF_CLASSES
#include "ir/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ir/TileTypes.cpp.inc"
      >();
}

// The element types tiles are made of: what backends can load, store and
// compute with (i4 or f80 pointees would only fail later, less clearly).
static bool isScalarElement(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
  return isa<Float8E4M3FNType, Float8E5M2Type, Float16Type, BFloat16Type, Float32Type,
             Float64Type>(type);
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, unsigned addressSpace) {
  if (!isScalarElement(pointeeType))
    return emitError() << "pointee of !tile.ptr must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got "
                       << pointeeType;
  return success();
}

LogicalResult TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     RankedTensorType blockType) {
  if (!blockType.hasStaticShape())
    return emitError() << "block of a tensor descriptor must have a static shape, got "
                       << blockType;
  if (blockType.getRank() < 1 || blockType.getRank() > 5)
    return emitError() << "block of a tensor descriptor must have rank 1 to 5, got rank "
                       << blockType.getRank();
  if (!isScalarElement(blockType.getElementType()))
    return emitError() << "block element type must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got "
                       << blockType.getElementType();
  return success();
}

namespace tessera::tile {

Type getPointeeType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    return ptr ? tensor.clone(ptr.getPointeeType()) : ptrLike;
  }
  auto ptr = dyn_cast<PointerType>(ptrLike);
  return ptr ? ptr.getPointeeType() : ptrLike;
}

Type getMaskType(Type ptrLike) {
  auto i1 = IntegerType::get(ptrLike.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike))
    return tensor.clone(i1);
  return i1;
}

} // namespace tessera::tile

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

static bool isScalarElement(Type type) {
  return isa<IntegerType, FloatType>(type);
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, unsigned addressSpace) {
  if (!isScalarElement(pointeeType))
    return emitError() << "pointee of !tile.ptr must be an integer or float type, got "
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
    return emitError() << "block element type must be an integer or float type, got "
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

#include "ir/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#include "ir/TileDialect.cpp.inc"
#include "ir/TileEnums.cpp.inc"

namespace {
// Device functions are inlined into kernels: everything in tile code is legal
// to inline, and a `tile.return` becomes a use of the returned values.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }

  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto returnOp = cast<ReturnOp>(op);
    for (auto [from, to] : llvm::zip(valuesToRepl, returnOp.getOperands()))
      from.replaceAllUsesWith(to);
  }
};
} // namespace

void TileDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "ir/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only valid on function arguments";
  Type argType = func.getArgumentTypes()[argIndex];
  if (attr.getName() == kDivisibilityAttr) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() <= 0 || !llvm::isPowerOf2_64(value.getInt()))
      return op->emitError() << "argument #" << argIndex << ": '" << kDivisibilityAttr
                             << "' must be a positive power-of-two integer, got "
                             << attr.getValue();
    if (!isa<IntegerType, PointerType>(argType))
      return op->emitError() << "argument #" << argIndex << ": '" << kDivisibilityAttr
                             << "' applies to integers and pointers, not " << argType;
    return success();
  }
  if (attr.getName() == kEqualToOneAttr) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<IntegerType>(argType))
      return op->emitError() << "argument #" << argIndex << ": '" << kEqualToOneAttr
                             << "' is a unit attribute on integer arguments";
    return success();
  }
  return op->emitError() << "argument #" << argIndex << ": unknown tile argument attribute '"
                         << attr.getName().getValue() << "'";
}

// tile.func, tile.return and tile.call: kernel signatures and device calls.
#include "ir/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tessera::tile;

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addRegion();
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name),
      buildFuncType, getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(printer, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

static bool isKernelArgumentType(Type type) {
  return isa<IntegerType, FloatType, PointerType, TensorDescType>(type);
}

LogicalResult FuncOp::verify() {
  if (isPublic() && getFunctionType().getNumResults() != 0)
    return emitOpError() << "a public tile.func is a kernel and returns nothing; make @"
                         << getSymName() << " private to use it as a device function";
  if (!isKernel())
    return success();
  for (auto [index, type] : llvm::enumerate(getArgumentTypes()))
    if (!isKernelArgumentType(type))
      return emitOpError() << "kernel argument #" << index
                           << " must be a scalar, a !tile.ptr or a !tile.tensordesc, got "
                           << type << " (tiles are passed to device functions only)";
  return success();
}

LogicalResult ReturnOp::verify() {
  auto func = (*this)->getParentOfType<FuncOp>();
  ArrayRef<Type> expected = func.getResultTypes();
  if (getNumOperands() != expected.size())
    return emitOpError() << "returns " << getNumOperands() << " value(s) but @"
                         << func.getSymName() << " declares " << expected.size();
  for (auto [index, pair] : llvm::enumerate(llvm::zip(getOperandTypes(), expected)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "returned value #" << index << " has type " << std::get<0>(pair)
                           << " but @" << func.getSymName() << " declares "
                           << std::get<1>(pair);
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError() << "calls @" << getCallee() << ", which is not a tile.func";
  FunctionType type = callee.getFunctionType();
  if (type.getInputs() != getOperandTypes())
    return emitOpError() << "operand types do not match the signature of @" << getCallee()
                         << ": " << type;
  if (type.getResults() != getResultTypes())
    return emitOpError() << "result types do not match the signature of @" << getCallee()
                         << ": " << type;
  return success();
}

#include "runtime/interpreter/Interpreter.h"

#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tessera::interp {

void registerInterpretedDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect>();
}

static const HandlerTable &handlerTable() {
  static const HandlerTable table = [] {
    HandlerTable handlers;
    registerArithHandlers(handlers);
    registerMathHandlers(handlers);
    registerLibdeviceHandlers(handlers);
    registerControlFlowHandlers(handlers);
    registerTileHandlers(handlers);
    registerMemoryHandlers(handlers);
    registerReduceHandlers(handlers);
    registerDotHandlers(handlers);
    registerDebugHandlers(handlers);
    return handlers;
  }();
  return table;
}

// The run-time value of kernel argument `index` of type `type`.
static llvm::Expected<RuntimeValue> bindArgument(Memory &memory, unsigned index, Type type,
                                                 const KernelArgument &arg) {
  auto mismatch = [&](StringRef expected) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    type.print(os);
    return llvm::createStringError(
        llvm::formatv("argument #{0}: the kernel declares {1}, which takes {2}", index,
                      typeText, expected));
  };
  if (isa<tile::PointerType>(type)) {
    if (arg.kind != KernelArgument::Kind::Buffer)
      return mismatch("a buffer");
    return Tile::scalar(type, memory.pointerTo(memory.addBuffer(arg.data, arg.bytes, index)));
  }
  if (isa<IntegerType>(type)) {
    if (arg.kind != KernelArgument::Kind::Integer)
      return mismatch("an integer");
    return Tile::scalar(type, makeInt(arg.intValue, intWidth(type)));
  }
  if (isa<FloatType>(type)) {
    if (arg.kind != KernelArgument::Kind::Float)
      return mismatch("a float");
    return Tile::scalar(type, makeFloat(arg.floatValue, type));
  }
  return mismatch("nothing the interpreter can pass yet (tensor descriptors are built in "
                  "the kernel with tile.make_tensor_descriptor)");
}

llvm::Error runKernel(ModuleOp module, StringRef kernel, ArrayRef<KernelArgument> args,
                      GridSize grid, const InterpreterOptions &options) {
  auto func = SymbolTable::lookupNearestSymbolFrom<tile::FuncOp>(
      module, StringAttr::get(module.getContext(), kernel));
  if (!func)
    return llvm::createStringError("no tile.func named @" + kernel + " in the module");
  if (!func.isKernel() || func.isExternal())
    return llvm::createStringError("@" + kernel +
                                   " is not a kernel (a public tile.func with a body and "
                                   "no results)");
  ArrayRef<Type> types = func.getArgumentTypes();
  if (types.size() != args.size())
    return llvm::createStringError(llvm::formatv("@{0} takes {1} argument(s), got {2}", kernel,
                                                 types.size(), args.size()));

  Memory memory;
  SmallVector<RuntimeValue> values;
  for (auto [index, type, arg] : llvm::enumerate(types, args)) {
    llvm::Expected<RuntimeValue> value = bindArgument(memory, index, type, arg);
    if (!value)
      return value.takeError();
    values.push_back(std::move(*value));
  }

  Executor executor(memory, handlerTable(), grid, options);
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        executor.setProgram({x, y, z});
        if (auto results = executor.call(func, values); !results)
          return results.takeError();
      }
  return llvm::Error::success();
}

} // namespace tessera::interp

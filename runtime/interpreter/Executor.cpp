#include "runtime/interpreter/Executor.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Region.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tessera::interp {

const HandlerTable::Handler *HandlerTable::lookup(Operation *op) const {
  auto it = handlers.find(op->getName().getTypeID());
  return it == handlers.end() ? nullptr : &it->second;
}

std::string formatLocation(Location loc) {
  FileLineColLoc fileLoc;
  loc->walk([&](Location nested) {
    if (auto found = dyn_cast<FileLineColLoc>(nested)) {
      fileLoc = found;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (fileLoc)
    return llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(), fileLoc.getLine(),
                         fileLoc.getColumn());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

Executor::Executor(Memory &memory, const HandlerTable &handlers, GridSize grid,
                   const InterpreterOptions &options)
    : mem(memory), handlers(handlers), gridSize(grid), options(options) {}

llvm::raw_ostream &Executor::printStream() const {
  return options.printStream ? *options.printStream : llvm::outs();
}

const Tile &Executor::tile(Value value) const {
  return std::get<Tile>(frames.back().find(value)->second);
}

const Descriptor &Executor::descriptor(Value value) const {
  return std::get<Descriptor>(frames.back().find(value)->second);
}

void Executor::bind(Value value, RuntimeValue runtime) {
  frames.back().insert_or_assign(value, std::move(runtime));
}

llvm::Expected<SmallVector<RuntimeValue>> Executor::call(Operation *func,
                                                         ArrayRef<RuntimeValue> args) {
  frames.emplace_back();
  auto results = runRegion(func->getRegion(0), args);
  frames.pop_back();
  return results;
}

llvm::Expected<SmallVector<RuntimeValue>> Executor::runRegion(Region &region,
                                                              ArrayRef<RuntimeValue> args) {
  if (!region.hasOneBlock())
    return fail(region.getParentOp(), "regions with several blocks are not supported");
  Block &block = region.front();
  for (auto [arg, value] : llvm::zip_equal(block.getArguments(), args))
    bind(arg, value);
  for (Operation &op : block.without_terminator())
    if (llvm::Error error = run(&op))
      return std::move(error);
  SmallVector<RuntimeValue> results;
  for (Value operand : block.getTerminator()->getOperands())
    results.push_back(frames.back().find(operand)->second);
  return results;
}

llvm::Error Executor::run(Operation *op) {
  if (const HandlerTable::Handler *handler = handlers.lookup(op))
    return (*handler)(*this, op);
  return fail(op, "unsupported operation '" + op->getName().getStringRef() +
                      "' in the interpreter");
}

llvm::Error Executor::fail(Operation *op, const llvm::Twine &message) const {
  return llvm::createStringError(llvm::formatv("{0}: {1} in program ({2}, {3}, {4})",
                                               formatLocation(op->getLoc()), message.str(),
                                               program[0], program[1], program[2])
                                     .str());
}

llvm::Error Executor::fail(Operation *op, llvm::Error error) const {
  return fail(op, llvm::toString(std::move(error)));
}

} // namespace tessera::interp

// The interpreter's engine: value frames, op dispatch, regions and errors.
// Op semantics live in the *Eval.cpp files, which register one handler per op.
#ifndef TESSERA_RUNTIME_INTERPRETER_EXECUTOR_H
#define TESSERA_RUNTIME_INTERPRETER_EXECUTOR_H

#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Memory.h"
#include "runtime/interpreter/Value.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <functional>

namespace tessera::interp {

class Executor;

/// The op handlers, keyed by op TypeID.
class HandlerTable {
public:
  using Handler = std::function<llvm::Error(Executor &, mlir::Operation *)>;

  template <typename OpTy, typename Fn> void add(Fn fn) {
    handlers[mlir::TypeID::get<OpTy>()] = [fn](Executor &exec, mlir::Operation *op) {
      return fn(exec, llvm::cast<OpTy>(op));
    };
  }
  /// One handler taking the generic Operation for several op classes.
  template <typename... OpTys> void addGeneric(const Handler &fn) {
    (handlers.try_emplace(mlir::TypeID::get<OpTys>(), fn), ...);
  }
  const Handler *lookup(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::TypeID, Handler> handlers;
};

void registerArithHandlers(HandlerTable &table);
void registerMathHandlers(HandlerTable &table);
void registerLibdeviceHandlers(HandlerTable &table);
void registerControlFlowHandlers(HandlerTable &table);
void registerTileHandlers(HandlerTable &table);
void registerMemoryHandlers(HandlerTable &table);
void registerReduceHandlers(HandlerTable &table);
void registerDotHandlers(HandlerTable &table);
void registerDebugHandlers(HandlerTable &table);

/// Runs programs of one launch. Each function invocation gets a frame that
/// maps SSA values to run-time values; regions of structured ops run in the
/// frame of their function, rebinding their block arguments on every trip.
class Executor {
public:
  Executor(Memory &memory, const HandlerTable &handlers, GridSize grid,
           const InterpreterOptions &options);

  void setProgram(std::array<uint32_t, 3> id) { program = id; }
  std::array<uint32_t, 3> programId() const { return program; }
  GridSize grid() const { return gridSize; }
  Memory &memory() { return mem; }
  llvm::raw_ostream &printStream() const;

  const Tile &tile(mlir::Value value) const;
  const Descriptor &descriptor(mlir::Value value) const;
  void bind(mlir::Value value, RuntimeValue runtime);

  /// Runs the body of `func` in a fresh frame; returns what tile.return returns.
  llvm::Expected<llvm::SmallVector<RuntimeValue>> call(mlir::Operation *func,
                                                       llvm::ArrayRef<RuntimeValue> args);
  /// Runs the single block of `region` with `args` bound to its arguments;
  /// returns the operands of its terminator.
  llvm::Expected<llvm::SmallVector<RuntimeValue>> runRegion(mlir::Region &region,
                                                            llvm::ArrayRef<RuntimeValue> args);
  llvm::Error run(mlir::Operation *op);

  /// An error located at `op`: "file:line:col: <message> in program (x, y, z)".
  llvm::Error fail(mlir::Operation *op, const llvm::Twine &message) const;
  /// `error` (e.g. from Memory) located at `op` the same way.
  llvm::Error fail(mlir::Operation *op, llvm::Error error) const;

private:
  using Frame = llvm::DenseMap<mlir::Value, RuntimeValue>;

  Memory &mem;
  const HandlerTable &handlers;
  GridSize gridSize;
  const InterpreterOptions &options;
  std::array<uint32_t, 3> program = {0, 0, 0};
  llvm::SmallVector<Frame, 4> frames;
};

/// "file:line:col" of the innermost file location in `loc` (the user's line
/// when the front end recorded it), or the printed location otherwise.
std::string formatLocation(mlir::Location loc);

} // namespace tessera::interp

#endif // TESSERA_RUNTIME_INTERPRETER_EXECUTOR_H

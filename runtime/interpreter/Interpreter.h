// The tile IR interpreter: runs a kernel of a module on the CPU, one program
// of the grid at a time, with every memory access bounds-checked. It is the
// reference the compiled backends are tested against and a debugging tool.
#ifndef TESSERA_RUNTIME_INTERPRETER_INTERPRETER_H
#define TESSERA_RUNTIME_INTERPRETER_INTERPRETER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace tessera::interp {

/// One argument of a launch, matched against the kernel's signature: a buffer
/// for a `!tile.ptr<T>` (its element type is the one the signature declares),
/// an integer for an integer argument, a float for a float argument.
struct KernelArgument {
  enum class Kind { Buffer, Integer, Float };

  Kind kind = Kind::Integer;
  void *data = nullptr;
  uint64_t bytes = 0;
  int64_t intValue = 0;
  double floatValue = 0;

  static KernelArgument buffer(void *data, uint64_t bytes) {
    return {Kind::Buffer, data, bytes, 0, 0};
  }
  /// `KernelArgument::buffer<float>(vector)`: the buffer of an array.
  template <typename T> static KernelArgument buffer(llvm::MutableArrayRef<T> values) {
    return buffer(values.data(), values.size() * sizeof(T));
  }
  static KernelArgument integer(int64_t value) { return {Kind::Integer, nullptr, 0, value, 0}; }
  static KernelArgument floating(double value) { return {Kind::Float, nullptr, 0, 0, value}; }
};

/// Number of programs along each axis of the launch grid.
struct GridSize {
  unsigned x = 1, y = 1, z = 1;
};

struct InterpreterOptions {
  /// Where `tile.print` writes; standard output when null.
  llvm::raw_ostream *printStream = nullptr;
};

/// The dialects that interpreted kernels are written in (tile, arith, math, scf).
void registerInterpretedDialects(mlir::DialectRegistry &registry);

/// Runs kernel `kernel` (a public `tile.func` without results) of `module`
/// over `grid`, programs in x-major order (x fastest). Buffers are read and
/// written in place. The first failing program stops the launch: the error
/// names the source location of the op, what went wrong and the program id.
llvm::Error runKernel(mlir::ModuleOp module, llvm::StringRef kernel,
                      llvm::ArrayRef<KernelArgument> args, GridSize grid,
                      const InterpreterOptions &options = {});

} // namespace tessera::interp

#endif // TESSERA_RUNTIME_INTERPRETER_INTERPRETER_H

// Shared fixture of the interpreter tests: parses kernels written in tile IR,
// seeds a random generator (the seed is printed with every failure, and
// TESSERA_TEST_SEED replays it) and compares results with a tolerance.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_INTERPRETER_INTERPRETERTESTUTILS_H
#define TESSERA_TESTS_UNIT_RUNTIME_INTERPRETER_INTERPRETERTESTUTILS_H

#include "runtime/interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tessera::interp::testing {

struct Float8ArithmeticBuffers;

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest();

  /// Parses `source` as if read from "kernel.mlir"; fails the test on errors.
  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source);
  /// Parses and runs `kernel`; returns the interpreter's error text, or "" on success.
  std::string run(llvm::StringRef source, llvm::StringRef kernel,
                  llvm::ArrayRef<KernelArgument> args, GridSize grid,
                  const InterpreterOptions &options = {});

  std::vector<float> randomFloats(size_t count, float low = -1, float high = 1);
  std::vector<int32_t> randomInts(size_t count, int32_t low, int32_t high);
  /// Values of either sign whose magnitudes span 2^-24 to 2^20: the fp8
  /// subnormals of both formats, their normal ranges and beyond them.
  std::vector<float> wideRangeFloats(size_t count);
  Float8ArithmeticBuffers float8ArithmeticBuffers(size_t count);

  uint32_t seed;
  std::mt19937 rng;
  mlir::MLIRContext context;
  std::string diagnostics;

private:
  ::testing::ScopedTrace seedTrace;
};

/// The buffers of kFloat8Arithmetic (tests/unit/kernels/TileKernels.h) for
/// `n` elements: wide-range x and y (x's first two infinities), outputs
/// poisoned. The arguments point into the buffers: keep them alive.
struct Float8ArithmeticBuffers {
  std::vector<float> x, y, wide;
  std::vector<uint8_t> rounded, result;

  std::vector<KernelArgument> arguments() {
    return {KernelArgument::buffer<float>(x),        KernelArgument::buffer<float>(y),
            KernelArgument::buffer<uint8_t>(rounded), KernelArgument::buffer<uint8_t>(result),
            KernelArgument::buffer<float>(wide),     KernelArgument::integer(x.size())};
  }
};

/// 1-based line of the first line of `source` that contains `needle`.
unsigned lineOf(llvm::StringRef source, llvm::StringRef needle);

/// IEEE half precision, through APFloat (independent of the interpreter).
uint16_t toHalf(double value);
double fromHalf(uint16_t bits);
/// The bytes of `values` in an fp8 type ("f8E4M3FN" or "f8E5M2"), rounded to
/// nearest even through APFloat.
std::vector<uint8_t> toFloat8(const std::vector<int32_t> &values, llvm::StringRef type);

/// Softmax of each of `rows` rows of `cols` floats (row r starts at
/// r * rowStride of `in`), in float64: rows * cols values, row-major.
std::vector<double> softmaxReference(const std::vector<float> &in, int64_t rows, int64_t cols,
                                     int64_t rowStride);

/// Checks |actual[i] - expected[i]| <= atol + rtol * scale[i] for every i,
/// reporting the first few mismatches. `scale` defaults to |expected|.
void expectClose(llvm::ArrayRef<double> actual, llvm::ArrayRef<double> expected, double rtol,
                 double atol, llvm::ArrayRef<double> scale = {});

template <typename T> std::vector<double> toDoubles(const std::vector<T> &values) {
  return std::vector<double>(values.begin(), values.end());
}

template <typename T> KernelArgument bufferOf(std::vector<T> &values) {
  return KernelArgument::buffer<T>(values);
}

} // namespace tessera::interp::testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_INTERPRETER_INTERPRETERTESTUTILS_H

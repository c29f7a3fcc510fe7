#include "InterpreterTestUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>

namespace tessera::interp::testing {

static uint32_t chooseSeed() {
  if (const char *fixed = std::getenv("TESSERA_TEST_SEED"))
    return static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10));
  return std::random_device{}();
}

InterpreterTest::InterpreterTest()
    : seed(chooseSeed()), rng(seed),
      seedTrace(__FILE__, __LINE__,
                "random seed " + std::to_string(seed) + " (replay with TESSERA_TEST_SEED)") {
  mlir::DialectRegistry registry;
  registerInterpretedDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

mlir::OwningOpRef<mlir::ModuleOp> InterpreterTest::parse(llvm::StringRef source) {
  mlir::ScopedDiagnosticHandler handler(&context, [this](mlir::Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context, "kernel.mlir");
  EXPECT_TRUE(module) << diagnostics;
  return module;
}

std::string InterpreterTest::run(llvm::StringRef source, llvm::StringRef kernel,
                                 llvm::ArrayRef<KernelArgument> args, GridSize grid,
                                 const InterpreterOptions &options) {
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(source);
  if (!module)
    return "parse error: " + diagnostics;
  if (llvm::Error error = runKernel(*module, kernel, args, grid, options))
    return llvm::toString(std::move(error));
  return "";
}

std::vector<float> InterpreterTest::randomFloats(size_t count, float low, float high) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float &value : values)
    value = dist(rng);
  return values;
}

std::vector<float> InterpreterTest::wideRangeFloats(size_t count) {
  std::uniform_real_distribution<float> mantissa(1, 2);
  std::uniform_int_distribution<int> exponent(-24, 19), sign(0, 1);
  std::vector<float> values(count);
  for (float &value : values)
    value = std::ldexp(sign(rng) ? -mantissa(rng) : mantissa(rng), exponent(rng));
  return values;
}

Float8ArithmeticBuffers InterpreterTest::float8ArithmeticBuffers(size_t count) {
  Float8ArithmeticBuffers buffers;
  buffers.x = wideRangeFloats(count);
  buffers.y = wideRangeFloats(count);
  buffers.x[0] = INFINITY;
  buffers.x[1] = -INFINITY;
  buffers.wide.assign(count, -7.0f);
  buffers.rounded.assign(count, 0xaa);
  buffers.result.assign(count, 0xaa);
  return buffers;
}

std::vector<int32_t> InterpreterTest::randomInts(size_t count, int32_t low, int32_t high) {
  std::uniform_int_distribution<int32_t> dist(low, high);
  std::vector<int32_t> values(count);
  for (int32_t &value : values)
    value = dist(rng);
  return values;
}

unsigned lineOf(llvm::StringRef source, llvm::StringRef needle) {
  size_t position = source.find(needle);
  EXPECT_NE(position, llvm::StringRef::npos) << needle.str();
  return 1 + source.take_front(position).count('\n');
}

uint16_t toHalf(double value) {
  llvm::APFloat number(value);
  bool losesInfo = false;
  number.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(number.bitcastToAPInt().getZExtValue());
}

std::vector<uint8_t> toFloat8(const std::vector<int32_t> &values, llvm::StringRef type) {
  const llvm::fltSemantics &semantics =
      type == "f8E5M2" ? llvm::APFloat::Float8E5M2() : llvm::APFloat::Float8E4M3FN();
  std::vector<uint8_t> bytes;
  for (int32_t value : values) {
    llvm::APFloat number(static_cast<double>(value));
    bool losesInfo = false;
    number.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    bytes.push_back(static_cast<uint8_t>(number.bitcastToAPInt().getZExtValue()));
  }
  return bytes;
}

double fromHalf(uint16_t bits) {
  llvm::APFloat number(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  bool losesInfo = false;
  number.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return number.convertToDouble();
}

void expectClose(llvm::ArrayRef<double> actual, llvm::ArrayRef<double> expected, double rtol,
                 double atol, llvm::ArrayRef<double> scale) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  size_t mismatches = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    double bound = atol + rtol * (scale.empty() ? std::fabs(expected[i]) : scale[i]);
    // Equal infinities differ by NaN.
    if (actual[i] == expected[i] || std::fabs(actual[i] - expected[i]) <= bound)
      continue;
    ++mismatches;
    if (reported++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << actual[i] << ", expected " << expected[i]
                    << " (tolerance " << bound << ")";
  }
  EXPECT_EQ(mismatches, 0u) << "of " << actual.size() << " elements";
}

} // namespace tessera::interp::testing

std::vector<double> tessera::interp::testing::softmaxReference(const std::vector<float> &in,
                                                               int64_t rows, int64_t cols,
                                                               int64_t rowStride) {
  std::vector<double> expected;
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &in[r * rowStride];
    double max = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      max = std::max(max, static_cast<double>(row[c]));
    for (int64_t c = 0; c < cols; ++c)
      sum += std::exp(row[c] - max);
    for (int64_t c = 0; c < cols; ++c)
      expected.push_back(std::exp(row[c] - max) / sum);
  }
  return expected;
}

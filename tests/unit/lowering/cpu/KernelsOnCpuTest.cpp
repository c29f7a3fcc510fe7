// The interpreter's test kernels (tests/unit/kernels/TileKernels.h) on the
// CPU backend, each compared with the
// interpreter on the same random inputs; and the CPU backend's own
// behaviours: assert through the runtime hook, diagnostics for what it does
// not support.
#include "CpuTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <climits>
#include <cmath>

namespace tessera::cpu::testing {
namespace {

using namespace tessera::test_kernels;
using interp::testing::bufferOf;

using KernelsOnCpuTest = CpuTest;


TEST_F(KernelsOnCpuTest, VectorAddRagged) {
  auto module = parse(kVectorAdd);
  for (int32_t n : {1, 127, 128, 129, 1000}) {
    std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
    expectSameAsInterpreter(*module, "add",
                            {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                            {static_cast<unsigned>((n + 127) / 128), 1, 1}, 0, 0);
  }
}

TEST_F(KernelsOnCpuTest, IntegerOps) {
  auto module = parse(kIntegerOps);
  std::vector<int32_t> a = randomInts(64, INT32_MIN, INT32_MAX), b = randomInts(64, -1000, 1000);
  a[0] = INT32_MIN;
  b[0] = -1;
  for (int32_t &v : b)
    if (v == 0)
      v = 3;
  std::vector<int32_t> out(128);
  expectSameAsInterpreter(*module, "ints", {bufferOf(a), bufferOf(b), bufferOf(out)}, {1, 1, 1},
                          0, 0);
}

TEST_F(KernelsOnCpuTest, HalfPrecision) {
  auto module = parse(kHalfOps);
  std::vector<float> source = randomFloats(32, -2, 2);
  std::vector<uint16_t> a(32), out(32);
  std::vector<float> wide(32);
  for (int i = 0; i < 32; ++i)
    a[i] = interp::testing::toHalf(source[i]);
  expectSameAsInterpreter(*module, "halves", {bufferOf(a), bufferOf(out), bufferOf(wide)},
                          {1, 1, 1}, 2e-3, 1e-3);
}

TEST_F(KernelsOnCpuTest, WhileIfAndInlinedCalls) {
  auto module = parse(kCollatz);
  std::vector<int32_t> in = randomInts(16, 1, 1000), steps(16), squares(16);
  expectSameAsInterpreter(*module, "collatz", {bufferOf(in), bufferOf(steps), bufferOf(squares)},
                          {1, 1, 1}, 0, 0);
}

TEST_F(KernelsOnCpuTest, MatmulF32AndF16WithLoopCarriedAccumulator) {
  for (llvm::StringRef dtype : {"f32", "f16"}) {
    auto module = parse(withReplaced(kMatmul, "DT", dtype));
    for (auto [m, n, k] : {std::tuple{16, 16, 8}, std::tuple{37, 29, 23}}) {
      SCOPED_TRACE(llvm::formatv("{0} M={1} N={2} K={3}", dtype, m, n, k).str());
      std::vector<float> af = randomFloats(m * k), bf = randomFloats(k * n), c(m * n, 0.0f);
      std::vector<uint16_t> ah, bh;
      for (float v : af)
        ah.push_back(interp::testing::toHalf(v));
      for (float v : bf)
        bh.push_back(interp::testing::toHalf(v));
      KernelArgument aArg = dtype == "f32" ? bufferOf(af) : bufferOf(ah);
      KernelArgument bArg = dtype == "f32" ? bufferOf(bf) : bufferOf(bh);
      expectSameAsInterpreter(*module, "matmul",
                              {aArg, bArg, bufferOf(c), KernelArgument::integer(m),
                               KernelArgument::integer(n), KernelArgument::integer(k)},
                              {static_cast<unsigned>((m + 15) / 16),
                               static_cast<unsigned>((n + 15) / 16), 1},
                              1e-5, 1e-5);
    }
  }
}

// The libdevice calls become math ops (tile-libdevice-to-math); the
// interpreter computes each function with the C++ library.
TEST_F(KernelsOnCpuTest, LibdeviceFunctions) {
  auto module = parse(kLibdevice);
  std::vector<float> x = randomFloats(64, -0.95f, 0.95f), y = randomFloats(64, 0.5f, 3.0f);
  x[5] = 0.0f; // 0 / 0 is the NaN __nv_isnanf finds
  std::vector<int32_t> n = randomInts(64, -1000, 1000), iout(5 * 64);
  std::vector<float> out(10 * 64);
  expectSameAsInterpreter(*module, "libdevice",
                          {bufferOf(x), bufferOf(y), bufferOf(n), bufferOf(out), bufferOf(iout)},
                          {1, 1, 1}, 1e-5, 1e-6);
}

TEST_F(KernelsOnCpuTest, DotI8AccumulatesInI32) {
  auto module = parse(kDotI8);
  std::vector<int32_t> aWide = randomInts(512, -128, 127), bWide = randomInts(512, -128, 127);
  std::vector<int8_t> a(aWide.begin(), aWide.end()), b(bWide.begin(), bWide.end());
  std::vector<int32_t> c(256);
  expectSameAsInterpreter(*module, "dot_i8", {bufferOf(a), bufferOf(b), bufferOf(c)}, {1, 1, 1},
                          0, 0);
}

// fp8 arithmetic runs in f32 and fp8 conversions as integer arithmetic on
// the CPU; the bytes must be the interpreter's.
TEST_F(KernelsOnCpuTest, Float8ArithmeticMatchesTheInterpreter) {
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    auto module = parse(withReplaced(kFloat8Arithmetic, "DT", type));
    interp::testing::Float8ArithmeticBuffers buffers = float8ArithmeticBuffers(1000);
    expectSameAsInterpreter(*module, "float8_ops", buffers.arguments(), {8, 1, 1}, 0, 0);
  }
}

// fp8 dots widen their operands to f32 on the CPU.
TEST_F(KernelsOnCpuTest, DotF8MatchesTheInterpreter) {
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    auto module = parse(withReplaced(kDotF8, "DT", type));
    std::vector<uint8_t> a = interp::testing::toFloat8(randomInts(64 * 64, -8, 8), type);
    std::vector<uint8_t> b = interp::testing::toFloat8(randomInts(64 * 64, -8, 8), type);
    std::vector<float> c(64 * 64, -7.0f);
    expectSameAsInterpreter(*module, "dot_f8", {bufferOf(a), bufferOf(b), bufferOf(c)},
                            {1, 1, 1}, 0, 0);
  }
}

TEST_F(KernelsOnCpuTest, HistogramWithAtomicAdd) {
  auto module = parse(kHistogram);
  const int n = 1000, numBins = 17;
  std::vector<int32_t> values = randomInts(n, 0, numBins - 1), bins(numBins);
  expectSameAsInterpreter(*module, "histogram",
                          {bufferOf(values), bufferOf(bins), KernelArgument::integer(n)},
                          {(n + 63) / 64, 1, 1}, 0, 0);
}

TEST_F(KernelsOnCpuTest, ScalarAtomicsReturnOldValues) {
  auto module = parse(kScalarAtomics);
  std::vector<int32_t> cell = {-100, 0}, olds(20);
  std::vector<float> fcell = {0.5f};
  expectSameAsInterpreter(*module, "atomics", {bufferOf(cell), bufferOf(fcell), bufferOf(olds)},
                          {20, 1, 1}, 0, 0);
}

TEST_F(KernelsOnCpuTest, DescriptorLoadStoreOnRaggedShape) {
  auto module = parse(kDescriptorScale);
  const int m = 37, n = 21;
  std::vector<float> in = randomFloats(m * n), out(m * n, -1.0f);
  expectSameAsInterpreter(*module, "scale",
                          {bufferOf(in), bufferOf(out), KernelArgument::integer(m),
                           KernelArgument::integer(n)},
                          {(m + 15) / 16, (n + 15) / 16, 1}, 0, 0);
}

TEST_F(KernelsOnCpuTest, DescriptorLoadPadsWithZeroOrNaN) {
  for (bool nan : {false, true}) {
    auto module = parse(withReplaced(kDescriptorPadding, "PADDING", nan ? "padding = nan" : ""));
    const int m = 10, n = 12, row = 5, col = -3;
    std::vector<float> in = randomFloats(m * n), block(64, -1.0f);
    expectSameAsInterpreter(*module, "pad",
                            {bufferOf(in), bufferOf(block), KernelArgument::integer(m),
                             KernelArgument::integer(n), KernelArgument::integer(row),
                             KernelArgument::integer(col)},
                            {1, 1, 1}, 0, 0);
  }
}

TEST_F(KernelsOnCpuTest, PointersRoundTripThroughIntegers) {
  auto module = parse(kPointerRoundTrip);
  std::vector<int32_t> data(4);
  expectSameAsInterpreter(*module, "roundtrip", {bufferOf(data)}, {1, 1, 1}, 0, 0);
  EXPECT_EQ(data, (std::vector<int32_t>{0, 0, 0, 42}));
}

TEST_F(KernelsOnCpuTest, FusedRowSoftmax) {
  auto module = parse(kSoftmax);
  const int rows = 7, stride = 104;
  for (int cols : {100, 1, 64}) {
    std::vector<float> in = randomFloats(rows * stride, -5, 5), out(rows * stride, -1.0f);
    expectSameAsInterpreter(*module, "softmax",
                            {bufferOf(in), bufferOf(out), KernelArgument::integer(stride),
                             KernelArgument::integer(cols)},
                            {rows, 1, 1}, 1e-5, 1e-7);
  }
}

TEST_F(KernelsOnCpuTest, LayerNorm) {
  auto module = parse(kLayerNorm);
  const int rows = 5, n = 77;
  std::vector<float> x = randomFloats(rows * n, -3, 3), w = randomFloats(n), b = randomFloats(n);
  std::vector<float> y(rows * n);
  expectSameAsInterpreter(*module, "layernorm",
                          {bufferOf(x), bufferOf(w), bufferOf(b), bufferOf(y),
                           KernelArgument::integer(n), KernelArgument::floating(1e-5)},
                          {rows, 1, 1}, 1e-4, 1e-5);
}

TEST_F(KernelsOnCpuTest, ArgmaxReducesTwoOperands) {
  auto module = parse(kArgmax);
  const int rows = 9, n = 50;
  std::vector<float> x = randomFloats(rows * n);
  x[3 * n + 7] = x[3 * n + 20] = 5.0f;
  std::vector<float> max(rows);
  std::vector<int32_t> idx(rows, -1);
  expectSameAsInterpreter(*module, "argmax",
                          {bufferOf(x), bufferOf(max), bufferOf(idx), KernelArgument::integer(n)},
                          {rows, 1, 1}, 0, 0);
}

TEST_F(KernelsOnCpuTest, CumsumForwardAndReverse) {
  for (bool reverse : {false, true}) {
    auto module = parse(withReplaced(kCumsum, "REVERSE", reverse ? "reverse" : ""));
    const int rows = 4, n = 27;
    std::vector<float> x = randomFloats(rows * n), y(rows * n);
    expectSameAsInterpreter(*module, "cumsum", {bufferOf(x), bufferOf(y), KernelArgument::integer(n)},
                            {1, 1, 1}, 1e-5, 1e-6);
  }
}

TEST_F(KernelsOnCpuTest, FailedAssertCallsTheRuntimeHook) {
  auto module = parse(kAssert);
  CompiledKernel kernel;
  ASSERT_EQ(compile(*module, "check", kernel), "");
  assertFailures = 0;
  launch(kernel, {KernelArgument::integer(16)}, {2, 1, 1});
  EXPECT_EQ(assertFailures, 0);
  launch(kernel, {KernelArgument::integer(9)}, {2, 1, 1});
  EXPECT_EQ(assertFailures, 2); // once per program
  unsigned line = interp::testing::lineOf(kAssert, "tile.assert");
  EXPECT_EQ(lastAssertMessage, llvm::formatv("index out of range at kernel.mlir:{0}", line).str());
}

TEST_F(KernelsOnCpuTest, PrintCallsPrintfPerElement) {
  auto module = parse(kPrint);
  CompiledKernel kernel;
  ASSERT_EQ(compile(*module, "show", kernel), "");
  ::testing::internal::CaptureStdout();
  launch(kernel, {KernelArgument::integer(5)}, {2, 1, 1});
  fflush(stdout);
  std::string printed = ::testing::internal::GetCapturedStdout();
  std::string expected;
  llvm::raw_string_ostream os(expected);
  interp::InterpreterOptions options;
  options.printStream = &os;
  ASSERT_FALSE(interp::runKernel(*module, "show", {KernelArgument::integer(5)}, {2, 1, 1}, options));
  EXPECT_EQ(printed, expected);
}

TEST_F(KernelsOnCpuTest, UnsupportedOpIsAnErrorOnTheOp) {
  auto module = parse(kUnsupported);
  CompiledKernel kernel;
  std::string error = compile(*module, "ext", kernel);
  EXPECT_NE(error.find("'tile.extern_elementwise' calls 'my_erff' of library 'mylib', which the "
                       "CPU backend does not link"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace tessera::cpu::testing

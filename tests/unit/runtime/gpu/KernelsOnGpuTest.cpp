// The shared test kernels (tests/unit/kernels/TileKernels.h) compiled for
// each GPU device's own target and run on it, with 1, 2 and 4 warps, on fresh
// random inputs (ragged sizes where the kernel masks), compared with the tile
// IR interpreter. Kernels no GPU target can compile by design are in
// UnsupportedOnGpuTest.cpp.
#include "GpuKernelTest.h"
#include "tests/unit/kernels/TileKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <tuple>

namespace tessera::gpu_testing {
namespace {

using namespace tessera::test_kernels;
using interp::testing::bufferOf;
using interp::testing::toFloat8;
using interp::testing::toHalf;

class KernelsOnGpu : public GpuKernelTest {
protected:
  /// Runs `kernel` (C = A * B on [16, 16] blocks, B of n * k elements) with
  /// f32 and f16 inputs on a whole block and on ragged shapes, against the
  /// interpreter.
  void expectMatmulAsInterpreter(llvm::StringRef text, llvm::StringRef kernel) {
    for (llvm::StringRef dtype : {"f32", "f16"}) {
      auto module = parse(withReplaced(text, "DT", dtype));
      for (auto [m, n, k] : {std::tuple{16, 16, 8}, std::tuple{37, 29, 43}}) {
        SCOPED_TRACE(llvm::formatv("{0} M={1} N={2} K={3}", dtype, m, n, k).str());
        std::vector<float> af = randomFloats(m * k), bf = randomFloats(k * n), c(m * n, 0.0f);
        std::vector<uint16_t> ah, bh;
        for (float v : af)
          ah.push_back(toHalf(v));
        for (float v : bf)
          bh.push_back(toHalf(v));
        KernelArgument aArg = dtype == "f32" ? bufferOf(af) : bufferOf(ah);
        KernelArgument bArg = dtype == "f32" ? bufferOf(bf) : bufferOf(bh);
        expectSameAsInterpreter(*module, kernel,
                                {aArg, bArg, bufferOf(c), KernelArgument::integer(m),
                                 KernelArgument::integer(n), KernelArgument::integer(k)},
                                {ceilDiv(m, 16), ceilDiv(n, 16), 1}, 1e-5, 1e-5);
      }
    }
  }
};

TEST_P(KernelsOnGpu, VectorAddRagged) {
  auto module = parse(kVectorAdd);
  for (int32_t n : {1, 127, 128, 129, 1000}) {
    SCOPED_TRACE(llvm::formatv("n={0}", n).str());
    std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
    expectSameAsInterpreter(*module, "add",
                            {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                            {ceilDiv(n, 128), 1, 1}, 0, 0);
  }
}

TEST_P(KernelsOnGpu, MaskedCopyLeavesThePastTheEndUntouched) {
  auto module = parse(withReplaced(withReplaced(kCopy, "LOADMASK", ", %mask"), "STOREMASK",
                                   ", %mask"));
  const int32_t n = 300;
  std::vector<float> src = randomFloats(n + 20), dst(n + 20, -1.0f);
  expectSameAsInterpreter(*module, "copy",
                          {bufferOf(src), bufferOf(dst), KernelArgument::integer(n)},
                          {ceilDiv(n, 128), 1, 1}, 0, 0);
  EXPECT_TRUE(std::all_of(dst.begin() + n, dst.end(), [](float v) { return v == -1.0f; }));
}

TEST_P(KernelsOnGpu, IntegerOps) {
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

TEST_P(KernelsOnGpu, HalfPrecision) {
  auto module = parse(kHalfOps);
  std::vector<float> source = randomFloats(32, -2, 2);
  std::vector<uint16_t> a(32), out(32);
  std::vector<float> wide(32);
  for (int i = 0; i < 32; ++i)
    a[i] = toHalf(source[i]);
  expectSameAsInterpreter(*module, "halves", {bufferOf(a), bufferOf(out), bufferOf(wide)},
                          {1, 1, 1}, 2e-3, 1e-3);
}

// NVIDIA calls libdevice; the other targets compute its functions with math
// ops (tile-libdevice-to-math); the interpreter with the C++ library.
TEST_P(KernelsOnGpu, LibdeviceFunctions) {
  auto module = parse(kLibdevice);
  std::vector<float> x = randomFloats(64, -0.95f, 0.95f), y = randomFloats(64, 0.5f, 3.0f);
  x[5] = 0.0f; // 0 / 0 is the NaN __nv_isnanf finds
  std::vector<int32_t> n = randomInts(64, -1000, 1000), iout(5 * 64);
  std::vector<float> out(10 * 64);
  expectSameAsInterpreter(*module, "libdevice",
                          {bufferOf(x), bufferOf(y), bufferOf(n), bufferOf(out), bufferOf(iout)},
                          {1, 1, 1}, 1e-5, 1e-6);
}

TEST_P(KernelsOnGpu, WhileIfAndInlinedCalls) {
  auto module = parse(kCollatz);
  std::vector<int32_t> in = randomInts(16, 1, 1000), steps(16), squares(16);
  expectSameAsInterpreter(*module, "collatz", {bufferOf(in), bufferOf(steps), bufferOf(squares)},
                          {1, 1, 1}, 0, 0);
}

TEST_P(KernelsOnGpu, MatmulF32AndF16WithLoopCarriedAccumulator) {
  expectMatmulAsInterpreter(kMatmul, "matmul");
}

// B given as [N, K] and transposed in the loop: a software-pipelined loop
// copies the loaded block transposed into the dot's B stages.
TEST_P(KernelsOnGpu, MatmulWithTransposedBInThePipelinedLoop) {
  expectMatmulAsInterpreter(kMatmulTransposedB, "matmul_nt");
}

TEST_P(KernelsOnGpu, DotI8AccumulatesInI32) {
  auto module = parse(kDotI8);
  std::vector<int32_t> aWide = randomInts(512, -128, 127), bWide = randomInts(512, -128, 127);
  std::vector<int8_t> a(aWide.begin(), aWide.end()), b(bWide.begin(), bWide.end());
  std::vector<int32_t> c(256);
  expectSameAsInterpreter(*module, "dot_i8", {bufferOf(a), bufferOf(b), bufferOf(c)}, {1, 1, 1},
                          0, 0);
}

// fp8 dots run on NVIDIA's fp8 matrix instructions (wgmma, mma.sync from
// sm_89), elsewhere on f16 ones. Small integers are exact in both fp8 types
// and their products and sums in f32, so the device must match the
// interpreter exactly.
TEST_P(KernelsOnGpu, DotF8MatchesTheInterpreter) {
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    auto module = parse(withReplaced(kDotF8, "DT", type));
    std::vector<uint8_t> a = toFloat8(randomInts(64 * 64, -4, 4), type);
    std::vector<uint8_t> b = toFloat8(randomInts(64 * 64, -4, 4), type);
    std::vector<float> c(64 * 64, -7.0f);
    expectSameAsInterpreter(*module, "dot_f8", {bufferOf(a), bufferOf(b), bufferOf(c)},
                            {1, 1, 1}, 0, 0);
  }
}

// fp8 conversions (hardware from sm_89, integer arithmetic elsewhere) and
// fp8 arithmetic (in f32) give the interpreter's bytes.
TEST_P(KernelsOnGpu, Float8ArithmeticMatchesTheInterpreter) {
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    auto module = parse(withReplaced(kFloat8Arithmetic, "DT", type));
    interp::testing::Float8ArithmeticBuffers buffers = float8ArithmeticBuffers(1000);
    expectSameAsInterpreter(*module, "float8_ops", buffers.arguments(), {8, 1, 1}, 0, 0);
  }
}

TEST_P(KernelsOnGpu, HistogramWithAtomicAddAcrossPrograms) {
  auto module = parse(kHistogram);
  const int n = 1000, numBins = 17;
  std::vector<int32_t> values = randomInts(n, 0, numBins - 1), bins(numBins);
  // Atomic adds commute: the interpreter's sequential order gives the same bins.
  expectSameAsInterpreter(*module, "histogram",
                          {bufferOf(values), bufferOf(bins), KernelArgument::integer(n)},
                          {ceilDiv(n, 64), 1, 1}, 0, 0);
}

TEST_P(KernelsOnGpu, ScalarAtomicsReturnOldValues) {
  auto module = parse(kScalarAtomics);
  // Programs run concurrently, in no fixed order: check what every order gives.
  std::vector<int32_t> cell = {-100, 0}, olds(20, INT32_MIN);
  std::vector<float> fcell = {0.5f};
  runOnDevice(*module, "atomics", {bufferOf(cell), bufferOf(fcell), bufferOf(olds)}, {20, 1, 1});
  EXPECT_EQ(cell[0], 9);
  EXPECT_EQ(fcell[0], 0.5f + 190.0f);
  // Program 0 swaps 0 for 0, so the one swap that lands stores a nonzero id.
  EXPECT_GE(cell[1], 1);
  EXPECT_LE(cell[1], 19);
  // The first program to take the max sees -100, every other one a value
  // some other program wrote.
  for (int pid = 0; pid < 20; ++pid) {
    int32_t old = olds[pid];
    EXPECT_TRUE(old == -100 || (old >= -10 && old <= 9 && old != pid - 10))
        << "program " << pid << " saw " << old;
  }
  EXPECT_EQ(std::count(olds.begin(), olds.end(), -100), 1);
}

TEST_P(KernelsOnGpu, DescriptorLoadStoreOnRaggedShape) {
  auto module = parse(kDescriptorScale);
  const int m = 37, n = 21;
  std::vector<float> in = randomFloats(m * n), out(m * n, -1.0f);
  expectSameAsInterpreter(*module, "scale",
                          {bufferOf(in), bufferOf(out), KernelArgument::integer(m),
                           KernelArgument::integer(n)},
                          {ceilDiv(m, 16), ceilDiv(n, 16), 1}, 0, 0);
}

TEST_P(KernelsOnGpu, DescriptorLoadPadsWithZeroOrNaN) {
  for (bool nan : {false, true}) {
    SCOPED_TRACE(nan ? "padding = nan" : "padding = zero");
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

TEST_P(KernelsOnGpu, FusedRowSoftmax) {
  auto module = parse(kSoftmax);
  const int rows = 7, stride = 104;
  for (int cols : {100, 1, 64}) {
    SCOPED_TRACE(llvm::formatv("cols={0}", cols).str());
    std::vector<float> in = randomFloats(rows * stride, -5, 5), out(rows * stride, -1.0f);
    expectSameAsInterpreter(*module, "softmax",
                            {bufferOf(in), bufferOf(out), KernelArgument::integer(stride),
                             KernelArgument::integer(cols)},
                            {rows, 1, 1}, 1e-5, 1e-7);
  }
}

TEST_P(KernelsOnGpu, LayerNorm) {
  auto module = parse(kLayerNorm);
  const int rows = 5;
  for (int n : {77, 128, 1}) {
    SCOPED_TRACE(llvm::formatv("n={0}", n).str());
    std::vector<float> x = randomFloats(rows * n, -3, 3), w = randomFloats(n),
                       b = randomFloats(n), y(rows * n);
    expectSameAsInterpreter(*module, "layernorm",
                            {bufferOf(x), bufferOf(w), bufferOf(b), bufferOf(y),
                             KernelArgument::integer(n), KernelArgument::floating(1e-5)},
                            {rows, 1, 1}, 1e-4, 1e-5);
  }
}

TEST_P(KernelsOnGpu, ArgmaxReducesTwoOperands) {
  auto module = parse(kArgmax);
  const int rows = 9, n = 50;
  std::vector<float> x = randomFloats(rows * n);
  x[3 * n + 7] = x[3 * n + 20] = 5.0f; // a tie: the smaller index wins
  std::vector<float> max(rows);
  std::vector<int32_t> idx(rows, -1);
  expectSameAsInterpreter(*module, "argmax",
                          {bufferOf(x), bufferOf(max), bufferOf(idx), KernelArgument::integer(n)},
                          {rows, 1, 1}, 0, 0);
  EXPECT_EQ(idx[3], 7);
}

TEST_P(KernelsOnGpu, CumsumForwardAndReverse) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    auto module = parse(withReplaced(kCumsum, "REVERSE", reverse ? "reverse" : ""));
    const int rows = 4, n = 27;
    std::vector<float> x = randomFloats(rows * n), y(rows * n);
    expectSameAsInterpreter(*module, "cumsum",
                            {bufferOf(x), bufferOf(y), KernelArgument::integer(n)}, {1, 1, 1},
                            1e-5, 1e-6);
  }
}

// A passing device assert is compiled and costs nothing observable; Vulkan
// has no assert at all (UnsupportedOnGpuTest.cpp).
TEST_P(KernelsOnGpu, PassingAssertRuns) {
  if (target().vendor == gpu::GpuVendor::Vulkan)
    GTEST_SKIP() << "Vulkan compute has no device assert";
  auto module = parse(kAssert);
  runOnDevice(*module, "check", {KernelArgument::integer(16)}, {2, 1, 1});
}

// The extern call and the stray load of these kernels produce values nothing
// uses: the GPU pipeline drops them, as it may drop any unused load, so the
// kernels compile and run as empty kernels (the interpreter, which executes
// every op, reports them instead).
TEST_P(KernelsOnGpu, UnusedUnsupportedOpsAreDropped) {
  auto unsupported = parse(kUnsupported);
  runOnDevice(*unsupported, "ext", {KernelArgument::floating(1.0)}, {1, 1, 1});
  auto stray = parse(kStrayPointer);
  std::vector<float> data = randomFloats(4), before = data;
  runOnDevice(*stray, "stray", {bufferOf(data)}, {1, 1, 1});
  EXPECT_EQ(data, before);
}

INSTANTIATE_TEST_SUITE_P(Devices, KernelsOnGpu, ::testing::ValuesIn(everyDeviceAndWarpCount()),
                         caseName);

} // namespace
} // namespace tessera::gpu_testing

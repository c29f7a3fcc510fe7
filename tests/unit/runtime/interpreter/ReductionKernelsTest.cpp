// Kernels built on tile.reduce and tile.scan: fused row softmax, layernorm,
// argmax (a reduce of two operands) and cumulative sums in both directions.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include <algorithm>
#include <cmath>

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using ReductionKernelsTest = InterpreterTest;

TEST_F(ReductionKernelsTest, FusedRowSoftmax) {
  const int rows = 7, cols = 100, stride = 104;
  std::vector<float> in = randomFloats(rows * stride, -5, 5), out(rows * stride, -1.0f);
  ASSERT_EQ(run(kSoftmax, "softmax",
                {bufferOf(in), bufferOf(out), KernelArgument::integer(stride),
                 KernelArgument::integer(cols)},
                {rows, 1, 1}),
            "");
  std::vector<double> expected(rows * stride, -1.0);
  for (int r = 0; r < rows; ++r) {
    double max = *std::max_element(in.begin() + r * stride, in.begin() + r * stride + cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += std::exp(in[r * stride + c] - max);
    for (int c = 0; c < cols; ++c)
      expected[r * stride + c] = std::exp(in[r * stride + c] - max) / sum;
  }
  expectClose(toDoubles(out), expected, 1e-5, 1e-7);
}

TEST_F(ReductionKernelsTest, LayerNorm) {
  const int rows = 5, n = 77;
  const double eps = 1e-5;
  std::vector<float> x = randomFloats(rows * n, -3, 3), w = randomFloats(n), b = randomFloats(n);
  std::vector<float> y(rows * n);
  ASSERT_EQ(run(kLayerNorm, "layernorm",
                {bufferOf(x), bufferOf(w), bufferOf(b), bufferOf(y),
                 KernelArgument::integer(n), KernelArgument::floating(eps)},
                {rows, 1, 1}),
            "");
  std::vector<double> expected(rows * n);
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < n; ++c)
      mean += x[r * n + c];
    mean /= n;
    for (int c = 0; c < n; ++c)
      var += (x[r * n + c] - mean) * (x[r * n + c] - mean);
    var /= n;
    for (int c = 0; c < n; ++c)
      expected[r * n + c] = (x[r * n + c] - mean) / std::sqrt(var + eps) * w[c] + b[c];
  }
  expectClose(toDoubles(y), expected, 1e-5, 1e-5);
}

TEST_F(ReductionKernelsTest, ArgmaxReducesTwoOperands) {
  const int rows = 9, n = 50;
  std::vector<float> x = randomFloats(rows * n);
  x[3 * n + 7] = x[3 * n + 20] = 5.0f; // a tie: the smaller index wins
  std::vector<float> max(rows);
  std::vector<int32_t> idx(rows, -1);
  ASSERT_EQ(run(kArgmax, "argmax",
                {bufferOf(x), bufferOf(max), bufferOf(idx), KernelArgument::integer(n)},
                {rows, 1, 1}),
            "");
  for (int r = 0; r < rows; ++r) {
    auto first = x.begin() + r * n;
    auto best = std::max_element(first, first + n);
    EXPECT_EQ(max[r], *best) << "row " << r;
    EXPECT_EQ(idx[r], best - first) << "row " << r;
  }
}

TEST_F(ReductionKernelsTest, CumsumForwardAndReverse) {
  const int rows = 4, n = 27;
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    std::string source = kCumsum.str();
    source.replace(source.find("REVERSE"), 7, reverse ? "reverse" : "");
    std::vector<float> x = randomFloats(rows * n), y(rows * n);
    ASSERT_EQ(run(source, "cumsum", {bufferOf(x), bufferOf(y), KernelArgument::integer(n)},
                  {1, 1, 1}),
              "");
    std::vector<double> expected(rows * n), scale(rows * n);
    for (int r = 0; r < rows; ++r) {
      double sum = 0, magnitude = 0;
      for (int step = 0; step < n; ++step) {
        int c = reverse ? n - 1 - step : step;
        sum += x[r * n + c];
        magnitude += std::fabs(x[r * n + c]);
        expected[r * n + c] = sum;
        scale[r * n + c] = magnitude;
      }
    }
    expectClose(toDoubles(y), expected, n * 0x1p-24, 0, scale);
  }
}

} // namespace
} // namespace tessera::interp::testing

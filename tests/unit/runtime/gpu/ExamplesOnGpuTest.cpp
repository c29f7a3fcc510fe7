// The four EDSL examples (examples/) compiled for each GPU device and run on
// it with 1, 2 and 4 warps, on random inputs whose sizes are and are not
// multiples of the blocks: compared with the tile IR interpreter and with
// float64 references.
#include "GpuKernelTest.h"

#include "examples/Examples.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace tessera::gpu_testing {
namespace {

using interp::testing::bufferOf;
using interp::testing::expectClose;
using interp::testing::fromHalf;
using interp::testing::softmaxReference;
using interp::testing::toDoubles;
using interp::testing::toHalf;

constexpr double kF32Eps = 0x1p-24; // unit roundoff of f32
constexpr double kF16Eps = 0x1p-11; // unit roundoff of f16

using ExamplesOnGpu = GpuKernelTest;

TEST_P(ExamplesOnGpu, VectorAdd) {
  for (int64_t block : {1024, 128}) {
    auto module = examples::traceVectorAdd(context, block);
    for (int64_t n : {int64_t{1}, block - 1, block, block + 1, int64_t{10007}}) {
      SCOPED_TRACE(llvm::formatv("BLOCK={0} n={1}", block, n).str());
      std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
      expectSameAsInterpreter(*module, "vector_add",
                              {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                              {ceilDiv(n, block), 1, 1}, 0, 0);
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i)
        expected[i] = static_cast<double>(x[i]) + static_cast<double>(y[i]);
      expectClose(toDoubles(out), expected, kF32Eps, 0);
    }
  }
}

TEST_P(ExamplesOnGpu, Softmax) {
  for (int64_t block : {256, 32}) {
    auto module = examples::traceSoftmax(context, block);
    for (int64_t cols : {int64_t{1}, block / 2 + 3, block}) {
      const int64_t rows = 9, inStride = cols + 3, outStride = cols + 5;
      SCOPED_TRACE(llvm::formatv("BLOCK={0} cols={1}", block, cols).str());
      std::vector<float> in = randomFloats((rows - 1) * inStride + cols, -5, 5);
      std::vector<float> out((rows - 1) * outStride + cols, -3.0f);
      expectSameAsInterpreter(*module, "softmax",
                              {bufferOf(out), bufferOf(in), KernelArgument::integer(outStride),
                               KernelArgument::integer(inStride), KernelArgument::integer(cols)},
                              {static_cast<unsigned>(rows), 1, 1}, 1e-5, 1e-7);
      std::vector<double> expected = softmaxReference(in, rows, cols, inStride), actual;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          actual.push_back(out[r * outStride + c]);
      // The f32 sum of `cols` terms, plus the roundings of the shift, exp (a
      // few ulp on GPUs) and the division.
      expectClose(actual, expected, (cols + 64) * kF32Eps, 1e-7);
    }
  }
}

TEST_P(ExamplesOnGpu, LayerNorm) {
  constexpr float kEps = 1e-5f;
  for (int64_t block : {256, 64}) {
    auto module = examples::traceLayerNorm(context, block);
    for (int64_t n : {int64_t{1}, block - 5, 3 * block + 7}) {
      const int64_t rows = 5, stride = n + 2;
      SCOPED_TRACE(llvm::formatv("BLOCK={0} n={1}", block, n).str());
      std::vector<float> x = randomFloats((rows - 1) * stride + n, -2, 3);
      std::vector<float> w = randomFloats(n, 0.5, 2), b = randomFloats(n);
      std::vector<float> y(x.size(), -7.0f), mean(rows), rstd(rows);
      expectSameAsInterpreter(*module, "layer_norm",
                              {bufferOf(x), bufferOf(y), bufferOf(w), bufferOf(b),
                               bufferOf(mean), bufferOf(rstd), KernelArgument::integer(stride),
                               KernelArgument::integer(n), KernelArgument::floating(kEps)},
                              {static_cast<unsigned>(rows), 1, 1}, 1e-4, 1e-5);
      std::vector<double> actualY, expectedY, expectedMean, expectedRstd;
      for (int64_t r = 0; r < rows; ++r) {
        const float *row = &x[r * stride];
        double mu = 0, var = 0;
        for (int64_t c = 0; c < n; ++c)
          mu += row[c];
        mu /= n;
        for (int64_t c = 0; c < n; ++c)
          var += (row[c] - mu) * (row[c] - mu);
        double inv = 1 / std::sqrt(var / n + kEps);
        expectedMean.push_back(mu);
        expectedRstd.push_back(inv);
        for (int64_t c = 0; c < n; ++c) {
          expectedY.push_back((row[c] - mu) * inv * w[c] + b[c]);
          actualY.push_back(y[r * stride + c]);
        }
      }
      double rtol = (n + 64) * kF32Eps;
      expectClose(toDoubles(mean), expectedMean, rtol, 1e-6);
      expectClose(toDoubles(rstd), expectedRstd, rtol, 0);
      expectClose(actualY, expectedY, rtol, 1e-5);
    }
  }
}

struct MatmulShape {
  int64_t m, n, k;
};

class MatmulExampleOnGpu : public GpuKernelTest {
protected:
  /// C = A @ B for row-major A, B and C traced with `config`: compared with
  /// the interpreter and with a float64 product of the inputs as stored,
  /// within 2K f32 roundings of the absolute sum (and one f16 rounding of
  /// f16 outputs).
  void check(examples::MatmulConfig config, MatmulShape s) {
    bool f16 = config.inputs == examples::MatmulInputs::F16;
    SCOPED_TRACE(llvm::formatv("tiles {0}x{1}x{2}{3}, M={4} N={5} K={6}, {7}", config.blockM,
                               config.blockN, config.blockK,
                               config.unitInnerStrides ? " (descriptors)" : "", s.m, s.n, s.k,
                               f16 ? "f16" : "f32")
                     .str());
    std::vector<double> a = toDoubles(randomFloats(s.m * s.k)),
                        b = toDoubles(randomFloats(s.k * s.n));
    std::vector<float> aF32, bF32, cF32;
    std::vector<uint16_t> aF16, bF16, cF16;
    std::vector<KernelArgument> args;
    if (f16) {
      // The reference sees the inputs rounded as the kernel loads them.
      for (double &v : a) {
        aF16.push_back(toHalf(v));
        v = fromHalf(aF16.back());
      }
      for (double &v : b) {
        bF16.push_back(toHalf(v));
        v = fromHalf(bF16.back());
      }
      cF16.assign(s.m * s.n, toHalf(-7.0));
      args = {bufferOf(aF16), bufferOf(bF16), bufferOf(cF16)};
    } else {
      aF32.assign(a.begin(), a.end());
      bF32.assign(b.begin(), b.end());
      cF32.assign(s.m * s.n, -7.0f);
      args = {bufferOf(aF32), bufferOf(bF32), bufferOf(cF32)};
    }
    for (int64_t v : {s.m, s.n, s.k, s.k, int64_t{1}, s.n, int64_t{1}, s.n, int64_t{1}})
      args.push_back(KernelArgument::integer(v));
    auto module = examples::traceMatmul(context, config);
    expectSameAsInterpreter(*module, "matmul", args,
                            {ceilDiv(s.m, config.blockM), ceilDiv(s.n, config.blockN), 1},
                            f16 ? 2e-3 : 1e-5, f16 ? 2e-3 : 1e-5);

    std::vector<double> actual, expected, bound;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0, absSum = 0;
        for (int64_t q = 0; q < s.k; ++q) {
          sum += a[i * s.k + q] * b[q * s.n + j];
          absSum += std::fabs(a[i * s.k + q] * b[q * s.n + j]);
        }
        int64_t at = i * s.n + j;
        double accumulation = 2 * s.k * kF32Eps * absSum;
        expected.push_back(sum);
        actual.push_back(f16 ? fromHalf(cF16[at]) : double(cF32[at]));
        bound.push_back(f16 ? accumulation + kF16Eps * (std::fabs(sum) + accumulation) + 0x1p-25
                            : accumulation);
      }
    expectClose(actual, expected, 1, 0, bound);
  }
};

constexpr MatmulShape kMatmulShapes[] = {{37, 29, 23}, {64, 64, 64}};

TEST_P(MatmulExampleOnGpu, F32) {
  for (MatmulShape s : kMatmulShapes)
    check({32, 32, 16, examples::MatmulInputs::F32}, s);
}

TEST_P(MatmulExampleOnGpu, F16InputsF32Accumulation) {
  for (MatmulShape s : kMatmulShapes)
    check({32, 32, 16, examples::MatmulInputs::F16}, s);
}

TEST_P(MatmulExampleOnGpu, DescriptorsForUnitInnerStrides) {
  check({32, 32, 16, examples::MatmulInputs::F32, true}, {37, 29, 23});
  check({32, 32, 16, examples::MatmulInputs::F16, true}, {37, 29, 23});
}

// The K loop software-pipelined 1 to 4 stages deep, over K that gives fewer
// iterations than stages, several, and a ragged last one. On a CUDA device
// the copies are cp.async; without it (lavapipe, HIP) rings have at most 2
// stages, so 3 and 4 run as 2 there. With 4 warps only:
// the stages' code does not depend on the warps, and lavapipe compiles the
// big kernels of fewer warps slowly.
class PipelinedMatmulOnGpu : public MatmulExampleOnGpu {};

TEST_P(PipelinedMatmulOnGpu, StageDepths) {
  for (unsigned stages : {1u, 2u, 3u, 4u}) {
    numStages = stages;
    SCOPED_TRACE(llvm::formatv("{0} stages", stages).str());
    for (int64_t k : {5, 40, 100})
      check({32, 32, 16, examples::MatmulInputs::F16}, {37, 29, k});
    check({32, 32, 16, examples::MatmulInputs::F32}, {64, 64, 100});
    check({32, 32, 16, examples::MatmulInputs::F16, true}, {37, 29, 100});
  }
}

TEST_P(MatmulExampleOnGpu, DefaultTiles) {
  check({}, {100, 70, 50});
}

INSTANTIATE_TEST_SUITE_P(Devices, ExamplesOnGpu, ::testing::ValuesIn(everyDeviceAndWarpCount()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Devices, MatmulExampleOnGpu,
                         ::testing::ValuesIn(everyDeviceAndWarpCount()), caseName);
INSTANTIATE_TEST_SUITE_P(Devices, PipelinedMatmulOnGpu, ::testing::ValuesIn(everyDevice()),
                         caseName);

} // namespace
} // namespace tessera::gpu_testing

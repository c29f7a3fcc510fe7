// The four EDSL examples on the CPU backend: lowered, JIT-compiled, run over
// their grid and compared with the interpreter and with float64 references,
// on random inputs whose sizes are and are not multiples of the blocks.
#include "CpuTestUtils.h"

#include "examples/Examples.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace tessera::cpu::testing {
namespace {

using interp::testing::bufferOf;
using interp::testing::expectClose;
using interp::testing::softmaxReference;
using interp::testing::toDoubles;

constexpr double kF32Eps = 0x1p-24;
unsigned ceilDiv(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

using ExamplesOnCpuTest = CpuTest;

TEST_F(ExamplesOnCpuTest, VectorAdd) {
  for (int64_t block : {1024, 128}) {
    auto module = examples::traceVectorAdd(context, block);
    CompiledKernel kernel;
    ASSERT_EQ(compile(*module, "vector_add", kernel), "");
    for (int64_t n : {int64_t{1}, block - 1, block, block + 1, int64_t{10007}}) {
      SCOPED_TRACE(llvm::formatv("BLOCK={0} n={1}", block, n).str());
      std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
      launch(kernel, {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
             {ceilDiv(n, block), 1, 1});
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i)
        expected[i] = static_cast<double>(x[i]) + static_cast<double>(y[i]);
      expectClose(toDoubles(out), expected, kF32Eps, 0);
    }
  }
}

TEST_F(ExamplesOnCpuTest, VectorAddOnAvx2) {
  auto module = examples::traceVectorAdd(context, 256);
  int64_t n = 1000;
  std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
  expectSameAsInterpreter(*module, "vector_add",
                          {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                          {ceilDiv(n, 256), 1, 1}, 0, 0, avx2Target());
}

TEST_F(ExamplesOnCpuTest, Softmax) {
  for (int64_t block : {1024, 32}) {
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
      // And against float64 (out holds the CPU results).
      std::vector<double> expected = softmaxReference(in, rows, cols, inStride), actual;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          actual.push_back(out[r * outStride + c]);
      expectClose(actual, expected, (cols + 64) * kF32Eps, 1e-7);
    }
  }
}

TEST_F(ExamplesOnCpuTest, LayerNorm) {
  for (int64_t block : {256, 64}) {
    auto module = examples::traceLayerNorm(context, block);
    for (int64_t n : {int64_t{1}, block - 5, 3 * block + 7}) {
      SCOPED_TRACE(llvm::formatv("BLOCK={0} n={1}", block, n).str());
      const int64_t rows = 5, stride = n + 2;
      std::vector<float> x = randomFloats(rows * stride, -2, 2), y(rows * stride, 0.0f);
      std::vector<float> w = randomFloats(n), b = randomFloats(n), mean(rows), rstd(rows);
      expectSameAsInterpreter(*module, "layer_norm",
                              {bufferOf(x), bufferOf(y), bufferOf(w), bufferOf(b),
                               bufferOf(mean), bufferOf(rstd), KernelArgument::integer(stride),
                               KernelArgument::integer(n), KernelArgument::floating(1e-5)},
                              {static_cast<unsigned>(rows), 1, 1}, 1e-4, 1e-5);
    }
  }
}

struct MatmulCase {
  examples::MatmulConfig config;
  int64_t m, n, k;
};

class MatmulOnCpu : public CpuTest {
protected:
  void check(const MatmulCase &c, const CpuTarget &target = CpuTarget::host()) {
    SCOPED_TRACE(llvm::formatv("M={0} N={1} K={2} f16={3}", c.m, c.n, c.k,
                               c.config.inputs == examples::MatmulInputs::F16)
                     .str());
    auto module = examples::traceMatmul(context, c.config);
    grid = {ceilDiv(c.m, c.config.blockM), ceilDiv(c.n, c.config.blockN), 1};
    bool f16 = c.config.inputs == examples::MatmulInputs::F16;
    std::vector<float> af = randomFloats(c.m * c.k), bf = randomFloats(c.k * c.n);
    std::vector<double> expected(c.m * c.n, 0.0);
    auto value = [&](const std::vector<float> &v, int64_t i) {
      return f16 ? interp::testing::fromHalf(interp::testing::toHalf(v[i])) : double(v[i]);
    };
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j)
        for (int64_t q = 0; q < c.k; ++q)
          expected[i * c.n + j] += value(af, i * c.k + q) * value(bf, q * c.n + j);
    std::vector<KernelArgument> args;
    std::vector<uint16_t> ah, bh, ch(c.m * c.n, 0);
    std::vector<float> cf(c.m * c.n, 0.0f);
    if (f16) {
      for (float v : af)
        ah.push_back(interp::testing::toHalf(v));
      for (float v : bf)
        bh.push_back(interp::testing::toHalf(v));
      args = {bufferOf(ah), bufferOf(bh), bufferOf(ch)};
    } else {
      args = {bufferOf(af), bufferOf(bf), bufferOf(cf)};
    }
    for (int64_t v : {c.m, c.n, c.k, c.k, int64_t{1}, c.n, int64_t{1}, c.n, int64_t{1}})
      args.push_back(KernelArgument::integer(v));
    expectSameAsInterpreter(*module, "matmul", args, grid, f16 ? 2e-3 : 1e-5, f16 ? 2e-3 : 1e-5,
                            target);
    std::vector<double> actual;
    for (int64_t i = 0; i < c.m * c.n; ++i)
      actual.push_back(f16 ? interp::testing::fromHalf(ch[i]) : double(cf[i]));
    expectClose(actual, expected, f16 ? 2e-3 : 1e-5, f16 ? 1e-2 : 1e-5);
  }
  interp::GridSize grid;
};

TEST_F(MatmulOnCpu, F32) {
  check({{64, 64, 32, examples::MatmulInputs::F32}, 64, 64, 64});
  check({{64, 64, 32, examples::MatmulInputs::F32}, 100, 70, 50});
  check({{32, 32, 16, examples::MatmulInputs::F32}, 37, 29, 23});
}

TEST_F(MatmulOnCpu, F16) {
  check({{64, 64, 32, examples::MatmulInputs::F16}, 100, 70, 50});
  check({{32, 32, 16, examples::MatmulInputs::F16}, 37, 29, 23});
}

// Unit inner strides specialized: rows load and store as contiguous vectors
// (the path the benchmarks take), ragged edges included.
TEST_F(MatmulOnCpu, UnitInnerStrides) {
  check({{64, 64, 32, examples::MatmulInputs::F32, true}, 100, 70, 50});
  check({{32, 32, 16, examples::MatmulInputs::F32, true}, 37, 29, 23});
  check({{64, 64, 32, examples::MatmulInputs::F16, true}, 100, 70, 50});
  check({{64, 64, 32, examples::MatmulInputs::F32, true}, 100, 70, 50}, avx2Target());
}

TEST_F(MatmulOnCpu, F32OnAvx2) {
  check({{64, 64, 32, examples::MatmulInputs::F32}, 100, 70, 50}, avx2Target());
}

} // namespace
} // namespace tessera::cpu::testing

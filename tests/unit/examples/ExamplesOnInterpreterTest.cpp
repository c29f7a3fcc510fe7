// The four EDSL example kernels (examples/), traced and run on the tile IR
// interpreter over random inputs, checked against naive float64 references
// computed here, for shapes that are and are not multiples of the blocks.
#include "examples/Examples.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::interp::testing {
namespace {

constexpr double kF32Eps = 0x1p-24; // unit roundoff of f32
constexpr double kF16Eps = 0x1p-11; // unit roundoff of f16

unsigned ceilDiv(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

class ExamplesOnInterpreterTest : public InterpreterTest {
protected:
  /// Verifies a traced module and runs `kernel` of it; "" on success.
  std::string runTraced(mlir::OwningOpRef<mlir::ModuleOp> &module, llvm::StringRef kernel,
                        llvm::ArrayRef<KernelArgument> args, GridSize grid) {
    if (!module || mlir::failed(mlir::verify(*module)))
      return "the traced module does not verify";
    if (llvm::Error error = runKernel(*module, kernel, args, grid))
      return llvm::toString(std::move(error));
    return "";
  }

  /// Fails on the first padding element of `values` (rows `stride` wide, the
  /// first `used` columns of each in use) that no longer holds `sentinel`.
  void expectUntouched(const std::vector<float> &values, int64_t stride, int64_t used,
                       float sentinel) {
    for (size_t i = 0; i < values.size(); ++i)
      if (static_cast<int64_t>(i % stride) >= used && values[i] != sentinel) {
        ADD_FAILURE() << "padding element " << i << " was written: " << values[i];
        return;
      }
  }
};

// --- vector_add --------------------------------------------------------------

TEST_F(ExamplesOnInterpreterTest, VectorAdd) {
  for (int64_t block : {1024, 128}) {
    mlir::OwningOpRef<mlir::ModuleOp> module = examples::traceVectorAdd(context, block);
    for (int64_t n : {int64_t{1}, block - 1, block, block + 1, int64_t{10007}}) {
      SCOPED_TRACE(llvm::formatv("BLOCK={0} n={1}", block, n).str());
      // Buffers of exactly n elements: the bounds-checked interpreter fails
      // the launch if a masked-off lane of the last block is accessed.
      std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
      ASSERT_EQ(runTraced(module, "vector_add",
                          {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                          {ceilDiv(n, block), 1, 1}),
                "");
      std::vector<double> expected(n);
      for (int64_t i = 0; i < n; ++i)
        expected[i] = static_cast<double>(x[i]) + static_cast<double>(y[i]);
      // One f32 rounding of the exact sum.
      expectClose(toDoubles(out), expected, kF32Eps, 0);
    }
  }
}

// --- softmax -----------------------------------------------------------------

TEST_F(ExamplesOnInterpreterTest, Softmax) {
  constexpr float kSentinel = -3.0f;
  for (int64_t block : {256, 32}) {
    mlir::OwningOpRef<mlir::ModuleOp> module = examples::traceSoftmax(context, block);
    for (int64_t cols : {int64_t{1}, block / 2 + 3, block - 1, block}) {
      const int64_t rows = 9, inStride = cols + 3, outStride = cols + 5;
      SCOPED_TRACE(llvm::formatv("BLOCK={0} rows={1} cols={2}", block, rows, cols).str());
      // The last row ends at its last column: no padding after it to hide
      // an out-of-bounds access.
      std::vector<float> in = randomFloats((rows - 1) * inStride + cols, -5, 5);
      std::vector<float> out((rows - 1) * outStride + cols, kSentinel);
      ASSERT_EQ(runTraced(module, "softmax",
                          {bufferOf(out), bufferOf(in), KernelArgument::integer(outStride),
                           KernelArgument::integer(inStride), KernelArgument::integer(cols)},
                          {static_cast<unsigned>(rows), 1, 1}),
                "");
      std::vector<double> expected = softmaxReference(in, rows, cols, inStride), actual;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          actual.push_back(out[r * outStride + c]);
      // The f32 sum of `cols` terms, plus a few roundings (the shift, with
      // |x - max| <= 10, exp and the division).
      expectClose(actual, expected, (cols + 32) * kF32Eps, 0);
      expectUntouched(out, outStride, cols, kSentinel);
    }
  }
}

// --- matmul ------------------------------------------------------------------

struct MatmulShape {
  int64_t m, n, k;
};

constexpr MatmulShape kMatmulShapes[] = {{64, 64, 64}, {37, 29, 23}, {100, 70, 50}};

class MatmulExample : public ExamplesOnInterpreterTest {
protected:
  /// Runs the example matmul traced with `config` on random inputs: A row
  /// major, B row major or (bColumnMajor) column major, C row major; checks C
  /// against a float64 product of the inputs as stored.
  void check(examples::MatmulConfig config, MatmulShape s, bool bColumnMajor) {
    SCOPED_TRACE(llvm::formatv("tiles {0}x{1}x{2}, M={3} N={4} K={5}, B {6}", config.blockM,
                               config.blockN, config.blockK, s.m, s.n, s.k,
                               bColumnMajor ? "column major" : "row major")
                     .str());
    bool f16 = config.inputs == examples::MatmulInputs::F16;
    // Input values, rounded to the input type so the reference sees exactly
    // what the kernel loads.
    std::vector<double> a = toDoubles(randomFloats(s.m * s.k)),
                        b = toDoubles(randomFloats(s.k * s.n));
    if (f16) {
      for (double &v : a)
        v = fromHalf(toHalf(v));
      for (double &v : b)
        v = fromHalf(toHalf(v));
    }
    const int64_t strideBK = bColumnMajor ? 1 : s.n, strideBN = bColumnMajor ? s.k : 1;
    // b holds B[q][j] at q * s.n + j; the buffer stores it at the strides.
    auto bAt = [&](int64_t q, int64_t j) { return q * strideBK + j * strideBN; };

    mlir::OwningOpRef<mlir::ModuleOp> module = examples::traceMatmul(context, config);
    std::vector<KernelArgument> args;
    std::vector<float> aF32, bF32, cF32;
    std::vector<uint16_t> aF16, bF16, cF16;
    if (f16) {
      aF16.resize(a.size());
      bF16.resize(b.size());
      cF16.assign(s.m * s.n, toHalf(-7.0));
      for (size_t i = 0; i < a.size(); ++i)
        aF16[i] = toHalf(a[i]);
      for (int64_t q = 0; q < s.k; ++q)
        for (int64_t j = 0; j < s.n; ++j)
          bF16[bAt(q, j)] = toHalf(b[q * s.n + j]);
      args = {bufferOf(aF16), bufferOf(bF16), bufferOf(cF16)};
    } else {
      aF32.assign(a.begin(), a.end());
      bF32.resize(b.size());
      cF32.assign(s.m * s.n, -7.0f);
      for (int64_t q = 0; q < s.k; ++q)
        for (int64_t j = 0; j < s.n; ++j)
          bF32[bAt(q, j)] = static_cast<float>(b[q * s.n + j]);
      args = {bufferOf(aF32), bufferOf(bF32), bufferOf(cF32)};
    }
    for (int64_t value : {s.m, s.n, s.k, s.k, int64_t{1}, strideBK, strideBN, s.n, int64_t{1}})
      args.push_back(KernelArgument::integer(value));
    GridSize grid{ceilDiv(s.m, config.blockM), ceilDiv(s.n, config.blockN), 1};
    ASSERT_EQ(runTraced(module, "matmul", args, grid), "");

    std::vector<double> actual(s.m * s.n), expected(s.m * s.n), bound(s.m * s.n);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0, absSum = 0;
        for (int64_t q = 0; q < s.k; ++q) {
          sum += a[i * s.k + q] * b[q * s.n + j];
          absSum += std::fabs(a[i * s.k + q] * b[q * s.n + j]);
        }
        int64_t at = i * s.n + j;
        expected[at] = sum;
        actual[at] = f16 ? fromHalf(cF16[at]) : static_cast<double>(cF32[at]);
        // K f32 accumulation steps, each rounding once (the products of f16
        // or f32 values are rounded at most once each, too: 2K roundings);
        // f16 outputs round once more to f16, down to its subnormals.
        double accumulation = 2 * s.k * kF32Eps * absSum;
        bound[at] = f16 ? accumulation + kF16Eps * (std::fabs(sum) + accumulation) + 0x1p-25
                        : accumulation;
      }
    expectClose(actual, expected, 1, 0, bound);
  }
};

TEST_F(MatmulExample, F32DefaultTiles) {
  for (MatmulShape s : kMatmulShapes)
    check({}, s, false);
}

TEST_F(MatmulExample, F32SmallTiles) {
  // Several programs along M and N and several k-steps, with ragged edges.
  for (MatmulShape s : kMatmulShapes)
    check({32, 16, 16, examples::MatmulInputs::F32}, s, false);
}

TEST_F(MatmulExample, F32ColumnMajorB) {
  for (MatmulShape s : kMatmulShapes)
    check({32, 16, 16, examples::MatmulInputs::F32}, s, true);
}

TEST_F(MatmulExample, F16InputsF32AccumulationDefaultTiles) {
  for (MatmulShape s : kMatmulShapes)
    check({64, 64, 32, examples::MatmulInputs::F16}, s, false);
}

TEST_F(MatmulExample, F16InputsF32AccumulationSmallTiles) {
  for (MatmulShape s : kMatmulShapes)
    check({32, 16, 16, examples::MatmulInputs::F16}, s, false);
}

// --- layer_norm --------------------------------------------------------------

TEST_F(ExamplesOnInterpreterTest, LayerNorm) {
  constexpr float kSentinel = -7.0f, kEps = 1e-5f;
  for (int64_t block : {256, 64}) {
    mlir::OwningOpRef<mlir::ModuleOp> module = examples::traceLayerNorm(context, block);
    for (int64_t n : {int64_t{1}, int64_t{37}, block - 1, block, block + 1, 3 * block + 17,
                      int64_t{1000}}) {
      const int64_t rows = 5, stride = n + 7;
      SCOPED_TRACE(llvm::formatv("BLOCK={0} rows={1} n={2}", block, rows, n).str());
      // Inputs with a non-zero mean; the last row ends at its last column.
      std::vector<float> x = randomFloats((rows - 1) * stride + n, -2, 3);
      std::vector<float> w = randomFloats(n, 0.5, 2), b = randomFloats(n);
      std::vector<float> y(x.size(), kSentinel), mean(rows, kSentinel), rstd(rows, kSentinel);
      ASSERT_EQ(runTraced(module, "layer_norm",
                          {bufferOf(x), bufferOf(y), bufferOf(w), bufferOf(b), bufferOf(mean),
                           bufferOf(rstd), KernelArgument::integer(stride),
                           KernelArgument::integer(n), KernelArgument::floating(kEps)},
                          {static_cast<unsigned>(rows), 1, 1}),
                "");
      std::vector<double> actualY, expectedY, scaleY, expectedMean, scaleMean, expectedRstd;
      for (int64_t r = 0; r < rows; ++r) {
        const float *row = &x[r * stride];
        double mu = 0, absMean = 0, var = 0;
        for (int64_t c = 0; c < n; ++c) {
          mu += row[c];
          absMean += std::fabs(row[c]);
        }
        mu /= n;
        absMean /= n;
        for (int64_t c = 0; c < n; ++c)
          var += (row[c] - mu) * (row[c] - mu);
        double inv = 1 / std::sqrt(var / n + kEps);
        expectedMean.push_back(mu);
        scaleMean.push_back(absMean);
        expectedRstd.push_back(inv);
        for (int64_t c = 0; c < n; ++c) {
          expectedY.push_back((row[c] - mu) * inv * w[c] + b[c]);
          actualY.push_back(y[r * stride + c]);
          // The error of the f32 mean counts through every element, the
          // relative error of rstd through |x - mean|.
          scaleY.push_back(inv * std::fabs(w[c]) * (std::fabs(row[c] - mu) + absMean) +
                           std::fabs(b[c]));
        }
      }
      // Sums of n f32 terms (in BLOCK lanes, then a reduction), plus a few
      // roundings for the division, rsqrt and the output expression.
      double rtol = (n + 32) * kF32Eps;
      {
        SCOPED_TRACE("mean");
        expectClose(toDoubles(mean), expectedMean, rtol, 0, scaleMean);
      }
      {
        SCOPED_TRACE("rstd");
        expectClose(toDoubles(rstd), expectedRstd, rtol, 0);
      }
      {
        SCOPED_TRACE("y");
        expectClose(actualY, expectedY, rtol, 0, scaleY);
      }
      expectUntouched(y, stride, n, kSentinel);
    }
  }
}

} // namespace
} // namespace tessera::interp::testing

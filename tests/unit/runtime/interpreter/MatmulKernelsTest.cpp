// tile.dot in kernels: a tiled matmul with an scf.for K loop and masks on
// shapes that are not multiples of the tiles (f32 and f16 inputs, f32
// accumulation), and the i8 -> i32 integer product.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using MatmulKernelsTest = InterpreterTest;

struct Shape {
  int m, n, k;
};

class MatmulShapes : public MatmulKernelsTest {
protected:
  static constexpr Shape kShapes[] = {{16, 16, 8}, {37, 29, 23}, {5, 40, 3}};

  std::vector<double> randomValues(size_t count) { return toDoubles(randomFloats(count)); }

  // Runs the matmul on `a` and `b` (values exactly representable in the input
  // type `dtype`, stored in memory by `encode`) and checks C against a
  // float64 product with the tolerance of f32 accumulation.
  template <typename T, typename Encode>
  void checkMatmul(llvm::StringRef dtype, Shape s, const std::vector<double> &a,
                   const std::vector<double> &b, Encode encode) {
    std::vector<T> aBuf(a.size()), bBuf(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      aBuf[i] = encode(a[i]);
    for (size_t i = 0; i < b.size(); ++i)
      bBuf[i] = encode(b[i]);
    std::vector<float> c(s.m * s.n, -1.0f);
    std::string source = kMatmul.str();
    for (size_t at; (at = source.find("DT")) != std::string::npos;)
      source.replace(at, 2, dtype.str());
    GridSize grid{static_cast<unsigned>((s.m + 15) / 16), static_cast<unsigned>((s.n + 15) / 16),
                  1};
    ASSERT_EQ(run(source, "matmul",
                  {bufferOf(aBuf), bufferOf(bBuf), bufferOf(c), KernelArgument::integer(s.m),
                   KernelArgument::integer(s.n), KernelArgument::integer(s.k)},
                  grid),
              "");
    std::vector<double> expected(s.m * s.n), scale(s.m * s.n);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j)
        for (int q = 0; q < s.k; ++q) {
          expected[i * s.n + j] += a[i * s.k + q] * b[q * s.n + j];
          scale[i * s.n + j] += std::fabs(a[i * s.k + q] * b[q * s.n + j]);
        }
    // Each of the K accumulation steps rounds to f32 once.
    expectClose(toDoubles(c), expected, s.k * 0x1p-24, 1e-30, scale);
  }
};

TEST_F(MatmulShapes, F32InputsF32Accumulation) {
  for (Shape s : kShapes) {
    SCOPED_TRACE(llvm::formatv("M={0} N={1} K={2}", s.m, s.n, s.k).str());
    checkMatmul<float>("f32", s, randomValues(s.m * s.k), randomValues(s.k * s.n),
                       [](double v) { return static_cast<float>(v); });
  }
}

TEST_F(MatmulShapes, F16InputsF32Accumulation) {
  for (Shape s : kShapes) {
    SCOPED_TRACE(llvm::formatv("M={0} N={1} K={2}", s.m, s.n, s.k).str());
    std::vector<double> a = randomValues(s.m * s.k), b = randomValues(s.k * s.n);
    for (double &v : a)
      v = fromHalf(toHalf(v));
    for (double &v : b)
      v = fromHalf(toHalf(v));
    checkMatmul<uint16_t>("f16", s, a, b, toHalf);
  }
}

TEST_F(MatmulKernelsTest, DotI8AccumulatesInI32) {
  std::vector<int32_t> aWide = randomInts(512, -128, 127), bWide = randomInts(512, -128, 127);
  std::vector<int8_t> a(aWide.begin(), aWide.end()), b(bWide.begin(), bWide.end());
  std::vector<int32_t> c(256);
  ASSERT_EQ(run(kDotI8, "dot_i8", {bufferOf(a), bufferOf(b), bufferOf(c)}, {1, 1, 1}), "");
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      int64_t expected = 7;
      for (int q = 0; q < 32; ++q)
        expected += int64_t{a[i * 32 + q]} * b[q * 16 + j];
      EXPECT_EQ(c[i * 16 + j], expected) << "C[" << i << ", " << j << "]";
    }
}

// Small integers are exact in both fp8 types: the f32 sums are exact.
TEST_F(MatmulKernelsTest, DotF8AccumulatesInF32) {
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    std::vector<int32_t> aValues = randomInts(64 * 64, -4, 4);
    std::vector<int32_t> bValues = randomInts(64 * 64, -4, 4);
    std::vector<uint8_t> a = toFloat8(aValues, type), b = toFloat8(bValues, type);
    std::vector<float> c(64 * 64);
    ASSERT_EQ(run(withReplaced(kDotF8, "DT", type), "dot_f8",
                  {bufferOf(a), bufferOf(b), bufferOf(c)}, {1, 1, 1}),
              "");
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j) {
        int64_t expected = 1;
        for (int q = 0; q < 64; ++q)
          expected += int64_t{aValues[i * 64 + q]} * bValues[q * 64 + j];
        ASSERT_EQ(c[i * 64 + j], static_cast<float>(expected)) << "C[" << i << ", " << j << "]";
      }
  }
}

} // namespace
} // namespace tessera::interp::testing

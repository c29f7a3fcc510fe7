// tile.dot in kernels: a tiled matmul with an scf.for K loop and masks on
// shapes that are not multiples of the tiles (f32 and f16 inputs, f32
// accumulation), and the i8 -> i32 integer product.
#include "InterpreterTestUtils.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using MatmulKernelsTest = InterpreterTest;

// C[M, N] = A[M, K] * B[K, N], row-major, 16x16 output tiles, K steps of 8.
// DT is the input element type.
constexpr llvm::StringLiteral kMatmul = R"mlir(
tile.func @matmul(%a: !tile.ptr<DT>, %b: !tile.ptr<DT>, %c: !tile.ptr<f32>,
                  %M: i32, %N: i32, %K: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %pm, %c16 : i32
  %n0 = arith.muli %pn, %c16 : i32
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %r8 = tile.make_range 0 to 8 : tensor<8xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<16xi32>
  %rm = arith.addi %m0s, %r16 : tensor<16xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<16xi32>
  %rn = arith.addi %n0s, %r16 : tensor<16xi32>
  %rmc = tile.expand_dims %rm, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rnr = tile.expand_dims %rn, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %Mc = tile.splat %M : i32 -> tensor<16x1xi32>
  %Nr = tile.splat %N : i32 -> tensor<1x16xi32>
  %Kc = tile.splat %K : i32 -> tensor<16x1xi32>
  %mok = arith.cmpi slt, %rmc, %Mc : tensor<16x1xi32>
  %nok = arith.cmpi slt, %rnr, %Nr : tensor<1x16xi32>
  %arow = arith.muli %rmc, %Kc : tensor<16x1xi32>
  %zeroA = arith.constant dense<0.0> : tensor<16x8xDT>
  %zeroB = arith.constant dense<0.0> : tensor<8x16xDT>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  %abase = tile.splat %a : !tile.ptr<DT> -> tensor<16x8x!tile.ptr<DT>>
  %bbase = tile.splat %b : !tile.ptr<DT> -> tensor<8x16x!tile.ptr<DT>>
  %acc = scf.for %k = %c0 to %K step %c8 iter_args(%sum = %init) -> (tensor<16x16xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<8xi32>
    %rk = arith.addi %ks, %r8 : tensor<8xi32>
    %rkr = tile.expand_dims %rk, axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
    %rkc = tile.expand_dims %rk, axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
    %Kr = tile.splat %K : i32 -> tensor<1x8xi32>
    %K8 = tile.splat %K : i32 -> tensor<8x1xi32>
    %kokr = arith.cmpi slt, %rkr, %Kr : tensor<1x8xi32>
    %kokc = arith.cmpi slt, %rkc, %K8 : tensor<8x1xi32>
    %arowb = tile.broadcast %arow : tensor<16x1xi32> -> tensor<16x8xi32>
    %rkb = tile.broadcast %rkr : tensor<1x8xi32> -> tensor<16x8xi32>
    %aoff = arith.addi %arowb, %rkb : tensor<16x8xi32>
    %mokb = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x8xi1>
    %kokb = tile.broadcast %kokr : tensor<1x8xi1> -> tensor<16x8xi1>
    %amask = arith.andi %mokb, %kokb : tensor<16x8xi1>
    %ap = tile.addptr %abase, %aoff : tensor<16x8x!tile.ptr<DT>>, tensor<16x8xi32>
    %at = tile.load %ap, %amask, %zeroA : tensor<16x8x!tile.ptr<DT>>
    %N8 = tile.splat %N : i32 -> tensor<8x1xi32>
    %brow = arith.muli %rkc, %N8 : tensor<8x1xi32>
    %browb = tile.broadcast %brow : tensor<8x1xi32> -> tensor<8x16xi32>
    %rnb = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<8x16xi32>
    %boff = arith.addi %browb, %rnb : tensor<8x16xi32>
    %kokcb = tile.broadcast %kokc : tensor<8x1xi1> -> tensor<8x16xi1>
    %nokb = tile.broadcast %nok : tensor<1x16xi1> -> tensor<8x16xi1>
    %bmask = arith.andi %kokcb, %nokb : tensor<8x16xi1>
    %bp = tile.addptr %bbase, %boff : tensor<8x16x!tile.ptr<DT>>, tensor<8x16xi32>
    %bt = tile.load %bp, %bmask, %zeroB : tensor<8x16x!tile.ptr<DT>>
    %next = tile.dot %at, %bt, %sum : tensor<16x8xDT> * tensor<8x16xDT> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  %Nc = tile.splat %N : i32 -> tensor<16x1xi32>
  %crow = arith.muli %rmc, %Nc : tensor<16x1xi32>
  %crowb = tile.broadcast %crow : tensor<16x1xi32> -> tensor<16x16xi32>
  %rnb2 = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<16x16xi32>
  %coff = arith.addi %crowb, %rnb2 : tensor<16x16xi32>
  %mokc = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x16xi1>
  %nokc = tile.broadcast %nok : tensor<1x16xi1> -> tensor<16x16xi1>
  %cmask = arith.andi %mokc, %nokc : tensor<16x16xi1>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cbase, %coff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc, %cmask : tensor<16x16x!tile.ptr<f32>>
  tile.return
}
)mlir";

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

constexpr llvm::StringLiteral kDotI8 = R"mlir(
tile.func @dot_i8(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<i32>) {
  %ra = tile.make_range 0 to 512 : tensor<512xi32>
  %ab = tile.splat %a : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %ap = tile.addptr %ab, %ra : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %af = tile.load %ap : tensor<512x!tile.ptr<i8>>
  %at = tile.reshape %af : tensor<512xi8> -> tensor<16x32xi8>
  %bb = tile.splat %b : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %bp = tile.addptr %bb, %ra : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %bf = tile.load %bp : tensor<512x!tile.ptr<i8>>
  %bt = tile.reshape %bf : tensor<512xi8> -> tensor<32x16xi8>
  %zero = arith.constant dense<7> : tensor<16x16xi32>
  %ct = tile.dot %at, %bt, %zero : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %cf = tile.reshape %ct : tensor<16x16xi32> -> tensor<256xi32>
  %rc = tile.make_range 0 to 256 : tensor<256xi32>
  %cb = tile.splat %c : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %cp = tile.addptr %cb, %rc : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  tile.store %cp, %cf : tensor<256x!tile.ptr<i32>>
  tile.return
}
)mlir";

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

} // namespace
} // namespace tessera::interp::testing

// Elementwise kernels: masked vector add on ragged sizes, integer wraparound
// and signedness, and f16 rounding.
#include "InterpreterTestUtils.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using ElementwiseKernelsTest = InterpreterTest;

constexpr llvm::StringLiteral kVectorAdd = R"mlir(
tile.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %block = arith.constant 128 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range 0 to 128 : tensor<128xi32>
  %base = tile.splat %start : i32 -> tensor<128xi32>
  %offs = arith.addi %base, %range : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %ob, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp, %mask : tensor<128x!tile.ptr<f32>>
  %yv = tile.load %yp, %mask : tensor<128x!tile.ptr<f32>>
  %sum = arith.addf %xv, %yv : tensor<128xf32>
  tile.store %op, %sum, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

TEST_F(ElementwiseKernelsTest, VectorAddOnRaggedSizes) {
  for (int32_t n : {1, 127, 128, 129, 1000}) {
    std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, -7.0f);
    unsigned programs = (n + 127) / 128;
    ASSERT_EQ(run(kVectorAdd, "add",
                  {bufferOf(x), bufferOf(y), bufferOf(out), KernelArgument::integer(n)},
                  {programs, 1, 1}),
              "");
    std::vector<double> expected(n);
    for (int32_t i = 0; i < n; ++i)
      expected[i] = static_cast<float>(static_cast<double>(x[i]) + y[i]);
    expectClose(toDoubles(out), expected, 0, 0);
  }
}

// Integer ops keep their bit width: i32 wraps, unsigned and signed views
// differ, and division rounds toward zero while floordivsi rounds down.
constexpr llvm::StringLiteral kIntegerOps = R"mlir(
tile.func @ints(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>, %out: !tile.ptr<i32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ab = tile.splat %a : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %ap = tile.addptr %ab, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %bb = tile.splat %b : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %bp = tile.addptr %bb, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %x = tile.load %ap : tensor<64x!tile.ptr<i32>>
  %y = tile.load %bp : tensor<64x!tile.ptr<i32>>
  %mul = arith.muli %x, %y : tensor<64xi32>
  %div = arith.divsi %x, %y : tensor<64xi32>
  %fdiv = arith.floordivsi %x, %y : tensor<64xi32>
  %rem = arith.remsi %x, %y : tensor<64xi32>
  %ult = arith.cmpi ult, %x, %y : tensor<64xi32>
  %ultw = arith.extui %ult : tensor<64xi1> to tensor<64xi32>
  %shr = arith.shrui %x, %ultw : tensor<64xi32>
  %sum0 = arith.addi %mul, %div : tensor<64xi32>
  %sum1 = arith.xori %sum0, %fdiv : tensor<64xi32>
  %sum2 = arith.subi %sum1, %rem : tensor<64xi32>
  %sum3 = arith.addi %sum2, %shr : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %r2 = tile.splat %c64 : i32 -> tensor<64xi32>
  %r3 = arith.addi %r, %r2 : tensor<64xi32>
  %ob = tile.splat %out : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %op = tile.addptr %ob, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %op2 = tile.addptr %ob, %r3 : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %op, %sum3 : tensor<64x!tile.ptr<i32>>
  tile.store %op2, %ultw : tensor<64x!tile.ptr<i32>>
  tile.return
}
)mlir";

TEST_F(ElementwiseKernelsTest, IntegerSemanticsOfI32) {
  std::vector<int32_t> a = randomInts(64, INT32_MIN, INT32_MAX);
  std::vector<int32_t> b = randomInts(64, -1000, 1000);
  a[0] = INT32_MIN;
  b[0] = -1;
  for (int32_t &value : b)
    if (value == 0)
      value = 3;
  std::vector<int32_t> out(128);
  ASSERT_EQ(run(kIntegerOps, "ints", {bufferOf(a), bufferOf(b), bufferOf(out)}, {1, 1, 1}), "");
  for (int i = 0; i < 64; ++i) {
    int64_t x = a[i], y = b[i];
    auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); };
    int64_t div = x / y, rem = x % y;
    int64_t fdiv = (rem != 0 && ((rem < 0) != (y < 0))) ? div - 1 : div;
    bool ult = static_cast<uint32_t>(x) < static_cast<uint32_t>(y);
    int32_t shr = static_cast<int32_t>(static_cast<uint32_t>(x) >> (ult ? 1 : 0));
    int32_t expected = wrap(wrap(wrap(wrap(x * y) + int64_t{wrap(div)}) ^ wrap(fdiv)) -
                            int64_t{wrap(rem)});
    expected = wrap(int64_t{expected} + shr);
    EXPECT_EQ(out[i], expected) << "lane " << i << ": " << x << ", " << y;
    EXPECT_EQ(out[64 + i], ult ? 1 : 0) << "lane " << i;
  }
}

// f16 arithmetic rounds every result to half precision.
constexpr llvm::StringLiteral kHalfOps = R"mlir(
tile.func @halves(%a: !tile.ptr<f16>, %out: !tile.ptr<f16>, %wide: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %ab = tile.splat %a : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %ap = tile.addptr %ab, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  %x = tile.load %ap : tensor<32x!tile.ptr<f16>>
  %sq = arith.mulf %x, %x : tensor<32xf16>
  %e = math.exp %sq : tensor<32xf16>
  %ob = tile.splat %out : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %op = tile.addptr %ob, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  tile.store %op, %e : tensor<32x!tile.ptr<f16>>
  %w = arith.extf %e : tensor<32xf16> to tensor<32xf32>
  %wb = tile.splat %wide : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %wp, %w : tensor<32x!tile.ptr<f32>>
  tile.return
}
)mlir";

TEST_F(ElementwiseKernelsTest, HalfPrecisionRoundsEveryOp) {
  std::vector<float> source = randomFloats(32, -2, 2);
  std::vector<uint16_t> a(32), out(32);
  for (int i = 0; i < 32; ++i)
    a[i] = toHalf(source[i]);
  std::vector<float> wide(32);
  ASSERT_EQ(run(kHalfOps, "halves", {bufferOf(a), bufferOf(out), bufferOf(wide)}, {1, 1, 1}), "");
  for (int i = 0; i < 32; ++i) {
    double x = fromHalf(a[i]);
    double expected = fromHalf(toHalf(std::exp(fromHalf(toHalf(x * x)))));
    EXPECT_EQ(fromHalf(out[i]), expected) << "lane " << i;
    EXPECT_EQ(static_cast<double>(wide[i]), expected) << "lane " << i;
  }
}

} // namespace
} // namespace tessera::interp::testing

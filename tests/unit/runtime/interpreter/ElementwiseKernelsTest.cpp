// Elementwise kernels: masked vector add on ragged sizes, integer wraparound
// and signedness, math functions and bit counts, and f16 rounding.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using ElementwiseKernelsTest = InterpreterTest;

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

// Which function each math op computes, in double and rounded to f32; the
// bit counts within the operand's width (i32 and i8).
TEST_F(ElementwiseKernelsTest, InverseAndHyperbolicFunctionsAndBitCounts) {
  constexpr llvm::StringLiteral kMath = R"mlir(
tile.func @more(%x: f32, %n: i32, %b: i8, %out: !tile.ptr<f32>, %iout: !tile.ptr<i32>,
                %bout: !tile.ptr<i8>) {
  %one = arith.constant 1.0 : f32
  %ax = math.absf %x : f32
  %above1 = arith.addf %one, %ax : f32
  %f0 = math.acos %x : f32
  %f1 = math.asin %x : f32
  %f2 = math.acosh %above1 : f32
  %f3 = math.asinh %x : f32
  %f4 = math.atanh %x : f32
  %f5 = math.cosh %x : f32
  %f6 = math.sinh %x : f32
  %f7 = math.erfc %x : f32
  %i0 = math.ctpop %n : i32
  %i1 = math.ctlz %n : i32
  %i2 = math.cttz %n : i32
  %b0 = math.ctlz %b : i8
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %p1 = tile.addptr %out, %c1 : !tile.ptr<f32>, i32
  %p2 = tile.addptr %out, %c2 : !tile.ptr<f32>, i32
  %p3 = tile.addptr %out, %c3 : !tile.ptr<f32>, i32
  %p4 = tile.addptr %out, %c4 : !tile.ptr<f32>, i32
  %p5 = tile.addptr %out, %c5 : !tile.ptr<f32>, i32
  %p6 = tile.addptr %out, %c6 : !tile.ptr<f32>, i32
  %p7 = tile.addptr %out, %c7 : !tile.ptr<f32>, i32
  tile.store %out, %f0 : !tile.ptr<f32>
  tile.store %p1, %f1 : !tile.ptr<f32>
  tile.store %p2, %f2 : !tile.ptr<f32>
  tile.store %p3, %f3 : !tile.ptr<f32>
  tile.store %p4, %f4 : !tile.ptr<f32>
  tile.store %p5, %f5 : !tile.ptr<f32>
  tile.store %p6, %f6 : !tile.ptr<f32>
  tile.store %p7, %f7 : !tile.ptr<f32>
  %q1 = tile.addptr %iout, %c1 : !tile.ptr<i32>, i32
  %q2 = tile.addptr %iout, %c2 : !tile.ptr<i32>, i32
  tile.store %iout, %i0 : !tile.ptr<i32>
  tile.store %q1, %i1 : !tile.ptr<i32>
  tile.store %q2, %i2 : !tile.ptr<i32>
  tile.store %bout, %b0 : !tile.ptr<i8>
  tile.return
}
)mlir";
  for (float x : randomFloats(8, -0.9f, 0.9f)) {
    int32_t n = randomInts(1, INT32_MIN, INT32_MAX)[0];
    for (int8_t b : {int8_t(0), int8_t(1), int8_t(-1), int8_t(0x10)}) {
      std::vector<float> out(8);
      std::vector<int32_t> iout(3);
      std::vector<int8_t> bout(1);
      ASSERT_EQ(run(kMath, "more",
                    {KernelArgument::floating(x), KernelArgument::integer(n),
                     KernelArgument::integer(b), bufferOf(out), bufferOf(iout), bufferOf(bout)},
                    {1, 1, 1}),
                "");
      double d = x, above1 = static_cast<float>(1 + std::fabs(d)); // rounded as the kernel's
      std::vector<double> expected = {std::acos(d),  std::asin(d), std::acosh(above1),
                                      std::asinh(d), std::atanh(d), std::cosh(d),
                                      std::sinh(d),  std::erfc(d)};
      for (double &value : expected)
        value = static_cast<float>(value);
      expectClose(toDoubles(out), expected, 0, 0);
      // Counted bit by bit, not with the library the interpreter uses.
      auto bits = static_cast<uint32_t>(n);
      auto bitAt = [](uint32_t value, int bit) { return (value >> bit) & 1u; };
      int ones = 0, leading = 0, trailing = 0;
      for (int bit = 0; bit < 32; ++bit)
        ones += bitAt(bits, bit);
      while (leading < 32 && !bitAt(bits, 31 - leading))
        ++leading;
      while (trailing < 32 && !bitAt(bits, trailing))
        ++trailing;
      int leadingInByte = 0;
      while (leadingInByte < 8 && !bitAt(static_cast<uint8_t>(b), 7 - leadingInByte))
        ++leadingInByte;
      EXPECT_EQ(iout[0], ones);
      EXPECT_EQ(iout[1], leading);
      EXPECT_EQ(iout[2], trailing);
      EXPECT_EQ(bout[0], leadingInByte) << int(b);
    }
  }
}

// Powers with integer exponents and the float classes.
TEST_F(ElementwiseKernelsTest, IntegerPowersAndFloatClasses) {
  constexpr llvm::StringLiteral kPowers = R"mlir(
tile.func @powers(%x: f32, %b: i32, %n: i32, %out: !tile.ptr<f32>, %iout: !tile.ptr<i32>,
                  %classes: !tile.ptr<i1>) {
  %f = math.fpowi %x, %n : f32, i32
  %i = math.ipowi %b, %n : i32
  %nan = math.isnan %x : f32
  %inf = math.isinf %x : f32
  %finite = math.isfinite %x : f32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %p1 = tile.addptr %classes, %c1 : !tile.ptr<i1>, i32
  %p2 = tile.addptr %classes, %c2 : !tile.ptr<i1>, i32
  tile.store %out, %f : !tile.ptr<f32>
  tile.store %iout, %i : !tile.ptr<i32>
  tile.store %classes, %nan : !tile.ptr<i1>
  tile.store %p1, %inf : !tile.ptr<i1>
  tile.store %p2, %finite : !tile.ptr<i1>
  tile.return
}
)mlir";
  struct Case {
    float x;
    int32_t base, exponent;
    float power;
    int32_t integerPower;
  };
  const float inf = INFINITY;
  for (Case c : {Case{1.5f, 3, 3, 3.375f, 27}, Case{2.0f, -2, -1, 0.5f, 0},
                 Case{-1.0f, -1, -3, -1.0f, -1}, Case{inf, 7, 0, 1.0f, 1},
                 Case{NAN, 2, 31, NAN, int32_t(0x80000000u)}, Case{0.5f, 3, 40, 0x1p-40f,
                 int32_t(0x291fe821u) /* 3^40 mod 2^32 */}}) {
    std::vector<float> out(1);
    std::vector<int32_t> iout(1);
    std::vector<uint8_t> classes(3);
    ASSERT_EQ(run(kPowers, "powers",
                  {KernelArgument::floating(c.x), KernelArgument::integer(c.base),
                   KernelArgument::integer(c.exponent), bufferOf(out), bufferOf(iout),
                   bufferOf(classes)},
                  {1, 1, 1}),
              "");
    if (std::isnan(c.power))
      EXPECT_TRUE(std::isnan(out[0]));
    else
      EXPECT_EQ(out[0], c.power) << c.x << "^" << c.exponent;
    EXPECT_EQ(iout[0], c.integerPower) << c.base << "^" << c.exponent;
    EXPECT_EQ(classes[0], std::isnan(c.x) ? 1 : 0);
    EXPECT_EQ(classes[1], std::isinf(c.x) ? 1 : 0);
    EXPECT_EQ(classes[2], std::isfinite(c.x) ? 1 : 0);
  }
}

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

// fp8 conversions round to nearest even and saturate (NVIDIA's
// cvt.rn.satfinite, which every backend follows): the bytes by hand.
TEST_F(ElementwiseKernelsTest, Float8ConversionsRoundToNearestEvenAndSaturate) {
  const float inf = INFINITY;
  struct Case {
    float value;
    uint8_t e4m3, e5m2;
  };
  const Case cases[] = {
      {1.0f, 0x38, 0x3c},
      {-0.0f, 0x80, 0x80},
      {1.0625f, 0x38, 0x3c},         // e4m3: a tie, to the even 1.0
      {1.1875f, 0x3a, 0x3d},         // e4m3: a tie, to the even 1.25
      {1.375f, 0x3b, 0x3e},          // e5m2: a tie, to the even 1.5
      {448.0f, 0x7e, 0x5f},          // e4m3's largest finite value
      {464.0f, 0x7e, 0x5f},          // a tie between 448 and 480 (NaN in e4m3)
      {1000.0f, 0x7e, 0x64},         // saturates in e4m3
      {57344.0f, 0x7e, 0x7b},        // e5m2's largest finite value
      {61440.0f, 0x7e, 0x7b},        // e5m2: a tie with infinity, saturates
      {inf, 0x7e, 0x7b},             // infinity saturates too
      {-inf, 0xfe, 0xfb},
      {0x1p-6f, 0x08, 0x24},         // e4m3's smallest normal value
      {0x1p-9f, 0x01, 0x18},         // e4m3's smallest subnormal value
      {0x1p-10f, 0x00, 0x14},        // e4m3: half of it, a tie, to 0
      {0x3p-10f, 0x02, 0x1a},        // e4m3: 1.5 units, to 2
      {0x1p-16f, 0x00, 0x01},        // e5m2's smallest subnormal value
      {0x1p-17f, 0x00, 0x00},        // e5m2: a tie, to 0
      {0x3p-17f, 0x00, 0x02},        // e5m2: 1.5 units, to 2
  };
  const int n = std::size(cases);
  for (llvm::StringRef type : {"f8E4M3FN", "f8E5M2"}) {
    SCOPED_TRACE(type.str());
    std::vector<float> x, zeros(n, 0.0f), wide(n);
    for (const Case &c : cases)
      x.push_back(c.value);
    std::vector<uint8_t> rounded(n), result(n);
    ASSERT_EQ(run(withReplaced(kFloat8Arithmetic, "DT", type), "float8_ops",
                  {bufferOf(x), bufferOf(zeros), bufferOf(rounded), bufferOf(result),
                   bufferOf(wide), KernelArgument::integer(n)},
                  {1, 1, 1}),
              "");
    for (int i = 0; i < n; ++i) {
      uint8_t expected = type == "f8E5M2" ? cases[i].e5m2 : cases[i].e4m3;
      EXPECT_EQ(rounded[i], expected) << "value " << cases[i].value;
      // x8 * 0 + x8 is x8 (-0 * 0 + -0 is -0).
      EXPECT_EQ(result[i], expected) << "value " << cases[i].value;
    }
  }
}

} // namespace
} // namespace tessera::interp::testing

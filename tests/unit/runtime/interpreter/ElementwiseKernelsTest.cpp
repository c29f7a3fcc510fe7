// Elementwise kernels: masked vector add on ragged sizes, integer wraparound
// and signedness, and f16 rounding.
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

// Atomics across programs, tensor descriptors with out-of-bounds padding and
// dropped stores, and pointers that round-trip through integers.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using MemoryKernelsTest = InterpreterTest;

TEST_F(MemoryKernelsTest, HistogramWithAtomicAddAcrossPrograms) {
  const int n = 1000, numBins = 17;
  std::vector<int32_t> values = randomInts(n, 0, numBins - 1), bins(numBins);
  ASSERT_EQ(run(kHistogram, "histogram",
                {bufferOf(values), bufferOf(bins), KernelArgument::integer(n)},
                {(n + 63) / 64, 1, 1}),
            "");
  std::vector<int32_t> expected(numBins);
  for (int32_t value : values)
    ++expected[value];
  EXPECT_EQ(bins, expected);
}

TEST_F(MemoryKernelsTest, ScalarAtomicsReturnOldValues) {
  std::vector<int32_t> cell = {-100, 0}, olds(20);
  std::vector<float> fcell = {0.5f};
  ASSERT_EQ(run(kScalarAtomics, "atomics", {bufferOf(cell), bufferOf(fcell), bufferOf(olds)},
                {20, 1, 1}),
            "");
  EXPECT_EQ(cell[0], 9);
  EXPECT_EQ(olds[0], -100);
  for (int pid = 1; pid < 20; ++pid)
    EXPECT_EQ(olds[pid], pid - 11) << "program " << pid;
  EXPECT_EQ(fcell[0], 0.5f + 190.0f);
  // Program 0 swaps 0 for 0; program 1 then finds 0 and stores 1; later CAS fail.
  EXPECT_EQ(cell[1], 1);
}

TEST_F(MemoryKernelsTest, DescriptorLoadStoreOnRaggedShape) {
  const int m = 37, n = 21;
  std::vector<float> in = randomFloats(m * n), out(m * n, -1.0f);
  ASSERT_EQ(run(kDescriptorScale, "scale",
                {bufferOf(in), bufferOf(out), KernelArgument::integer(m),
                 KernelArgument::integer(n)},
                {(m + 15) / 16, (n + 15) / 16, 1}),
            "");
  std::vector<double> expected(m * n);
  for (int i = 0; i < m * n; ++i)
    expected[i] = 2.0 * in[i];
  expectClose(toDoubles(out), expected, 0, 0);
}

TEST_F(MemoryKernelsTest, DescriptorLoadPadsWithZeroOrNaN) {
  const int m = 10, n = 12, row = 5, col = -3;
  for (bool nan : {false, true}) {
    SCOPED_TRACE(nan ? "nan padding" : "zero padding");
    std::string source = kDescriptorPadding.str();
    source.replace(source.find("PADDING"), 7, nan ? "padding = nan" : "");
    std::vector<float> in = randomFloats(m * n), block(64, -1.0f);
    ASSERT_EQ(run(source, "pad",
                  {bufferOf(in), bufferOf(block), KernelArgument::integer(m),
                   KernelArgument::integer(n), KernelArgument::integer(row),
                   KernelArgument::integer(col)},
                  {1, 1, 1}),
              "");
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        int r = row + i, c = col + j;
        float got = block[i * 8 + j];
        if (r < m && c >= 0 && c < n)
          EXPECT_EQ(got, in[r * n + c]) << i << ", " << j;
        else if (nan)
          EXPECT_TRUE(std::isnan(got)) << i << ", " << j << ": " << got;
        else
          EXPECT_EQ(got, 0.0f) << i << ", " << j;
      }
  }
}

TEST_F(MemoryKernelsTest, PointersRoundTripThroughIntegers) {
  std::vector<int32_t> data(4);
  ASSERT_EQ(run(kPointerRoundTrip, "roundtrip", {bufferOf(data)}, {1, 1, 1}), "");
  EXPECT_EQ(data, (std::vector<int32_t>{0, 0, 0, 42}));
}

} // namespace
} // namespace tessera::interp::testing

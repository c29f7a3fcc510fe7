// Atomics across programs, tensor descriptors with out-of-bounds padding and
// dropped stores, and pointers that round-trip through integers.
#include "InterpreterTestUtils.h"

#include <cmath>

namespace tessera::interp::testing {
namespace {

using MemoryKernelsTest = InterpreterTest;

// Each program counts 64 values into `bins` with atomic adds.
constexpr llvm::StringLiteral kHistogram = R"mlir(
tile.func @histogram(%values: !tile.ptr<i32>, %bins: !tile.ptr<i32>, %n: i32) {
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %starts = tile.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %starts, %r : tensor<64xi32>
  %bound = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<64xi32>
  %vb = tile.splat %values : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %vp = tile.addptr %vb, %offs : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %v = tile.load %vp, %mask : tensor<64x!tile.ptr<i32>>
  %bb = tile.splat %bins : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %bp = tile.addptr %bb, %v : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %old = tile.atomic_rmw add, relaxed, gpu, %bp, %one, %mask : tensor<64x!tile.ptr<i32>>
  tile.return
}
)mlir";

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

// Scalar atomics: max, xchg and compare-and-swap return the old value.
constexpr llvm::StringLiteral kScalarAtomics = R"mlir(
tile.func @atomics(%cell: !tile.ptr<i32>, %fcell: !tile.ptr<f32>, %olds: !tile.ptr<i32>) {
  %pid = tile.program_id x
  %ten = arith.constant 10 : i32
  %v = arith.subi %pid, %ten : i32
  %old = tile.atomic_rmw max, acq_rel, gpu, %cell, %v : !tile.ptr<i32>
  %op = tile.addptr %olds, %pid : !tile.ptr<i32>, i32
  tile.store %op, %old : !tile.ptr<i32>
  %vf = arith.sitofp %pid : i32 to f32
  %oldf = tile.atomic_rmw fadd, relaxed, gpu, %fcell, %vf : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cellb = tile.addptr %cell, %c1 : !tile.ptr<i32>, i32
  %was = tile.atomic_cas acq_rel, gpu, %cellb, %c0, %pid : !tile.ptr<i32>
  tile.return
}
)mlir";

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

// Scales a [M, N] f32 matrix by 2 in 16x16 blocks through tensor descriptors:
// the edge blocks read zeros past the shape and drop their stores there.
constexpr llvm::StringLiteral kDescriptorScale = R"mlir(
tile.func @scale(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %M: i32, %N: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c16 = arith.constant 16 : i32
  %row = arith.muli %pm, %c16 : i32
  %col = arith.muli %pn, %c16 : i32
  %one = arith.constant 1 : i64
  %ld = arith.extsi %N : i32 to i64
  %din = tile.make_tensor_descriptor %in, [%M, %N], [%ld, %one]
           : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf32>>
  %dout = tile.make_tensor_descriptor %out, [%M, %N], [%ld, %one]
           : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf32>>
  %blk = tile.descriptor_load %din[%row, %col] : !tile.tensordesc<tensor<16x16xf32>>
  %two = arith.constant dense<2.0> : tensor<16x16xf32>
  %scaled = arith.mulf %blk, %two : tensor<16x16xf32>
  tile.descriptor_store %dout[%row, %col], %scaled : !tile.tensordesc<tensor<16x16xf32>>
  tile.return
}
)mlir";

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

// Copies the 8x8 block at (row, col) of a [M, N] i32 or f32 tensor, padding
// included, into `block` through plain pointers.
constexpr llvm::StringLiteral kDescriptorPadding = R"mlir(
tile.func @pad(%in: !tile.ptr<f32>, %block: !tile.ptr<f32>, %M: i32, %N: i32,
               %row: i32, %col: i32) {
  %one = arith.constant 1 : i64
  %ld = arith.extsi %N : i32 to i64
  %d = tile.make_tensor_descriptor %in, [%M, %N], [%ld, %one] PADDING
         : !tile.ptr<f32> -> !tile.tensordesc<tensor<8x8xf32>>
  %blk = tile.descriptor_load %d[%row, %col] : !tile.tensordesc<tensor<8x8xf32>>
  %flat = tile.reshape %blk : tensor<8x8xf32> -> tensor<64xf32>
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %bb = tile.splat %block : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %bp = tile.addptr %bb, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %bp, %flat : tensor<64x!tile.ptr<f32>>
  tile.return
}
)mlir";

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

// Pointers survive a round trip through i64 addresses.
constexpr llvm::StringLiteral kPointerRoundTrip = R"mlir(
tile.func @roundtrip(%p: !tile.ptr<i32>) {
  %c3 = arith.constant 3 : i32
  %q = tile.addptr %p, %c3 : !tile.ptr<i32>, i32
  %addr = tile.ptr_to_int %q : !tile.ptr<i32> -> i64
  %back = tile.int_to_ptr %addr : i64 -> !tile.ptr<i32>
  %v = arith.constant 42 : i32
  tile.store %back, %v : !tile.ptr<i32>
  tile.return
}
)mlir";

TEST_F(MemoryKernelsTest, PointersRoundTripThroughIntegers) {
  std::vector<int32_t> data(4);
  ASSERT_EQ(run(kPointerRoundTrip, "roundtrip", {bufferOf(data)}, {1, 1, 1}), "");
  EXPECT_EQ(data, (std::vector<int32_t>{0, 0, 0, 42}));
}

} // namespace
} // namespace tessera::interp::testing

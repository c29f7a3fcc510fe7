// Kernels built on tile.reduce and tile.scan: fused row softmax, layernorm,
// argmax (a reduce of two operands) and cumulative sums in both directions.
#include "InterpreterTestUtils.h"

#include <algorithm>
#include <cmath>

namespace tessera::interp::testing {
namespace {

using ReductionKernelsTest = InterpreterTest;

// One program per row; a row of `ncols` <= 128 elements, `stride` apart.
constexpr llvm::StringLiteral kSoftmax = R"mlir(
tile.func @softmax(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %stride: i32, %ncols: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %stride : i32
  %inrow = tile.addptr %in, %start : !tile.ptr<f32>, i32
  %outrow = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %bound = tile.splat %ncols : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<128xi32>
  %pb = tile.splat %inrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %pb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %x = tile.load %p, %mask, %ninf : tensor<128x!tile.ptr<f32>>
  %max = tile.reduce %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.yield %m : f32
  }
  %maxs = tile.splat %max : f32 -> tensor<128xf32>
  %shifted = arith.subf %x, %maxs : tensor<128xf32>
  %e = math.exp %shifted : tensor<128xf32>
  %sum = tile.reduce %e axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sums = tile.splat %sum : f32 -> tensor<128xf32>
  %y = arith.divf %e, %sums : tensor<128xf32>
  %qb = tile.splat %outrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %qb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %q, %y, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

TEST_F(ReductionKernelsTest, FusedRowSoftmax) {
  const int rows = 7, cols = 100, stride = 104;
  std::vector<float> in = randomFloats(rows * stride, -5, 5), out(rows * stride, -1.0f);
  ASSERT_EQ(run(kSoftmax, "softmax",
                {bufferOf(in), bufferOf(out), KernelArgument::integer(stride),
                 KernelArgument::integer(cols)},
                {rows, 1, 1}),
            "");
  std::vector<double> expected(rows * stride, -1.0);
  for (int r = 0; r < rows; ++r) {
    double max = *std::max_element(in.begin() + r * stride, in.begin() + r * stride + cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += std::exp(in[r * stride + c] - max);
    for (int c = 0; c < cols; ++c)
      expected[r * stride + c] = std::exp(in[r * stride + c] - max) / sum;
  }
  expectClose(toDoubles(out), expected, 1e-5, 1e-7);
}

// y = (x - mean) / sqrt(var + eps) * w + b over rows of `n` <= 128 elements.
constexpr llvm::StringLiteral kLayerNorm = R"mlir(
tile.func @layernorm(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %b: !tile.ptr<f32>,
                     %y: !tile.ptr<f32>, %n: i32, %eps: f32) {
  %row = tile.program_id x
  %start = arith.muli %row, %n : i32
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %xrow = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %xb = tile.splat %xrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %sum = tile.reduce %xv axis = 0 : tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %nf = arith.sitofp %n : i32 to f32
  %mean = arith.divf %sum, %nf : f32
  %means = tile.splat %mean : f32 -> tensor<128xf32>
  %centered = arith.subf %xv, %means : tensor<128xf32>
  %diff = arith.select %mask, %centered, %zero : tensor<128xi1>, tensor<128xf32>
  %sq = arith.mulf %diff, %diff : tensor<128xf32>
  %sqsum = tile.reduce %sq axis = 0 : tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %var = arith.divf %sqsum, %nf : f32
  %vareps = arith.addf %var, %eps : f32
  %rstd = math.rsqrt %vareps : f32
  %rstds = tile.splat %rstd : f32 -> tensor<128xf32>
  %normed = arith.mulf %diff, %rstds : tensor<128xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %wv = tile.load %wp, %mask : tensor<128x!tile.ptr<f32>>
  %bb = tile.splat %b : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %bp = tile.addptr %bb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %bv = tile.load %bp, %mask : tensor<128x!tile.ptr<f32>>
  %out = math.fma %normed, %wv, %bv : tensor<128xf32>
  %yrow = tile.addptr %y, %start : !tile.ptr<f32>, i32
  %yb = tile.splat %yrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %out, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

TEST_F(ReductionKernelsTest, LayerNorm) {
  const int rows = 5, n = 77;
  const double eps = 1e-5;
  std::vector<float> x = randomFloats(rows * n, -3, 3), w = randomFloats(n), b = randomFloats(n);
  std::vector<float> y(rows * n);
  ASSERT_EQ(run(kLayerNorm, "layernorm",
                {bufferOf(x), bufferOf(w), bufferOf(b), bufferOf(y),
                 KernelArgument::integer(n), KernelArgument::floating(eps)},
                {rows, 1, 1}),
            "");
  std::vector<double> expected(rows * n);
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < n; ++c)
      mean += x[r * n + c];
    mean /= n;
    for (int c = 0; c < n; ++c)
      var += (x[r * n + c] - mean) * (x[r * n + c] - mean);
    var /= n;
    for (int c = 0; c < n; ++c)
      expected[r * n + c] = (x[r * n + c] - mean) / std::sqrt(var + eps) * w[c] + b[c];
  }
  expectClose(toDoubles(y), expected, 1e-5, 1e-5);
}

// Per row: the maximum and the smallest index holding it.
constexpr llvm::StringLiteral kArgmax = R"mlir(
tile.func @argmax(%x: !tile.ptr<f32>, %max: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %n: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %n : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %bound = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %xrow = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %xb = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %xv = tile.load %xp, %mask, %ninf : tensor<64x!tile.ptr<f32>>
  %m, %i = tile.reduce %xv, %cols axis = 0 : tensor<64xf32>, tensor<64xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %eq = arith.cmpf oeq, %a, %b : f32
    %lower = arith.cmpi slt, %ai, %bi : i32
    %tie = arith.andi %eq, %lower : i1
    %keep = arith.ori %gt, %tie : i1
    %v = arith.select %keep, %a, %b : f32
    %vi = arith.select %keep, %ai, %bi : i32
    tile.yield %v, %vi : f32, i32
  }
  %mp = tile.addptr %max, %row : !tile.ptr<f32>, i32
  tile.store %mp, %m : !tile.ptr<f32>
  %ip = tile.addptr %idx, %row : !tile.ptr<i32>, i32
  tile.store %ip, %i : !tile.ptr<i32>
  tile.return
}
)mlir";

TEST_F(ReductionKernelsTest, ArgmaxReducesTwoOperands) {
  const int rows = 9, n = 50;
  std::vector<float> x = randomFloats(rows * n);
  x[3 * n + 7] = x[3 * n + 20] = 5.0f; // a tie: the smaller index wins
  std::vector<float> max(rows);
  std::vector<int32_t> idx(rows, -1);
  ASSERT_EQ(run(kArgmax, "argmax",
                {bufferOf(x), bufferOf(max), bufferOf(idx), KernelArgument::integer(n)},
                {rows, 1, 1}),
            "");
  for (int r = 0; r < rows; ++r) {
    auto first = x.begin() + r * n;
    auto best = std::max_element(first, first + n);
    EXPECT_EQ(max[r], *best) << "row " << r;
    EXPECT_EQ(idx[r], best - first) << "row " << r;
  }
}

// Inclusive cumulative sums of a 2-D tile along axis 1, forward or REVERSE.
constexpr llvm::StringLiteral kCumsum = R"mlir(
tile.func @cumsum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %bound = tile.splat %n : i32 -> tensor<32xi32>
  %mask1 = arith.cmpi slt, %r, %bound : tensor<32xi32>
  %maskr = tile.expand_dims %mask1, axis = 0 : tensor<32xi1> -> tensor<1x32xi1>
  %mask = tile.broadcast %maskr : tensor<1x32xi1> -> tensor<4x32xi1>
  %cols = tile.expand_dims %r, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %colsb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<4x32xi32>
  %r4 = tile.make_range 0 to 4 : tensor<4xi32>
  %rows = tile.expand_dims %r4, axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %ns = tile.splat %n : i32 -> tensor<4x1xi32>
  %rowoff = arith.muli %rows, %ns : tensor<4x1xi32>
  %rowoffb = tile.broadcast %rowoff : tensor<4x1xi32> -> tensor<4x32xi32>
  %offs = arith.addi %rowoffb, %colsb : tensor<4x32xi32>
  %zero = arith.constant dense<0.0> : tensor<4x32xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<4x32x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<4x32x!tile.ptr<f32>>, tensor<4x32xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<4x32x!tile.ptr<f32>>
  %c = tile.scan %xv axis = 1 REVERSE : tensor<4x32xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<4x32x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<4x32x!tile.ptr<f32>>, tensor<4x32xi32>
  tile.store %yp, %c, %mask : tensor<4x32x!tile.ptr<f32>>
  tile.return
}
)mlir";

TEST_F(ReductionKernelsTest, CumsumForwardAndReverse) {
  const int rows = 4, n = 27;
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    std::string source = kCumsum.str();
    source.replace(source.find("REVERSE"), 7, reverse ? "reverse" : "");
    std::vector<float> x = randomFloats(rows * n), y(rows * n);
    ASSERT_EQ(run(source, "cumsum", {bufferOf(x), bufferOf(y), KernelArgument::integer(n)},
                  {1, 1, 1}),
              "");
    std::vector<double> expected(rows * n), scale(rows * n);
    for (int r = 0; r < rows; ++r) {
      double sum = 0, magnitude = 0;
      for (int step = 0; step < n; ++step) {
        int c = reverse ? n - 1 - step : step;
        sum += x[r * n + c];
        magnitude += std::fabs(x[r * n + c]);
        expected[r * n + c] = sum;
        scale[r * n + c] = magnitude;
      }
    }
    expectClose(toDoubles(y), expected, n * 0x1p-24, 0, scale);
  }
}

} // namespace
} // namespace tessera::interp::testing

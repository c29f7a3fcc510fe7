// The contiguity analysis (ir/analysis/Contiguity.h): whole rows for the
// CPU's masked row loads, aligned pieces of rows for the GPUs' vectors.
#include "ir/analysis/Contiguity.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace tessera::tile::testing {
namespace {

using ContiguityTest = interp::testing::InterpreterTest;

constexpr llvm::StringLiteral kPointers = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %s: i32, %one: i32 {tile.equal_to_1}) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %start = tile.splat %pid : i32 -> tensor<16xi32>
  %offs = arith.addi %start, %r : tensor<16xi32>
  %contig = tile.addptr %b, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %four = tile.splat %c4 : i32 -> tensor<16xi32>
  %strided4 = arith.muli %r, %four : tensor<16xi32>
  %strided = tile.addptr %b, %strided4 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %ss = tile.splat %s : i32 -> tensor<16xi32>
  %unknown4 = arith.muli %r, %ss : tensor<16xi32>
  %unknown = tile.addptr %b, %unknown4 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %so = tile.splat %one : i32 -> tensor<16xi32>
  %one4 = arith.muli %r, %so : tensor<16xi32>
  %unit = tile.addptr %b, %one4 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %rows = tile.expand_dims %r, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %ss2 = tile.splat %s : i32 -> tensor<16x1xi32>
  %rowoff = arith.muli %rows, %ss2 : tensor<16x1xi32>
  %rb = tile.broadcast %rowoff : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %off2 = arith.addi %rb, %cb : tensor<16x16xi32>
  %b2 = tile.splat %p : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %rowsContig = tile.addptr %b2, %off2 : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  %off3 = arith.addi %cb, %rb : tensor<16x16xi32>
  %trans = tile.trans %off3, order = [1, 0] : tensor<16x16xi32> -> tensor<16x16xi32>
  %colsContig = tile.addptr %b2, %trans : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.return
}
)mlir";

TEST_F(ContiguityTest, ProvesUnitStrideAlongTheLastDimension) {
  auto module = parse(kPointers);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> ptrs;
  module->walk([&](tile::AddPtrOp op) { ptrs.push_back(op.getResult()); });
  ASSERT_EQ(ptrs.size(), 6u);
  ContiguityAnalysis analysis;
  EXPECT_TRUE(analysis.isContiguous(ptrs[0]));                   // pid + range
  EXPECT_EQ(analysis.lastDimStride(ptrs[1]), std::optional<int64_t>(4)); // range * 4
  EXPECT_FALSE(analysis.isContiguous(ptrs[1]));
  EXPECT_EQ(analysis.lastDimStride(ptrs[2]), std::nullopt);      // range * runtime stride
  EXPECT_TRUE(analysis.isContiguous(ptrs[3]));                   // stride marked equal_to_1
  EXPECT_TRUE(analysis.isContiguous(ptrs[4]));                   // row * s + col
  EXPECT_FALSE(analysis.isContiguous(ptrs[5]));                  // transposed: unknown
  // Along the first dimension: rows * s has unknown stride; the transposed
  // row + col * s runs down its columns.
  EXPECT_EQ(analysis.strideAlong(ptrs[4], 0), std::nullopt);
  EXPECT_EQ(analysis.strideAlong(ptrs[5], 0), std::optional<int64_t>(1));
  EXPECT_EQ(analysis.strideAlong(ptrs[0], 0), std::optional<int64_t>(1)); // 1-D: the last dim
}

constexpr llvm::StringLiteral kLoopCarried = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %trips: i32) {
  %n = arith.index_cast %trips : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : i32
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %start = tile.addptr %b, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %step = tile.splat %c16 : i32 -> tensor<16xi32>
  %advanced, %scrambled = scf.for %i = %c0 to %n step %c1
      iter_args(%a = %start, %s = %start) -> (tensor<16x!tile.ptr<f32>>, tensor<16x!tile.ptr<f32>>) {
    %a1 = tile.addptr %a, %step : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    %s1 = tile.addptr %s, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    scf.yield %a1, %s1 : tensor<16x!tile.ptr<f32>>, tensor<16x!tile.ptr<f32>>
  }
  tile.return
}
)mlir";

TEST_F(ContiguityTest, InductiveModeFollowsPointersAdvancedEveryIteration) {
  auto module = parse(kLoopCarried);
  ASSERT_TRUE(module);
  mlir::scf::ForOp loop;
  module->walk([&](mlir::scf::ForOp op) { loop = op; });
  ASSERT_TRUE(loop);
  mlir::Value advanced = loop.getRegionIterArgs()[0], scrambled = loop.getRegionIterArgs()[1];

  ContiguityAnalysis unknown;
  EXPECT_FALSE(unknown.isContiguous(advanced));
  EXPECT_FALSE(unknown.isContiguous(loop.getResult(0)));

  ContiguityAnalysis inductive(LoopCarriedStrides::Inductive);
  EXPECT_TRUE(inductive.isContiguous(advanced));
  EXPECT_TRUE(inductive.isContiguous(loop.getResult(0)));
  // Adding the range every iteration doubles the stride: the induction fails,
  // and nothing derived from the failed assumption stays cached.
  EXPECT_EQ(inductive.lastDimStride(scrambled), std::nullopt);
  EXPECT_EQ(inductive.lastDimStride(loop.getResult(1)), std::nullopt);
  EXPECT_TRUE(inductive.isContiguous(advanced));
}

// Offsets wrapped with `% N`, as Triton's tutorial GEMM wraps its columns:
// aligned groups of consecutive values survive when N's divisibility and the
// groups' starts allow.
constexpr llvm::StringLiteral kWrapped = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, %m: i32, %ld: i32, %trips: i32) {
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %first = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %fs = tile.splat %first : i32 -> tensor<64xi32>
  %cols = arith.addi %fs, %r : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %byN = arith.remsi %cols, %ns : tensor<64xi32>
  %ms = tile.splat %m : i32 -> tensor<64xi32>
  %byM = arith.remsi %cols, %ms : tensor<64xi32>
  %c8 = arith.constant dense<8> : tensor<64xi32>
  %by8 = arith.remsi %cols, %c8 : tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %shifted = arith.addi %cols, %one : tensor<64xi32>
  %shiftedByN = arith.remui %shifted, %ns : tensor<64xi32>
  %fm = arith.muli %m, %c64 : i32
  %fms = tile.splat %fm : i32 -> tensor<64xi32>
  %maybeNegative = arith.addi %fms, %r : tensor<64xi32>
  %negativeByN = arith.remsi %maybeNegative, %ns : tensor<64xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %pByN = tile.addptr %b, %byN : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %pByM = tile.addptr %b, %byM : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %pBy8 = tile.addptr %b, %by8 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %pShifted = tile.addptr %b, %shiftedByN : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %pNegative = tile.addptr %b, %negativeByN : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %pWhole = tile.addptr %b, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // B of the tutorial: [32, 64] pointers, k * ld + wrapped columns, advanced
  // by 32 rows every iteration.
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %ke = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %lds = tile.splat %ld : i32 -> tensor<32x1xi32>
  %rows = arith.muli %ke, %lds : tensor<32x1xi32>
  %rowsb = tile.broadcast %rows : tensor<32x1xi32> -> tensor<32x64xi32>
  %ce = tile.expand_dims %byN, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<32x64xi32>
  %offsets = arith.addi %rowsb, %cb : tensor<32x64xi32>
  %b2 = tile.splat %p : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bPtrs = tile.addptr %b2, %offsets : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %c32 = arith.constant 32 : i32
  %step1 = arith.muli %ld, %c32 : i32
  %step = tile.splat %step1 : i32 -> tensor<32x64xi32>
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %advanced, %scrambled = scf.for %i = %i0 to %trips step %i1
      iter_args(%a = %bPtrs, %s = %bPtrs) -> (tensor<32x64x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>) : i32 {
    %a1 = tile.addptr %a, %step : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
    %s1 = tile.addptr %s, %offsets : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
    scf.yield %a1, %s1 : tensor<32x64x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>
  }
  tile.return
}
)mlir";

TEST_F(ContiguityTest, AlignedGroupsSurviveRemainders) {
  auto module = parse(kWrapped);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> ptrs;
  module->walk([&](tile::AddPtrOp op) { ptrs.push_back(op.getResult()); });
  ASSERT_EQ(ptrs.size(), 9u);
  mlir::scf::ForOp loop;
  module->walk([&](mlir::scf::ForOp op) { loop = op; });
  ASSERT_TRUE(loop);

  ContiguityAnalysis analysis(LoopCarriedStrides::Inductive);
  auto runsOf = [&](mlir::Value ptrs) {
    ContiguityAnalysis::ContiguousRuns runs = analysis.contiguousRuns(ptrs);
    return std::pair(runs.elements, runs.checkEndpoints);
  };
  using Runs = std::pair<int64_t, bool>;
  EXPECT_FALSE(analysis.isContiguous(ptrs[0]));
  EXPECT_EQ(runsOf(ptrs[0]), Runs(16, false)); // % n, n divisible by 16
  EXPECT_EQ(runsOf(ptrs[1]), Runs(1, false));  // % m, nothing known of m
  EXPECT_EQ(runsOf(ptrs[2]), Runs(8, false));  // % 8
  EXPECT_EQ(runsOf(ptrs[3]), Runs(1, false));  // groups start at 64k + 1
  EXPECT_EQ(runsOf(ptrs[4]), Runs(16, true));  // signed, maybe negative: checked
  EXPECT_EQ(runsOf(ptrs[5]), Runs(64, false)); // whole rows
  EXPECT_EQ(runsOf(ptrs[6]), Runs(16, false)); // the tutorial's B
  EXPECT_EQ(runsOf(loop.getRegionIterArgs()[0]), Runs(16, false));
  EXPECT_EQ(runsOf(loop.getResult(0)), Runs(16, false));
  // Adding the wrapped offsets every iteration doubles the stride.
  EXPECT_EQ(runsOf(loop.getRegionIterArgs()[1]), Runs(1, false));
  EXPECT_EQ(runsOf(loop.getRegionIterArgs()[0]), Runs(16, false));

  ContiguityAnalysis noLoops;
  EXPECT_EQ(noLoops.contiguousRuns(loop.getRegionIterArgs()[0]).elements, 1);
}

// `tl.assume(m >= 0)` (or m > -1, 0 <= m) makes a wrapped dividend built
// from m non-negative; assumptions that promise less, or sit in another
// block than m's definition, do not. Pointers %p<i> wrap (m<i> * 64 +
// arange(0, 64)) % n.
std::string assumedKernel() {
  std::string kernel = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32},
             %m0: i32, %m1: i32, %m2: i32, %m3: i32, %m4: i32, %m5: i32, %flag: i1) {
  %c0 = arith.constant 0 : i32
  %cm1 = arith.constant -1 : i32
  %cm2 = arith.constant -2 : i32
  %at_least_0 = arith.cmpi sge, %m0, %c0 : i32
  tile.assume %at_least_0
  %above_m1 = arith.cmpi sgt, %m1, %cm1 : i32
  tile.assume %above_m1
  %zero_le = arith.cmpi sle, %c0, %m2 : i32
  tile.assume %zero_le
  %above_m2 = arith.cmpi sgt, %m3, %cm2 : i32
  tile.assume %above_m2
  %below = arith.cmpi slt, %m4, %c0 : i32
  tile.assume %below
  scf.if %flag {
    %nested = arith.cmpi sge, %m5, %c0 : i32
    tile.assume %nested
  }
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
)mlir";
  for (char i = '0'; i <= '5'; ++i)
    kernel += llvm::formatv(R"mlir(
  %f{0} = arith.muli %m{0}, %c64 : i32
  %s{0} = tile.splat %f{0} : i32 -> tensor<64xi32>
  %o{0} = arith.addi %s{0}, %r : tensor<64xi32>
  %w{0} = arith.remsi %o{0}, %ns : tensor<64xi32>
  %p{0} = tile.addptr %b, %w{0} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
)mlir",
                            i)
                  .str();
  return kernel + "  tile.return\n}\n";
}

TEST_F(ContiguityTest, AssumptionsMakeWrappedDividendsNonNegative) {
  auto module = parse(assumedKernel());
  ASSERT_TRUE(module);
  std::vector<mlir::Value> ptrs;
  module->walk([&](tile::AddPtrOp op) { ptrs.push_back(op.getResult()); });
  ASSERT_EQ(ptrs.size(), 6u);
  ContiguityAnalysis analysis;
  auto checked = [&](mlir::Value ptrs) {
    ContiguityAnalysis::ContiguousRuns runs = analysis.contiguousRuns(ptrs);
    EXPECT_EQ(runs.elements, 16);
    return runs.checkEndpoints;
  };
  EXPECT_FALSE(checked(ptrs[0])); // m >= 0
  EXPECT_FALSE(checked(ptrs[1])); // m > -1
  EXPECT_FALSE(checked(ptrs[2])); // 0 <= m
  EXPECT_TRUE(checked(ptrs[3]));  // m > -2 allows -1
  EXPECT_TRUE(checked(ptrs[4]));  // m < 0
  EXPECT_TRUE(checked(ptrs[5]));  // only inside the scf.if
}

// A maximum or minimum is one of its operands: it keeps the divisibility
// both have, and max(x, 0) is non-negative (what
// tile-gpu-version-signed-remainders reads a dividend's scalar as).
constexpr llvm::StringLiteral kExtrema = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %f = arith.muli %m, %c64 : i32
  %max = arith.maxsi %f, %c0 : i32
  %min = arith.minsi %f, %c0 : i32
  %maxOfM = arith.maxsi %m, %c0 : i32
  %s0 = tile.splat %max : i32 -> tensor<64xi32>
  %o0 = arith.addi %s0, %r : tensor<64xi32>
  %w0 = arith.remsi %o0, %ns : tensor<64xi32>
  %p0 = tile.addptr %b, %w0 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %s1 = tile.splat %min : i32 -> tensor<64xi32>
  %o1 = arith.addi %s1, %r : tensor<64xi32>
  %w1 = arith.remsi %o1, %ns : tensor<64xi32>
  %p1 = tile.addptr %b, %w1 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %s2 = tile.splat %maxOfM : i32 -> tensor<64xi32>
  %o2 = arith.addi %s2, %r : tensor<64xi32>
  %w2 = arith.remsi %o2, %ns : tensor<64xi32>
  %p2 = tile.addptr %b, %w2 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.return
}
)mlir";

TEST_F(ContiguityTest, ExtremaKeepTheDivisibilityOfBothOperands) {
  auto module = parse(kExtrema);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> ptrs;
  module->walk([&](tile::AddPtrOp op) { ptrs.push_back(op.getResult()); });
  ASSERT_EQ(ptrs.size(), 3u);
  ContiguityAnalysis analysis;
  auto runsOf = [&](mlir::Value ptrs) {
    ContiguityAnalysis::ContiguousRuns runs = analysis.contiguousRuns(ptrs);
    return std::pair(runs.elements, runs.checkEndpoints);
  };
  using Runs = std::pair<int64_t, bool>;
  EXPECT_EQ(runsOf(ptrs[0]), Runs(16, false)); // max(64m, 0): non-negative
  EXPECT_EQ(runsOf(ptrs[1]), Runs(16, true));  // min(64m, 0): maybe negative
  EXPECT_EQ(runsOf(ptrs[2]), Runs(1, false));  // max(m, 0): groups start anywhere
}

// Masks that are constant over aligned groups, and the alignment of the
// groups' first addresses, let the GPUs access a masked row in vectors
// without run-time checks.
constexpr llvm::StringLiteral kMasksAndAlignment = R"mlir(
tile.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f16>,
             %n: i32 {tile.divisibility = 16 : i32}, %m: i32, %row: i32, %ld: i32 {tile.divisibility = 16 : i32}) {
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %ms = tile.splat %m : i32 -> tensor<64xi32>
  %below_n = arith.cmpi slt, %cols, %ns : tensor<64xi32>
  %n_above = arith.cmpi sgt, %ns, %cols : tensor<64xi32>
  %at_most_n = arith.cmpi sle, %cols, %ns : tensor<64xi32>
  %below_m = arith.cmpi slt, %cols, %ms : tensor<64xi32>
  %both = arith.andi %below_n, %n_above : tensor<64xi1>
  %start = arith.muli %row, %ld : i32
  %rowp = tile.addptr %p, %start : !tile.ptr<f16>, i32
  %rb = tile.splat %rowp : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %aligned = tile.addptr %rb, %cols : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %qb = tile.splat %q : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %unknown = tile.addptr %qb, %cols : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %rowm = tile.addptr %p, %row : !tile.ptr<f16>, i32
  %mb = tile.splat %rowm : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %odd = tile.addptr %mb, %cols : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  tile.return
}
)mlir";

TEST_F(ContiguityTest, MasksConstantOverGroupsAndAlignedRunStarts) {
  auto module = parse(kMasksAndAlignment);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> masks, ptrs;
  module->walk([&](mlir::arith::CmpIOp op) { masks.push_back(op.getResult()); });
  module->walk([&](mlir::arith::AndIOp op) { masks.push_back(op.getResult()); });
  module->walk([&](tile::AddPtrOp op) {
    if (mlir::isa<mlir::RankedTensorType>(op.getType()))
      ptrs.push_back(op.getResult());
  });
  ASSERT_EQ(masks.size(), 5u);
  ASSERT_EQ(ptrs.size(), 3u);
  ContiguityAnalysis analysis;
  EXPECT_EQ(analysis.piecesOf(masks[0]).constancy, 16); // cols < n, n % 16 == 0
  EXPECT_EQ(analysis.piecesOf(masks[1]).constancy, 16); // n > cols
  EXPECT_EQ(analysis.piecesOf(masks[2]).constancy, 1);  // cols <= n flips inside a group
  EXPECT_EQ(analysis.piecesOf(masks[3]).constancy, 1);  // nothing known of m
  EXPECT_EQ(analysis.piecesOf(masks[4]).constancy, 16); // and of two such masks
  // 16-byte argument, row * ld with ld % 16 == 0, groups of 8 f16 from column 0.
  EXPECT_EQ(analysis.runStartAlignment(ptrs[0], 8, 2), 16);
  EXPECT_EQ(analysis.runStartAlignment(ptrs[1], 8, 2), 1); // no tile.divisibility on q
  EXPECT_EQ(analysis.runStartAlignment(ptrs[2], 8, 2), 2); // + row: one element
}

// A GEMM's K loop: pointers advanced by BLOCK_K every iteration stay aligned
// as their initial values are; a step of one element does not keep them so;
// the mask `k < K - i` stays constant over aligned groups in every iteration.
constexpr llvm::StringLiteral kLoopAlignment = R"mlir(
tile.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %b = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %start = tile.addptr %b, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %step = tile.splat %c64 : i32 -> tensor<64xi32>
  %nudge = tile.splat %c1 : i32 -> tensor<64xi32>
  %kept, %lost = scf.for %i = %c0 to %K step %c64
      iter_args(%a = %start, %m = %start) -> (tensor<64x!tile.ptr<f16>>, tensor<64x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %K, %i : i32
    %ls = tile.splat %left : i32 -> tensor<64xi32>
    %mask = arith.cmpi slt, %r, %ls : tensor<64xi32>
    %x = tile.load %a, %mask : tensor<64x!tile.ptr<f16>>
    %a1 = tile.addptr %a, %step : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    %m1 = tile.addptr %m, %nudge : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    scf.yield %a1, %m1 : tensor<64x!tile.ptr<f16>>, tensor<64x!tile.ptr<f16>>
  }
  tile.return
}
)mlir";

TEST_F(ContiguityTest, LoopCarriedPointersKeepTheAlignmentTheirStepKeeps) {
  auto module = parse(kLoopAlignment);
  ASSERT_TRUE(module);
  mlir::scf::ForOp loop;
  module->walk([&](mlir::scf::ForOp op) { loop = op; });
  mlir::Value mask;
  module->walk([&](mlir::arith::CmpIOp op) { mask = op.getResult(); });
  ASSERT_TRUE(loop && mask);
  mlir::Value kept = loop.getRegionIterArgs()[0], lost = loop.getRegionIterArgs()[1];

  ContiguityAnalysis inductive(LoopCarriedStrides::Inductive);
  EXPECT_EQ(inductive.runStartAlignment(kept, 8, 2), 16);
  EXPECT_EQ(inductive.runStartAlignment(loop.getResult(0), 8, 2), 16);
  // + 1 element per iteration: only the element's 2 bytes hold throughout.
  EXPECT_EQ(inductive.runStartAlignment(lost, 8, 2), 2);
  EXPECT_EQ(inductive.runStartAlignment(loop.getResult(1), 8, 2), 2);
  EXPECT_EQ(inductive.runStartAlignment(kept, 8, 2), 16); // nothing stale cached
  // Every element (groups of 1): only its own 2 bytes, whatever runs start at.
  EXPECT_EQ(inductive.runStartAlignment(kept, 1, 2), 2);
  // K - i: K % 16 == 0 and i % 64 == 0.
  EXPECT_EQ(inductive.piecesOf(mask).constancy, 16);

  ContiguityAnalysis unknown;
  EXPECT_EQ(unknown.runStartAlignment(kept, 8, 2), 1);
}

// B given as W.t() (a PyTorch Linear's weight, [N, K] row-major): the
// [K, N] tile runs down its columns, and tile-gpu-transpose-column-loads
// loads it as the transpose. The facts along the transposed tile's rows are
// those along the source's columns.
constexpr llvm::StringLiteral kTransposed = R"mlir(
tile.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}, %odd: i32) {
  %rk = tile.make_range 0 to 32 : tensor<32xi32>
  %rn = tile.make_range 0 to 64 : tensor<64xi32>
  %ke = tile.expand_dims %rk, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = tile.broadcast %ke : tensor<32x1xi32> -> tensor<32x64xi32>
  %ne = tile.expand_dims %rn, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<1x64xi32>
  %col = arith.muli %ne, %Ks : tensor<1x64xi32>
  %cb = tile.broadcast %col : tensor<1x64xi32> -> tensor<32x64xi32>
  %off = arith.addi %kb, %cb : tensor<32x64xi32>
  %b = tile.splat %p : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %ptrs = tile.addptr %b, %off : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %rows = tile.trans %ptrs, order = [1, 0] : tensor<32x64x!tile.ptr<f16>> -> tensor<64x32x!tile.ptr<f16>>
  %Kk = tile.splat %K : i32 -> tensor<32x1xi32>
  %in = arith.cmpi slt, %ke, %Kk : tensor<32x1xi32>
  %inb = tile.broadcast %in : tensor<32x1xi1> -> tensor<32x64xi1>
  %mask = tile.trans %inb, order = [1, 0] : tensor<32x64xi1> -> tensor<64x32xi1>
  %os = tile.splat %odd : i32 -> tensor<32x1xi32>
  %ragged = arith.cmpi slt, %ke, %os : tensor<32x1xi32>
  %raggedb = tile.broadcast %ragged : tensor<32x1xi1> -> tensor<32x64xi1>
  %raggedt = tile.trans %raggedb, order = [1, 0] : tensor<32x64xi1> -> tensor<64x32xi1>
  tile.return
}
)mlir";

TEST_F(ContiguityTest, TransposedTilesKeepTheFactsOfTheSourceColumns) {
  auto module = parse(kTransposed);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> transposed;
  module->walk([&](tile::TransOp op) { transposed.push_back(op.getResult()); });
  ASSERT_EQ(transposed.size(), 3u);
  ContiguityAnalysis analysis;
  EXPECT_TRUE(analysis.isContiguous(transposed[0]));
  // Column starts: 16-byte argument + n * K (K % 16 == 0) + k from 0.
  EXPECT_EQ(analysis.runStartAlignment(transposed[0], 8, 2), 16);
  EXPECT_EQ(analysis.piecesOf(transposed[1]).constancy, 16); // k < K
  EXPECT_EQ(analysis.piecesOf(transposed[2]).constancy, 1);  // k < odd
  // Down the transposed tile's columns the offsets step by K: no runs.
  EXPECT_EQ(analysis.piecesAlong(transposed[0], 0).run, 1);
}

// tl.multiple_of / max_contiguous / max_constancy: what is promised where the
// analysis proves less, never less than it proves.
constexpr llvm::StringLiteral kHints = R"mlir(
tile.func @k(%p: !tile.ptr<f32>, %n: i32, %m: i32, %s: i32) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %wrapped = arith.remsi %r, %ns : tensor<64xi32>
  %promised = tile.hint %wrapped {multiple_of = 64 : i64, max_contiguous = 64 : i64} : tensor<64xi32>
  %runs = tile.hint %wrapped {max_contiguous = 8 : i64} : tensor<64xi32>
  %weaker = tile.hint %r {max_contiguous = 4 : i64, multiple_of = 2 : i64} : tensor<64xi32>
  %ms = tile.splat %m : i32 -> tensor<64xi32>
  %q = arith.muli %r, %ms : tensor<64xi32>
  %equal = tile.hint %q {max_constancy = 64 : i64} : tensor<64xi32>
  %sm = tile.hint %s {multiple_of = 16 : i64} : i32
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %pb, %promised : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %runptrs = tile.addptr %pb, %runs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.return
}
)mlir";

TEST_F(ContiguityTest, HintsPromiseWhatTheAnalysisCannotProve) {
  auto module = parse(kHints);
  ASSERT_TRUE(module);
  std::vector<mlir::Value> hints, ptrs;
  module->walk([&](tile::HintOp op) { hints.push_back(op.getResult()); });
  module->walk([&](tile::AddPtrOp op) { ptrs.push_back(op.getResult()); });
  ASSERT_EQ(hints.size(), 5u);
  ContiguityAnalysis analysis;
  EXPECT_EQ(analysis.lastDimStride(hints[0]), 1);
  EXPECT_EQ(analysis.piecesOf(hints[0]).divisibility, 64);
  EXPECT_TRUE(analysis.isContiguous(ptrs[0]));
  EXPECT_EQ(analysis.lastDimStride(hints[1]), std::nullopt);
  EXPECT_EQ(analysis.piecesOf(hints[1]).run, 8);
  EXPECT_FALSE(analysis.piecesOf(hints[1]).checkEndpoints);
  EXPECT_EQ(analysis.contiguousRuns(ptrs[1]).elements, 8);
  // make_range is proved contiguous over the whole row from 0.
  EXPECT_EQ(analysis.lastDimStride(hints[2]), 1);
  EXPECT_EQ(analysis.piecesOf(hints[2]).run, 64);
  EXPECT_EQ(analysis.piecesOf(hints[3]).constancy, 64);
  EXPECT_EQ(analysis.lastDimStride(hints[3]), 0);
  EXPECT_EQ(analysis.piecesOf(hints[4]).divisibility, 16);
}

// A persistent GEMM's column offsets (Triton's tutorial): carried around the
// loop, moved to the next tile's block under `if` (a promise of runs of 64
// starting at multiples of 64), kept otherwise. `%drifted` moves by one
// element instead, and `%scattered` to offsets nothing is known of.
constexpr llvm::StringLiteral kOffsetsMovedInABranch = R"mlir(
tile.func @k(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32, %s: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %b = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %kept, %drift, %scatter = scf.for %i = %c0 to %n step %c1
      iter_args(%offs = %r, %drifted = %r, %scattered = %r)
      -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>) : i32 {
    %ptrs = tile.addptr %b, %offs : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
    %x = tile.load %ptrs : tensor<64x!tile.ptr<f16>>
    %first = arith.cmpi eq, %i, %c0 : i32
    %moved:3 = scf.if %first -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>) {
      %start = arith.muli %i, %c64 : i32
      %ss = tile.splat %start : i32 -> tensor<64xi32>
      %next = arith.addi %ss, %r : tensor<64xi32>
      %wrapped = tile.splat %s : i32 -> tensor<64xi32>
      %some = arith.remsi %next, %wrapped : tensor<64xi32>
      %m = tile.hint %some {multiple_of = 64 : i64} : tensor<64xi32>
      %promised = tile.hint %m {max_contiguous = 64 : i64} : tensor<64xi32>
      %ones = tile.splat %c1 : i32 -> tensor<64xi32>
      %nudged = arith.addi %drifted, %ones : tensor<64xi32>
      %rs = arith.muli %r, %wrapped : tensor<64xi32>
      scf.yield %promised, %nudged, %rs : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>
    } else {
      scf.yield %offs, %drifted, %scattered : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>
    }
    scf.yield %moved#0, %moved#1, %moved#2 : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>
  }
  tile.return
}
)mlir";

TEST_F(ContiguityTest, OffsetsMovedInABranchKeepTheirRunsAndDivisibility) {
  auto module = parse(kOffsetsMovedInABranch);
  ASSERT_TRUE(module);
  mlir::scf::IfOp branch;
  mlir::scf::ForOp loop;
  module->walk([&](mlir::scf::IfOp op) { branch = op; });
  module->walk([&](mlir::scf::ForOp op) { loop = op; });
  ASSERT_TRUE(branch && loop);
  // Asked first of the branch's result, whose query reaches the loop's
  // argument and, through the loop's yield, itself.
  for (bool branchFirst : {true, false}) {
    SCOPED_TRACE(branchFirst ? "the branch's result first" : "the loop's argument first");
    ContiguityAnalysis analysis(LoopCarriedStrides::Inductive);
    mlir::Value offs = loop.getRegionIterArgs()[0];
    if (branchFirst)
      EXPECT_EQ(analysis.piecesOf(branch.getResult(0)).run, 64);
    ContiguityAnalysis::Pieces pieces = analysis.piecesOf(offs);
    EXPECT_EQ(pieces.run, 64);
    EXPECT_EQ(pieces.divisibility, 64); // 0 at first, then multiples of 64
    EXPECT_EQ(analysis.piecesOf(loop.getRegionIterArgs()[1]).run, 64);
    EXPECT_EQ(analysis.piecesOf(loop.getRegionIterArgs()[1]).divisibility, 1);
    EXPECT_EQ(analysis.piecesOf(loop.getRegionIterArgs()[2]).run, 1);
  }
  // Without the inductive mode nothing is assumed of loop-carried tiles.
  ContiguityAnalysis plain;
  EXPECT_EQ(plain.piecesOf(loop.getRegionIterArgs()[0]).run, 1);
}

} // namespace
} // namespace tessera::tile::testing

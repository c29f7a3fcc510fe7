// The contiguity analysis that selects masked row loads over gathers
// (ir/analysis/Contiguity.h).
#include "ir/analysis/Contiguity.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tessera::cpu::testing {
namespace {

using ContiguityTest = interp::testing::InterpreterTest;
using tile::ContiguityAnalysis;
using tile::LoopCarriedStrides;

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

} // namespace
} // namespace tessera::cpu::testing

// planMatrixStores (lowering/gpu/distribute/MatrixStores.h) run on a CPU
// model of stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 written from the
// PTX ISA ("Warp-level matrix store instruction: stmatrix"): lanes 8j .. 8j+7
// give the 16-byte row addresses of matrix j, and lane l's 32-bit register j
// holds row l / 4, columns 2 * (l % 4) (low half) and the next (high half) of
// matrix j. Every element must land at its row-major index of the padded
// buffer exactly once, on the accumulator layouts of the tensor-core dots
// whose results the GEMM epilogue stores.
#include "lowering/gpu/distribute/MatrixStores.h"
#include "lowering/gpu/tensorcore/TensorCore.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;

namespace tessera::gpu {
namespace {

constexpr unsigned kLanes = 32;
constexpr int64_t kPadding = 8;

int64_t rowMajorIndex(const Basis &coords, llvm::ArrayRef<int64_t> shape, int64_t padding) {
  int64_t index = 0, stride = 1;
  for (int dim = static_cast<int>(shape.size()) - 1; dim >= 0; --dim) {
    index += coords[dim] * stride;
    stride *= shape[dim] + (dim + 1 == static_cast<int>(shape.size()) ? padding : 0);
  }
  return index;
}

struct Simulation {
  /// Buffer index -> the tile coordinates of the element stored there, for
  /// every store (a second store to one index is a failure of its own).
  std::multimap<int64_t, Basis> stored;
  /// Matrices whose eight row addresses are not eight distinct 16-byte
  /// positions of the 128-byte bank line.
  unsigned conflictedMatrices = 0;
  bool misalignedRow = false;
};

Simulation simulate(const LinearLayout &layout, const MatrixStores &stores, int64_t padding) {
  Simulation result;
  for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
    for (auto [instruction, fragments] : llvm::enumerate(stores.fragments)) {
      int64_t rowAddress[kLanes];
      for (unsigned lane = 0; lane < kLanes; ++lane) {
        rowAddress[lane] = rowMajorIndex(stores.rowStarts.coordinates(instruction, lane, warp),
                                         layout.shape, padding);
        if (lane < 8 * stores.matrices && rowAddress[lane] % 8 != 0)
          result.misalignedRow = true;
      }
      for (unsigned matrix = 0; matrix < stores.matrices; ++matrix) {
        unsigned chunks = 0;
        for (unsigned row = 0; row < 8; ++row)
          chunks |= 1u << ((rowAddress[8 * matrix + row] * 2 / 16) % 8);
        result.conflictedMatrices += chunks != 0xff;
        for (unsigned lane = 0; lane < kLanes; ++lane)
          for (unsigned half = 0; half < 2; ++half) {
            int64_t index = rowAddress[8 * matrix + lane / 4] + 2 * (lane % 4) + half;
            result.stored.emplace(index,
                                  layout.coordinates(fragments[matrix] + half, lane, warp));
          }
      }
    }
  return result;
}

/// Every element of the tile stored once at its own index, nothing else.
void expectStoresTile(const LinearLayout &layout, int64_t padding = kPadding) {
  std::optional<MatrixStores> stores = planMatrixStores(layout);
  ASSERT_TRUE(stores.has_value()) << layout.str();
  Simulation sim = simulate(layout, *stores, padding);
  EXPECT_FALSE(sim.misalignedRow) << layout.str();
  int64_t elements = 1;
  for (int64_t extent : layout.shape)
    elements *= extent;
  EXPECT_EQ(sim.stored.size(), size_t(elements)) << layout.str();
  for (const auto &[index, coords] : sim.stored) {
    EXPECT_EQ(sim.stored.count(index), 1u) << "index " << index << " of " << layout.str();
    EXPECT_EQ(rowMajorIndex(coords, layout.shape, padding), index) << layout.str();
  }
  // Rows of 8 elements plus the padding are 32 bytes apart, two to a bank
  // line, as for the scalar stores.
  if (padding == kPadding && layout.shape.back() % 16 == 0) {
    EXPECT_EQ(sim.conflictedMatrices, 0u) << layout.str();
  }
}

class MatrixStoresOnAccumulators : public ::testing::Test {
protected:
  LinearLayout accumulator(llvm::StringRef chip, int64_t m, int64_t n, int64_t k,
                           unsigned warps, llvm::StringRef expectedName) {
    llvm::Expected<GpuTarget> target = GpuTarget::parse(chip);
    EXPECT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
    DotProblem problem{m, n, k, b.getBF16Type(), b.getBF16Type(), b.getF32Type()};
    std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(*target, problem, warps);
    EXPECT_TRUE(dot && dot->name().starts_with(expectedName));
    return dot ? dot->accumulatorLayout() : LinearLayout{};
  }

  MLIRContext context;
  Builder b{&context};
};

TEST_F(MatrixStoresOnAccumulators, WgmmaTilesOfTheGemmConfigs) {
  expectStoresTile(accumulator("cuda:sm_90a", 128, 256, 64, 8, "wgmma"));
  expectStoresTile(accumulator("cuda:sm_90a", 256, 128, 64, 8, "wgmma"));
  expectStoresTile(accumulator("cuda:sm_90a", 128, 128, 64, 4, "wgmma"));
  expectStoresTile(accumulator("cuda:sm_90a", 64, 128, 32, 4, "wgmma"));
  expectStoresTile(accumulator("cuda:sm_90a", 64, 16, 32, 4, "wgmma"));
}

TEST_F(MatrixStoresOnAccumulators, MmaSyncTiles) {
  expectStoresTile(accumulator("cuda:sm_80", 64, 64, 32, 2, "mma.sync"));
  expectStoresTile(accumulator("cuda:sm_80", 128, 128, 32, 4, "mma.sync"));
  expectStoresTile(accumulator("cuda:sm_80", 16, 8, 16, 1, "mma.sync"));
}

TEST_F(MatrixStoresOnAccumulators, UnpaddedRowsStillLandInPlace) {
  expectStoresTile(accumulator("cuda:sm_90a", 64, 64, 16, 4, "wgmma"), /*padding=*/0);
}

LinearLayout accumulatorFragmentRepeated() {
  LinearLayout layout;
  layout.shape = {16, 64};
  layout.registers = {{0, 1}, {0, 8}, {0, 16}, {0, 32}, {8, 0}};
  layout.lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  return layout;
}

TEST(MatrixStores, FourMatricesPerStoreWhereRegistersAllow) {
  std::optional<MatrixStores> stores = planMatrixStores(accumulatorFragmentRepeated());
  ASSERT_TRUE(stores.has_value());
  EXPECT_EQ(stores->matrices, 4u);
  EXPECT_EQ(stores->fragments.size(), 4u); // 64 pairs over 16 per store
  expectStoresTile(accumulatorFragmentRepeated());
}

TEST(MatrixStores, OneAndTwoMatricesForSmallTiles) {
  LinearLayout one;
  one.shape = {8, 8};
  one.registers = {{0, 1}};
  one.lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  std::optional<MatrixStores> stores = planMatrixStores(one);
  ASSERT_TRUE(stores.has_value());
  EXPECT_EQ(stores->matrices, 1u);
  expectStoresTile(one);

  LinearLayout two = one;
  two.shape = {16, 8};
  two.registers.push_back({8, 0});
  stores = planMatrixStores(two);
  ASSERT_TRUE(stores.has_value());
  EXPECT_EQ(stores->matrices, 2u);
  expectStoresTile(two);
}

TEST(MatrixStores, CopiesInRegistersAreSkipped) {
  // Register bit 1 on a zero basis: registers 2 and 3 copy 0 and 1.
  LinearLayout layout = accumulatorFragmentRepeated();
  layout.registers.insert(layout.registers.begin() + 1, Basis{0, 0});
  expectStoresTile(layout);
}

TEST(MatrixStores, RowsPermutedByXorStillLand) {
  // A register basis that moves a row the lanes also reach XORs the rows of
  // its matrices; the lanes' row addresses follow.
  LinearLayout layout;
  layout.shape = {16, 16};
  layout.registers = {{0, 1}, {9, 0}, {0, 8}};
  layout.lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  expectStoresTile(layout);
}

TEST(MatrixStores, ThreeDimensionalTiles) {
  LinearLayout layout;
  layout.shape = {2, 16, 16};
  layout.registers = {{0, 0, 1}, {0, 0, 8}, {1, 0, 0}};
  layout.lanes = {{0, 0, 2}, {0, 0, 4}, {0, 1, 0}, {0, 2, 0}, {0, 4, 0}};
  layout.warps = {{0, 8, 0}};
  expectStoresTile(layout);
}

TEST(MatrixStores, LayoutsThatAreNotFragmentsFallBack) {
  // Rows of 8-element runs (the epilogue's destination).
  LinearLayout rows;
  rows.shape = {16, 64};
  rows.registers = {{0, 1}, {0, 2}, {0, 4}, {4, 0}, {8, 0}};
  rows.lanes = {{0, 8}, {0, 16}, {0, 32}, {1, 0}, {2, 0}};
  EXPECT_FALSE(planMatrixStores(rows).has_value());

  // A column move of 4 outside the fragment would split a 16-byte row.
  LinearLayout split = accumulatorFragmentRepeated();
  split.registers[1] = {0, 4};
  split.lanes[1] = {0, 8};
  EXPECT_FALSE(planMatrixStores(split).has_value());

  // Lane bits 2 to 4 reaching a row twice.
  LinearLayout repeated = accumulatorFragmentRepeated();
  repeated.lanes[4] = {3, 0};
  EXPECT_FALSE(planMatrixStores(repeated).has_value());

  // A warp that moves 4 columns.
  LinearLayout warpColumns = accumulatorFragmentRepeated();
  warpColumns.shape = {16, 128};
  warpColumns.warps = {{0, 4}};
  EXPECT_FALSE(planMatrixStores(warpColumns).has_value());

  // 1-D tiles have no rows.
  LinearLayout flat;
  flat.shape = {256};
  flat.registers = {{1}};
  flat.lanes = {{2}, {4}, {8}, {16}, {32}};
  flat.warps = {{64}, {128}};
  EXPECT_FALSE(planMatrixStores(flat).has_value());
}

} // namespace
} // namespace tessera::gpu

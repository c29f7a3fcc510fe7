// The register renamings of shape ops and layout conversions, checked against
// brute force: for every register of every thread, the renamed operand
// register must hold the element the result register needs.
#include "lowering/gpu/distribute/DistributedValues.h"

#include <gtest/gtest.h>

using namespace tessera::gpu;

namespace {

using Map = std::function<std::pair<unsigned, Basis>(const Basis &)>;

std::pair<unsigned, Basis> identity(const Basis &coords) { return {0, coords}; }

/// Every thread finds what it needs where the renaming says.
void expectRenamingHolds(const LinearLayout &result, llvm::ArrayRef<LinearLayout> operands,
                         const Map &map, llvm::ArrayRef<RegisterSource> sources) {
  ASSERT_EQ(sources.size(), result.numRegisters());
  for (unsigned warp = 0; warp < result.numWarps(); ++warp)
    for (unsigned lane = 0; lane < result.numLanes(); ++lane)
      for (unsigned reg = 0; reg < result.numRegisters(); ++reg) {
        auto [operand, needed] = map(result.coordinates(reg, lane, warp));
        ASSERT_EQ(operand, sources[reg].operand);
        EXPECT_EQ(needed, operands[operand].coordinates(sources[reg].reg, lane, warp))
            << "register " << reg << " lane " << lane << " warp " << warp;
      }
}

LinearLayout blocked1d(int64_t size, int64_t perThread, unsigned warpSize, unsigned numWarps) {
  return LinearLayout::blocked({size}, {perThread}, {warpSize}, {numWarps}, {0});
}

TEST(RegisterRenaming, SameLayoutIsIdentity) {
  LinearLayout layout = blocked1d(256, 4, 32, 2);
  auto sources = registerRenaming(layout, layout, identity);
  ASSERT_TRUE(sources);
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
    EXPECT_EQ((*sources)[reg], (RegisterSource{0, reg}));
}

TEST(RegisterRenaming, PermutedRegisters) {
  LinearLayout from = blocked1d(64, 4, 8, 2);
  LinearLayout to = from;
  std::swap(to.registers[0], to.registers[1]);
  auto sources = registerRenaming(to, from, identity);
  ASSERT_TRUE(sources);
  EXPECT_EQ((*sources)[1], (RegisterSource{0, 2}));
  EXPECT_EQ((*sources)[2], (RegisterSource{0, 1}));
  expectRenamingHolds(to, from, identity, *sources);
}

TEST(RegisterRenaming, ElementsChangingThreadsAreRefused) {
  LinearLayout from = blocked1d(64, 2, 8, 2);
  LinearLayout to = blocked1d(64, 4, 8, 2);
  EXPECT_FALSE(registerRenaming(to, from, identity));
}

TEST(RegisterRenaming, CopiesMayReadAnyHolder) {
  // The result duplicates the tile over the second warp; the operand holds
  // it once per warp pair as well, so any copy is in the same thread.
  LinearLayout from = blocked1d(16, 2, 8, 2);
  from.warps[0] = Basis{0};
  LinearLayout to = from;
  to.registers.push_back(Basis{0});
  auto sources = registerRenaming(to, from, identity);
  ASSERT_TRUE(sources);
  EXPECT_EQ((*sources)[2], (RegisterSource{0, 0}));
  expectRenamingHolds(to, from, identity, *sources);
}

TEST(RegisterRenaming, JoinTakesRegisterBitZero) {
  LinearLayout half = blocked1d(64, 2, 8, 2);
  LinearLayout joined = half.joined();
  Map join = [](const Basis &coords) {
    return std::pair(static_cast<unsigned>(coords[1]), Basis{coords[0]});
  };
  auto sources = registerRenaming(joined, {half, half}, join);
  ASSERT_TRUE(sources);
  EXPECT_EQ((*sources)[2], (RegisterSource{0, 1}));
  EXPECT_EQ((*sources)[3], (RegisterSource{1, 1}));
  expectRenamingHolds(joined, {half, half}, join, *sources);
}

TEST(RegisterRenaming, ReshapeAndTransposeFollowTheLayoutTransforms) {
  LinearLayout flat = blocked1d(128, 4, 8, 2);
  LinearLayout square = flat.reshaped({8, 16});
  Map reshape = [](const Basis &coords) {
    return std::pair(0u, rowMajorCoordinates({128}, rowMajorIndex({8, 16}, coords)));
  };
  auto reshaped = registerRenaming(square, flat, reshape);
  ASSERT_TRUE(reshaped);
  expectRenamingHolds(square, flat, reshape, *reshaped);

  LinearLayout transposed = square.transposed({1, 0});
  Map trans = [](const Basis &coords) { return std::pair(0u, Basis{coords[1], coords[0]}); };
  auto swapped = registerRenaming(transposed, square, trans);
  ASSERT_TRUE(swapped);
  expectRenamingHolds(transposed, square, trans, *swapped);
}

TEST(RegisterRenaming, BroadcastReadsTheSourceCopy) {
  LinearLayout result = LinearLayout::blocked({8, 32}, {1, 4}, {1, 8}, {2, 1}, {1, 0});
  LinearLayout source = result.broadcastSource({1, 32});
  Map broadcast = [](const Basis &coords) { return std::pair(0u, Basis{0, coords[1]}); };
  auto sources = registerRenaming(result, source, broadcast);
  ASSERT_TRUE(sources);
  expectRenamingHolds(result, source, broadcast, *sources);
}

TEST(RegisterRenaming, CatTakesTheHighestRegisterBit) {
  LinearLayout half = LinearLayout::blocked({16, 8}, {1, 2}, {2, 4}, {2, 1}, {1, 0});
  LinearLayout both = half.concatenated(0);
  Map cat = [](const Basis &coords) {
    return std::pair(static_cast<unsigned>(coords[0] / 16), Basis{coords[0] % 16, coords[1]});
  };
  auto sources = registerRenaming(both, {half, half}, cat);
  ASSERT_TRUE(sources);
  expectRenamingHolds(both, {half, half}, cat, *sources);
  // The first half of the registers comes from lhs.
  EXPECT_EQ((*sources)[0].operand, 0u);
  EXPECT_EQ((*sources)[half.numRegisters()].operand, 1u);
}

TEST(RowMajor, IndexAndCoordinatesAreInverse) {
  llvm::SmallVector<int64_t> shape{4, 2, 8};
  for (int64_t index = 0; index < 64; ++index)
    EXPECT_EQ(rowMajorIndex(shape, rowMajorCoordinates(shape, index)), index);
  EXPECT_EQ(rowMajorIndex(shape, {1, 1, 3}), 16 + 8 + 3);
}

} // namespace

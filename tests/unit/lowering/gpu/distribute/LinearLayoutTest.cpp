// LinearLayout (lowering/gpu/LinearLayout.h) checked against independent
// enumerations: each test recomputes who holds which element by the textbook
// formula of the layout or transform and compares for every register, lane
// and warp.
#include "lowering/gpu/LinearLayout.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace tessera::gpu {
namespace {

using Coords = llvm::SmallVector<int64_t, 4>;

int64_t product(llvm::ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values)
    result *= v;
  return result;
}

/// Splits `index` into digits of the given radices, the radix of
/// `order[0]` varying fastest (Triton's delinearization of thread ids).
Coords digits(int64_t index, llvm::ArrayRef<int64_t> radices, llvm::ArrayRef<unsigned> order) {
  Coords out(radices.size(), 0);
  for (unsigned dim : order) {
    out[dim] = index % radices[dim];
    index /= radices[dim];
  }
  return out;
}

/// The element register `reg` of (lane, warp) holds in Triton's
/// BlockedEncoding, computed from the classic formula rather than bases:
/// coordinate = rep * ctaTile + warp * (spt * tpw) + lane * spt + elem, wrapped
/// into the tile; a register is an element of the per-thread block first,
/// then a repetition of the CTA tile.
Coords blockedReference(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> spt,
                        llvm::ArrayRef<int64_t> tpw, llvm::ArrayRef<int64_t> wpc,
                        llvm::ArrayRef<unsigned> order, int64_t reg, int64_t lane, int64_t warp) {
  unsigned rank = shape.size();
  Coords reps(rank);
  for (unsigned d = 0; d < rank; ++d)
    reps[d] = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d] * wpc[d]));
  Coords elem = digits(reg % product(spt), spt, order);
  Coords rep = digits(reg / product(spt), reps, order);
  Coords laneAt = digits(lane, tpw, order), warpAt = digits(warp, wpc, order);
  Coords out(rank);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t cta = spt[d] * tpw[d] * wpc[d];
    out[d] = (rep[d] * cta + warpAt[d] * spt[d] * tpw[d] + laneAt[d] * spt[d] + elem[d]) % shape[d];
  }
  return out;
}

void expectBlockedMatchesReference(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> spt,
                                   llvm::ArrayRef<int64_t> tpw, llvm::ArrayRef<int64_t> wpc,
                                   llvm::ArrayRef<unsigned> order) {
  LinearLayout layout = LinearLayout::blocked(shape, spt, tpw, wpc, order);
  ASSERT_TRUE(layout.isValid()) << layout.str();
  EXPECT_EQ(layout.numLanes(), product(tpw));
  EXPECT_EQ(layout.numWarps(), product(wpc));
  for (unsigned w = 0; w < layout.numWarps(); ++w)
    for (unsigned l = 0; l < layout.numLanes(); ++l)
      for (unsigned r = 0; r < layout.numRegisters(); ++r)
        ASSERT_EQ(layout.coordinates(r, l, w), blockedReference(shape, spt, tpw, wpc, order, r, l, w))
            << layout.str() << " reg " << r << " lane " << l << " warp " << w;
}

/// Every (register, lane, warp) of `layout`, with its coordinates.
template <typename Fn>
void forEachHolder(const LinearLayout &layout, Fn fn) {
  for (unsigned w = 0; w < layout.numWarps(); ++w)
    for (unsigned l = 0; l < layout.numLanes(); ++l)
      for (unsigned r = 0; r < layout.numRegisters(); ++r)
        fn(r, l, w, layout.coordinates(r, l, w));
}

/// How many hardware indices hold each element.
std::map<Coords, int> multiplicity(const LinearLayout &layout) {
  std::map<Coords, int> count;
  forEachHolder(layout, [&](unsigned, unsigned, unsigned, const Coords &c) { ++count[c]; });
  return count;
}

TEST(LinearLayoutTest, CoordinatesXorTheBasesOfTheSetBits) {
  LinearLayout layout;
  layout.shape = {8, 8};
  layout.registers = {{0, 1}, {4, 0}};
  layout.lanes = {{0, 2}, {1, 0}};
  layout.warps = {{2, 4}};
  EXPECT_EQ(layout.coordinates(0, 0, 0), (Coords{0, 0}));
  EXPECT_EQ(layout.coordinates(3, 0, 0), (Coords{4, 1}));
  EXPECT_EQ(layout.coordinates(1, 3, 0), (Coords{1, 3}));
  EXPECT_EQ(layout.coordinates(3, 3, 1), (Coords{4 ^ 1 ^ 2, 1 ^ 2 ^ 4}));
  EXPECT_EQ(layout.registerOffset(2), (Coords{4, 0}));
  EXPECT_EQ(layout.numRegisters(), 4u);
  EXPECT_EQ(layout.numLanes(), 4u);
  EXPECT_EQ(layout.numWarps(), 2u);
}

TEST(LinearLayoutTest, BlockedMatchesTheClassicFormula) {
  // Exact fit, one dimension.
  expectBlockedMatchesReference({256}, {2}, {32}, {4}, {0});
  // Row-major 2-D with vectors along the columns.
  expectBlockedMatchesReference({64, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  // Column-major order.
  expectBlockedMatchesReference({32, 16}, {2, 1}, {8, 4}, {1, 2}, {0, 1});
  // Tile larger than the CTA: repetitions in registers along both dims.
  expectBlockedMatchesReference({128, 32}, {1, 2}, {4, 8}, {2, 1}, {1, 0});
  // Tile smaller than the CTA: lanes and warps wrap onto held elements.
  expectBlockedMatchesReference({4, 8}, {1, 2}, {4, 8}, {2, 2}, {1, 0});
  // Three dimensions.
  expectBlockedMatchesReference({2, 8, 16}, {1, 1, 4}, {1, 4, 8}, {2, 1, 2}, {2, 1, 0});
}

TEST(LinearLayoutTest, BlockedWrapDuplicatesEveryElementEqually) {
  LinearLayout layout = LinearLayout::blocked({4, 8}, {1, 2}, {4, 8}, {2, 2}, {1, 0});
  std::map<Coords, int> count = multiplicity(layout);
  EXPECT_EQ(count.size(), 32u);
  // 128 threads x 2 registers over 32 elements.
  for (auto &[coords, n] : count)
    EXPECT_EQ(n, 8) << coords[0] << "," << coords[1];
}

TEST(LinearLayoutTest, DefaultFor1DSpreadsVectorsOverLanesThenWarps) {
  LinearLayout layout = LinearLayout::defaultFor({1024}, 32, 4, 4);
  ASSERT_TRUE(layout.isValid());
  EXPECT_EQ(layout.numLanes(), 32u);
  EXPECT_EQ(layout.numWarps(), 4u);
  EXPECT_EQ(layout.numRegisters(), 8u);
  // Lane l of warp w holds 4 consecutive elements starting at 4 * (32 w + l),
  // and again 512 further on.
  for (unsigned w = 0; w < 4; ++w)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned r = 0; r < 8; ++r)
        EXPECT_EQ(layout.coordinates(r, l, w)[0], (r / 4) * 512 + 4 * (32 * w + l) + r % 4);
}

TEST(LinearLayoutTest, DefaultFor2DIsRowMajorAndCoalesced) {
  LinearLayout layout = LinearLayout::defaultFor({64, 32}, 32, 4, 4);
  ASSERT_TRUE(layout.isValid());
  EXPECT_EQ(layout, LinearLayout::blocked({64, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0}));
  // One element per holder: no duplication.
  for (auto &[coords, n] : multiplicity(layout))
    EXPECT_EQ(n, 1);
}

// Warps go along the rows where the rows can take them all (a row
// reduction stays within a warp), else all along the columns rather than
// split over both (as Triton's blocked layouts): a [2, 1024] block on 4 warps.
TEST(LinearLayoutTest, DefaultFor2DKeepsWarpsInOneDimension) {
  EXPECT_EQ(LinearLayout::defaultFor({8, 1024}, 32, 4, 4),
            LinearLayout::blocked({8, 1024}, {1, 4}, {1, 32}, {4, 1}, {1, 0}));
  EXPECT_EQ(LinearLayout::defaultFor({2, 1024}, 32, 4, 4),
            LinearLayout::blocked({2, 1024}, {1, 4}, {1, 32}, {1, 4}, {1, 0}));
  // Where neither can take them all alone, the columns take what they have
  // room for first.
  EXPECT_EQ(LinearLayout::defaultFor({4, 512}, 32, 8, 4),
            LinearLayout::blocked({4, 512}, {1, 4}, {1, 32}, {2, 4}, {1, 0}));
}

TEST(LinearLayoutTest, DefaultForIgnoresUnitDimensions) {
  LinearLayout flat = LinearLayout::defaultFor({128}, 32, 4, 4);
  LinearLayout column = LinearLayout::defaultFor({128, 1}, 32, 4, 4);
  LinearLayout row = LinearLayout::defaultFor({1, 128}, 32, 4, 4);
  ASSERT_TRUE(column.isValid());
  ASSERT_TRUE(row.isValid());
  EXPECT_EQ(column, flat.expandDims(1));
  EXPECT_EQ(row, flat.expandDims(0));
}

TEST(LinearLayoutTest, DefaultForSmallTilesDuplicatesOverSpareThreads) {
  LinearLayout layout = LinearLayout::defaultFor({16}, 32, 4, 4);
  ASSERT_TRUE(layout.isValid());
  EXPECT_EQ(layout.numLanes(), 32u);
  EXPECT_EQ(layout.numWarps(), 4u);
  std::map<Coords, int> count = multiplicity(layout);
  EXPECT_EQ(count.size(), 16u);
  for (auto &[coords, n] : count)
    EXPECT_EQ(n, 32); // 128 threads x 4 registers / 16 elements
  // The vector is not split: each thread's 4 registers are 4 consecutive elements.
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned r = 0; r < 4; ++r)
      EXPECT_EQ(layout.coordinates(r, l, 0)[0] % 4, r);
}

TEST(LinearLayoutTest, ReducedDropsTheDimensionAndKeepsTheThreads) {
  LinearLayout layout = LinearLayout::defaultFor({32, 64}, 32, 4, 4);
  LinearLayout rows = layout.reduced(1);
  ASSERT_TRUE(rows.isValid()) << rows.str();
  EXPECT_EQ(rows.numLanes(), layout.numLanes());
  EXPECT_EQ(rows.numWarps(), layout.numWarps());
  // Every holder of (i, j) holds i after the reduction, in the register that
  // reducedRegister names.
  forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    EXPECT_EQ(rows.coordinates(layout.reducedRegister(1, r), l, w), (Coords{c[0]}));
  });
  // The registers that moved only along the columns are gone.
  EXPECT_EQ(rows.numRegisters(), layout.numRegisters() / 4);
}

TEST(LinearLayoutTest, ReducedRegisterKeepsDuplicateRegisterBits) {
  LinearLayout layout;
  layout.shape = {4, 4};
  layout.registers = {{0, 1}, {0, 0}, {1, 0}};
  layout.lanes = {{0, 2}, {2, 0}};
  LinearLayout rows = layout.reduced(1);
  ASSERT_TRUE(rows.isValid()) << rows.str();
  EXPECT_EQ(rows.registers.size(), 2u);
  for (unsigned r = 0; r < layout.numRegisters(); ++r)
    EXPECT_EQ(rows.registerOffset(layout.reducedRegister(1, r))[0], layout.registerOffset(r)[0]);
  EXPECT_EQ(layout.reducedRegister(1, 0b101), 0b10u);
  EXPECT_EQ(layout.reducedRegister(1, 0b010), 0b01u);
}

TEST(LinearLayoutTest, IsValidRejectsMalformedLayouts) {
  LinearLayout good = LinearLayout::defaultFor({16, 16}, 32, 2, 4);
  ASSERT_TRUE(good.isValid());

  LinearLayout nonPowerOfTwo = good;
  nonPowerOfTwo.shape = {12, 16};
  EXPECT_FALSE(nonPowerOfTwo.isValid());

  LinearLayout wrongRank = good;
  wrongRank.lanes[0] = {0, 1, 0};
  EXPECT_FALSE(wrongRank.isValid());

  LinearLayout outOfRange = good;
  outOfRange.registers[0] = {0, 16};
  EXPECT_FALSE(outOfRange.isValid());

  LinearLayout repeatedBit = good;
  repeatedBit.registers[0] = repeatedBit.registers[1];
  EXPECT_FALSE(repeatedBit.isValid());

  LinearLayout tooFew = good;
  tooFew.warps.pop_back();
  EXPECT_FALSE(tooFew.isValid());

  LinearLayout negative = good;
  negative.registers[0] = {0, -1};
  EXPECT_FALSE(negative.isValid());

  // A swizzle that is onto is valid; one that maps two holders to one
  // element is not.
  LinearLayout swizzled;
  swizzled.shape = {4, 4};
  swizzled.registers = {{0, 1}, {0, 2}};
  swizzled.lanes = {{1, 3}, {2, 3}};
  EXPECT_TRUE(swizzled.isValid());
  LinearLayout collapsed = swizzled;
  collapsed.lanes = {{3, 3}, {3, 0}};
  EXPECT_FALSE(collapsed.isValid());
}

TEST(LinearLayoutTest, IsDuplicateRegisterFollowsZeroBases) {
  LinearLayout layout;
  layout.shape = {4};
  layout.registers = {{1}, {0}, {2}};
  EXPECT_FALSE(layout.isDuplicateRegister(0b101));
  EXPECT_TRUE(layout.isDuplicateRegister(0b010));
  EXPECT_TRUE(layout.isDuplicateRegister(0b111));
  // A copy's first copy holds the same element and is no copy itself.
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg) {
    unsigned first = layout.firstCopy(reg);
    EXPECT_FALSE(layout.isDuplicateRegister(first)) << reg;
    EXPECT_EQ(layout.registerOffset(first), layout.registerOffset(reg)) << reg;
    if (!layout.isDuplicateRegister(reg))
      EXPECT_EQ(first, reg);
  }
  EXPECT_EQ(layout.firstCopy(0b111), 0b101u);
}

TEST(LinearLayoutTest, ContiguousRegistersCountsTheLeadingRunAlongTheLastDimension) {
  // Checked against the definition: registers k*run .. k*run + run - 1 of
  // every thread hold consecutive elements of one row, in order.
  auto isRun = [](const LinearLayout &layout, unsigned run) {
    for (unsigned start = 0; start < layout.numRegisters(); start += run)
      for (unsigned i = 1; i < run; ++i) {
        Coords first = layout.registerOffset(start), next = layout.registerOffset(start + i);
        Coords expected = first;
        expected.back() += i;
        if (next != expected)
          return false;
      }
    return true;
  };
  for (auto [shape, vector, run] :
       std::vector<std::tuple<Coords, unsigned, unsigned>>{{{1024}, 4, 4},
                                                           {{64, 32}, 4, 4},
                                                           {{64, 32}, 8, 8},
                                                           {{64, 2}, 4, 2},
                                                           {{256, 1}, 4, 1},
                                                           {{128}, 1, 1}}) {
    LinearLayout layout = LinearLayout::defaultFor(shape, 32, 4, vector);
    EXPECT_EQ(layout.contiguousRegisters(), run) << layout.str();
    EXPECT_TRUE(isRun(layout, layout.contiguousRegisters())) << layout.str();
    if (layout.numRegisters() > run)
      EXPECT_FALSE(isRun(layout, 2 * run)) << layout.str();
  }
  LinearLayout strided;
  strided.shape = {8};
  strided.registers = {{2}, {1}, {4}};
  EXPECT_EQ(strided.contiguousRegisters(), 1u);
  LinearLayout duplicate;
  duplicate.shape = {4, 4};
  duplicate.registers = {{0, 1}, {0, 0}};
  EXPECT_EQ(duplicate.contiguousRegisters(), 2u);
  // Other bases XOR into a run's first element: registers 8..15 of a thread
  // moved by 9 hold 9, 8, 11, 10, ...; a lane moved by 5 holds 5, 4.
  LinearLayout xorRegister;
  xorRegister.shape = {16};
  xorRegister.registers = {{1}, {2}, {4}, {9}};
  EXPECT_TRUE(xorRegister.isValid());
  EXPECT_FALSE(isRun(xorRegister, 8));
  EXPECT_EQ(xorRegister.contiguousRegisters(), 1u);
  LinearLayout xorLane;
  xorLane.shape = {8};
  xorLane.registers = {{1}};
  xorLane.lanes = {{2}, {5}};
  EXPECT_TRUE(xorLane.isValid());
  EXPECT_EQ(xorLane.contiguousRegisters(), 1u);
  xorLane.lanes = {{2}, {4}};
  EXPECT_EQ(xorLane.contiguousRegisters(), 2u);
}

TEST(LinearLayoutTest, RegisterRunAlongFindsRunsOfRowsBetweenColumns) {
  // 4 rows of 8 columns a thread: registers 0..7 are a row's columns, and
  // registers r, r + 8, r + 16, r + 24 its column's 4 rows, in order.
  LinearLayout rows = LinearLayout::defaultFor({64, 128}, 32, 8, 8, 4);
  ASSERT_TRUE(rows.isValid()) << rows.str();
  EXPECT_EQ(rows.contiguousRegisters(), 8u);
  LinearLayout::RegisterRun run = rows.registerRunAlong(0);
  EXPECT_EQ(run.length, 4u) << rows.str();
  EXPECT_EQ(run.firstBit, 3u) << rows.str();
  for (unsigned reg = 0; reg < 8; ++reg)
    for (unsigned i = 0; i < 4; ++i) {
      Coords expected = rows.registerOffset(reg);
      expected[0] += i;
      EXPECT_EQ(rows.registerOffset(reg + 8 * i), expected);
    }
  // The default layout holds one row per thread at a time.
  LinearLayout plain = LinearLayout::defaultFor({64, 128}, 32, 8, 8);
  EXPECT_EQ(plain.registerRunAlong(0).length, 1u) << plain.str();
  // Two rows a run where the next register bit jumps by 4 rows.
  LinearLayout layout;
  layout.shape = {8, 2};
  layout.registers = {{0, 1}, {1, 0}, {4, 0}};
  layout.lanes = {{2, 0}};
  EXPECT_EQ(layout.registerRunAlong(0).length, 2u);
  EXPECT_EQ(layout.registerRunAlong(0).firstBit, 1u);
  layout.registers = {{0, 1}, {1, 0}, {2, 0}};
  layout.lanes = {{4, 0}};
  EXPECT_EQ(layout.registerRunAlong(0).length, 4u);
  // A lane moved by 6 rows XORs into a run of 4's first row: runs of 2.
  layout.lanes = {{6, 0}};
  EXPECT_EQ(layout.registerRunAlong(0).length, 2u);
  // Along the columns the unit register is bit 0: a run of 2.
  EXPECT_EQ(layout.registerRunAlong(1).length, 2u);
  EXPECT_EQ(layout.registerRunAlong(1).firstBit, 0u);
}

// The shape transforms: every holder keeps its element, at the transformed
// coordinates, in the same register.

TEST(LinearLayoutTest, ExpandDimsInsertsAZeroCoordinate) {
  LinearLayout layout = LinearLayout::defaultFor({32, 16}, 32, 4, 2);
  for (unsigned axis = 0; axis <= 2; ++axis) {
    LinearLayout expanded = layout.expandDims(axis);
    ASSERT_TRUE(expanded.isValid()) << expanded.str();
    EXPECT_EQ(expanded.shape[axis], 1);
    forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, Coords c) {
      c.insert(c.begin() + axis, 0);
      EXPECT_EQ(expanded.coordinates(r, l, w), c);
    });
    EXPECT_EQ(expanded.reduced(axis), layout);
  }
}

TEST(LinearLayoutTest, ReshapedPreservesTheRowMajorIndex) {
  LinearLayout layout = LinearLayout::defaultFor({16, 64}, 32, 4, 4);
  auto flatOf = [](const Coords &c, llvm::ArrayRef<int64_t> shape) {
    int64_t flat = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      flat = flat * shape[d] + c[d];
    return flat;
  };
  for (llvm::SmallVector<int64_t, 4> newShape :
       {llvm::SmallVector<int64_t, 4>{1024}, {4, 4, 64}, {64, 16}, {2, 8, 2, 32}}) {
    LinearLayout reshaped = layout.reshaped(newShape);
    ASSERT_TRUE(reshaped.isValid()) << reshaped.str();
    forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
      EXPECT_EQ(flatOf(reshaped.coordinates(r, l, w), newShape), flatOf(c, layout.shape));
    });
    EXPECT_EQ(reshaped.reshaped(layout.shape), layout);
  }
}

TEST(LinearLayoutTest, TransposedPermutesCoordinates) {
  LinearLayout layout = LinearLayout::defaultFor({2, 8, 32}, 32, 4, 4);
  llvm::SmallVector<int32_t> order = {2, 0, 1};
  LinearLayout transposed = layout.transposed(order);
  ASSERT_TRUE(transposed.isValid()) << transposed.str();
  EXPECT_EQ(transposed.shape, (llvm::SmallVector<int64_t, 4>{32, 2, 8}));
  forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    EXPECT_EQ(transposed.coordinates(r, l, w), (Coords{c[2], c[0], c[1]}));
  });
  // The inverse permutation of {2, 0, 1} is {1, 2, 0}.
  EXPECT_EQ(transposed.transposed({1, 2, 0}), layout);
  EXPECT_EQ(transposed.untransposed(order), layout);
}

TEST(LinearLayoutTest, BroadcastSourceHoldsTheRowEveryResultHolderNeeds) {
  LinearLayout result = LinearLayout::defaultFor({32, 64}, 32, 4, 4);
  LinearLayout source = result.broadcastSource({32, 1});
  ASSERT_TRUE(source.isValid()) << source.str();
  EXPECT_EQ(source.numRegisters(), result.numRegisters());
  // Each holder of result element (i, j) holds source element (i, 0).
  forEachHolder(result, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    EXPECT_EQ(source.coordinates(r, l, w), (Coords{c[0], 0}));
  });
  // Registers that only moved along the broadcast dimension are duplicates.
  unsigned duplicates = 0;
  for (unsigned r = 0; r < source.numRegisters(); ++r)
    duplicates += source.isDuplicateRegister(r);
  EXPECT_EQ(duplicates, source.numRegisters() - source.numRegisters() / 4);
}

TEST(LinearLayoutTest, ReduceExpandBroadcastIsARegisterRenaming) {
  // Softmax's row maximum: reduce along the columns, expand, broadcast back.
  LinearLayout x = LinearLayout::defaultFor({32, 128}, 32, 4, 4);
  LinearLayout rowMax = x.reduced(1).expandDims(1);
  LinearLayout wanted = x.broadcastSource({32, 1});
  std::optional<llvm::SmallVector<unsigned>> renaming = wanted.registerRenamingFrom(rowMax);
  ASSERT_TRUE(renaming);
  forEachHolder(wanted, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    EXPECT_EQ(rowMax.coordinates((*renaming)[r], l, w), c);
  });
  // A layout that moves rows to other lanes is not a renaming.
  LinearLayout other =
      LinearLayout::blocked({32, 128}, {1, 4}, {8, 4}, {4, 1}, {1, 0}).broadcastSource({32, 1});
  EXPECT_FALSE(other.registerRenamingFrom(rowMax));
}

TEST(LinearLayoutTest, JoinedAndSplitHalvesUseRegisterBitZero) {
  LinearLayout layout = LinearLayout::defaultFor({64}, 32, 2, 1);
  LinearLayout joined = layout.joined();
  ASSERT_TRUE(joined.isValid()) << joined.str();
  EXPECT_EQ(joined.numRegisters(), 2 * layout.numRegisters());
  forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    EXPECT_EQ(joined.coordinates(2 * r, l, w), (Coords{c[0], 0}));
    EXPECT_EQ(joined.coordinates(2 * r + 1, l, w), (Coords{c[0], 1}));
  });
  EXPECT_EQ(joined.lastDimRegisterBit(), std::optional<unsigned>(0));
  EXPECT_EQ(joined.splitHalves(), std::optional<LinearLayout>(layout));

  // The pair in lanes rather than registers cannot be split in place.
  LinearLayout pairInLanes = LinearLayout::defaultFor({64, 2}, 32, 2, 1);
  ASSERT_TRUE(pairInLanes.isValid());
  EXPECT_FALSE(pairInLanes.lastDimRegisterBit());
  EXPECT_FALSE(pairInLanes.splitHalves());
  // With vectors of two the default layout already holds pairs in registers.
  LinearLayout pairInRegisters = LinearLayout::defaultFor({64, 2}, 32, 2, 2);
  EXPECT_EQ(pairInRegisters.lastDimRegisterBit(), std::optional<unsigned>(0));
  EXPECT_EQ(pairInRegisters.splitHalves(), pairInRegisters.reduced(1));
}

TEST(LinearLayoutTest, ConcatenatedPutsTheSecondHalfInTheTopRegisterBit) {
  LinearLayout layout = LinearLayout::defaultFor({16, 32}, 32, 2, 2);
  for (unsigned axis = 0; axis < 2; ++axis) {
    LinearLayout cat = layout.concatenated(axis);
    ASSERT_TRUE(cat.isValid()) << cat.str();
    unsigned half = layout.numRegisters();
    forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, Coords c) {
      EXPECT_EQ(cat.coordinates(r, l, w), c);
      c[axis] += layout.shape[axis];
      EXPECT_EQ(cat.coordinates(r + half, l, w), c);
    });
  }
}

TEST(LinearLayoutTest, WithLeadingBatchRepeatsTheLayoutInHighRegisters) {
  LinearLayout layout = LinearLayout::defaultFor({16, 16}, 32, 4, 2);
  LinearLayout batched = layout.withLeadingBatch(4);
  ASSERT_TRUE(batched.isValid()) << batched.str();
  unsigned perBatch = layout.numRegisters();
  forEachHolder(layout, [&](unsigned r, unsigned l, unsigned w, const Coords &c) {
    for (unsigned b = 0; b < 4; ++b)
      EXPECT_EQ(batched.coordinates(b * perBatch + r, l, w), (Coords{b, c[0], c[1]}));
  });
}

TEST(LinearLayoutTest, RegisterRenamingNeedsIdenticalThreads) {
  LinearLayout a = LinearLayout::defaultFor({64, 64}, 32, 4, 4);
  // Same threads, registers in another order.
  LinearLayout b = a;
  std::swap(b.registers[0], b.registers[1]);
  std::optional<llvm::SmallVector<unsigned>> renaming = b.registerRenamingFrom(a);
  ASSERT_TRUE(renaming);
  for (unsigned r = 0; r < b.numRegisters(); ++r)
    EXPECT_EQ(a.registerOffset((*renaming)[r]), b.registerOffset(r));
  EXPECT_EQ(a.registerRenamingFrom(a)->size(), a.numRegisters());
  // Lanes swapped with registers: data changes threads.
  LinearLayout c = a;
  std::swap(c.registers[0], c.lanes[0]);
  EXPECT_FALSE(c.registerRenamingFrom(a));
}

} // namespace
} // namespace tessera::gpu

// planExchangePieces (lowering/gpu/distribute/ExchangePieces.h) run on a CPU
// model of the exchange: for each piece, every thread stores its registers
// of the piece at their row-major index of a piece-sized buffer, then loads
// the registers of the target layout's piece from theirs (where a piece
// names thread bits, only the threads that have them). Every register of
// every thread of the target layout must receive the element it holds in
// the whole tile, once, and each piece must fill its buffer, on the layouts
// of a GEMM epilogue (a wgmma accumulator moved to rows of 16-byte runs), a
// transpose and others.
#include "lowering/gpu/distribute/DistributedValues.h"
#include "lowering/gpu/distribute/ExchangePieces.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>

namespace tessera::gpu {
namespace {

LinearLayout layoutOf(llvm::SmallVector<int64_t, 4> shape, llvm::SmallVector<Basis> registers,
                      llvm::SmallVector<Basis> lanes, llvm::SmallVector<Basis> warps) {
  LinearLayout layout{std::move(shape), std::move(registers), std::move(lanes), std::move(warps)};
  EXPECT_TRUE(layout.isValid()) << layout.str();
  return layout;
}

/// A 128x256 wgmma accumulator of 8 warps (two warpgroups along M) and the
/// layout its bf16 GEMM result is stored from (8 columns per thread).
LinearLayout wgmmaAccumulator() {
  return layoutOf({128, 256}, {{0, 1}, {8, 0}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {0, 128}},
                  {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {{16, 0}, {32, 0}, {64, 0}});
}
LinearLayout rowsOfRuns() {
  return layoutOf({128, 256}, {{0, 1}, {0, 2}, {0, 4}, {8, 0}, {16, 0}, {32, 0}, {64, 0}},
                  {{0, 8}, {0, 16}, {0, 32}, {0, 64}, {0, 128}}, {{1, 0}, {2, 0}, {4, 0}});
}

/// The plan whose pieces hold at most `limit` elements.
ExchangePieces planAtMost(const LinearLayout &from, const LinearLayout &to, int64_t limit,
                          PieceSplits splits) {
  return planExchangePieces(from, to, [&](int64_t elements) { return elements <= limit; },
                            splits);
}

/// Whether lane `lane` of warp `warp` has every bit of `bits`.
bool hasBits(llvm::ArrayRef<ThreadBit> bits, unsigned lane, unsigned warp) {
  return llvm::all_of(bits, [&](const ThreadBit &bit) {
    return (((bit.warp ? warp : lane) >> bit.bit) & 1) == unsigned(bit.value);
  });
}

/// Runs the exchange of `pieces` on the model and checks every register of
/// `to` against the element `from` holds there.
void expectExchanges(const LinearLayout &from, const LinearLayout &to,
                     const ExchangePieces &pieces) {
  ASSERT_EQ(pieces.fromRegisters.size(), pieces.toRegisters.size());
  ASSERT_EQ(pieces.fromThreads.size(), pieces.count());
  ASSERT_EQ(pieces.toThreads.size(), pieces.count());
  std::set<std::tuple<unsigned, unsigned, unsigned>> loaded; // warp, lane, register
  for (unsigned piece = 0; piece < pieces.count(); ++piece) {
    SCOPED_TRACE("piece " + std::to_string(piece) + " of " + std::to_string(pieces.count()));
    ASSERT_EQ(pieces.fromRegisters[piece].size(), pieces.from.numRegisters());
    ASSERT_EQ(pieces.toRegisters[piece].size(), pieces.to.numRegisters());
    std::map<int64_t, Basis> buffer;
    for (unsigned warp = 0; warp < from.numWarps(); ++warp)
      for (unsigned lane = 0; lane < from.numLanes(); ++lane)
        for (unsigned reg = 0; reg < pieces.from.numRegisters(); ++reg) {
          if (pieces.from.isDuplicateRegister(reg) ||
              !hasBits(pieces.fromThreads[piece], lane, warp))
            continue;
          int64_t index =
              rowMajorIndex(pieces.from.shape, pieces.from.coordinates(reg, lane, warp));
          ASSERT_LT(index, pieces.elements()) << "a store past the piece's buffer";
          Basis element = from.coordinates(pieces.fromRegisters[piece][reg], lane, warp);
          auto [at, inserted] = buffer.emplace(index, element);
          ASSERT_TRUE(inserted || at->second == element)
              << "two elements stored at " << index << " by lane " << lane << " warp " << warp;
        }
    ASSERT_EQ(int64_t(buffer.size()), pieces.elements()) << "the piece leaves its buffer unfilled";
    for (unsigned warp = 0; warp < to.numWarps(); ++warp)
      for (unsigned lane = 0; lane < to.numLanes(); ++lane)
        for (unsigned reg = 0; reg < pieces.to.numRegisters(); ++reg) {
          if (!hasBits(pieces.toThreads[piece], lane, warp))
            continue;
          int64_t index = rowMajorIndex(pieces.to.shape, pieces.to.coordinates(reg, lane, warp));
          unsigned whole = pieces.toRegisters[piece][reg];
          ASSERT_TRUE(loaded.insert({warp, lane, whole}).second)
              << "register " << whole << " of lane " << lane << " warp " << warp << " loaded twice";
          ASSERT_EQ(buffer.at(index), to.coordinates(whole, lane, warp))
              << "register " << whole << " of lane " << lane << " warp " << warp;
        }
  }
  EXPECT_EQ(loaded.size(), size_t(to.numWarps()) * to.numLanes() * to.numRegisters())
      << "some register of some thread of the target is never loaded";
}

TEST(ExchangePieces, AWholeTileThatFitsIsOnePiece) {
  ExchangePieces pieces = planAtMost(wgmmaAccumulator(), rowsOfRuns(), INT64_MAX,
                                     PieceSplits::RegistersThenThreads);
  EXPECT_EQ(pieces.count(), 1u);
  EXPECT_EQ(pieces.from, wgmmaAccumulator());
  expectExchanges(wgmmaAccumulator(), rowsOfRuns(), pieces);
}

TEST(ExchangePieces, AGemmEpilogueGoesThroughInHalvesOfRows) {
  // 128x256 bf16 (64 KiB) beside four 48 KiB stages of a pipelined loop.
  ExchangePieces pieces =
      planAtMost(wgmmaAccumulator(), rowsOfRuns(), 17000, PieceSplits::RegistersThenThreads);
  ASSERT_EQ(pieces.count(), 2u);
  // Row bit 3 is a register bit of both layouts; the columns keep their runs.
  EXPECT_EQ(pieces.from.shape, (llvm::SmallVector<int64_t, 4>{64, 256}));
  EXPECT_EQ(pieces.to.contiguousRegisters(), 8u);
  expectExchanges(wgmmaAccumulator(), rowsOfRuns(), pieces);
}

TEST(ExchangePieces, SmallestPiecesSplitTheLastDimensionToo) {
  ExchangePieces pieces = planAtMost(wgmmaAccumulator(), rowsOfRuns(), 0, PieceSplits::Registers);
  // Row bit 3, then column bit 0: the only register bits the layouts share.
  ASSERT_EQ(pieces.count(), 4u);
  EXPECT_EQ(pieces.from.shape, (llvm::SmallVector<int64_t, 4>{64, 128}));
  expectExchanges(wgmmaAccumulator(), rowsOfRuns(), pieces);
  ExchangePieces back = planAtMost(rowsOfRuns(), wgmmaAccumulator(), 0, PieceSplits::Registers);
  ASSERT_EQ(back.count(), 4u);
  expectExchanges(rowsOfRuns(), wgmmaAccumulator(), back);
}

TEST(ExchangePieces, RegisterCopiesAndThreeDimensions) {
  // Register bit 1 copies bit 0's element (a zero basis); warps along the
  // batch. Batch bit 0 and row bit 2 are shared register bits.
  LinearLayout from = layoutOf({2, 8, 16}, {{0, 0, 1}, {0, 0, 0}, {1, 0, 0}, {0, 4, 0}},
                               {{0, 0, 2}, {0, 0, 4}, {0, 0, 8}, {0, 1, 0}, {0, 2, 0}}, {});
  LinearLayout to = layoutOf({2, 8, 16}, {{0, 4, 0}, {1, 0, 0}, {0, 0, 8}},
                             {{0, 0, 1}, {0, 0, 2}, {0, 0, 4}, {0, 1, 0}, {0, 2, 0}}, {});
  for (int64_t limit : {256, 128, 64, 32}) {
    SCOPED_TRACE("at most " + std::to_string(limit) + " elements");
    ExchangePieces pieces = planAtMost(from, to, limit, PieceSplits::Registers);
    EXPECT_EQ(pieces.count(), unsigned(std::max<int64_t>(1, 256 / std::max<int64_t>(limit, 64))));
    expectExchanges(from, to, pieces);
    // Below 64 elements, a lane bit (row bit 0 or 1, column bit 2) splits.
    ExchangePieces turns = planAtMost(from, to, limit, PieceSplits::RegistersThenThreads);
    EXPECT_EQ(turns.count(), unsigned(256 / limit));
    expectExchanges(from, to, turns);
  }
}

/// A transpose: every register bit of one is a lane bit of the other, and
/// the warp splits the rows of one and the columns of the other.
LinearLayout transposeRows() {
  return layoutOf({32, 32}, {{0, 1}, {0, 2}, {8, 0}, {16, 0}},
                  {{0, 4}, {0, 8}, {0, 16}, {1, 0}, {2, 0}}, {{4, 0}});
}
LinearLayout transposeColumns() {
  return layoutOf({32, 32}, {{1, 0}, {2, 0}, {0, 8}, {0, 16}},
                  {{4, 0}, {8, 0}, {16, 0}, {0, 1}, {0, 2}}, {{0, 4}});
}

TEST(ExchangePieces, LayoutsSharingNoRegisterBitStayWholeWhereOnlyRegistersSplit) {
  ExchangePieces pieces =
      planAtMost(transposeRows(), transposeColumns(), 0, PieceSplits::Registers);
  EXPECT_EQ(pieces.count(), 1u);
  expectExchanges(transposeRows(), transposeColumns(), pieces);
}

TEST(ExchangePieces, ALaneBitMakesItsLanesTakeTurns) {
  // No register bit in common. Row bit 4 is a register bit of the rows and
  // lane bit 2 of the columns, the cheapest split there is (row bit 2 is a
  // warp bit of one and a lane bit of the other): every thread stores half
  // its registers, then the lanes with bit 2 clear load, then those with it
  // set.
  ExchangePieces pieces =
      planAtMost(transposeRows(), transposeColumns(), 512, PieceSplits::RegistersThenThreads);
  ASSERT_EQ(pieces.count(), 2u);
  EXPECT_EQ(pieces.from.shape, (llvm::SmallVector<int64_t, 4>{16, 32}));
  EXPECT_TRUE(pieces.fromThreads[0].empty() && pieces.fromThreads[1].empty());
  EXPECT_NE(pieces.fromRegisters[0], pieces.fromRegisters[1]);
  EXPECT_EQ(pieces.toThreads[0], (llvm::SmallVector<ThreadBit>{{false, 2, false}}));
  EXPECT_EQ(pieces.toThreads[1], (llvm::SmallVector<ThreadBit>{{false, 2, true}}));
  EXPECT_EQ(pieces.toRegisters[0], pieces.toRegisters[1]);
  expectExchanges(transposeRows(), transposeColumns(), pieces);
}

TEST(ExchangePieces, ThreadSplitsGoDownToSmallPieces) {
  // Every coordinate bit a lone basis holds in both layouts: down to 2
  // elements a piece, each way, from the warp bits to the lane bits.
  for (bool back : {false, true}) {
    LinearLayout from = back ? transposeColumns() : transposeRows();
    LinearLayout to = back ? transposeRows() : transposeColumns();
    for (int64_t limit : {256, 64, 16, 2}) {
      SCOPED_TRACE("at most " + std::to_string(limit) + " elements" + (back ? ", back" : ""));
      ExchangePieces pieces = planAtMost(from, to, limit, PieceSplits::RegistersThenThreads);
      EXPECT_EQ(pieces.elements(), limit);
      expectExchanges(from, to, pieces);
    }
  }
}

TEST(ExchangePieces, AnEpilogueOfSixteenWarpsSplitsAlongWarpsAndRegisters) {
  // A 128x128 f32 matrix-core accumulator of 16 wave64 warps (gfx942) and the
  // rows its store takes: no register bit in common, 64 KiB in all.
  LinearLayout accumulator = layoutOf({128, 128}, {{1, 0}, {2, 0}, {8, 0}, {16, 0}},
                                      {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}},
                                      {{0, 32}, {0, 64}, {32, 0}, {64, 0}});
  LinearLayout rows = layoutOf({128, 128}, {{0, 1}, {0, 2}, {32, 0}, {64, 0}},
                               {{0, 4}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {1, 0}},
                               {{2, 0}, {4, 0}, {8, 0}, {16, 0}});
  EXPECT_EQ(planAtMost(accumulator, rows, 8192, PieceSplits::Registers).count(), 1u);
  ExchangePieces pieces = planAtMost(accumulator, rows, 8192, PieceSplits::RegistersThenThreads);
  ASSERT_EQ(pieces.count(), 2u);
  // Row bit 6: the accumulator's warp bit 3, a register bit of the rows.
  EXPECT_EQ(pieces.fromThreads[1], (llvm::SmallVector<ThreadBit>{{true, 3, true}}));
  EXPECT_TRUE(pieces.toThreads[0].empty() && pieces.toThreads[1].empty());
  expectExchanges(accumulator, rows, pieces);
}

} // namespace
} // namespace tessera::gpu

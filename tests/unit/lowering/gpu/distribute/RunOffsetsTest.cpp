// accessInRun (lowering/gpu/distribute/ElementAccess.h) for runs whose
// addresses are consecutive only where their endpoints are: the offsets
// `x % n + base` of consecutive x from a start aligned to the group, with
// C's truncating remainder, as a tile of `(pid * BN + arange) % N` holds
// them. For every such start (negative ones wrapping) and modulus the
// contiguity analysis accepts, the offsets derived from a run's endpoints
// must be each element's own.
#include "lowering/gpu/distribute/ElementAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace tessera::gpu {
namespace {

/// The integer a constant or a sum of two constants holds.
int64_t valueOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  auto sum = value.getDefiningOp<arith::AddIOp>();
  EXPECT_TRUE(sum) << "an offset that is neither a constant nor a sum";
  return sum ? valueOf(sum.getLhs()) + valueOf(sum.getRhs()) : 0;
}

/// Builds the offsets' constants and accessInRun's sums into a module.
class RunOffsetsTest : public ::testing::Test {
protected:
  RunOffsetsTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<arith::ArithDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

TEST_F(RunOffsetsTest, WrappedRunsAddressFromTheirEndpoints) {
  constexpr int64_t kGroup = 8, kBase = 1000;
  int wrapped = 0;
  for (unsigned width : {2u, 4u, 8u}) {
    for (int64_t n : {kGroup, 2 * kGroup, 3 * kGroup, 8 * kGroup}) {
      for (int64_t start = -4 * n; start <= 4 * n; start += kGroup) {
        SmallVector<int64_t> offsets;
        SmallVector<ElementAccess> accesses;
        for (int64_t x = start; x < start + kGroup; ++x) {
          offsets.push_back(x % n + kBase);
          accesses.push_back({arith::ConstantIndexOp::create(builder, loc, offsets.back()), {}});
        }
        RunAccess runs{width, RunAddresses::WhenEndpointsAreConsecutive, Value()};
        for (unsigned first = 0; first < kGroup; first += width)
          wrapped += offsets[first + width - 1] != offsets[first] + width - 1;
        for (unsigned i = 0; i < kGroup; ++i) {
          Value offset = accessInRun(builder, loc, accesses, runs, i).offset;
          EXPECT_EQ(valueOf(offset), offsets[i])
              << "element " << i << " of the group from " << start << " modulo " << n
              << " in runs of " << width;
          // Only the endpoints' offsets are used.
          unsigned runFirst = i - i % width, runLast = runFirst + width - 1;
          auto sum = offset.getDefiningOp<arith::AddIOp>();
          EXPECT_TRUE(offset == accesses[runFirst].offset ||
                      offset == accesses[runLast].offset ||
                      (sum && sum.getLhs() == accesses[runLast].offset))
              << "element " << i << " addresses from inside its run";
        }
      }
    }
  }
  // The groups from negative multiples of n did wrap.
  EXPECT_GT(wrapped, 0);
}

TEST_F(RunOffsetsTest, ConsecutiveRunsAddressFromTheirFirst) {
  SmallVector<ElementAccess> accesses;
  for (int64_t offset : {40, 41, 42, 43, 7, 8, 9, 10})
    accesses.push_back({arith::ConstantIndexOp::create(builder, loc, offset), {}});
  RunAccess runs{4, RunAddresses::Consecutive, Value()};
  for (unsigned i = 0; i < accesses.size(); ++i) {
    Value offset = accessInRun(builder, loc, accesses, runs, i).offset;
    EXPECT_EQ(valueOf(offset), valueOf(accesses[i].offset));
    auto sum = offset.getDefiningOp<arith::AddIOp>();
    EXPECT_EQ(sum ? sum.getLhs() : offset, accesses[i - i % 4].offset)
        << "access " << i << " does not address from its run's first";
  }
}

} // namespace
} // namespace tessera::gpu

// contiguousColumns() of every matrix-instruction emitter, checked against
// its own sharedIndex (evaluated by constant folding): each run of that many
// columns, starting at a multiple of the count, lands at consecutive indices
// starting at a multiple of the count, so the distribution pass may store it
// with one aligned vector store.
#include "DotKernels.h"

#include "lowering/gpu/tensorcore/TensorCore.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::gpu;
using namespace tessera::gpu::testing;

namespace {


struct RunCase {
  const char *target;
  DotTypes inputs;
  int64_t m, n, k;
  unsigned numWarps;
  /// The instruction selectTensorCoreDot must pick (a prefix of its name).
  const char *instruction;
};

std::string describe(const RunCase &c) {
  std::string target = c.target;
  for (char &ch : target)
    if (!isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return target + "_" + dotTypesName(c.inputs) + "_" + std::to_string(c.m) + "x" +
         std::to_string(c.n) + "x" + std::to_string(c.k) + "_w" + std::to_string(c.numWarps);
}

void PrintTo(const RunCase &c, std::ostream *os) { *os << describe(c); }


class SharedRunsTest : public ::testing::TestWithParam<RunCase> {
protected:
  SharedRunsTest() { context.loadDialect<arith::ArithDialect>(); }
  MLIRContext context;
};

TEST_P(SharedRunsTest, RunsOfContiguousColumnsAreConsecutiveAndAligned) {
  const RunCase &c = GetParam();
  llvm::Expected<GpuTarget> target = GpuTarget::parse(c.target);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  std::unique_ptr<TensorCoreDot> dot =
      selectTensorCoreDot(*target, dotProblem(context, c.inputs, c.m, c.n, c.k), c.numWarps);
  ASSERT_TRUE(dot);
  ASSERT_TRUE(dot->name().starts_with(c.instruction)) << dot->name().str();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
  for (auto [operand, rows, cols] : {std::tuple{DotOperand::A, c.m, c.k},
                                     std::tuple{DotOperand::B, c.k, c.n}}) {
    int64_t width = dot->contiguousColumns(operand);
    SCOPED_TRACE(std::string(operand == DotOperand::A ? "A" : "B") + ", runs of " +
                 std::to_string(width));
    ASSERT_GE(width, 1);
    ASSERT_EQ(cols % width, 0);
    // A is stored by rows on every target: its runs must be real vectors.
    if (operand == DotOperand::A)
      EXPECT_GT(width, 1);
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t col = 0; col < cols; col += width) {
        int64_t first = foldedSharedIndex(*scratch, *dot, operand, row, col);
        ASSERT_GE(first, 0);
        ASSERT_EQ(first % width, 0) << "(" << row << ", " << col << ")";
        for (int64_t i = 1; i < width; ++i)
          ASSERT_EQ(foldedSharedIndex(*scratch, *dot, operand, row, col + i), first + i)
              << "(" << row << ", " << col + i << ")";
      }
  }
}

const RunCase kCases[] = {
    {"cuda:sm_80", DotTypes::F16, 64, 64, 32, 4, "mma.sync"},
    {"cuda:sm_80", DotTypes::BF16, 128, 64, 64, 4, "mma.sync"},
    {"cuda:sm_80", DotTypes::F32, 64, 32, 16, 2, "mma.sync"},
    {"cuda:sm_80", DotTypes::S8, 32, 32, 64, 2, "mma.sync"},
    {"cuda:sm_90a", DotTypes::F16, 64, 64, 64, 4, "wgmma"},
    {"cuda:sm_90a", DotTypes::BF16, 128, 128, 32, 4, "wgmma"},
    {"cuda:sm_90a", DotTypes::F32, 64, 64, 32, 4, "wgmma"},
    {"cuda:sm_90a", DotTypes::S8, 64, 64, 64, 4, "wgmma"},
    {"hip:gfx942", DotTypes::F16, 64, 64, 32, 4, "mfma"},
    {"hip:gfx942", DotTypes::S8, 64, 64, 64, 4, "mfma"},
    {"hip:gfx942", DotTypes::F32, 32, 32, 16, 2, "mfma"},
    {"hip:gfx1100", DotTypes::BF16, 32, 32, 32, 2, "wmma"},
};

INSTANTIATE_TEST_SUITE_P(Emitters, SharedRunsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<RunCase> &info) {
                           return describe(info.param);
                         });

} // namespace

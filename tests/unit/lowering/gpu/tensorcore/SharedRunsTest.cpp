// contiguousColumns() and contiguousRows() of every matrix-instruction
// emitter, checked against its own sharedIndex (evaluated by constant
// folding): each run of that many columns (rows), starting at a multiple of
// the count, lands at consecutive indices starting at a multiple of the
// count, so the distribution may store it with one aligned vector store or
// cp.async (rows: when it loads the operand's transpose).
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

  std::unique_ptr<TensorCoreDot> select() {
    const RunCase &c = GetParam();
    llvm::Expected<GpuTarget> target = GpuTarget::parse(c.target);
    EXPECT_TRUE(bool(target)) << llvm::toString(target.takeError());
    if (!target)
      return nullptr;
    std::unique_ptr<TensorCoreDot> dot =
        selectTensorCoreDot(*target, dotProblem(context, c.inputs, c.m, c.n, c.k), c.numWarps);
    EXPECT_TRUE(dot && dot->name().starts_with(c.instruction));
    return dot;
  }

  /// Every run of `width` elements along columns (or rows, `alongRows`) of
  /// the operand, starting at a multiple of `width`, sits at consecutive
  /// indices starting at a multiple of `width`.
  void expectRuns(const TensorCoreDot &dot, DotOperand operand, int64_t rows, int64_t cols,
                  int64_t width, bool alongRows) {
    SCOPED_TRACE(std::string(operand == DotOperand::A ? "A" : "B") + ", runs of " +
                 std::to_string(width) + (alongRows ? " rows" : " columns"));
    ASSERT_GE(width, 1);
    ASSERT_EQ((alongRows ? rows : cols) % width, 0);
    int64_t rowStep = alongRows ? width : 1, colStep = alongRows ? 1 : width;
    for (int64_t row = 0; row < rows; row += rowStep)
      for (int64_t col = 0; col < cols; col += colStep) {
        int64_t first = foldedSharedIndex(&context, dot, operand, row, col);
        ASSERT_GE(first, 0);
        ASSERT_EQ(first % width, 0) << "(" << row << ", " << col << ")";
        for (int64_t i = 1; i < width; ++i) {
          int64_t r = alongRows ? row + i : row, c = alongRows ? col : col + i;
          ASSERT_EQ(foldedSharedIndex(&context, dot, operand, r, c), first + i)
              << "(" << r << ", " << c << ")";
        }
      }
  }

  MLIRContext context;
};

TEST_P(SharedRunsTest, RunsOfContiguousColumnsAreConsecutiveAndAligned) {
  const RunCase &c = GetParam();
  std::unique_ptr<TensorCoreDot> dot = select();
  ASSERT_TRUE(dot);
  // A is stored by rows on every target: its runs must be real vectors.
  EXPECT_GT(dot->contiguousColumns(DotOperand::A), 1);
  expectRuns(*dot, DotOperand::A, c.m, c.k, dot->contiguousColumns(DotOperand::A), false);
  expectRuns(*dot, DotOperand::B, c.k, c.n, dot->contiguousColumns(DotOperand::B), false);
}

TEST_P(SharedRunsTest, RunsOfContiguousRowsAreConsecutiveAndAligned) {
  const RunCase &c = GetParam();
  std::unique_ptr<TensorCoreDot> dot = select();
  ASSERT_TRUE(dot);
  // Every placement keeps one operand's columns or rows in runs.
  EXPECT_GT(std::max(dot->contiguousColumns(DotOperand::B), dot->contiguousRows(DotOperand::B)),
            1);
  expectRuns(*dot, DotOperand::A, c.m, c.k, dot->contiguousRows(DotOperand::A), true);
  expectRuns(*dot, DotOperand::B, c.k, c.n, dot->contiguousRows(DotOperand::B), true);
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
    {"vulkan:1.3:subgroup=32:coopmat", DotTypes::F16, 64, 64, 32, 4, "coopmat"},
};

INSTANTIATE_TEST_SUITE_P(Emitters, SharedRunsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<RunCase> &info) {
                           return describe(info.param);
                         });

} // namespace

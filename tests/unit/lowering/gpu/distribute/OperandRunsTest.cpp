// The layout of a dot operand's load (LayoutAnchors::operandLoad) and the
// runs its registers are stored in (DotPlan::sharedRuns), against the
// placement: in every thread, the registers of each run hold elements whose
// shared-memory indices (the instruction's sharedIndex, folded to constants)
// are consecutive from a multiple of the run's width, and the runs take
// every register once. An 8-bit B loaded as rows of N for an instruction that
// keeps it K-major must come out in runs of 4 rows (one 32-bit store each),
// not of single bytes.
#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/LayoutAnchors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;

namespace tessera::gpu {
namespace {

struct RunsCase {
  const char *target;
  const char *element, *accumulator;
  int64_t m, n, k;
  unsigned numWarps;
  /// The B runs sharedRuns must find: width, and whether they go across
  /// rows (registers more than one apart).
  unsigned bWidth;
  bool bAcrossRows;
};

std::string describe(const RunsCase &c) {
  std::string name = llvm::formatv("{0}_{1}_{2}x{3}x{4}_w{5}", c.target, c.element, c.m, c.n,
                                   c.k, c.numWarps);
  for (char &ch : name)
    if (!isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

void PrintTo(const RunsCase &c, std::ostream *os) { *os << describe(c); }

/// C = A * B of row-major A [M, K] and B [K, N], loaded whole.
std::string dotKernel(const RunsCase &c) {
  bool integer = c.accumulator[0] == 'i';
  return llvm::formatv(R"mlir(
tile.func private @dot(%a: !tile.ptr<{0}> {{tile.divisibility = 16 : i32}, %b: !tile.ptr<{0}> {{tile.divisibility = 16 : i32}) -> tensor<{2}x{3}x{1}> {
  %rm = tile.make_range 0 to {2} : tensor<{2}xi32>
  %rn = tile.make_range 0 to {3} : tensor<{3}xi32>
  %rk = tile.make_range 0 to {4} : tensor<{4}xi32>
  %am = tile.expand_dims %rm, axis = 1 : tensor<{2}xi32> -> tensor<{2}x1xi32>
  %ldas = arith.constant dense<{4}> : tensor<{2}x1xi32>
  %arow = arith.muli %am, %ldas : tensor<{2}x1xi32>
  %arowb = tile.broadcast %arow : tensor<{2}x1xi32> -> tensor<{2}x{4}xi32>
  %ak = tile.expand_dims %rk, axis = 0 : tensor<{4}xi32> -> tensor<1x{4}xi32>
  %akb = tile.broadcast %ak : tensor<1x{4}xi32> -> tensor<{2}x{4}xi32>
  %aoff = arith.addi %arowb, %akb : tensor<{2}x{4}xi32>
  %abase = tile.splat %a : !tile.ptr<{0}> -> tensor<{2}x{4}x!tile.ptr<{0}>>
  %aptrs = tile.addptr %abase, %aoff : tensor<{2}x{4}x!tile.ptr<{0}>>, tensor<{2}x{4}xi32>
  %bk = tile.expand_dims %rk, axis = 1 : tensor<{4}xi32> -> tensor<{4}x1xi32>
  %ldbs = arith.constant dense<{3}> : tensor<{4}x1xi32>
  %brow = arith.muli %bk, %ldbs : tensor<{4}x1xi32>
  %browb = tile.broadcast %brow : tensor<{4}x1xi32> -> tensor<{4}x{3}xi32>
  %bn = tile.expand_dims %rn, axis = 0 : tensor<{3}xi32> -> tensor<1x{3}xi32>
  %bnb = tile.broadcast %bn : tensor<1x{3}xi32> -> tensor<{4}x{3}xi32>
  %boff = arith.addi %browb, %bnb : tensor<{4}x{3}xi32>
  %bbase = tile.splat %b : !tile.ptr<{0}> -> tensor<{4}x{3}x!tile.ptr<{0}>>
  %bptrs = tile.addptr %bbase, %boff : tensor<{4}x{3}x!tile.ptr<{0}>>, tensor<{4}x{3}xi32>
  %at = tile.load %aptrs : tensor<{2}x{4}x!tile.ptr<{0}>>
  %bt = tile.load %bptrs : tensor<{4}x{3}x!tile.ptr<{0}>>
  %zero = arith.constant dense<{5}> : tensor<{2}x{3}x{1}>
  %d = tile.dot %at, %bt, %zero : tensor<{2}x{4}x{0}> * tensor<{4}x{3}x{0}> -> tensor<{2}x{3}x{1}>
  tile.return %d : tensor<{2}x{3}x{1}>
}
)mlir",
                       c.element, c.accumulator, c.m, c.n, c.k, integer ? "0" : "0.0")
      .str();
}

class OperandRunsTest : public ::testing::TestWithParam<RunsCase> {
protected:
  OperandRunsTest() {
    context.loadDialect<tile::TileDialect, arith::ArithDialect, scf::SCFDialect>();
  }

  /// Every run of `runs` in every thread of `source` lands on consecutive
  /// indices of the operand's buffer from a multiple of its width; each
  /// register is in one run.
  void expectRunsLandConsecutively(const DotPlan &plan, DotOperand operand,
                                   const OperandSource &source, SharedRuns runs) {
    const LinearLayout &layout = source.layout;
    std::set<unsigned> covered;
    for (unsigned run = 0; run < layout.numRegisters() / runs.width; ++run)
      for (unsigned i = 0; i < runs.width; ++i) {
        unsigned reg = runs.firstRegister(run) + i * runs.stride;
        EXPECT_EQ(runs.runOf(reg), run);
        EXPECT_TRUE(covered.insert(reg).second) << "register " << reg << " in two runs";
      }
    EXPECT_EQ(covered.size(), layout.numRegisters());
    auto indexOf = [&](unsigned reg, unsigned lane, unsigned warp) {
      Basis at = layout.coordinates(reg, lane, warp);
      std::optional<int64_t> index = foldedIndex(
          &context,
          [&](OpBuilder &builder, Location loc, Value row, Value col) {
            return plan.sharedIndex(builder, loc, operand, row, col);
          },
          at[0], at[1]);
      return index.value_or(-1);
    };
    for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
      for (unsigned lane = 0; lane < layout.numLanes(); ++lane)
        for (unsigned run = 0; run < layout.numRegisters() / runs.width; ++run) {
          unsigned first = runs.firstRegister(run);
          int64_t start = indexOf(first, lane, warp);
          ASSERT_GE(start, 0);
          ASSERT_EQ(start % runs.width, 0) << "run " << run << " lane " << lane;
          for (unsigned i = 1; i < runs.width; ++i)
            ASSERT_EQ(indexOf(first + i * runs.stride, lane, warp), start + i)
                << "run " << run << " element " << i << " lane " << lane << " warp " << warp;
        }
  }

  MLIRContext context;
};

TEST_P(OperandRunsTest, StoredRunsLandOnConsecutiveIndices) {
  const RunsCase &c = GetParam();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(dotKernel(c), &context);
  ASSERT_TRUE(module);
  llvm::Expected<GpuTarget> target = GpuTarget::parse(c.target);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  tile::DotOp dot;
  module->walk([&](tile::DotOp op) { dot = op; });
  ASSERT_TRUE(dot);

  LayoutAnchors anchors(*target, c.numWarps);
  DotPlan plan;
  plan.instruction = selectTensorCoreDot(*target, dotProblemOf(dot), c.numWarps);
  ASSERT_TRUE(plan.instruction);
  for (DotOperand operand : {DotOperand::A, DotOperand::B}) {
    SCOPED_TRACE(operand == DotOperand::A ? "A" : "B");
    auto load = (operand == DotOperand::A ? dot.getA() : dot.getB()).getDefiningOp<tile::LoadOp>();
    ASSERT_TRUE(load);
    auto type = cast<RankedTensorType>(load.getType());
    LinearLayout layout =
        anchors.operandLoad(load, anchors.memoryAccess(load.getPtr(), /*vectorize=*/true));
    ASSERT_TRUE(layout.isValid()) << layout.str();
    (operand == DotOperand::A ? plan.aShape : plan.bShape).assign(type.getShape().begin(),
                                                                  type.getShape().end());
    (operand == DotOperand::A ? plan.aElement : plan.bElement) = type.getElementType();
    OperandSource source{layout, false};
    SharedRuns runs = plan.sharedRuns(operand, source);
    if (operand == DotOperand::B) {
      EXPECT_EQ(runs.width, c.bWidth) << layout.str();
      EXPECT_EQ(runs.stride > 1, c.bAcrossRows) << layout.str();
    } else {
      EXPECT_EQ(runs.stride, 1u);
    }
    expectRunsLandConsecutively(plan, operand, source, runs);
  }
}

const RunsCase kCases[] = {
    // 8-bit B, K-major in shared memory: runs of 4 rows.
    {"cuda:sm_90a", "i8", "i32", 128, 128, 64, 8, 4, true},
    {"cuda:sm_90a", "i8", "i32", 64, 256, 64, 4, 4, true},
    {"cuda:sm_80", "i8", "i32", 128, 128, 32, 4, 4, true},
    {"cuda:sm_80", "i8", "i32", 32, 32, 64, 2, 4, true},
    {"hip:gfx942", "i8", "i32", 64, 64, 64, 4, 4, true},
    // 16-bit B stays N-major (wgmma's transpose bit, ldmatrix.trans): rows
    // of N go in whole, 8 elements a store.
    {"cuda:sm_90a", "f16", "f32", 64, 64, 64, 4, 8, false},
    {"cuda:sm_80", "bf16", "f32", 64, 64, 32, 4, 8, false},
    // tf32 B K-major with N too narrow to swap: one element at a time (the
    // pipeliner's 4-byte cp.async), the load's layout unchanged.
    {"cuda:sm_90a", "f32", "f32", 64, 32, 64, 4, 1, false},
};

INSTANTIATE_TEST_SUITE_P(Targets, OperandRunsTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<RunsCase> &info) {
                           return describe(info.param);
                         });

} // namespace
} // namespace tessera::gpu

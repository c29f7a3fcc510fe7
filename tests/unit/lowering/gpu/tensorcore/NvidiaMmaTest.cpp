// mma.sync for tile.dot: the instruction and warp grid chosen, the accumulator
// layout against the PTX ISA's fragment formulas, the shared-memory
// swizzle, and emit() run on a simulated warp against a float64 product.
#include "DotKernels.h"
#include "WarpSimulator.h"

#include "lowering/gpu/tensorcore/NvidiaMma.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace mlir;
using namespace tessera::gpu;
using namespace tessera::gpu::testing;

namespace {

struct DotCase {
  DotTypes types;
  int64_t m, n, k;
  unsigned numWarps;
  /// The warp grid and instruction tiles per warp planMmaSync must choose.
  int64_t warpsM, warpsN, tilesM, tilesN;
  /// B reaches the dot as the transpose of an [N, K] tile.
  bool bTransposed = false;
};

std::string describe(const DotCase &c) {
  return std::string(dotTypesName(c.types)) + "_" + std::to_string(c.m) + "x" +
         std::to_string(c.n) + "x" + std::to_string(c.k) + "_w" + std::to_string(c.numWarps) +
         (c.bTransposed ? "_transB" : "");
}

void PrintTo(const DotCase &c, std::ostream *os) { *os << describe(c); }


GpuTarget target(llvm::StringRef spec) {
  llvm::Expected<GpuTarget> parsed = GpuTarget::parse(spec);
  EXPECT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  return *parsed;
}

const DotCase kCases[] = {
    // Warps doubled along whichever dimension leaves each more m16 / n8
    // tiles: square-ish blocks, the fewest ldmatrix per mma.
    {DotTypes::F16, 64, 64, 32, 4, 2, 2, 2, 4},
    {DotTypes::F16, 128, 128, 32, 8, 2, 4, 4, 4},
    {DotTypes::F16AccF16, 32, 16, 16, 2, 2, 1, 1, 2},
    {DotTypes::BF16, 128, 64, 64, 4, 2, 2, 4, 4},
    // One n8 tile per warp: B is read with ldmatrix .x2.
    {DotTypes::BF16, 128, 8, 32, 4, 4, 1, 2, 1},
    // M too short for more warps: the rest go along N.
    {DotTypes::BF16, 16, 64, 32, 4, 1, 4, 1, 2},
    {DotTypes::BF16, 32, 32, 16, 8, 2, 4, 1, 1},
    {DotTypes::F32, 64, 32, 32, 4, 2, 2, 2, 2},
    {DotTypes::F32, 32, 8, 16, 2, 2, 1, 1, 1},
    {DotTypes::S8, 64, 64, 64, 4, 2, 2, 2, 4},
    {DotTypes::S8, 16, 16, 32, 1, 1, 1, 1, 2},
    {DotTypes::S8, 32, 64, 128, 2, 1, 2, 2, 4},
    // The benchmark GEMM's largest tile: 64x64 per warp.
    {DotTypes::BF16, 128, 256, 64, 8, 2, 4, 4, 8},
    // B given as W^T (a Linear layer's weight): stored [N, K] as memory
    // holds it, its fragments read by ldmatrix without .trans.
    {DotTypes::BF16, 128, 256, 64, 8, 2, 4, 4, 8, true},
    {DotTypes::F16, 64, 16, 32, 4, 4, 1, 1, 2, true},
    {DotTypes::F32, 64, 64, 32, 4, 2, 2, 2, 4, true},
    // fp8 (sm_89 and later): s8's fragments with an f32 accumulator.
    {DotTypes::F8E4M3, 64, 64, 64, 4, 2, 2, 2, 4},
    {DotTypes::F8E5M2, 32, 64, 128, 2, 1, 2, 2, 4, true},
    {DotTypes::F8E4M3xE5M2, 64, 32, 64, 4, 2, 2, 2, 2},
};

bool isFp8(DotTypes types) {
  return types == DotTypes::F8E4M3 || types == DotTypes::F8E5M2 ||
         types == DotTypes::F8E4M3xE5M2;
}

/// The inputs of a simulated warp: A [M, K] and B [K, N] of `x` at their
/// places in `dot`'s shared buffers.
WarpInputs stagedOperands(MLIRContext *context, const TensorCoreDot &dot, const DotProblem &problem,
                          const DotOperands &x) {
  WarpInputs inputs;
  inputs.elementBytes = problem.aElement.getIntOrFloatBitWidth() / 8;
  inputs.aShared.assign(dot.sharedElements(DotOperand::A), 0);
  inputs.bShared.assign(dot.sharedElements(DotOperand::B), 0);
  for (int64_t i = 0; i < problem.m; ++i)
    for (int64_t k = 0; k < problem.k; ++k)
      inputs.aShared[foldedSharedIndex(context, dot, DotOperand::A, i, k)] =
          x.a[i * problem.k + k];
  for (int64_t k = 0; k < problem.k; ++k)
    for (int64_t j = 0; j < problem.n; ++j)
      inputs.bShared[foldedSharedIndex(context, dot, DotOperand::B, k, j)] =
          x.b[k * problem.n + j];
  return inputs;
}

class MmaSyncCaseTest : public ::testing::TestWithParam<DotCase> {
protected:
  void SetUp() override {
    loadDotKernelDialects(context);
    problem = dotProblem(context, GetParam().types, GetParam().m, GetParam().n, GetParam().k);
    problem.bTransposed = GetParam().bTransposed;
    chip = target(isFp8(GetParam().types) ? "cuda:sm_89" : "cuda:sm_80");
    dot = selectTensorCoreDot(chip, problem, GetParam().numWarps);
    ASSERT_NE(dot, nullptr);
  }

  /// Every warp of the program run on the simulator with A, B and C of `x`
  /// (A in the registers of registerALayout() with `registerA`), its result
  /// checked against the float64 product; the outputs of each warp.
  std::vector<WarpOutputs> simulateEveryWarp(const DotOperands &x, bool registerA = false);

  MLIRContext context;
  /// Ampere, or Ada for fp8.
  GpuTarget chip;
  DotProblem problem;
  std::unique_ptr<TensorCoreDot> dot;
};

std::vector<WarpOutputs> MmaSyncCaseTest::simulateEveryWarp(const DotOperands &x,
                                                            bool registerA) {
  const DotCase &c = GetParam();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  func::FuncOp warpFunction = buildWarpFunction(*module, *dot, problem, false, registerA);
  EXPECT_TRUE(succeeded(verify(*module)));
  WarpInputs inputs = stagedOperands(&context, *dot, problem, x);
  if (registerA)
    llvm::fill(inputs.aShared, 0.0);
  LinearLayout layout = dot->accumulatorLayout();
  std::vector<WarpOutputs> results;
  for (unsigned w = 0; w < c.numWarps; ++w) {
    inputs.warp = w;
    inputs.acc.assign(32, std::vector<double>(layout.numRegisters()));
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, lane, w);
        inputs.acc[lane][r] = x.acc[at[0] * c.n + at[1]];
      }
    if (registerA) {
      LinearLayout aLayout = *dot->registerALayout();
      inputs.aRegisters.assign(32, std::vector<double>(aLayout.numRegisters()));
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned r = 0; r < aLayout.numRegisters(); ++r) {
          Basis at = aLayout.coordinates(r, lane, w);
          inputs.aRegisters[lane][r] = x.a[at[0] * c.k + at[1]];
        }
    }
    llvm::Expected<WarpOutputs> outputs = simulateWarp(warpFunction, inputs);
    if (!outputs) {
      ADD_FAILURE() << "warp " << w << ": " << llvm::toString(outputs.takeError());
      return {};
    }
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, lane, w);
        if (outputs->acc[lane][r] != referenceDot(x, c.n, c.k, at[0], at[1])) {
          ADD_FAILURE() << "warp " << w << " lane " << lane << " register " << r << " at ("
                        << at[0] << ", " << at[1] << "): " << outputs->acc[lane][r];
          return {};
        }
      }
    results.push_back(std::move(*outputs));
  }
  return results;
}

TEST_P(MmaSyncCaseTest, PlansTheExpectedWarpGrid) {
  const DotCase &c = GetParam();
  std::optional<MmaSyncPlan> plan = planMmaSync(chip, problem, c.numWarps);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->warpsM, c.warpsM);
  EXPECT_EQ(plan->warpsN, c.warpsN);
  EXPECT_EQ(plan->tilesM, c.tilesM);
  EXPECT_EQ(plan->tilesN, c.tilesN);
  EXPECT_EQ(dot->name(), plan->name);
}

// The PTX ISA's m16n8 C fragment: lane l (group g = l / 4, thread q = l % 4)
// holds c0, c1 at (g, 2q), (g, 2q + 1) and c2, c3 at (g + 8, 2q), (g + 8,
// 2q + 1); registers 4t..4t+3 are instruction tile t = tn + tilesN * tm of
// the warp's block, and warp w's block is at row w / warpsN, column w % warpsN.
TEST_P(MmaSyncCaseTest, AccumulatorLayoutIsThePtxFragmentOfEveryTile) {
  const DotCase &c = GetParam();
  LinearLayout layout = dot->accumulatorLayout();
  ASSERT_TRUE(layout.isValid()) << layout.str();
  ASSERT_EQ(layout.shape, (llvm::SmallVector<int64_t, 4>{c.m, c.n}));
  ASSERT_EQ(layout.numWarps(), c.numWarps);
  ASSERT_EQ(layout.numLanes(), 32u);
  ASSERT_EQ(static_cast<int64_t>(layout.numRegisters()), c.m * c.n / (32 * c.numWarps));
  int64_t blockM = c.m / c.warpsM, blockN = c.n / c.warpsN;
  for (unsigned w = 0; w < c.numWarps; ++w)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        int64_t group = lane / 4, thread = lane % 4, element = r % 4, tile = r / 4;
        int64_t tm = tile / c.tilesN, tn = tile % c.tilesN;
        int64_t row = (w / c.warpsN) * blockM + tm * 16 + group + (element >= 2 ? 8 : 0);
        int64_t col = (w % c.warpsN) * blockN + tn * 8 + thread * 2 + (element & 1);
        ASSERT_EQ(layout.coordinates(r, lane, w), (Basis{row, col}))
            << "warp " << w << " lane " << lane << " register " << r;
      }
}

TEST_P(MmaSyncCaseTest, SharedIndexIsABijectionOntoTheBuffer) {
  const DotCase &c = GetParam();
  EXPECT_EQ(sharedIndexBijectionError(&context, *dot, DotOperand::A, c.m, c.k), "");
  EXPECT_EQ(sharedIndexBijectionError(&context, *dot, DotOperand::B, c.k, c.n), "");
}

// ldmatrix reads eight rows of one 16-byte chunk column (rows along M for A,
// along the stored leading dimension for B); the swizzle must put them on
// eight different 16-byte positions of the 128-byte bank line.
TEST_P(MmaSyncCaseTest, EightRowsOfAChunkColumnHitDistinctBanks) {
  const DotCase &c = GetParam();
  std::optional<MmaSyncPlan> plan = planMmaSync(chip, problem, c.numWarps);
  int64_t bytes = problem.aElement.getIntOrFloatBitWidth() / 8, chunk = 16 / bytes;
  struct Stored {
    DotOperand operand;
    int64_t rows, cols;
    bool transposed; // stored rows are the operand's columns
  };
  for (Stored s : {Stored{DotOperand::A, c.m, c.k, false},
                   plan->bKContiguous ? Stored{DotOperand::B, c.n, c.k, true}
                                      : Stored{DotOperand::B, c.k, c.n, false}})
    for (int64_t firstRow = 0; firstRow < s.rows; firstRow += 8)
      for (int64_t col = 0; col < s.cols; col += chunk) {
        std::set<int64_t> positions;
        for (int64_t row = firstRow; row < firstRow + 8; ++row) {
          int64_t index = s.transposed ? foldedSharedIndex(&context, *dot, s.operand, col, row)
                                       : foldedSharedIndex(&context, *dot, s.operand, row, col);
          ASSERT_EQ(index * bytes % 16, 0);
          positions.insert(index * bytes / 16 % 8);
        }
        EXPECT_EQ(positions.size(), 8u) << "rows " << firstRow << "+8, column " << col;
      }
}

// emit() on a CPU model of the warp (ldmatrix and mma.sync as the PTX ISA
// defines them), every warp of the program, against a float64 A * B + C on
// small integers (exact in every type involved).
TEST_P(MmaSyncCaseTest, EmitComputesTheProductOnASimulatedWarp) {
  const DotCase &c = GetParam();
  DotOperands x = randomDotOperands(c.m, c.n, c.k, c.types == DotTypes::S8 ? 127 : 3,
                                    static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k + c.numWarps));
  std::vector<WarpOutputs> outputs = simulateEveryWarp(x);
  ASSERT_EQ(outputs.size(), c.numWarps);
  int64_t steps = c.k / (problem.aElement.getIntOrFloatBitWidth() == 16 ? 16
                         : problem.aElement.isF32()                      ? 8
                                                                        : 32);
  // tf32 B stored [K, N] is read by words, two per instruction column.
  bool bByWords = c.types == DotTypes::F32 && !c.bTransposed;
  for (const WarpOutputs &warp : outputs) {
    EXPECT_EQ(warp.mmaCount, steps * c.tilesM * c.tilesN);
    EXPECT_EQ(warp.ldmatrixCount, steps * (c.tilesM + (bByWords ? 0 : (c.tilesN + 1) / 2)));
    EXPECT_EQ(warp.sharedLoadCount, bByWords ? steps * c.tilesN * 2 : 0);
    EXPECT_EQ(warp.bankConflictedMatrices, 0u);
    EXPECT_LE(warp.sharedLoadConflictWays, 2u);
  }
}

// 16-bit A in registers (attention's P, the first dot's accumulator
// converted): the registers of registerALayout() are the ISA's A fragments,
// the product is the same and only B is read from shared memory (A's buffer
// holds zeros, so a fragment read from it would spoil the product).
TEST_P(MmaSyncCaseTest, RegisterAComputesTheProductOnASimulatedWarp) {
  const DotCase &c = GetParam();
  bool sixteenBit = problem.aElement.getIntOrFloatBitWidth() == 16;
  ASSERT_EQ(dot->registerALayout().has_value(), sixteenBit);
  if (!sixteenBit)
    GTEST_SKIP() << "A is read from shared memory only";
  LinearLayout aLayout = *dot->registerALayout();
  ASSERT_TRUE(aLayout.isValid()) << aLayout.str();
  ASSERT_EQ(aLayout.numWarps(), c.numWarps);
  // Each warp holds all of its rows' A: the warps along N repeat it.
  ASSERT_EQ(static_cast<int64_t>(aLayout.numRegisters()), c.m / c.warpsM * c.k / 32);
  DotOperands x = randomDotOperands(c.m, c.n, c.k, 3, static_cast<unsigned>(c.m * 7 + c.k));
  std::vector<WarpOutputs> outputs = simulateEveryWarp(x, /*registerA=*/true);
  ASSERT_EQ(outputs.size(), c.numWarps);
  for (const WarpOutputs &warp : outputs) {
    EXPECT_EQ(warp.mmaCount, c.k / 16 * c.tilesM * c.tilesN);
    EXPECT_EQ(warp.ldmatrixCount, c.k / 16 * ((c.tilesN + 1) / 2));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MmaSyncCaseTest, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return describe(info.param); });

TEST(MmaSyncSelection, NamesTheInstruction) {
  MLIRContext context;
  GpuTarget sm90 = target("cuda:sm_90a");
  auto name = [&](DotTypes types) {
    std::unique_ptr<TensorCoreDot> dot =
        selectMmaSyncDot(sm90, dotProblem(context, types, 64, 64, 64), 4);
    return dot ? dot->name().str() : std::string("none");
  };
  EXPECT_EQ(name(DotTypes::F16), "mma.sync.m16n8k16.f16");
  EXPECT_EQ(name(DotTypes::F16AccF16), "mma.sync.m16n8k16.f16");
  EXPECT_EQ(name(DotTypes::BF16), "mma.sync.m16n8k16.bf16");
  EXPECT_EQ(name(DotTypes::F32), "mma.sync.m16n8k8.tf32");
  EXPECT_EQ(name(DotTypes::S8), "mma.sync.m16n8k32.s8");
  EXPECT_EQ(name(DotTypes::F8E4M3), "mma.sync.m16n8k32.e4m3");
  EXPECT_EQ(name(DotTypes::F8E5M2), "mma.sync.m16n8k32.e5m2");
  EXPECT_EQ(name(DotTypes::F8E4M3xE5M2), "mma.sync.m16n8k32.e4m3.e5m2");
}

// mma.sync takes fp8 from Ada (sm_89) on; Ampere has no fp8 instruction.
TEST(MmaSyncSelection, Fp8NeedsAda) {
  MLIRContext context;
  DotProblem problem = dotProblem(context, DotTypes::F8E4M3, 64, 64, 64);
  EXPECT_EQ(selectMmaSyncDot(target("cuda:sm_80"), problem, 4), nullptr);
  EXPECT_EQ(selectMmaSyncDot(target("cuda:sm_86"), problem, 4), nullptr);
  EXPECT_NE(selectMmaSyncDot(target("cuda:sm_89"), problem, 4), nullptr);
  EXPECT_NE(selectMmaSyncDot(target("cuda:sm_120"), problem, 4), nullptr);
}

// Attention's two dots keep whole rows of a block within one warp; where M
// runs out of 16-row tiles, the remaining warps still go along N.
TEST(MmaSyncSelection, ChainedDotsKeepTheirWarpsAlongM) {
  MLIRContext context;
  DotProblem problem = dotProblem(context, DotTypes::F16, 128, 128, 64);
  problem.chained = true;
  std::optional<MmaSyncPlan> plan = planMmaSync(target("cuda:sm_80"), problem, 8);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->warpsM, 8);
  EXPECT_EQ(plan->warpsN, 1);
  problem.m = 32;
  plan = planMmaSync(target("cuda:sm_80"), problem, 8);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->warpsM, 2);
  EXPECT_EQ(plan->warpsN, 4);
}

TEST(MmaSyncSelection, ExactFp32KeepsTheFmaPath) {
  MLIRContext context;
  DotProblem problem = dotProblem(context, DotTypes::F32, 64, 64, 32);
  problem.precision = tessera::tile::InputPrecision::IEEE;
  EXPECT_EQ(selectTensorCoreDot(target("cuda:sm_80"), problem, 4), nullptr);
  EXPECT_EQ(selectTensorCoreDot(target("cuda:sm_90a"), problem, 4), nullptr);
}

TEST(MmaSyncSelection, Tf32x3IsMmaSyncEvenWhereWgmmaRunsTf32) {
  MLIRContext context;
  DotProblem problem = dotProblem(context, DotTypes::F32, 64, 64, 32);
  problem.precision = tessera::tile::InputPrecision::TF32x3;
  for (const char *chip : {"cuda:sm_80", "cuda:sm_90a"}) {
    std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(target(chip), problem, 4);
    ASSERT_NE(dot, nullptr) << chip;
    EXPECT_EQ(dot->name(), "mma.sync.m16n8k8.tf32x3") << chip;
  }
}

/// The largest error of the simulated dot `precision` of f32 A [64, 32] and
/// B [32, 32] (values in [-1, 1], not tf32) on 4 warps of sm_80, against
/// float64; `mmaCount` gets the mma.sync of one warp.
double simulatedF32DotError(tessera::tile::InputPrecision precision, unsigned &mmaCount) {
  MLIRContext context;
  loadDotKernelDialects(context);
  constexpr int64_t m = 64, n = 32, k = 32;
  DotProblem problem = dotProblem(context, DotTypes::F32, m, n, k);
  problem.precision = precision;
  std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(target("cuda:sm_80"), problem, 4);
  EXPECT_NE(dot, nullptr);
  if (!dot)
    return INFINITY;
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  func::FuncOp warpFunction = buildWarpFunction(*module, *dot, problem);

  DotOperands x = randomF32DotOperands(m, n, k, /*seed=*/7);
  WarpInputs inputs = stagedOperands(&context, *dot, problem, x);
  LinearLayout layout = dot->accumulatorLayout();
  double worst = 0;
  for (unsigned w = 0; w < 4; ++w) {
    inputs.warp = w;
    inputs.acc.assign(32, std::vector<double>(layout.numRegisters()));
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, lane, w);
        inputs.acc[lane][r] = x.acc[at[0] * n + at[1]];
      }
    llvm::Expected<WarpOutputs> outputs = simulateWarp(warpFunction, inputs);
    EXPECT_TRUE(static_cast<bool>(outputs)) << llvm::toString(outputs.takeError());
    if (!outputs)
      return INFINITY;
    mmaCount = outputs->mmaCount;
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, lane, w);
        worst = std::max(worst, std::abs(outputs->acc[lane][r] -
                                         referenceDot(x, n, k, at[0], at[1])));
      }
  }
  return worst;
}

// tf32 products keep 10 of f32's 23 mantissa bits; tf32x3 splits each
// operand into a rounded tf32 part and the rest, and sums three products:
// on a warp model whose mma.sync reads only an operand's top 19 bits, its
// error falls from tf32's to f32's rounding of the sums.
TEST(MmaSyncTf32x3, RecoversF32PrecisionOnASimulatedWarp) {
  unsigned tf32Mmas = 0, tf32x3Mmas = 0;
  double tf32Error = simulatedF32DotError(tessera::tile::InputPrecision::TF32, tf32Mmas);
  double tf32x3Error = simulatedF32DotError(tessera::tile::InputPrecision::TF32x3, tf32x3Mmas);
  EXPECT_EQ(tf32x3Mmas, 3 * tf32Mmas);
  EXPECT_GT(tf32Error, 1e-4);
  EXPECT_LT(tf32x3Error, 2e-6);
}

TEST(MmaSyncSelection, TypesWithoutAnInstructionKeepTheFmaPath) {
  MLIRContext context;
  Builder b(&context);
  DotProblem f64{64, 64, 32, b.getF64Type(), b.getF64Type(), b.getF64Type()};
  EXPECT_EQ(selectTensorCoreDot(target("cuda:sm_90a"), f64, 4), nullptr);
}

TEST(MmaSyncSelection, TargetsWithoutMmaSyncGetNone) {
  MLIRContext context;
  DotProblem problem = dotProblem(context, DotTypes::F16, 64, 64, 32);
  EXPECT_EQ(selectTensorCoreDot(target("vulkan:1.3:subgroup=32"), problem, 4), nullptr);
  // An AMD target has its own matrix cores, but never mma.sync.
  EXPECT_EQ(selectMmaSyncDot(target("hip:gfx942"), problem, 4), nullptr);
  EXPECT_EQ(selectMmaSyncDot(target("hip:gfx1100"), problem, 4), nullptr);
}

TEST(MmaSyncSelection, ShapesBelowOneInstructionTilePerWarpGetNone) {
  MLIRContext context;
  GpuTarget sm80 = target("cuda:sm_80");
  auto select = [&](DotTypes types, int64_t m, int64_t n, int64_t k, unsigned warps) {
    return selectTensorCoreDot(sm80, dotProblem(context, types, m, n, k), warps) != nullptr;
  };
  EXPECT_TRUE(select(DotTypes::F16, 16, 8, 16, 1));
  EXPECT_FALSE(select(DotTypes::F16, 8, 8, 16, 1));   // M below 16
  EXPECT_FALSE(select(DotTypes::F16, 16, 4, 16, 1));  // N below 8
  EXPECT_FALSE(select(DotTypes::F16, 16, 8, 8, 1));   // K below the instruction's 16
  EXPECT_FALSE(select(DotTypes::S8, 16, 8, 16, 1));   // K below the instruction's 32
  EXPECT_FALSE(select(DotTypes::F16, 16, 16, 16, 4)); // four warps, two n8 tiles
  EXPECT_FALSE(select(DotTypes::F16, 48, 16, 16, 1)); // not a power of two
  EXPECT_FALSE(select(DotTypes::F16, 64, 64, 32, 3)); // three warps
}

TEST(MmaSyncSelection, OperandsBeyondSharedMemoryGetNone) {
  MLIRContext context;
  GpuTarget sm80 = target("cuda:sm_80"); // 163 KiB per block
  auto select = [&](int64_t m, int64_t n, int64_t k) {
    return selectTensorCoreDot(sm80, dotProblem(context, DotTypes::BF16, m, n, k), 8) != nullptr;
  };
  EXPECT_TRUE(select(256, 256, 128));  // 128 KiB of A and B
  EXPECT_FALSE(select(256, 256, 256)); // 256 KiB
}

} // namespace

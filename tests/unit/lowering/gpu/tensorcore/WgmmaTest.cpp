// wgmma for tile.dot: the instruction and warpgroup grid chosen, the
// accumulator layout against the PTX ISA's m64nN D fragment, the swizzled
// shared-memory placement, and emit() run on a simulated warpgroup that reads
// the operands through the emitted descriptors, against a float64 product.
#include "DotKernels.h"
#include "WarpgroupSimulator.h"

#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <vector>

using namespace mlir;
using namespace tessera::gpu;
using namespace tessera::gpu::testing;

namespace {

struct WgmmaCase {
  DotTypes types;
  int64_t m, n, k;
  unsigned numWarps;
  /// What planWgmma must choose.
  int64_t warpgroupsM, warpgroupsN, tilesM, tilesN, instructionN, swizzleBytes;
  /// B reaches the dot through tile.trans; and what planWgmma must choose
  /// for B: N-major (16-bit types not transposed) and its swizzle width.
  bool bTransposed;
  bool bNMajor;
  int64_t bSwizzleBytes;
  /// Whether the dot runs as C^T = B^T A^T (a tf32 B that is not
  /// transposed): then the warpgroup grid, tiles and instruction N above are
  /// over the instruction problem, [N, M].
  bool swapped = false;
  /// fp8: max_num_imprecise_acc, the K elements summed before each promotion.
  int64_t maxImpreciseAcc = 0;
};

std::string describe(const WgmmaCase &c) {
  return std::string(dotTypesName(c.types)) + "_" + std::to_string(c.m) + "x" +
         std::to_string(c.n) + "x" + std::to_string(c.k) + "_w" + std::to_string(c.numWarps) +
         (c.bTransposed ? "_transB" : "") +
         (c.maxImpreciseAcc ? "_promote" + std::to_string(c.maxImpreciseAcc) : "");
}

void PrintTo(const WgmmaCase &c, std::ostream *os) { *os << describe(c); }


GpuTarget sm90a() {
  llvm::Expected<GpuTarget> parsed = GpuTarget::parse("cuda:sm_90a");
  EXPECT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  return *parsed;
}

const WgmmaCase kCases[] = {
    {DotTypes::BF16, 64, 64, 64, 4, 1, 1, 1, 1, 64, 128, false, true, 128},
    {DotTypes::BF16, 64, 64, 64, 4, 1, 1, 1, 1, 64, 128, true, false, 128},
    // Two warpgroups along M.
    {DotTypes::F16, 128, 128, 64, 8, 2, 1, 1, 1, 128, 128, false, true, 128},
    // Two 64-row tiles per warpgroup; K = 32 bf16 is a 64-byte swizzle; an
    // N-major B spans two 128-byte panels per instruction.
    {DotTypes::BF16, 128, 256, 32, 4, 1, 1, 2, 1, 256, 64, false, true, 128},
    {DotTypes::BF16, 128, 256, 32, 4, 1, 1, 2, 1, 256, 64, true, false, 64},
    // M too short for two warpgroups: the second goes along N; 32-byte swizzle.
    {DotTypes::BF16, 64, 128, 16, 8, 1, 2, 1, 1, 64, 32, false, true, 128},
    {DotTypes::BF16, 64, 128, 16, 8, 1, 2, 1, 1, 64, 32, true, false, 32},
    // N beyond one instruction: two n256 tiles.
    {DotTypes::BF16, 64, 512, 16, 4, 1, 1, 1, 2, 256, 32, false, true, 128},
    // n8 is one 16-byte chunk, narrower than any panel: B stays K-major.
    {DotTypes::BF16, 64, 8, 16, 4, 1, 1, 1, 1, 8, 32, false, false, 32},
    // n16 and n32: one 32- and one 64-byte panel.
    {DotTypes::F16, 64, 16, 32, 4, 1, 1, 1, 1, 16, 64, false, true, 32},
    {DotTypes::F16, 64, 32, 64, 4, 1, 1, 1, 1, 32, 128, false, true, 64},
    // Several 128-byte column blocks of K, two tiles per warpgroup.
    {DotTypes::F16, 256, 64, 256, 8, 2, 1, 2, 1, 64, 128, false, true, 128},
    {DotTypes::F16, 256, 64, 256, 8, 2, 1, 2, 1, 64, 128, true, false, 128},
    // tf32 and s8 read B K-major only. A tf32 B of rows of N runs swapped
    // where N gives the instruction's M a 64-row tile, else it is copied in
    // transposed.
    {DotTypes::F32, 64, 32, 64, 4, 1, 1, 1, 1, 32, 128, false, false, 128},
    {DotTypes::F32, 128, 64, 16, 8, 2, 1, 1, 1, 64, 64, true, false, 64},
    {DotTypes::F32, 128, 64, 16, 8, 1, 2, 1, 1, 64, 64, false, true, 128, true},
    {DotTypes::F32, 64, 64, 32, 4, 1, 1, 1, 1, 64, 128, false, true, 128, true},
    // The instruction's M over two warpgroups, two 64-row tiles each.
    {DotTypes::F32, 128, 256, 32, 8, 2, 1, 2, 1, 128, 128, false, true, 128, true},
    // Fragments loaded per commit group of K steps (Wgmma.cpp,
    // swappedStepsPerGroup): two groups of two m64n128k8 steps.
    {DotTypes::F32, 128, 64, 32, 4, 1, 1, 1, 1, 128, 128, false, true, 128, true},
    // The dot's M beyond one n256 instruction: two tiles along it.
    {DotTypes::F32, 512, 64, 8, 4, 1, 1, 1, 2, 256, 32, false, true, 128, true},
    {DotTypes::S8, 64, 64, 256, 4, 1, 1, 1, 1, 64, 128, false, false, 128},
    {DotTypes::S8, 64, 16, 64, 4, 1, 1, 1, 1, 16, 64, false, false, 64},
    // fp8 as s8: 32 one-byte elements of K per instruction, both K-major.
    {DotTypes::F8E4M3, 128, 128, 64, 8, 2, 1, 1, 1, 128, 64, false, false, 64},
    {DotTypes::F8E4M3, 64, 256, 128, 4, 1, 1, 1, 1, 256, 128, true, false, 128},
    {DotTypes::F8E5M2, 64, 64, 256, 4, 1, 1, 1, 1, 64, 128, false, false, 128},
    // e4m3 A times e5m2 B (FP8 training's gradient GEMMs).
    {DotTypes::F8E4M3xE5M2, 64, 128, 64, 4, 1, 1, 1, 1, 128, 64, false, false, 64},
    // f16 accumulators, N / 4 registers of f16x2 pairs, of f16 and e4m3
    // products (the sums stay integers below 2048, exact in f16).
    {DotTypes::F16AccF16, 64, 64, 64, 4, 1, 1, 1, 1, 64, 128, false, true, 128},
    {DotTypes::F16AccF16, 128, 256, 32, 8, 2, 1, 1, 1, 256, 64, true, false, 64},
    {DotTypes::F8E4M3AccF16, 128, 128, 64, 4, 1, 1, 2, 1, 128, 64, false, false, 64},
    // fp8 sums promoted to f32 every 64 and every 96 elements of K (the last
    // run shorter): runs of wgmmas from zeros, each waited for and added to
    // the accumulator.
    {DotTypes::F8E4M3, 128, 128, 128, 8, 2, 1, 1, 1, 128, 128, false, false, 128, false, 64},
    {DotTypes::F8E5M2, 64, 256, 128, 4, 1, 1, 1, 1, 256, 128, true, false, 128, false, 96},
};

class WgmmaCaseTest : public ::testing::TestWithParam<WgmmaCase> {
protected:
  void SetUp() override {
    loadDotKernelDialects(context);
    problem = dotProblem(context, GetParam().types, GetParam().m, GetParam().n, GetParam().k);
    problem.bTransposed = GetParam().bTransposed;
    problem.maxImpreciseAcc = GetParam().maxImpreciseAcc;
    dot = selectTensorCoreDot(target, problem, GetParam().numWarps);
    ASSERT_NE(dot, nullptr);
  }

  int64_t elementBytes() const { return problem.aElement.getIntOrFloatBitWidth() / 8; }

  /// The outputs of every warpgroup, with the buffers at these addresses.
  std::vector<WarpgroupOutputs> simulate(uint64_t aAddress, uint64_t bAddress,
                                         const std::vector<double> &a,
                                         const std::vector<double> &b,
                                         const std::vector<double> &acc,
                                         bool fromZeros = false, bool registerA = false);

  MLIRContext context;
  GpuTarget target = sm90a();
  DotProblem problem;
  std::unique_ptr<TensorCoreDot> dot;
};

TEST_P(WgmmaCaseTest, PlansTheExpectedWarpgroupGrid) {
  const WgmmaCase &c = GetParam();
  std::optional<WgmmaPlan> plan = planWgmma(target, problem, c.numWarps);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->warpgroupsM, c.warpgroupsM);
  EXPECT_EQ(plan->warpgroupsN, c.warpgroupsN);
  EXPECT_EQ(plan->tilesM, c.tilesM);
  EXPECT_EQ(plan->tilesN, c.tilesN);
  EXPECT_EQ(plan->instructionN, c.instructionN);
  EXPECT_EQ(plan->instructionK * elementBytes(), 32);
  EXPECT_EQ(plan->swizzleBytes, c.swizzleBytes);
  EXPECT_EQ(plan->bNMajor, c.bNMajor);
  EXPECT_EQ(plan->bSwizzleBytes, c.bSwizzleBytes);
  EXPECT_EQ(plan->swapped, c.swapped);
  EXPECT_EQ(dot->name(), plan->name);
  EXPECT_EQ(dot->name().ends_with(".swapped"), c.swapped);
  EXPECT_EQ(plan->promoteEverySteps * plan->instructionK, c.maxImpreciseAcc);
  if (c.maxImpreciseAcc)
    EXPECT_TRUE(dot->name().ends_with(".promote" + std::to_string(c.maxImpreciseAcc)))
        << dot->name().str();
}

// PTX ISA, wgmma .m64nN D fragment: warp w % 4 of the warpgroup holds rows
// 16 * (w % 4) .. +15; lane l (g = l / 4, q = l % 4) holds d_i at row
// g + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2q + i % 2. Registers
// (N / 2) * t .. are tile t = tn + tilesN * tm of the warpgroup's block, and
// warpgroup w / 4 sits at row (w / 4) / warpgroupsN, column (w / 4) % warpgroupsN.
// A swapped dot's (row, column) of the instruction's D is (column, n) of C,
// n the row with its bits 0-5 moved to bits 0, 1, 4, 2, 3, 5 (so that the
// fragment loads meet no bank conflicts, FragmentLoadsHitDistinctBanks).
int64_t swappedColumnOfRow(int64_t row) {
  const int64_t to[] = {0, 1, 4, 2, 3, 5};
  int64_t column = row & ~int64_t(63);
  for (int64_t bit = 0; bit < 6; ++bit)
    column |= ((row >> bit) & 1) << to[bit];
  return column;
}

TEST_P(WgmmaCaseTest, AccumulatorLayoutIsThePtxFragmentOfEveryTile) {
  const WgmmaCase &c = GetParam();
  LinearLayout layout = dot->accumulatorLayout();
  ASSERT_TRUE(layout.isValid()) << layout.str();
  ASSERT_EQ(layout.shape, (llvm::SmallVector<int64_t, 4>{c.m, c.n}));
  ASSERT_EQ(layout.numWarps(), c.numWarps);
  ASSERT_EQ(layout.numLanes(), 32u);
  ASSERT_EQ(static_cast<int64_t>(layout.numRegisters()), c.m * c.n / (32 * c.numWarps));
  int64_t perTile = c.instructionN / 2;
  int64_t gridM = c.swapped ? c.n : c.m, gridN = c.swapped ? c.m : c.n;
  int64_t blockM = gridM / c.warpgroupsM, blockN = gridN / c.warpgroupsN;
  for (unsigned w = 0; w < c.numWarps; ++w)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        int64_t group = lane / 4, thread = lane % 4, i = r % perTile, tile = r / perTile;
        int64_t tm = tile / c.tilesN, tn = tile % c.tilesN, warpgroup = w / 4;
        int64_t row = (warpgroup / c.warpgroupsN) * blockM + tm * 64 + 16 * (w % 4) + group +
                      8 * ((i / 2) % 2);
        int64_t col = (warpgroup % c.warpgroupsN) * blockN + tn * c.instructionN + 8 * (i / 4) +
                      2 * thread + i % 2;
        Basis expected = c.swapped ? Basis{col, swappedColumnOfRow(row)} : Basis{row, col};
        ASSERT_EQ(layout.coordinates(r, lane, w), expected)
            << "warp " << w << " lane " << lane << " register " << r;
      }
}

TEST_P(WgmmaCaseTest, SharedIndexIsABijectionOntoTheBuffer) {
  const WgmmaCase &c = GetParam();
  EXPECT_EQ(sharedIndexBijectionError(&context, *dot, DotOperand::A, c.m, c.k), "");
  EXPECT_EQ(sharedIndexBijectionError(&context, *dot, DotOperand::B, c.k, c.n), "");
}

// The tensor core reads eight lines (rows of a K-major operand, K indices of
// an N-major B) of one 16-byte chunk column at a time (a core matrix); the
// swizzle puts them on the eight 16-byte positions of a 128-byte bank line,
// so the read is one conflict-free wavefront.
TEST_P(WgmmaCaseTest, EightLinesOfAChunkColumnHitDistinctBankPositions) {
  const WgmmaCase &c = GetParam();
  int64_t chunk = 16 / elementBytes();
  struct Lines {
    DotOperand operand;
    int64_t lines, along;
    bool transposed; // (line, along) is (col, row) of the operand
  };
  for (Lines l : {Lines{DotOperand::A, c.m, c.k, false},
                  c.bNMajor ? Lines{DotOperand::B, c.k, c.n, false}
                            : Lines{DotOperand::B, c.n, c.k, true}})
    for (int64_t firstLine = 0; firstLine < l.lines; firstLine += 8)
      for (int64_t along = 0; along < l.along; along += chunk) {
        std::set<int64_t> positions;
        for (int64_t line = firstLine; line < firstLine + 8; ++line) {
          int64_t index = l.transposed ? foldedSharedIndex(&context, *dot, l.operand, along, line)
                                       : foldedSharedIndex(&context, *dot, l.operand, line, along);
          ASSERT_EQ(index * elementBytes() % 16, 0);
          positions.insert(index * elementBytes() / 16 % 8);
        }
        EXPECT_EQ(positions.size(), 8u) << "lines " << firstLine << "+8, at " << along;
      }
}

// A swapped dot loads its A fragments from B with ordinary loads: each
// warp-wide load (one register of every lane, PTX ISA's tf32 A fragment:
// row 16 (w % 4) + g + 8 (r % 2), column q + 4 (r / 2) of the instruction's
// A, B's element (k = column, n = the row's swappedColumnOfRow)) must touch
// 32 distinct banks, one wavefront.
using SwappedWgmmaCaseTest = WgmmaCaseTest;

TEST_P(SwappedWgmmaCaseTest, FragmentLoadsHitDistinctBanks) {
  const WgmmaCase &c = GetParam();
  ASSERT_TRUE(c.swapped);
  int64_t blockM = c.n / c.warpgroupsM;
  for (unsigned w = 0; w < c.numWarps; ++w)
    for (int64_t tm = 0; tm < c.tilesM; ++tm)
      for (int64_t step = 0; step < c.k / 8; ++step)
        for (int64_t r = 0; r < 4; ++r) {
          std::set<int64_t> banks;
          for (unsigned lane = 0; lane < 32; ++lane) {
            int64_t row = (w / 4) / c.warpgroupsN * blockM + tm * 64 + 16 * (w % 4) +
                          lane / 4 + 8 * (r % 2);
            int64_t k = step * 8 + lane % 4 + 4 * (r / 2);
            int64_t index =
                foldedSharedIndex(&context, *dot, DotOperand::B, k, swappedColumnOfRow(row));
            banks.insert(index % 32);
          }
          EXPECT_EQ(banks.size(), 32u)
              << "warp " << w << " tile " << tm << " step " << step << " register " << r;
        }
}

// What a TMA copy writes (PTX ISA, "Tensor-map swizzle modes"): a box of
// `lines` lines of `swizzleBytes` bytes, line after line, each 16-byte chunk
// moved to chunk index XOR (address bits 7 and up, as many as the swizzle has
// chunks), at a destination aligned to the swizzle's repeat. A buffer of
// panels filled box by box must put every operand element where sharedIndex
// (and so wgmma) expects it.
TEST_P(WgmmaCaseTest, TmaBoxesWriteEachPanelAsWgmmaReadsIt) {
  const WgmmaCase &c = GetParam();
  for (DotOperand operand : {DotOperand::A, DotOperand::B}) {
    std::optional<SwizzledPanels> panels = dot->swizzledPanels(operand);
    ASSERT_TRUE(panels.has_value());
    int64_t rows = operand == DotOperand::A ? c.m : c.k;
    int64_t cols = operand == DotOperand::A ? c.k : c.n;
    EXPECT_EQ(panels->linesAreRows, operand == DotOperand::A || c.bNMajor);
    EXPECT_EQ(panels->lines, panels->linesAreRows ? rows : cols);
    EXPECT_EQ(panels->panels * panels->panelElements(), panels->linesAreRows ? cols : rows);
    EXPECT_EQ(panels->panelBytes() % (8 * panels->swizzleBytes), 0)
        << "each panel starts on the swizzle's repeat";
    int64_t chunks = panels->swizzleBytes / 16;
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t col = 0; col < cols; ++col) {
        int64_t line = panels->linesAreRows ? row : col;
        int64_t along = panels->linesAreRows ? col : row;
        int64_t address = (along / panels->panelElements()) * panels->panelBytes() +
                          line * panels->swizzleBytes +
                          (along % panels->panelElements()) * elementBytes();
        int64_t written = address ^ (((address >> 7) & (chunks - 1)) << 4);
        ASSERT_EQ(written / elementBytes(),
                  foldedSharedIndex(&context, *dot, operand, row, col))
            << (operand == DotOperand::A ? "A" : "B") << " (" << row << ", " << col << ")";
      }
  }
}

std::vector<WarpgroupOutputs> WgmmaCaseTest::simulate(uint64_t aAddress, uint64_t bAddress,
                                                      const std::vector<double> &a,
                                                      const std::vector<double> &b,
                                                      const std::vector<double> &acc,
                                                      bool fromZeros, bool registerA) {
  const WgmmaCase &c = GetParam();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  func::FuncOp function = buildWarpFunction(*module, *dot, problem, fromZeros, registerA);
  EXPECT_TRUE(succeeded(verify(*module)));

  WarpgroupInputs inputs;
  inputs.elementBytes = elementBytes();
  inputs.aAddress = aAddress;
  inputs.bAddress = bAddress;
  inputs.aShared.assign(dot->sharedElements(DotOperand::A), 0);
  inputs.bShared.assign(dot->sharedElements(DotOperand::B), 0);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t k = 0; k < c.k; ++k)
      inputs.aShared[foldedSharedIndex(&context, *dot, DotOperand::A, i, k)] = a[i * c.k + k];
  for (int64_t k = 0; k < c.k; ++k)
    for (int64_t j = 0; j < c.n; ++j)
      inputs.bShared[foldedSharedIndex(&context, *dot, DotOperand::B, k, j)] = b[k * c.n + j];

  LinearLayout layout = dot->accumulatorLayout();
  std::vector<WarpgroupOutputs> results;
  for (unsigned g = 0; g < c.numWarps / 4; ++g) {
    inputs.warpgroup = g;
    inputs.acc.assign(kWarpgroupThreads, std::vector<double>(layout.numRegisters()));
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, t % 32, 4 * g + t / 32);
        inputs.acc[t][r] = acc[at[0] * c.n + at[1]];
      }
    if (registerA) {
      LinearLayout aLayout = *dot->registerALayout();
      inputs.aRegisters.assign(kWarpgroupThreads, std::vector<double>(aLayout.numRegisters()));
      for (unsigned t = 0; t < kWarpgroupThreads; ++t)
        for (unsigned r = 0; r < aLayout.numRegisters(); ++r) {
          Basis at = aLayout.coordinates(r, t % 32, 4 * g + t / 32);
          inputs.aRegisters[t][r] = a[at[0] * c.k + at[1]];
        }
    }
    llvm::Expected<WarpgroupOutputs> outputs = simulateWarpgroup(function, inputs);
    if (!outputs) {
      ADD_FAILURE() << "warpgroup " << g << ": " << llvm::toString(outputs.takeError());
      return {};
    }
    results.push_back(std::move(*outputs));
  }
  return results;
}

DotOperands randomOperands(const WgmmaCase &c) {
  return randomDotOperands(c.m, c.n, c.k, c.types == DotTypes::S8 ? 127 : 3,
                           static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k + c.numWarps));
}

// Buffers at 1024-byte aligned addresses, as the distribution pass must place
// them, with a gap between them so a descriptor that strays is caught.
constexpr uint64_t kAAddress = 3 * 1024;
uint64_t bAddressAfter(uint64_t aAddress, int64_t aBytes) {
  return llvm::alignTo(aAddress + aBytes, 1024) + 1024;
}

TEST_P(WgmmaCaseTest, EmitComputesTheProductOnASimulatedWarpgroup) {
  const WgmmaCase &c = GetParam();
  DotOperands x = randomOperands(c);
  std::vector<WarpgroupOutputs> outputs =
      simulate(kAAddress, bAddressAfter(kAAddress, c.m * c.k * elementBytes()), x.a, x.b, x.acc);
  ASSERT_EQ(outputs.size(), c.numWarps / 4);
  LinearLayout layout = dot->accumulatorLayout();
  int64_t instructionK = 32 / elementBytes();
  for (unsigned g = 0; g < outputs.size(); ++g) {
    EXPECT_EQ(outputs[g].wgmmaCount, c.k / instructionK * c.tilesM * c.tilesN);
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, t % 32, 4 * g + t / 32);
        ASSERT_EQ(outputs[g].acc[t][r], referenceDot(x, c.n, c.k, at[0], at[1]))
            << "warpgroup " << g << " thread " << t << " register " << r << " at (" << at[0]
            << ", " << at[1] << ")";
      }
  }
}

// A dot from zeros ignores its accumulator in the first step (scale-d = 0)
// and hands no registers in; the registers the simulated threads hold there
// (random here) must not reach the product.
TEST_P(WgmmaCaseTest, EmitFromZerosIgnoresTheAccumulatorRegisters) {
  const WgmmaCase &c = GetParam();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  buildWarpFunction(*module, *dot, problem, /*fromZeros=*/true);
  int64_t fromNothing = 0;
  module->walk([&](NVVM::WgmmaMmaAsyncOp wgmma) {
    fromNothing += wgmma.getScaleD() == NVVM::WGMMAScaleOut::zero &&
                   wgmma.getInouts().getDefiningOp<LLVM::PoisonOp>();
  });
  // A swapped dot's wgmma is inline PTX with the accumulator as its first
  // operands and scale-d as the predicate it sets.
  module->walk([&](LLVM::InlineAsmOp wgmma) {
    fromNothing += wgmma.getAsmString().contains("setp.ne.b32 p, 0, 0;") &&
                   wgmma.getOperands().front().getDefiningOp<LLVM::PoisonOp>();
  });
  // A promoted fp8 dot starts each run of steps from nothing.
  int64_t steps = c.k / (32 / elementBytes());
  int64_t run = c.maxImpreciseAcc ? c.maxImpreciseAcc / (32 / elementBytes()) : steps;
  EXPECT_EQ(fromNothing, c.tilesM * c.tilesN * llvm::divideCeil(steps, run));

  DotOperands x = randomOperands(c);
  std::vector<WarpgroupOutputs> outputs = simulate(
      kAAddress, bAddressAfter(kAAddress, c.m * c.k * elementBytes()), x.a, x.b, x.acc, true);
  ASSERT_EQ(outputs.size(), c.numWarps / 4);
  LinearLayout layout = dot->accumulatorLayout();
  for (unsigned g = 0; g < outputs.size(); ++g)
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, t % 32, 4 * g + t / 32);
        ASSERT_EQ(outputs[g].acc[t][r], referenceDot(x, c.n, c.k, at[0], at[1], false))
            << "warpgroup " << g << " thread " << t << " register " << r;
      }
}

// With A in registers (a chained dot's, attention's P: wgmma's register form
// for 16-bit A and an f32 sum), the registers of registerALayout() hold the
// ISA's A fragments: the product is the same, and no wgmma reads A's buffer.
TEST_P(WgmmaCaseTest, RegisterAComputesTheProductOnASimulatedWarpgroup) {
  const WgmmaCase &c = GetParam();
  bool sixteenBit = c.types == DotTypes::F16 || c.types == DotTypes::BF16;
  ASSERT_EQ(dot->registerALayout().has_value(), sixteenBit);
  if (!sixteenBit)
    GTEST_SKIP() << "A is read from shared memory only";
  for (bool fromZeros : {false, true}) {
    DotOperands x = randomOperands(c);
    std::vector<WarpgroupOutputs> outputs =
        simulate(kAAddress, bAddressAfter(kAAddress, c.m * c.k * elementBytes()), x.a, x.b, x.acc,
                 fromZeros, /*registerA=*/true);
    ASSERT_EQ(outputs.size(), c.numWarps / 4);
    LinearLayout layout = dot->accumulatorLayout();
    for (unsigned g = 0; g < outputs.size(); ++g) {
      EXPECT_EQ(outputs[g].wgmmaCount, c.k / 16 * c.tilesM * c.tilesN);
      for (unsigned t = 0; t < kWarpgroupThreads; ++t)
        for (unsigned r = 0; r < layout.numRegisters(); ++r) {
          Basis at = layout.coordinates(r, t % 32, 4 * g + t / 32);
          ASSERT_EQ(outputs[g].acc[t][r], referenceDot(x, c.n, c.k, at[0], at[1], !fromZeros))
              << "warpgroup " << g << " thread " << t << " register " << r << " at (" << at[0]
              << ", " << at[1] << ")" << (fromZeros ? " from zeros" : "");
        }
    }
  }
}

// The swizzle is applied to absolute addresses: a buffer that starts off the
// 1024-byte boundary is read in another order, so the alignment the
// distribution pass must give is a real requirement, not a nicety.
TEST_P(WgmmaCaseTest, BuffersOffTheSwizzleRepeatGiveWrongProducts) {
  const WgmmaCase &c = GetParam();
  DotOperands x = randomOperands(c);
  uint64_t misaligned = kAAddress + 128;
  std::vector<WarpgroupOutputs> outputs = simulate(
      misaligned, bAddressAfter(misaligned, c.m * c.k * elementBytes()), x.a, x.b, x.acc);
  ASSERT_EQ(outputs.size(), c.numWarps / 4);
  LinearLayout layout = dot->accumulatorLayout();
  int64_t wrong = 0;
  for (unsigned g = 0; g < outputs.size(); ++g)
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned r = 0; r < layout.numRegisters(); ++r) {
        Basis at = layout.coordinates(r, t % 32, 4 * g + t / 32);
        wrong += outputs[g].acc[t][r] != referenceDot(x, c.n, c.k, at[0], at[1]);
      }
  EXPECT_GT(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, WgmmaCaseTest, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return describe(info.param); });

std::vector<WgmmaCase> swappedCases() {
  std::vector<WgmmaCase> swapped;
  llvm::copy_if(kCases, std::back_inserter(swapped), [](const WgmmaCase &c) { return c.swapped; });
  return swapped;
}

INSTANTIATE_TEST_SUITE_P(Shapes, SwappedWgmmaCaseTest, ::testing::ValuesIn(swappedCases()),
                         [](const auto &info) { return describe(info.param); });

} // namespace

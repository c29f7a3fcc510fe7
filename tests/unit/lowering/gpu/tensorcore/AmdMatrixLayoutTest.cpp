// MFMA/WMMA selection, accumulator layouts and the LDS swizzle, each checked
// against formulas written here from AMD's ISA guides rather than against the
// production code's bases.
#include "lowering/gpu/tensorcore/AmdMatrixCores.h"
#include "tests/unit/lowering/gpu/tensorcore/AmdIsaModel.h"
#include "tests/unit/lowering/gpu/tensorcore/WaveInterpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/DenseSet.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>

namespace tessera::gpu {
namespace {

GpuTarget target(llvm::StringRef spec) {
  llvm::Expected<GpuTarget> parsed = GpuTarget::parse(spec);
  EXPECT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  return *parsed;
}

struct Case {
  const char *target;
  mlir::Type (*element)(mlir::MLIRContext *);
  mlir::Type (*acc)(mlir::MLIRContext *);
};

mlir::Type f16(mlir::MLIRContext *c) { return mlir::Float16Type::get(c); }
mlir::Type bf16(mlir::MLIRContext *c) { return mlir::BFloat16Type::get(c); }
mlir::Type f32(mlir::MLIRContext *c) { return mlir::Float32Type::get(c); }
mlir::Type f64(mlir::MLIRContext *c) { return mlir::Float64Type::get(c); }
mlir::Type i8(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 8); }
mlir::Type i32(mlir::MLIRContext *c) { return mlir::IntegerType::get(c, 32); }
mlir::Type f8(mlir::MLIRContext *c) { return mlir::Float8E4M3FNType::get(c); }

class AmdMatrixLayoutTest : public ::testing::Test {
protected:
  DotProblem problem(mlir::Type (*element)(mlir::MLIRContext *),
                     mlir::Type (*acc)(mlir::MLIRContext *), int64_t m, int64_t n, int64_t k) {
    DotProblem p;
    p.m = m, p.n = n, p.k = k;
    p.aElement = p.bElement = element(&context);
    p.accElement = acc(&context);
    return p;
  }

  // sharedIndex(row, col) built once on two block arguments, then evaluated
  // for every element by interpreting the index arithmetic it emitted.
  std::function<int64_t(int64_t, int64_t)> sharedIndexOf(const TensorCoreDot &dot,
                                                         DotOperand operand) {
    auto loc = builder.getUnknownLoc();
    auto index = builder.getIndexType();
    auto func = mlir::func::FuncOp::create(builder, loc, "index",
                                           builder.getFunctionType({index, index}, {}));
    mlir::Block *body = func.addEntryBlock();
    mlir::OpBuilder inner = mlir::OpBuilder::atBlockEnd(body);
    mlir::Value result =
        dot.sharedIndex(inner, loc, operand, body->getArgument(0), body->getArgument(1));
    return [body, result](int64_t row, int64_t col) {
      testing::WaveInterpreter interpreter(1);
      interpreter.bindUniform(body->getArgument(0), static_cast<double>(row));
      interpreter.bindUniform(body->getArgument(1), static_cast<double>(col));
      EXPECT_TRUE(interpreter.run(*body));
      return static_cast<int64_t>(interpreter.valueOf(result)[0][0]);
    };
  }

  void SetUp() override {
    context.loadDialect<mlir::arith::ArithDialect, mlir::func::FuncDialect>();
    module = mlir::ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  mlir::MLIRContext context;
  mlir::OpBuilder builder{&context};
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

const Case kCases[] = {
    {"hip:gfx90a", f16, f32}, {"hip:gfx90a", bf16, f32}, {"hip:gfx90a", i8, i32},
    {"hip:gfx90a", f32, f32}, {"hip:gfx942", f16, f32}, {"hip:gfx942", bf16, f32},
    {"hip:gfx942", i8, i32},  {"hip:gfx942", f32, f32}, {"hip:gfx1100", f16, f32},
    {"hip:gfx1100", bf16, f32}, {"hip:gfx1100", i8, i32}};

const std::array<int64_t, 3> kShapes[] = {{16, 16, 16}, {32, 32, 8},   {32, 32, 32},   {64, 32, 64},
                              {32, 128, 16}, {128, 128, 32}, {256, 128, 64}, {64, 64, 128}};

// The LDS layout depends on the instruction, K and the element size only.
const std::array<int64_t, 3> kSharedShapes[] = {{64, 64, 8},  {64, 64, 16},  {64, 64, 32},
                                                {64, 64, 64}, {64, 64, 128}, {64, 64, 256}};

// Runs `check` on every case, shape and wave count that has a plan.
void forEachPlan(
    mlir::MLIRContext &context, llvm::ArrayRef<std::array<int64_t, 3>> shapes,
    llvm::ArrayRef<unsigned> warpCounts,
    const std::function<void(const GpuTarget &, const DotProblem &, unsigned,
                             const AmdDotPlan &)> &check) {
  for (const Case &c : kCases)
    for (const auto &shape : shapes)
      for (unsigned numWarps : warpCounts) {
        GpuTarget t = target(c.target);
        DotProblem p;
        p.m = shape[0], p.n = shape[1], p.k = shape[2];
        p.aElement = p.bElement = c.element(&context);
        p.accElement = c.acc(&context);
        if (std::optional<AmdDotPlan> plan = planAmdMatrixDot(t, p, numWarps)) {
          SCOPED_TRACE(t.str() + " " + plan->instruction.name.str() + " " +
                       std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                       std::to_string(p.k) + " warps=" + std::to_string(numWarps));
          check(t, p, numWarps, *plan);
        }
      }
}

TEST_F(AmdMatrixLayoutTest, AccumulatorLayoutsFollowTheIsaTables) {
  unsigned checked = 0;
  forEachPlan(context, kShapes, {1u, 2u, 4u, 8u},
              [&](const GpuTarget &t, const DotProblem &p, unsigned numWarps,
                  const AmdDotPlan &plan) {
    std::unique_ptr<TensorCoreDot> dot = selectAmdMatrixDot(t, p, numWarps);
    ASSERT_TRUE(dot);
    EXPECT_EQ(dot->name(), plan.instruction.name);
    LinearLayout layout = dot->accumulatorLayout();
    ASSERT_TRUE(layout.isValid()) << layout.str();
    const AmdMatrixInstruction &in = plan.instruction;
    int64_t waveM = p.m / plan.warpsM, waveN = p.n / plan.warpsN;
    int64_t tilesN = waveN / in.n, tilesM = waveM / in.m;
    int64_t perInstruction = in.m * in.n / t.warpSize;
    ASSERT_EQ(layout.numLanes(), t.warpSize);
    ASSERT_EQ(layout.numWarps(), numWarps);
    ASSERT_EQ(layout.numRegisters(), perInstruction * tilesM * tilesN);
    int64_t copies = numWarps / (plan.warpsM * plan.warpsN);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        testing::Slot slot = testing::resultSlot(in, i % in.m, j % in.n);
        int64_t tile = (j % waveN) / in.n + tilesN * ((i % waveM) / in.m);
        unsigned reg = slot.item + perInstruction * tile;
        for (int64_t copy = 0; copy < copies; ++copy) {
          unsigned warp = j / waveN + plan.warpsN * (i / waveM) + copy * plan.warpsM * plan.warpsN;
          Basis expected{i, j};
          ASSERT_EQ(layout.coordinates(reg, slot.lane, warp), expected)
              << "reg " << reg << " lane " << slot.lane << " warp " << warp;
        }
      }
    ++checked;
  });
  EXPECT_GT(checked, 100u);
}

TEST_F(AmdMatrixLayoutTest, PicksTheLargestInstructionThatKeepsEveryWaveBusy) {
  auto pick = [&](const char *spec, mlir::Type (*element)(mlir::MLIRContext *),
                  mlir::Type (*acc)(mlir::MLIRContext *), int64_t m, int64_t n, int64_t k,
                  unsigned warps) -> std::string {
    std::unique_ptr<TensorCoreDot> dot =
        selectAmdMatrixDot(target(spec), problem(element, acc, m, n, k), warps);
    return dot ? dot->name().str() : "none";
  };
  EXPECT_EQ(pick("hip:gfx942", f16, f32, 128, 128, 32, 4), "mfma.32x32x8.f16");
  EXPECT_EQ(pick("hip:gfx942", f16, f32, 32, 32, 32, 4), "mfma.16x16x16.f16");
  EXPECT_EQ(pick("hip:gfx90a", bf16, f32, 64, 64, 64, 4), "mfma.32x32x8.bf16");
  EXPECT_EQ(pick("hip:gfx90a", i8, i32, 64, 64, 64, 4), "mfma.32x32x8.i8");
  EXPECT_EQ(pick("hip:gfx942", i8, i32, 64, 64, 64, 4), "mfma.32x32x16.i8");
  EXPECT_EQ(pick("hip:gfx942", i8, i32, 64, 64, 8, 4), "none");
  EXPECT_EQ(pick("hip:gfx942", f32, f32, 64, 64, 16, 4), "mfma.32x32x2.f32");
  EXPECT_EQ(pick("hip:gfx1100", f16, f32, 64, 64, 32, 4), "wmma.16x16x16.f16");
  EXPECT_EQ(pick("hip:gfx1100", i8, i32, 64, 64, 32, 4), "wmma.16x16x16.i8");
  // K = 8 rules out the 16x16x16 form even where 32x32 leaves waves idle.
  EXPECT_EQ(pick("hip:gfx942", f16, f32, 32, 32, 8, 4), "mfma.32x32x8.f16");

  std::optional<AmdDotPlan> plan =
      planAmdMatrixDot(target("hip:gfx942"), problem(f16, f32, 256, 128, 32), 8);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->warpsM, 4);
  EXPECT_EQ(plan->warpsN, 2);

  // Chained dots (attention) keep their waves along M while M allows.
  DotProblem chained = problem(f16, f32, 128, 128, 32);
  chained.chained = true;
  plan = planAmdMatrixDot(target("hip:gfx942"), chained, 4);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->warpsM, 4);
  EXPECT_EQ(plan->warpsN, 1);
  plan = planAmdMatrixDot(target("hip:gfx942"), problem(f16, f32, 128, 128, 32), 4);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->warpsM, 2);
  EXPECT_EQ(plan->warpsN, 2);
}

TEST_F(AmdMatrixLayoutTest, ReturnsNothingWithoutAMatchingInstruction) {
  auto none = [&](const char *spec, mlir::Type (*element)(mlir::MLIRContext *),
                  mlir::Type (*acc)(mlir::MLIRContext *), int64_t m, int64_t n, int64_t k,
                  unsigned warps = 4) {
    return selectAmdMatrixDot(target(spec), problem(element, acc, m, n, k), warps) == nullptr;
  };
  EXPECT_TRUE(none("cuda:sm_90a", f16, f32, 128, 128, 32));
  EXPECT_TRUE(none("cuda:sm_80", f16, f32, 128, 128, 32));
  EXPECT_TRUE(none("vulkan:1.3:subgroup=32", f16, f32, 128, 128, 32));
  EXPECT_TRUE(none("hip:gfx90a", f8, f32, 128, 128, 32));
  EXPECT_TRUE(none("hip:gfx942", f8, f32, 128, 128, 32));
  EXPECT_TRUE(none("hip:gfx942", f64, f64, 128, 128, 32));
  EXPECT_TRUE(none("hip:gfx1100", f32, f32, 128, 128, 32));
  // Accumulating in f16 is left to the FMA path.
  EXPECT_TRUE(none("hip:gfx942", f16, f16, 128, 128, 32));
  // Smaller than every instruction tile, or not a multiple of it.
  EXPECT_TRUE(none("hip:gfx942", f16, f32, 8, 128, 32));
  EXPECT_TRUE(none("hip:gfx942", f16, f32, 128, 8, 32));
  EXPECT_TRUE(none("hip:gfx942", f16, f32, 128, 128, 4));
  EXPECT_TRUE(none("hip:gfx1100", f16, f32, 16, 16, 8));
  EXPECT_TRUE(none("hip:gfx942", f16, f32, 48, 48, 32));
  // Operands larger than the 64 KiB of LDS.
  EXPECT_TRUE(none("hip:gfx942", f16, f32, 256, 256, 128));
  // Mixed operand types.
  DotProblem mixed = problem(f16, f32, 64, 64, 32);
  mixed.bElement = bf16(&context);
  EXPECT_EQ(selectAmdMatrixDot(target("hip:gfx942"), mixed, 4), nullptr);
}

TEST_F(AmdMatrixLayoutTest, SharedIndexIsABijectionOntoTheBuffer) {
  forEachPlan(context, kSharedShapes, {4u},
              [&](const GpuTarget &t, const DotProblem &p, unsigned numWarps, const AmdDotPlan &) {
    std::unique_ptr<TensorCoreDot> dot = selectAmdMatrixDot(t, p, numWarps);
    for (DotOperand operand : {DotOperand::A, DotOperand::B}) {
      auto sharedIndex = sharedIndexOf(*dot, operand);
      int64_t rows = operand == DotOperand::A ? p.m : p.k;
      int64_t cols = operand == DotOperand::A ? p.k : p.n;
      int64_t size = dot->sharedElements(operand);
      ASSERT_EQ(size, rows * cols);
      llvm::DenseSet<int64_t> seen;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          int64_t index = sharedIndex(r, c);
          ASSERT_GE(index, 0);
          ASSERT_LT(index, size);
          ASSERT_TRUE(seen.insert(index).second) << "(" << r << ", " << c << ") collides";
        }
    }
  });
}

// The lanes of one instruction read their first fragment unit: lanes served
// in the same LDS cycle (128 bytes' worth) must hit distinct banks or the very
// same address. The lane -> (line, k) map is the ISA's operand table: lane l
// feeds line l % m from k = (l / m) * kPerLane (MFMA), or k = 0 with lanes
// 16-31 repeating 0-15 (RDNA3 WMMA).
TEST_F(AmdMatrixLayoutTest, OperandReadsAreFreeOfBankConflicts) {
  forEachPlan(context, kSharedShapes, {4u},
              [&](const GpuTarget &t, const DotProblem &p, unsigned numWarps,
                  const AmdDotPlan &plan) {
    std::unique_ptr<TensorCoreDot> dot = selectAmdMatrixDot(t, p, numWarps);
    const AmdMatrixInstruction &in = plan.instruction;
    int64_t elementBytes = p.aElement.getIntOrFloatBitWidth() / 8;
    int64_t accessBytes = std::min<int64_t>(in.kPerLane * elementBytes, 16);
    int64_t lanesPerCycle = 128 / accessBytes;
    for (DotOperand operand : {DotOperand::A, DotOperand::B}) {
      auto sharedIndex = sharedIndexOf(*dot, operand);
      for (int64_t kStart = 0; kStart < p.k; kStart += in.k)
        for (int64_t base = 0; base < t.warpSize; base += lanesPerCycle) {
          llvm::DenseMap<int64_t, int64_t> addressOfBankSlot;
          for (int64_t lane = base; lane < base + lanesPerCycle; ++lane) {
            int64_t line = lane % in.m;
            int64_t k = kStart;
            if (in.family == AmdMatrixFamily::Mfma)
              k += (lane / in.m) * in.kPerLane;
            int64_t index = operand == DotOperand::A ? sharedIndex(line, k) : sharedIndex(k, line);
            int64_t address = index * elementBytes;
            ASSERT_EQ(address % accessBytes, 0) << "unaligned fragment of lane " << lane;
            int64_t slot = (address % 128) / accessBytes;
            auto [it, inserted] = addressOfBankSlot.try_emplace(slot, address);
            ASSERT_TRUE(inserted || it->second == address)
                << "lane " << lane << " conflicts at k " << kStart;
          }
        }
    }
  });
}

} // namespace
} // namespace tessera::gpu

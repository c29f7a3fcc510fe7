// The Vulkan cooperative-matrix dot: selection, its accumulator layout and
// shared placement, and emit() run for a whole workgroup on the CPU. The
// interpreter below runs every thread in lock step (per-thread scalars, one
// 16x16 matrix per subgroup for the subgroup MMA ops, which it executes as
// the SPIR-V extension defines them: row-major pieces at the given index
// with the lead dimension as row stride). It also checks what the extension
// demands of a kernel: a subgroup enters a matrix op whole, with the same
// index in every invocation.
#include "lowering/gpu/tensorcore/CooperativeMatrix.h"
#include "tests/unit/lowering/gpu/tensorcore/DotKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/TypeSwitch.h"

#include <gtest/gtest.h>


using namespace mlir;
namespace mgpu = mlir::gpu;

namespace tessera::gpu {
namespace {

using testing::DotTypes;

GpuTarget coopmatTarget(unsigned subgroup) {
  llvm::Expected<GpuTarget> target =
      GpuTarget::parse("vulkan:1.3:subgroup=" + std::to_string(subgroup) + ":coopmat");
  EXPECT_TRUE(static_cast<bool>(target));
  return *target;
}

class WorkgroupInterpreter {
public:
  WorkgroupInterpreter(unsigned threads, unsigned subgroupSize)
      : threads(threads), subgroupSize(subgroupSize) {}

  void bindPerThread(Value value, std::vector<double> perThread) {
    scalars[value] = std::move(perThread);
  }
  void bindMemory(Value memref, std::vector<double> *storage) { memories[memref] = storage; }
  const std::vector<double> &valueOf(Value value) { return scalars[value]; }

  /// Runs `block` for the threads in `active`; false on an op it does not
  /// know or a broken subgroup rule (with the test failure recorded).
  bool run(Block &block, const std::vector<bool> &active) {
    for (Operation &op : block.without_terminator())
      if (!step(op, active))
        return false;
    return true;
  }

private:
  using Matrix = std::vector<double>;
  static constexpr int64_t kSize = kCooperativeMatrixSize;

  bool step(Operation &op, const std::vector<bool> &active) {
    auto perThread = [&](auto apply) {
      std::vector<double> result(threads);
      for (unsigned t = 0; t < threads; ++t)
        if (active[t])
          result[t] = apply(t);
      scalars[op.getResult(0)] = std::move(result);
      return true;
    };
    auto at = [&](Value v, unsigned t) { return scalars[v][t]; };
    auto integer = [&](Value v, unsigned t) { return static_cast<int64_t>(at(v, t)); };
    return llvm::TypeSwitch<Operation *, bool>(&op)
        .Case([&](arith::ConstantOp c) {
          double value = isa<FloatAttr>(c.getValue())
                             ? cast<FloatAttr>(c.getValue()).getValueAsDouble()
                             : double(cast<IntegerAttr>(c.getValue()).getInt());
          return perThread([&](unsigned) { return value; });
        })
        .Case([&](arith::IndexCastUIOp c) {
          return perThread([&](unsigned t) { return at(c.getIn(), t); });
        })
        .Case([&](arith::AddIOp c) {
          return perThread([&](unsigned t) { return double(integer(c.getLhs(), t) + integer(c.getRhs(), t)); });
        })
        .Case([&](arith::MulIOp c) {
          return perThread([&](unsigned t) { return double(integer(c.getLhs(), t) * integer(c.getRhs(), t)); });
        })
        .Case([&](arith::DivUIOp c) {
          return perThread([&](unsigned t) { return double(integer(c.getLhs(), t) / integer(c.getRhs(), t)); });
        })
        .Case([&](arith::RemUIOp c) {
          return perThread([&](unsigned t) { return double(integer(c.getLhs(), t) % integer(c.getRhs(), t)); });
        })
        .Case([&](arith::CmpIOp c) {
          if (c.getPredicate() != arith::CmpIPredicate::ult) {
            ADD_FAILURE() << "unexpected comparison";
            return false;
          }
          return perThread([&](unsigned t) { return double(integer(c.getLhs(), t) < integer(c.getRhs(), t)); });
        })
        .Case([&](memref::StoreOp store) {
          std::vector<double> &memory = *memories.at(store.getMemref());
          for (unsigned t = 0; t < threads; ++t)
            if (active[t])
              memory.at(integer(store.getIndices()[0], t)) = at(store.getValue(), t);
          return true;
        })
        .Case([&](memref::LoadOp load) {
          std::vector<double> &memory = *memories.at(load.getMemref());
          return perThread([&](unsigned t) { return memory.at(integer(load.getIndices()[0], t)); });
        })
        .Case([&](mgpu::BarrierOp) {
          ++barriers;
          return true;
        })
        .Case([&](scf::IfOp guard) {
          std::vector<bool> inside(threads);
          for (unsigned t = 0; t < threads; ++t)
            inside[t] = active[t] && at(guard.getCondition(), t) != 0;
          return run(*guard.thenBlock(), inside);
        })
        .Case([&](mgpu::SubgroupMmaLoadMatrixOp load) {
          return perSubgroup(load, active, load.getIndices()[0], [&](unsigned s, int64_t index) {
            const std::vector<double> &memory = *memories.at(load.getSrcMemref());
            int64_t stride = load.getLeadDimension().getSExtValue();
            Matrix piece(kSize * kSize);
            for (int64_t r = 0; r < kSize; ++r)
              for (int64_t c = 0; c < kSize; ++c)
                piece[r * kSize + c] = memory.at(index + r * stride + c);
            matrices[load.getResult()][s] = piece;
          });
        })
        .Case([&](mgpu::SubgroupMmaStoreMatrixOp store) {
          return perSubgroup(store, active, store.getIndices()[0], [&](unsigned s, int64_t index) {
            std::vector<double> &memory = *memories.at(store.getDstMemref());
            int64_t stride = store.getLeadDimension().getSExtValue();
            const Matrix &piece = matrices[store.getSrc()][s];
            for (int64_t r = 0; r < kSize; ++r)
              for (int64_t c = 0; c < kSize; ++c)
                memory.at(index + r * stride + c) = piece[r * kSize + c];
          });
        })
        .Case([&](mgpu::SubgroupMmaComputeOp compute) {
          return perSubgroup(compute, active, Value(), [&](unsigned s, int64_t) {
            const Matrix &a = matrices[compute.getOpA()][s], &b = matrices[compute.getOpB()][s];
            Matrix d = matrices[compute.getOpC()][s];
            for (int64_t r = 0; r < kSize; ++r)
              for (int64_t c = 0; c < kSize; ++c)
                for (int64_t k = 0; k < kSize; ++k)
                  d[r * kSize + c] += a[r * kSize + k] * b[k * kSize + c];
            matrices[compute.getRes()][s] = d;
          });
        })
        .Default([&](Operation *other) {
          ADD_FAILURE() << "the interpreter does not know " << other->getName().getStringRef().str();
          return false;
        });
  }

  /// Runs `apply` once per subgroup that executes `op`, with the index it
  /// gives (when `index` is set), after checking the extension's rules.
  template <typename Apply>
  bool perSubgroup(Operation *op, const std::vector<bool> &active, Value index, Apply apply) {
    for (unsigned s = 0; s < threads / subgroupSize; ++s) {
      unsigned first = s * subgroupSize;
      unsigned entered = 0;
      for (unsigned t = first; t < first + subgroupSize; ++t) {
        entered += active[t];
        if (active[t] && index && scalars[index][t] != scalars[index][first]) {
          ADD_FAILURE() << op->getName().getStringRef().str() << ": subgroup " << s
                        << " gives different indices in one matrix op";
          return false;
        }
      }
      if (entered != 0 && entered != subgroupSize) {
        ADD_FAILURE() << op->getName().getStringRef().str() << ": subgroup " << s
                      << " enters a matrix op with " << entered << " of " << subgroupSize
                      << " invocations";
        return false;
      }
      if (entered)
        apply(s, index ? static_cast<int64_t>(scalars[index][first]) : 0);
    }
    return true;
  }

public:
  unsigned barriers = 0;

private:
  unsigned threads, subgroupSize;
  llvm::DenseMap<Value, std::vector<double>> scalars;
  llvm::DenseMap<Value, llvm::DenseMap<unsigned, Matrix>> matrices;
  llvm::DenseMap<Value, std::vector<double> *> memories;
};

struct SimulationCase {
  const char *name;
  int64_t m, n, k;
  unsigned numWarps, subgroup;
};

void PrintTo(const SimulationCase &c, std::ostream *os) { *os << c.name; }

class CooperativeMatrixSimulationTest : public ::testing::TestWithParam<SimulationCase> {
protected:
  CooperativeMatrixSimulationTest() { testing::loadDotKernelDialects(context); }
  MLIRContext context;
};

TEST_P(CooperativeMatrixSimulationTest, MatchesTheProductForEveryThread) {
  const SimulationCase &c = GetParam();
  GpuTarget target = coopmatTarget(c.subgroup);
  DotProblem problem = testing::dotProblem(context, DotTypes::F16, c.m, c.n, c.k);
  std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(target, problem, c.numWarps);
  ASSERT_TRUE(dot);
  ASSERT_EQ(dot->name(), "coopmat.16x16x16.f16");
  LinearLayout layout = dot->accumulatorLayout();
  ASSERT_TRUE(layout.isValid()) << layout.str();

  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  unsigned registers = layout.numRegisters();
  func::FuncOp function = testing::buildWarpFunction(*module, *dot, problem);
  Block *body = &function.getBody().front();
  auto returned = cast<func::ReturnOp>(body->getTerminator());
  SmallVector<Value> result(returned.getOperands());
  ASSERT_TRUE(succeeded(verify(*module)));
  ASSERT_EQ(result.size(), registers);

  auto [a, bMatrix, acc] =
      testing::randomDotOperands(c.m, c.n, c.k, 4, 20261125u + c.m * 7 + c.n * 3 + c.k);
  std::vector<double> aShared(dot->sharedElements(DotOperand::A), 0.0),
      bShared(dot->sharedElements(DotOperand::B), 0.0),
      scratch(dot->accumulatorScratchElements(), -1e30);
  for (int64_t r = 0; r < c.m; ++r)
    for (int64_t kk = 0; kk < c.k; ++kk)
      aShared.at(testing::foldedSharedIndex(&context, *dot, DotOperand::A, r, kk)) = a[r * c.k + kk];
  for (int64_t kk = 0; kk < c.k; ++kk)
    for (int64_t col = 0; col < c.n; ++col)
      bShared.at(testing::foldedSharedIndex(&context, *dot, DotOperand::B, kk, col)) =
          bMatrix[kk * c.n + col];

  unsigned threads = c.numWarps * c.subgroup;
  WorkgroupInterpreter interpreter(threads, c.subgroup);
  std::vector<double> lanes(threads), warps(threads);
  for (unsigned t = 0; t < threads; ++t) {
    lanes[t] = t % c.subgroup;
    warps[t] = t / c.subgroup;
  }
  interpreter.bindPerThread(body->getArgument(0), lanes);
  interpreter.bindPerThread(body->getArgument(1), warps);
  interpreter.bindMemory(body->getArgument(2), &aShared);
  interpreter.bindMemory(body->getArgument(3), &bShared);
  interpreter.bindMemory(body->getArgument(4), &scratch);
  for (unsigned reg = 0; reg < registers; ++reg) {
    std::vector<double> values(threads);
    for (unsigned t = 0; t < threads; ++t) {
      Basis at = layout.coordinates(reg, t % c.subgroup, t / c.subgroup);
      values[t] = acc[at[0] * c.n + at[1]];
    }
    interpreter.bindPerThread(body->getArgument(5 + reg), values);
  }
  ASSERT_TRUE(interpreter.run(*body, std::vector<bool>(threads, true)));
  EXPECT_EQ(interpreter.barriers, 2u) << "scratch stores -> matrix loads, matrix stores -> reads";

  for (unsigned reg = 0; reg < registers; ++reg)
    for (unsigned t = 0; t < threads; ++t) {
      Basis at = layout.coordinates(reg, t % c.subgroup, t / c.subgroup);
      double expected = acc[at[0] * c.n + at[1]];
      for (int64_t kk = 0; kk < c.k; ++kk)
        expected += a[at[0] * c.k + kk] * bMatrix[kk * c.n + at[1]];
      ASSERT_EQ(interpreter.valueOf(result[reg])[t], expected)
          << "register " << reg << " of thread " << t << " (" << at[0] << ", " << at[1] << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CooperativeMatrixSimulationTest,
    ::testing::Values(SimulationCase{"m64n64k32_4x32", 64, 64, 32, 4, 32},
                      SimulationCase{"m32n128k32_4x32", 32, 128, 32, 4, 32},
                      SimulationCase{"m128n32k16_2x64", 128, 32, 16, 2, 64},
                      SimulationCase{"m16n32k16_4x32_idle", 16, 32, 16, 4, 32},
                      SimulationCase{"m64n64k16_8x16", 64, 64, 16, 8, 16},
                      SimulationCase{"m16n16k64_1x8", 16, 16, 64, 1, 8}),
    [](const ::testing::TestParamInfo<SimulationCase> &info) { return info.param.name; });

class CooperativeMatrixSelectionTest : public ::testing::Test {
protected:
  CooperativeMatrixSelectionTest() { testing::loadDotKernelDialects(context); }
  DotProblem problem(DotTypes types, int64_t m, int64_t n, int64_t k) {
    return testing::dotProblem(context, types, m, n, k);
  }
  MLIRContext context;
};

TEST_F(CooperativeMatrixSelectionTest, OnlyF16WithF32AccumulatorOnCoopmatTargets) {
  GpuTarget coopmat = coopmatTarget(32);
  EXPECT_TRUE(selectTensorCoreDot(coopmat, problem(DotTypes::F16, 64, 64, 32), 4));
  GpuTarget plain = coopmat;
  plain.cooperativeMatrix = false;
  EXPECT_FALSE(selectTensorCoreDot(plain, problem(DotTypes::F16, 64, 64, 32), 4));
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F32, 64, 64, 32), 4));
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F16AccF16, 64, 64, 32), 4));
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::S8, 64, 64, 32), 4));
}

TEST_F(CooperativeMatrixSelectionTest, RefusesShapesThePiecesDoNotTile) {
  GpuTarget coopmat = coopmatTarget(32);
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F16, 8, 64, 32), 4));
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F16, 64, 64, 8), 4));
  // Fewer accumulator elements than threads would need copies in registers.
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F16, 16, 16, 16), 16));
  // 128x128x128: 2 * 32 KiB of operands and 64 KiB of accumulator.
  coopmat.maxSharedMemoryBytes = 48 * 1024;
  EXPECT_FALSE(selectTensorCoreDot(coopmat, problem(DotTypes::F16, 128, 128, 128), 4));
}

TEST_F(CooperativeMatrixSelectionTest, LayoutAndPlacement) {
  GpuTarget coopmat = coopmatTarget(32);
  std::unique_ptr<TensorCoreDot> dot =
      selectTensorCoreDot(coopmat, problem(DotTypes::F16, 64, 32, 32), 4);
  ASSERT_TRUE(dot);
  LinearLayout layout = dot->accumulatorLayout();
  EXPECT_TRUE(layout.isValid());
  EXPECT_EQ(layout.numLanes(), 32u);
  EXPECT_EQ(layout.numWarps(), 4u);
  EXPECT_EQ(layout.numRegisters(), 64u * 32u / 128u);
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
    EXPECT_FALSE(layout.isDuplicateRegister(reg));
  // Thread t's register r is flat element r * 128 + t.
  EXPECT_EQ(layout.coordinates(1, 5, 2), (Basis{(128 + 2 * 32 + 5) / 32, (2 * 32 + 5) % 32}));
  EXPECT_EQ(dot->accumulatorScratchElements(), 64 * 32);
  EXPECT_EQ(testing::sharedIndexBijectionError(&context, *dot, DotOperand::A, 64, 32), "");
  EXPECT_EQ(testing::sharedIndexBijectionError(&context, *dot, DotOperand::B, 32, 32), "");
}

} // namespace
} // namespace tessera::gpu

// The emitted dot, run wave by wave on the CPU against the ISA's register
// tables (AmdIsaModel.h): operands placed in LDS with sharedIndex, the
// accumulator handed in and read back through accumulatorLayout(), compared
// with C + A x B. Without an AMD GPU this is the check that emit() feeds each
// lane the fragment the hardware expects.
#include "lowering/gpu/tensorcore/AmdMatrixCores.h"
#include "tests/unit/lowering/gpu/tensorcore/WaveInterpreter.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir;
namespace mgpu = mlir::gpu;

namespace tessera::gpu {
namespace {

struct SimulationCase {
  const char *name;
  const char *target;
  const char *element;
  int64_t m, n, k;
  unsigned numWarps;
};

void PrintTo(const SimulationCase &c, std::ostream *os) { *os << c.name; }

class AmdMatrixSimulationTest : public ::testing::TestWithParam<SimulationCase> {
protected:
  AmdMatrixSimulationTest() {
    context.loadDialect<amdgpu::AMDGPUDialect, arith::ArithDialect, func::FuncDialect,
                        mgpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                        vector::VectorDialect>();
  }

  Type type(llvm::StringRef name) {
    if (name == "f16")
      return Float16Type::get(&context);
    if (name == "bf16")
      return BFloat16Type::get(&context);
    if (name == "i8")
      return IntegerType::get(&context, 8);
    if (name == "i32")
      return IntegerType::get(&context, 32);
    return Float32Type::get(&context);
  }

  MLIRContext context;
};

TEST_P(AmdMatrixSimulationTest, EveryWaveComputesItsPartOfTheProduct) {
  const SimulationCase &c = GetParam();
  GpuTarget target = *GpuTarget::parse(c.target);
  DotProblem problem;
  problem.m = c.m, problem.n = c.n, problem.k = c.k;
  problem.aElement = problem.bElement = type(c.element);
  problem.accElement = type(llvm::StringRef(c.element) == "i8" ? "i32" : "f32");
  std::unique_ptr<TensorCoreDot> dot = selectAmdMatrixDot(target, problem, c.numWarps);
  ASSERT_TRUE(dot);
  LinearLayout layout = dot->accumulatorLayout();

  // func @dot(%lane: i32, %warp: i32, %a: lds, %b: lds, %acc...) around emit,
  // plus one function per operand computing sharedIndex(row, col).
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto workgroup = mgpu::AddressSpaceAttr::get(&context, mgpu::AddressSpace::Workgroup);
  auto lds = [&](DotOperand operand) {
    return MemRefType::get({dot->sharedElements(operand)}, problem.aElement, nullptr, workgroup);
  };
  SmallVector<Type> arguments{b.getI32Type(), b.getI32Type(), lds(DotOperand::A),
                              lds(DotOperand::B)};
  arguments.append(layout.numRegisters(), problem.accElement);
  auto func = func::FuncOp::create(b, loc, "dot", b.getFunctionType(arguments, {}));
  Block *body = func.addEntryBlock();
  OpBuilder inside = OpBuilder::atBlockEnd(body);
  Value start = arith::ConstantIndexOp::create(inside, loc, 0);
  SmallVector<Value> result =
      dot->emit(inside, loc, body->getArgument(0), body->getArgument(1),
                {body->getArgument(2), start}, {body->getArgument(3), start},
                body->getArguments().drop_front(4), {});
  func::ReturnOp::create(inside, loc);
  ASSERT_EQ(result.size(), layout.numRegisters());

  Block *indexBodies[2];
  Value indexResults[2];
  for (DotOperand operand : {DotOperand::A, DotOperand::B}) {
    auto indexType = b.getIndexType();
    auto indexFunc = func::FuncOp::create(b, loc, operand == DotOperand::A ? "index_a" : "index_b",
                                          b.getFunctionType({indexType, indexType}, {}));
    Block *indexBody = indexFunc.addEntryBlock();
    OpBuilder at = OpBuilder::atBlockEnd(indexBody);
    indexResults[static_cast<int>(operand)] = dot->sharedIndex(
        at, loc, operand, indexBody->getArgument(0), indexBody->getArgument(1));
    func::ReturnOp::create(at, loc);
    indexBodies[static_cast<int>(operand)] = indexBody;
  }
  ASSERT_TRUE(succeeded(verify(*module)));

  // Small integers: every product and sum is exact in f16, bf16, f32 and i32.
  std::mt19937 random(7);
  std::uniform_int_distribution<int> small(-3, 3);
  auto fill = [&](int64_t count) {
    std::vector<double> v(count);
    for (double &x : v)
      x = small(random);
    return v;
  };
  std::vector<double> a = fill(c.m * c.k), bMatrix = fill(c.k * c.n), acc = fill(c.m * c.n);
  std::vector<double> shared[2] = {std::vector<double>(dot->sharedElements(DotOperand::A)),
                                   std::vector<double>(dot->sharedElements(DotOperand::B))};
  auto place = [&](DotOperand operand, int64_t rows, int64_t cols, const std::vector<double> &m) {
    int which = static_cast<int>(operand);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t col = 0; col < cols; ++col) {
        testing::WaveInterpreter index(1);
        index.bindUniform(indexBodies[which]->getArgument(0), static_cast<double>(r));
        index.bindUniform(indexBodies[which]->getArgument(1), static_cast<double>(col));
        ASSERT_TRUE(index.run(*indexBodies[which]));
        shared[which][static_cast<size_t>(index.valueOf(indexResults[which])[0][0])] =
            m[r * cols + col];
      }
  };
  place(DotOperand::A, c.m, c.k, a);
  place(DotOperand::B, c.k, c.n, bMatrix);

  for (unsigned warp = 0; warp < c.numWarps; ++warp) {
    testing::WaveInterpreter wave(target.warpSize);
    testing::WaveInterpreter::Lanes laneIds(target.warpSize);
    for (unsigned lane = 0; lane < target.warpSize; ++lane)
      laneIds[lane] = {static_cast<double>(lane)};
    wave.bind(body->getArgument(0), laneIds);
    wave.bindUniform(body->getArgument(1), warp);
    wave.bindMemory(body->getArgument(2), &shared[0]);
    wave.bindMemory(body->getArgument(3), &shared[1]);
    for (unsigned reg = 0; reg < layout.numRegisters(); ++reg) {
      testing::WaveInterpreter::Lanes initial(target.warpSize);
      for (unsigned lane = 0; lane < target.warpSize; ++lane) {
        Basis at = layout.coordinates(reg, lane, warp);
        initial[lane] = {acc[at[0] * c.n + at[1]]};
      }
      wave.bind(body->getArgument(4 + reg), initial);
    }
    ASSERT_TRUE(wave.run(*body)) << "warp " << warp;

    for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
      for (unsigned lane = 0; lane < target.warpSize; ++lane) {
        Basis at = layout.coordinates(reg, lane, warp);
        double expected = acc[at[0] * c.n + at[1]];
        for (int64_t k = 0; k < c.k; ++k)
          expected += a[at[0] * c.k + k] * bMatrix[k * c.n + at[1]];
        ASSERT_EQ(wave.valueOf(result[reg])[lane][0], expected)
            << "C[" << at[0] << "][" << at[1] << "] in warp " << warp << " lane " << lane
            << " register " << reg;
      }
  }
}

const SimulationCase kSimulations[] = {
    {"gfx90a_f16_32x32x8", "hip:gfx90a", "f16", 64, 64, 32, 4},
    {"gfx90a_f16_16x16x16_copies", "hip:gfx90a", "f16", 16, 32, 32, 4},
    {"gfx90a_bf16_32x32x8", "hip:gfx90a", "bf16", 128, 64, 16, 2},
    {"gfx90a_i8_16x16x16", "hip:gfx90a", "i8", 32, 32, 32, 4},
    {"gfx90a_f32_32x32x2", "hip:gfx90a", "f32", 64, 32, 8, 2},
    {"gfx942_f16_16x16x16", "hip:gfx942", "f16", 64, 32, 64, 4},
    {"gfx942_i8_32x32x16", "hip:gfx942", "i8", 64, 64, 32, 2},
    {"gfx942_i8_16x16x32", "hip:gfx942", "i8", 32, 16, 64, 2},
    {"gfx942_f32_16x16x4", "hip:gfx942", "f32", 32, 32, 16, 4},
    {"gfx1100_f16", "hip:gfx1100", "f16", 64, 32, 32, 4},
    {"gfx1100_bf16_copies", "hip:gfx1100", "bf16", 16, 16, 16, 2},
    {"gfx1100_i8", "hip:gfx1100", "i8", 32, 32, 64, 2},
};

INSTANTIATE_TEST_SUITE_P(Kernels, AmdMatrixSimulationTest, ::testing::ValuesIn(kSimulations),
                         [](const ::testing::TestParamInfo<SimulationCase> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
} // namespace tessera::gpu

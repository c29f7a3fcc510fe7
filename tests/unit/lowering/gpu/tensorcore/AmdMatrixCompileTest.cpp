// A dot kernel in the distributed GPU form around each AMD matrix instruction
// (global -> LDS through sharedIndex, barrier, emit, accumulator stored at
// the layout's coordinates), compiled by the AMD pipeline (lowering/gpu/amd)
// to an HSACO code object whose assembly must contain the chosen v_mfma_* /
// v_wmma_* instruction and vector LDS reads, without spills. There is no AMD
// GPU here, so nothing runs.
#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/tensorcore/AmdMatrixCores.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace mgpu = mlir::gpu;

namespace tessera::gpu {
namespace {

struct KernelCase {
  const char *name;
  const char *target;
  const char *element; // "f16", "bf16", "i8", "f32"
  int64_t m, n, k;
  unsigned numWarps;
  const char *mnemonic;   // the matrix instruction in the assembly
  const char *lds;        // a regex for the LDS reads that feed it
};

void PrintTo(const KernelCase &c, std::ostream *os) { *os << c.name; }

Type elementType(MLIRContext &context, llvm::StringRef name) {
  if (name == "f16")
    return Float16Type::get(&context);
  if (name == "bf16")
    return BFloat16Type::get(&context);
  if (name == "i8")
    return IntegerType::get(&context, 8);
  return Float32Type::get(&context);
}

std::string moduleText(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

// The lane (or warp) part of one coordinate of a linear layout:
// XOR over the set bits of `id` of the bases' entries along `dim`.
Value layoutPart(OpBuilder &b, Location loc, llvm::ArrayRef<Basis> bases, unsigned dim, Value id) {
  Value part = index(b, loc, 0);
  for (auto [bit, basis] : llvm::enumerate(bases)) {
    if (basis[dim] == 0)
      continue;
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, id, index(b, loc, bit)), index(b, loc, 1));
    part = arith::XOrIOp::create(
        b, loc, part, arith::MulIOp::create(b, loc, set, index(b, loc, basis[dim])));
  }
  return part;
}

// Copies the [rows, cols] operand from global memory (row-major) into its LDS
// buffer at sharedIndex, the threads of the workgroup striding over it.
void stageOperand(OpBuilder &b, Location loc, const TensorCoreDot &dot, DotOperand operand,
                  Value global, Value shared, int64_t rows, int64_t cols, Value thread,
                  int64_t threads) {
  auto loop =
      scf::ForOp::create(b, loc, thread, index(b, loc, rows * cols), index(b, loc, threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value element = loop.getInductionVar();
  Value row = arith::DivUIOp::create(b, loc, element, index(b, loc, cols));
  Value col = arith::RemUIOp::create(b, loc, element, index(b, loc, cols));
  Value value = memref::LoadOp::create(b, loc, global, element);
  memref::StoreOp::create(b, loc, value, shared, dot.sharedIndex(b, loc, operand, row, col));
}

OwningOpRef<ModuleOp> buildDotKernel(MLIRContext &context, const GpuTarget &target,
                                     const DotProblem &problem, unsigned numWarps,
                                     const TensorCoreDot &dot) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(mgpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  b.setInsertionPointToEnd(module->getBody());
  auto gpuModule = mgpu::GPUModuleOp::create(b, loc, "dot");
  b.setInsertionPointToStart(gpuModule.getBody());

  auto dynamic = [&](Type element) { return MemRefType::get({ShapedType::kDynamic}, element); };
  auto workgroup = mgpu::AddressSpaceAttr::get(&context, mgpu::AddressSpace::Workgroup);
  auto lds = [&](DotOperand operand) {
    return MemRefType::get({dot.sharedElements(operand)}, problem.aElement, nullptr, workgroup);
  };
  auto type = b.getFunctionType(
      {dynamic(problem.aElement), dynamic(problem.bElement), dynamic(problem.accElement)}, {});
  int64_t threads = numWarps * target.warpSize;
  SmallVector<Type> buffers{lds(DotOperand::A), lds(DotOperand::B)};
  auto func = mgpu::GPUFuncOp::create(b, loc, "dot", type, buffers);
  func->setAttr(mgpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  func->setAttr("tessera.num_warps", b.getI32IntegerAttr(numWarps));
  func->setAttr("tessera.shared_memory_bytes", b.getI32IntegerAttr(0));
  for (unsigned buffer = 0; buffer < 2; ++buffer)
    func.setWorkgroupAttributionAttr(buffer, b.getStringAttr("llvm.align"),
                                     b.getI64IntegerAttr(16));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value a = entry.getArgument(0), bGlobal = entry.getArgument(1), c = entry.getArgument(2);
  Value aShared = func.getWorkgroupAttributions()[0], bShared = func.getWorkgroupAttributions()[1];
  Value thread = mgpu::ThreadIdOp::create(b, loc, mgpu::Dimension::x);
  stageOperand(b, loc, dot, DotOperand::A, a, aShared, problem.m, problem.k, thread, threads);
  stageOperand(b, loc, dot, DotOperand::B, bGlobal, bShared, problem.k, problem.n, thread, threads);
  mgpu::BarrierOp::create(b, loc);

  Value laneIndex = arith::RemUIOp::create(b, loc, thread, index(b, loc, target.warpSize));
  Value warpIndex = arith::DivUIOp::create(b, loc, thread, index(b, loc, target.warpSize));
  Value lane = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), laneIndex);
  Value warp = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), warpIndex);
  LinearLayout layout = dot.accumulatorLayout();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(problem.accElement));
  SmallVector<Value> acc(layout.numRegisters(), zero);
  Value start = index(b, loc, 0);
  SmallVector<Value> result =
      dot.emit(b, loc, lane, warp, {aShared, start}, {bShared, start}, acc, {});

  Value threadPart[2];
  for (unsigned dim = 0; dim < 2; ++dim)
    threadPart[dim] =
        arith::XOrIOp::create(b, loc, layoutPart(b, loc, layout.lanes, dim, laneIndex),
                              layoutPart(b, loc, layout.warps, dim, warpIndex));
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg) {
    if (layout.isDuplicateRegister(reg))
      continue;
    Basis offset = layout.registerOffset(reg);
    Value row = arith::XOrIOp::create(b, loc, threadPart[0], index(b, loc, offset[0]));
    Value col = arith::XOrIOp::create(b, loc, threadPart[1], index(b, loc, offset[1]));
    Value flat = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, index(b, loc, problem.n)), col);
    memref::StoreOp::create(b, loc, result[reg], c, flat);
  }
  mgpu::ReturnOp::create(b, loc);
  return module;
}

class AmdMatrixCompileTest : public ::testing::TestWithParam<KernelCase> {
protected:
  AmdMatrixCompileTest() {
    context.loadDialect<amdgpu::AMDGPUDialect, arith::ArithDialect, mgpu::GPUDialect,
                        memref::MemRefDialect, scf::SCFDialect, vector::VectorDialect>();
  }

  MLIRContext context;
};

TEST_P(AmdMatrixCompileTest, CompilesToTheMatrixInstruction) {
  const KernelCase &c = GetParam();
  llvm::Expected<GpuTarget> target = GpuTarget::parse(c.target);
  ASSERT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
  DotProblem problem;
  problem.m = c.m, problem.n = c.n, problem.k = c.k;
  problem.aElement = problem.bElement = elementType(context, c.element);
  problem.accElement = llvm::StringRef(c.element) == "i8" ? Type(IntegerType::get(&context, 32))
                                                           : Type(Float32Type::get(&context));
  std::unique_ptr<TensorCoreDot> dot = selectAmdMatrixDot(*target, problem, c.numWarps);
  ASSERT_TRUE(dot);
  OwningOpRef<ModuleOp> module = buildDotKernel(context, *target, problem, c.numWarps, *dot);
  ASSERT_TRUE(succeeded(verify(*module))) << moduleText(*module);

  llvm::Expected<KernelBinary> binary = amd::compileForAmd(*module, *target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  EXPECT_FALSE(binary->binary.empty());
  const std::string &assembly = binary->assembly;
  EXPECT_NE(assembly.find(c.mnemonic), std::string::npos) << dot->name().str() << "\n" << assembly;
  EXPECT_TRUE(llvm::Regex(c.lds).match(assembly)) << c.lds << "\n" << assembly;
  EXPECT_EQ(binary->usage.spillStoreBytes, 0) << binary->usage.report;
}

// 8-byte fragments may also be paired into one ds_read2 / ds_read2st64.
constexpr const char *kRead64 = "ds_read(2|2st64)?_b64";
constexpr const char *kRead32 = "ds_read(2|2st64)?_b32";
constexpr const char *kLoad128 = "ds_load_b128";

const KernelCase kKernels[] = {
    {"gfx90a_f16_32x32x8", "hip:gfx90a", "f16", 64, 64, 32, 4, "v_mfma_f32_32x32x8f16", kRead64},
    {"gfx90a_f16_16x16x16", "hip:gfx90a", "f16", 32, 32, 32, 4, "v_mfma_f32_16x16x16f16", kRead64},
    {"gfx90a_bf16_32x32x8", "hip:gfx90a", "bf16", 128, 64, 32, 2,
     "v_mfma_f32_32x32x8bf16_1k", kRead64},
    {"gfx90a_bf16_16x16x16", "hip:gfx90a", "bf16", 32, 32, 16, 4,
     "v_mfma_f32_16x16x16bf16_1k", kRead64},
    {"gfx90a_i8_32x32x8", "hip:gfx90a", "i8", 64, 64, 32, 4, "v_mfma_i32_32x32x8i8", kRead32},
    {"gfx90a_i8_16x16x16", "hip:gfx90a", "i8", 32, 32, 32, 4, "v_mfma_i32_16x16x16i8", kRead32},
    {"gfx90a_f32_32x32x2", "hip:gfx90a", "f32", 64, 64, 16, 4, "v_mfma_f32_32x32x2f32", kRead32},
    {"gfx942_f16_32x32x8", "hip:gfx942", "f16", 128, 128, 32, 4, "v_mfma_f32_32x32x8_f16", kRead64},
    {"gfx942_f16_16x16x16", "hip:gfx942", "f16", 32, 32, 64, 4, "v_mfma_f32_16x16x16_f16", kRead64},
    {"gfx942_bf16_32x32x8", "hip:gfx942", "bf16", 64, 64, 64, 4,
     "v_mfma_f32_32x32x8_bf16", kRead64},
    {"gfx942_i8_32x32x16", "hip:gfx942", "i8", 64, 64, 64, 4, "v_mfma_i32_32x32x16_i8", kRead64},
    {"gfx942_i8_16x16x32", "hip:gfx942", "i8", 32, 32, 64, 4, "v_mfma_i32_16x16x32_i8", kRead64},
    {"gfx942_f32_16x16x4", "hip:gfx942", "f32", 32, 32, 16, 4, "v_mfma_f32_16x16x4_f32", kRead32},
    {"gfx1100_f16", "hip:gfx1100", "f16", 64, 64, 32, 4, "v_wmma_f32_16x16x16_f16", kLoad128},
    {"gfx1100_bf16", "hip:gfx1100", "bf16", 32, 32, 16, 4, "v_wmma_f32_16x16x16_bf16", kLoad128},
    {"gfx1100_i8", "hip:gfx1100", "i8", 32, 64, 32, 2, "v_wmma_i32_16x16x16_iu8", kLoad128},
};

INSTANTIATE_TEST_SUITE_P(Kernels, AmdMatrixCompileTest, ::testing::ValuesIn(kKernels),
                         [](const ::testing::TestParamInfo<KernelCase> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
} // namespace tessera::gpu

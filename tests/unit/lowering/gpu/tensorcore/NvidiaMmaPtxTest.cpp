// A kernel in the distributed form around each mma.sync flavour goes through
// the NVIDIA pipeline (NVVM, PTX, ptxas) for sm_80 and sm_90a (fp8: sm_89,
// sm_90 and sm_120): the PTX holds the intended instructions and ptxas
// accepts it.
#include "DotKernels.h"

#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "lowering/gpu/tensorcore/NvidiaMma.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::gpu;
using namespace tessera::gpu::testing;

namespace {

struct PtxCase {
  const char *name;
  /// Operand and accumulator types.
  Type (*operand)(Builder &);
  Type (*accumulator)(Builder &);
  int64_t m, n, k;
  unsigned numWarps;
  const char *mmaInstruction;
  /// The ldmatrix that reads B: transposed for 16-bit types.
  const char *bLoad;
  tessera::tile::InputPrecision precision = tessera::tile::InputPrecision::TF32;
  /// What splits tf32x3's operands, null for the other precisions.
  const char *split = nullptr;
};

const PtxCase kPtxCases[] = {
    {"f16_f32", [](Builder &b) -> Type { return b.getF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 64, 32, 4,
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
     "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
    {"f16_f16", [](Builder &b) -> Type { return b.getF16Type(); },
     [](Builder &b) -> Type { return b.getF16Type(); }, 64, 32, 32, 4,
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
     "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
    {"bf16_f32", [](Builder &b) -> Type { return b.getBF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 64, 32, 4,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
     "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
    {"bf16_narrow_n", [](Builder &b) -> Type { return b.getBF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 8, 32, 4,
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
     "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"},
    {"tf32_f32", [](Builder &b) -> Type { return b.getF32Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 32, 32, 4,
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
    {"tf32x3_f32", [](Builder &b) -> Type { return b.getF32Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 32, 32, 4,
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16", tessera::tile::InputPrecision::TF32x3,
     "cvt.rna.tf32.f32"},
    {"s8_s32", [](Builder &b) -> Type { return b.getI8Type(); },
     [](Builder &b) -> Type { return b.getI32Type(); }, 64, 64, 64, 4,
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
};

// fp8, from Ada (sm_89) on: inline PTX, as the NVVM op has no fp8 types.
const PtxCase kFp8PtxCases[] = {
    {"e4m3_f32", [](Builder &b) -> Type { return b.getType<Float8E4M3FNType>(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 64, 64, 4,
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
    {"e5m2_f32", [](Builder &b) -> Type { return b.getType<Float8E5M2Type>(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 32, 64, 128, 2,
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
};

class MmaSyncPtxTest : public ::testing::TestWithParam<std::tuple<PtxCase, const char *>> {};

TEST_P(MmaSyncPtxTest, LowersToPtxThatPtxasAccepts) {
  auto [c, chip] = GetParam();
  MLIRContext context;
  Builder b(&context);
  DotProblem problem{c.m, c.n, c.k, c.operand(b), c.operand(b), c.accumulator(b)};
  problem.precision = c.precision;
  llvm::Expected<GpuTarget> target = GpuTarget::parse(std::string("cuda:") + chip);
  ASSERT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
  std::unique_ptr<TensorCoreDot> dot = selectMmaSyncDot(*target, problem, c.numWarps);
  ASSERT_NE(dot, nullptr);
  OwningOpRef<ModuleOp> kernel = buildDotKernel(context, *dot, problem, c.numWarps);
  ASSERT_TRUE(succeeded(verify(*kernel)));

  llvm::Expected<KernelBinary> binary = compileForNvidia(*kernel, *target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->assembly;
  EXPECT_NE(ptx.find(c.mmaInstruction), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos)
      << "A is read with non-transposed ldmatrix.x4";
  EXPECT_NE(ptx.find(c.bLoad), std::string::npos) << ptx;
  if (c.split)
    EXPECT_NE(ptx.find(c.split), std::string::npos) << ptx;
  EXPECT_FALSE(binary->binary.empty()) << "ptxas produced no cubin for " << chip;
  EXPECT_EQ(binary->usage.spillStoreBytes, 0) << binary->usage.report;
}

INSTANTIATE_TEST_SUITE_P(
    Flavours, MmaSyncPtxTest,
    ::testing::Combine(::testing::ValuesIn(kPtxCases), ::testing::Values("sm_80", "sm_90a")),
    [](const auto &info) {
      return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
    });

INSTANTIATE_TEST_SUITE_P(
    Fp8, MmaSyncPtxTest,
    ::testing::Combine(::testing::ValuesIn(kFp8PtxCases),
                       ::testing::Values("sm_89", "sm_90", "sm_120")),
    [](const auto &info) {
      return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
    });

} // namespace

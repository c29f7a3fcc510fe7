// A kernel in the distributed form around each wgmma flavour goes through the
// NVIDIA pipeline (NVVM, PTX, ptxas) for sm_90a: the PTX holds the intended
// wgmma instructions and fences and ptxas accepts it.
#include "DotKernels.h"

#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::gpu;
using namespace tessera::gpu::testing;

namespace {

struct PtxCase {
  const char *name;
  Type (*operand)(Builder &);
  Type (*accumulator)(Builder &);
  int64_t m, n, k;
  unsigned numWarps;
  const char *instruction;
  /// wgmma.mma_async in the PTX: K steps x instruction tiles per warpgroup.
  int64_t wgmmaCount;
};

const PtxCase kPtxCases[] = {
    {"bf16_two_warpgroups", [](Builder &b) -> Type { return b.getBF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 128, 128, 64, 8,
     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", 4},
    {"bf16_n256", [](Builder &b) -> Type { return b.getBF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 256, 32, 4,
     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 2},
    {"f16", [](Builder &b) -> Type { return b.getF16Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 128, 64, 32, 4,
     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", 4},
    {"tf32", [](Builder &b) -> Type { return b.getF32Type(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 64, 32, 4,
     "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", 4},
    {"s8", [](Builder &b) -> Type { return b.getI8Type(); },
     [](Builder &b) -> Type { return b.getI32Type(); }, 64, 64, 64, 4,
     "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8", 2},
    {"e4m3", [](Builder &b) -> Type { return b.getType<Float8E4M3FNType>(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 128, 128, 64, 8,
     "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", 2},
    {"e5m2", [](Builder &b) -> Type { return b.getType<Float8E5M2Type>(); },
     [](Builder &b) -> Type { return b.getF32Type(); }, 64, 64, 64, 4,
     "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2", 2},
};

class WgmmaPtxTest : public ::testing::TestWithParam<PtxCase> {};

TEST_P(WgmmaPtxTest, LowersToPtxThatPtxasAccepts) {
  const PtxCase &c = GetParam();
  MLIRContext context;
  Builder b(&context);
  DotProblem problem{c.m, c.n, c.k, c.operand(b), c.operand(b), c.accumulator(b)};
  llvm::Expected<GpuTarget> target = GpuTarget::parse("cuda:sm_90a");
  ASSERT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
  std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(*target, problem, c.numWarps);
  ASSERT_NE(dot, nullptr);
  ASSERT_TRUE(dot->name().starts_with("wgmma.")) << dot->name().str();
  OwningOpRef<ModuleOp> kernel = buildDotKernel(context, *dot, problem, c.numWarps);
  // The descriptors' swizzle needs what the distribution pass must give
  // every wgmma buffer: 1024-byte alignment.
  kernel->walk([&](mlir::gpu::GPUFuncOp func) {
    for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
      func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(kWgmmaSharedAlignment));
  });
  ASSERT_TRUE(succeeded(verify(*kernel)));

  llvm::Expected<KernelBinary> binary = compileForNvidia(*kernel, *target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  llvm::StringRef ptx = binary->assembly;
  EXPECT_EQ(static_cast<int64_t>(ptx.count(c.instruction)), c.wgmmaCount) << ptx.str();
  EXPECT_EQ(ptx.count("wgmma.mma_async"), ptx.count(c.instruction)) << "one flavour only";
  EXPECT_EQ(ptx.count("fence.proxy.async.shared::cta"), 1u) << ptx.str();
  EXPECT_EQ(ptx.count("wgmma.fence.sync.aligned"), 1u) << ptx.str();
  EXPECT_EQ(ptx.count("wgmma.commit_group.sync.aligned"), 1u) << ptx.str();
  EXPECT_EQ(ptx.count("wgmma.wait_group.sync.aligned"), 1u) << ptx.str();
  EXPECT_TRUE(llvm::Regex("wgmma\\.wait_group\\.sync\\.aligned[ \t]+0;").match(ptx))
      << "waits for every group";
  EXPECT_EQ(ptx.count(".shared .align 1024"), 2u) << ptx.str();
  EXPECT_EQ(ptx.count("ldmatrix"), 0u) << "wgmma reads shared memory itself";
  EXPECT_FALSE(binary->binary.empty()) << "ptxas produced no cubin for sm_90a";
  EXPECT_EQ(binary->usage.spillStoreBytes, 0) << binary->usage.report;
}

INSTANTIATE_TEST_SUITE_P(Flavours, WgmmaPtxTest, ::testing::ValuesIn(kPtxCases),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace

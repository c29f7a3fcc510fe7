// compileTileForGpu and emitTileForGpu themselves: the stages each target
// emits, kernel selection in modules of several kernels, the input left
// unchanged, launch facts following the options, and errors for bad input.
#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"
#include "tests/unit/lowering/gpu/compile/GpuTestKernels.h"
#include "tests/unit/lowering/gpu/nvidia/ScopedEnvironment.h"

#include "ir/TileDialect.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tessera::gpu::testing {
namespace {

using namespace tessera::test_kernels;

class CompileApi : public ::testing::Test {
protected:
  CompileApi() {
    context.loadDialect<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::scf::SCFDialect>();
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context, "api.mlir");
    EXPECT_TRUE(module);
    return module;
  }

  static std::string errorOf(llvm::Error error) { return llvm::toString(std::move(error)); }

  mlir::MLIRContext context;
};

TEST_F(CompileApi, StageNamesFollowTheVendor) {
  using Names = std::vector<llvm::StringRef>;
  EXPECT_EQ(gpuStageNames(parseTarget("cuda:sm_80")), (Names{"tgpu", "gpu", "ptx", "cubin"}));
  EXPECT_EQ(gpuStageNames(parseTarget("hip:gfx942")), (Names{"tgpu", "gpu", "amdgcn", "hsaco"}));
  EXPECT_EQ(gpuStageNames(parseTarget("vulkan:1.3")), (Names{"tgpu", "gpu", "spirv", "spv"}));

  GpuTarget cuda = parseTarget("cuda:sm_90a");
  EXPECT_EQ(*parseGpuStage("tgpu", cuda), GpuStage::Layouts);
  EXPECT_EQ(*parseGpuStage("gpu", cuda), GpuStage::Distributed);
  EXPECT_EQ(*parseGpuStage("ptx", cuda), GpuStage::Assembly);
  EXPECT_EQ(*parseGpuStage("cubin", cuda), GpuStage::Binary);
  EXPECT_EQ(*parseGpuStage("amdgcn", parseTarget("hip:gfx90a")), GpuStage::Assembly);
  EXPECT_EQ(*parseGpuStage("spv", parseTarget("vulkan")), GpuStage::Binary);

  llvm::Expected<GpuStage> wrongVendor = parseGpuStage("hsaco", cuda);
  ASSERT_FALSE(wrongVendor);
  EXPECT_EQ(errorOf(wrongVendor.takeError()),
            "'hsaco' is not an output of cuda:sm_90a (it emits tgpu, gpu, ptx, cubin)");
  llvm::Expected<GpuStage> unknown = parseGpuStage("obj", parseTarget("vulkan:1.3:subgroup=8"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(errorOf(unknown.takeError()),
            "unknown GPU output 'obj' (vulkan:1.3:subgroup=8:shared=32768 emits tgpu, gpu, spirv, "
            "spv)");
}

struct StageCheck {
  const char *target;
  const char *stage;
  /// Text the output must hold; empty for binaries, checked by magic.
  const char *contains;
};

TEST_F(CompileApi, EmitsEveryStageOfEveryVendor) {
  const StageCheck checks[] = {
      {"cuda:sm_80", "tgpu", "#tgpu.layout<"},  {"cuda:sm_80", "gpu", "gpu.func @add("},
      {"cuda:sm_80", "ptx", ".entry add("},     {"cuda:sm_80", "cubin", ""},
      {"hip:gfx942", "tgpu", "tgpu.num_warps"}, {"hip:gfx942", "gpu", "known_block_size = array<i32: 256, 1, 1>"},
      {"hip:gfx942", "amdgcn", ".amdhsa_kernel add"}, {"hip:gfx942", "hsaco", ""},
      {"vulkan:1.3:subgroup=8", "tgpu", "tgpu.target = \"vulkan:1.3:subgroup=8:shared=32768\""},
      {"vulkan:1.3:subgroup=8", "gpu", "gpu.container_module"},
      {"vulkan:1.3:subgroup=8", "spirv", "spirv.module"},
      {"vulkan:1.3:subgroup=8", "spv", ""},
  };
  auto module = parse(kVectorAdd);
  for (const StageCheck &check : checks) {
    SCOPED_TRACE(std::string(check.target) + " --emit " + check.stage);
    GpuTarget target = parseTarget(check.target);
    llvm::Expected<GpuStage> stage = parseGpuStage(check.stage, target);
    ASSERT_TRUE(bool(stage)) << errorOf(stage.takeError());
    llvm::Expected<std::string> out = emitTileForGpu(*module, "add", target, *stage);
    ASSERT_TRUE(bool(out)) << errorOf(out.takeError());
    if (*stage != GpuStage::Binary) {
      EXPECT_NE(out->find(check.contains), std::string::npos) << *out;
      continue;
    }
    std::vector<uint8_t> bytes(out->begin(), out->end());
    if (target.vendor == GpuVendor::Vulkan)
      EXPECT_EQ(validateSpirv(bytes, "vulkan1.3"), "");
    else
      EXPECT_TRUE(isElf(bytes));
  }
}

TEST_F(CompileApi, LeavesTheTileModuleUnchanged) {
  auto module = parse(kSoftmax);
  std::string before;
  llvm::raw_string_ostream(before) << *module;
  for (const char *spec : kSweepTargets) {
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, "softmax", parseTarget(spec));
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  }
  std::string after;
  llvm::raw_string_ostream(after) << *module;
  EXPECT_EQ(before, after);
}

TEST_F(CompileApi, CompilesOneKernelOfSeveral) {
  auto module = parse((kVectorAdd + kSoftmax + kHistogram).str());
  for (const char *kernel : {"add", "softmax", "histogram"}) {
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, kernel, parseTarget("cuda:sm_80"));
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
    EXPECT_EQ(compiled->binary.kernelName, kernel);
    EXPECT_NE(compiled->binary.assembly.find(".entry " + std::string(kernel) + "("),
              std::string::npos);
    EXPECT_EQ(compiled->binary.assembly.find(".entry"),
              compiled->binary.assembly.rfind(".entry"))
        << "one entry point only";
  }
}

TEST_F(CompileApi, BlockFollowsTheWarpsAndTheWarpSize) {
  auto module = parse(kVectorAdd);
  for (auto [spec, numWarps, threads] :
       {std::tuple{"cuda:sm_90a", 8u, 256u}, std::tuple{"hip:gfx942", 2u, 128u},
        std::tuple{"hip:gfx1100", 2u, 64u}, std::tuple{"vulkan:1.3:subgroup=8", 1u, 8u}}) {
    SCOPED_TRACE(spec);
    GpuCompileOptions options;
    options.lowering.numWarps = numWarps;
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, "add", parseTarget(spec), options);
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
    EXPECT_EQ(compiled->binary.blockThreads, threads);
  }
}

// A GEMM on a host descriptor's arguments (A) and on a descriptor with a
// computed stride (B, 64 N).
constexpr llvm::StringLiteral kDescriptorGemm = R"mlir(
tile.func @gemm(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one] : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %N64 = arith.muli %N, %c64 : i32
  %ldb = arith.extsi %N64 : i32 to i64
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one] : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one] : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}
)mlir";

TEST_F(CompileApi, TensorMapsFollowTheOptionAndTheTarget) {
  auto module = parse(kDescriptorGemm);
  GpuCompileOptions options;
  options.lowering.numStages = 3;
  options.lowering.tensorMaps = true;
  llvm::Expected<CompiledGpuKernel> compiled =
      compileTileForGpu(*module, "gemm", parseTarget("cuda:sm_90a"), options);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  ASSERT_EQ(compiled->binary.tensorMaps.size(), 1u) << "A only: B's stride is computed";
  const TensorMapParam &map = compiled->binary.tensorMaps.front();
  EXPECT_EQ(map.base, 0u);
  EXPECT_EQ(map.shape, (std::vector<TensorMapValue>{{1, 0}, {2, 0}}));
  EXPECT_EQ(map.outerStrides, (std::vector<TensorMapValue>{{3, 0}}));
  EXPECT_EQ(map.box, (std::vector<unsigned>{64, 64}));
  const std::string &ptx = compiled->binary.assembly;
  EXPECT_NE(ptx.find("cp.async.bulk.tensor.2d"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos) << "B keeps cp.async";
  EXPECT_NE(ptx.find(".param .align 64 .b8 gemm_param_7[128]"), std::string::npos) << ptx;

  for (const char *spec : {"cuda:sm_80", "hip:gfx942"}) {
    SCOPED_TRACE(spec);
    compiled = compileTileForGpu(*module, "gemm", parseTarget(spec), options);
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
    EXPECT_TRUE(compiled->binary.tensorMaps.empty());
  }
  options.lowering.tensorMaps = false;
  compiled = compileTileForGpu(*module, "gemm", parseTarget("cuda:sm_90a"), options);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  EXPECT_TRUE(compiled->binary.tensorMaps.empty());
  EXPECT_EQ(compiled->binary.assembly.find("cp.async.bulk.tensor"), std::string::npos);
}

// What each dot runs on, named with its place in the kernel's source: the
// instruction each target picks for the bf16 GEMM, and in program order the
// dots of a kernel with two: tf32 on wgmma (not swapped: it feeds the other
// dot, and a chained dot keeps its rows within warps), then ieee on the FMA
// loop.
TEST_F(CompileApi, ReportsWhatEachDotRunsOn) {
  auto gemm = parse(kDescriptorGemm);
  GpuCompileOptions options;
  options.lowering.numStages = 3;
  for (auto [spec, instruction] :
       {std::pair{"cuda:sm_90a", "wgmma.m64n128k16.bf16"},
        std::pair{"cuda:sm_80", "mma.sync.m16n8k16.bf16"},
        std::pair{"hip:gfx942", "mfma.32x32x8.bf16"}}) {
    SCOPED_TRACE(spec);
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*gemm, "gemm", parseTarget(spec), options);
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
    EXPECT_EQ(compiled->dots, std::vector<std::string>{std::string("api.mlir:14:13: ") +
                                                      instruction});
  }

  auto twoDots = parse(R"mlir(
tile.func @two_dots(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %offsets = tile.make_range 0 to 4096 : tensor<4096xi32>
  %ptrs = tile.splat %p : !tile.ptr<f32> -> tensor<4096x!tile.ptr<f32>>
  %at = tile.addptr %ptrs, %offsets : tensor<4096x!tile.ptr<f32>>, tensor<4096xi32>
  %flat = tile.load %at : tensor<4096x!tile.ptr<f32>>
  %x = tile.reshape %flat : tensor<4096xf32> -> tensor<64x64xf32>
  %y = tile.dot %x, %x, %x : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  %z = tile.dot %y, %y, %y input_precision = ieee : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  %out = tile.reshape %z : tensor<64x64xf32> -> tensor<4096xf32>
  tile.store %at, %out : tensor<4096x!tile.ptr<f32>>
  tile.return
}
)mlir");
  llvm::Expected<CompiledGpuKernel> compiled =
      compileTileForGpu(*twoDots, "two_dots", parseTarget("cuda:sm_90a"), options);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  EXPECT_EQ(compiled->dots,
            (std::vector<std::string>{"api.mlir:8:8: wgmma.m64n64k8.tf32",
                                      "api.mlir:9:8: fma"}));
}

// How the descriptor GEMM's K loop (api.mlir:11) is pipelined: on sm_90a A
// by TMA (B's stride is computed, so cp.async), four stages for three asked
// (the running wgmma holds one); on sm_80 by cp.async; with a tile too large
// for two stages, not at all, and why.
TEST_F(CompileApi, ReportsHowEachLoopIsPipelined) {
  auto module = parse(kDescriptorGemm);
  GpuCompileOptions options;
  options.lowering.numStages = 3;
  for (auto [spec, pipeline] :
       {std::pair{"cuda:sm_90a", "4 stages (num_stages 3), copies 2 iterations ahead by TMA and "
                                 "cp.async"},
        std::pair{"cuda:sm_80", "3 stages (num_stages 3), copies 2 iterations ahead by "
                                "cp.async"}}) {
    SCOPED_TRACE(spec);
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, "gemm", parseTarget(spec), options);
    ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
    EXPECT_EQ(compiled->pipelines,
              std::vector<std::string>{std::string("api.mlir:11:10: ") + pipeline});
  }

  std::string wide = kDescriptorGemm.str();
  // A stage of 192 KB: one fits (the dot's own buffers), two do not.
  for (auto [from, to] : {std::pair{"64x64xbf16", "128x256xbf16"},
                          std::pair{"64x128xbf16", "256x256xbf16"},
                          std::pair{"64x128xf32", "128x256xf32"}})
    for (size_t at = wide.find(from); at != std::string::npos; at = wide.find(from, at))
      wide.replace(at, std::strlen(from), to);
  auto tooWide = parse(wide);
  llvm::Expected<CompiledGpuKernel> compiled =
      compileTileForGpu(*tooWide, "gemm", parseTarget("cuda:sm_90a"), options);
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  ASSERT_EQ(compiled->pipelines.size(), 1u);
  EXPECT_TRUE(llvm::StringRef(compiled->pipelines.front())
                  .starts_with("api.mlir:11:10: not pipelined: 2 stages of "))
      << compiled->pipelines.front();
}

TEST_F(CompileApi, VulkanKernelsCarryTheirAbi) {
  auto module = parse(kVectorAdd);
  llvm::Expected<CompiledGpuKernel> compiled =
      compileTileForGpu(*module, "add", parseTarget("vulkan:1.3:subgroup=8"));
  ASSERT_TRUE(bool(compiled)) << errorOf(compiled.takeError());
  ASSERT_TRUE(compiled->vulkan.has_value());
  EXPECT_EQ(compiled->vulkan->abi.str(),
            "binding 0: f32[], binding 1: f32[], binding 2: f32[], push +0: i32");
  EXPECT_EQ(compiled->vulkan->workgroupSize, (std::array<unsigned, 3>{32, 1, 1}));
}

TEST_F(CompileApi, WithoutPtxasThereIsNoCubinToEmit) {
  // The PTX the driver's JIT would take is all there is
  // (NvidiaToolkitTest.WithoutPtxasTheDriverCompilesThePtx).
  ScopedEnvironment ptxas("TESSERA_PTXAS", std::nullopt);
  ScopedEnvironment path("PATH", "/nonexistent-bin");
  GpuCompileOptions options;
  options.nvidia.cudaRoot = "/nonexistent-cuda";
  auto module = parse(kVectorAdd);
  llvm::Expected<std::string> ptx =
      emitTileForGpu(*module, "add", parseTarget("cuda:sm_90a"), GpuStage::Assembly, options);
  ASSERT_TRUE(static_cast<bool>(ptx)) << errorOf(ptx.takeError());
  EXPECT_NE(ptx->find(".entry add"), std::string::npos);
  llvm::Expected<std::string> cubin =
      emitTileForGpu(*module, "add", parseTarget("cuda:sm_90a"), GpuStage::Binary, options);
  ASSERT_FALSE(cubin);
  EXPECT_NE(errorOf(cubin.takeError()).find("cannot write a cubin: no ptxas"),
            std::string::npos);
}

TEST_F(CompileApi, AnUnknownKernelIsAnError) {
  auto module = parse((kVectorAdd + kSoftmax).str());
  llvm::Expected<CompiledGpuKernel> compiled =
      compileTileForGpu(*module, "matmul", parseTarget("hip:gfx90a"));
  ASSERT_FALSE(compiled);
  EXPECT_EQ(errorOf(compiled.takeError()),
            "cannot compile kernel 'matmul' for hip:gfx90a: no such kernel in the module (its "
            "kernels: add, softmax)");

  auto empty = parse("");
  llvm::Expected<std::string> emitted =
      emitTileForGpu(*empty, "add", parseTarget("cuda:sm_80"), GpuStage::Layouts);
  ASSERT_FALSE(emitted);
  EXPECT_EQ(errorOf(emitted.takeError()),
            "cannot compile kernel 'add' for cuda:sm_80: no such kernel in the module (the "
            "module has no kernel)");
}

TEST_F(CompileApi, BadWarpCountsAreErrors) {
  auto module = parse(kVectorAdd);
  for (const char *spec : kSweepTargets) {
    SCOPED_TRACE(spec);
    GpuCompileOptions options;
    options.lowering.numWarps = 3;
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, "add", parseTarget(spec), options);
    ASSERT_FALSE(compiled);
    std::string error = errorOf(compiled.takeError());
    EXPECT_NE(error.find("num-warps=3 is not a power of two"), std::string::npos) << error;
    EXPECT_NE(error.find(parseTarget(spec).str()), std::string::npos) << error;

    options.lowering.numWarps = 0;
    compiled = compileTileForGpu(*module, "add", parseTarget(spec), options);
    ASSERT_FALSE(compiled);
    error = errorOf(compiled.takeError());
    EXPECT_NE(error.find("num-warps=0 is not a power of two"), std::string::npos) << error;
  }
}

TEST_F(CompileApi, BlocksBeyondTheTargetsLimitAreErrors) {
  auto module = parse(kVectorAdd);
  for (const char *spec : kSweepTargets) {
    SCOPED_TRACE(spec);
    GpuTarget target = parseTarget(spec);
    GpuCompileOptions options;
    // 2048 threads: twice what NVIDIA, AMD and Vulkan devices allow.
    options.lowering.numWarps = 2048 / target.warpSize;
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(*module, "add", target, options);
    ASSERT_FALSE(compiled) << compiled->binary.blockThreads << " threads compiled";
    std::string error = errorOf(compiled.takeError());
    EXPECT_NE(error.find(parseTarget(spec).str()), std::string::npos) << error;
  }
}

} // namespace
} // namespace tessera::gpu::testing

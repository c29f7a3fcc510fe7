// One entry point for every GPU target: a tile module in, the device binary
// of one kernel out. Runs the shared distribution (lowering/gpu/distribute),
// then the vendor's last steps (nvidia/, amd/, spirv/).
//
//   auto target = tessera::gpu::GpuTarget::parse("cuda:sm_90a");
//   auto kernel = tessera::gpu::compileTileForGpu(tileModule, "matmul", *target, {});
//   // kernel->binary.binary: cubin; kernel->binary.assembly: PTX; .usage: ptxas -v
#ifndef TESSERA_LOWERING_GPU_COMPILE_H
#define TESSERA_LOWERING_GPU_COMPILE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"
#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "lowering/gpu/spirv/VulkanFeatures.h"
#include "lowering/gpu/spirv/VulkanKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::gpu {

struct GpuCompileOptions {
  GpuLoweringOptions lowering;
  NvidiaCompileOptions nvidia;
  amd::AmdCompileOptions amd;
  /// What the Vulkan device supports (from VulkanDevice::info() when
  /// compiling for a device at hand).
  vulkan::VulkanFeatures vulkan;
};

struct CompiledGpuKernel {
  /// Binary, assembly, launch facts and resource usage, for every target.
  KernelBinary binary;
  /// Vulkan only: how arguments bind (storage buffers, push constants).
  std::optional<vulkan::VulkanKernel> vulkan;
  /// What each tile.dot runs on, in program order: "file:line:col:
  /// instruction", the instruction a TensorCoreDot::name()
  /// ("wgmma.m64n256k16.bf16", "mma.sync.m16n8k16.f16", ...) or "fma".
  std::vector<std::string> dots;
  /// How each loop the software pipeliner took up was lowered, in program
  /// order: "file:line:col: 4 stages (num_stages 3), copies 2 iterations
  /// ahead by TMA", or why it was not pipelined.
  std::vector<std::string> pipelines;
};

/// What `tessera compile --emit` can stop at.
enum class GpuStage {
  Layouts,     ///< tile IR with #tgpu.layout on every tile ("tgpu")
  Distributed, ///< the per-thread gpu.module ("gpu")
  Assembly,    ///< PTX, AMDGCN assembly or the spirv.module ("ptx", "amdgcn", "spirv")
  Binary,      ///< cubin, HSACO or SPIR-V words ("cubin", "hsaco", "spv")
};

/// The stage an `--emit` name stands for: "tgpu", "gpu", then per vendor
/// "ptx"/"cubin" (NVIDIA), "amdgcn"/"hsaco" (AMD), "spirv"/"spv" (Vulkan).
/// The error names the stages `target` offers.
llvm::Expected<GpuStage> parseGpuStage(llvm::StringRef name, const GpuTarget &target);

/// The `--emit` names `target` accepts, in pipeline order.
std::vector<llvm::StringRef> gpuStageNames(const GpuTarget &target);

/// Compiles kernel `kernel` of `tileModule` (left unchanged: a clone is
/// lowered; other kernels of the module are dropped from it) for `target`.
/// Errors name the kernel and the target and carry the diagnostics of the
/// failing step, each with the source location (file:line:col) of the op.
llvm::Expected<CompiledGpuKernel> compileTileForGpu(mlir::ModuleOp tileModule,
                                                    llvm::StringRef kernel,
                                                    const GpuTarget &target,
                                                    const GpuCompileOptions &options = {});

/// The text of one stage (bytes for GpuStage::Binary), for tools and tests.
llvm::Expected<std::string> emitTileForGpu(mlir::ModuleOp tileModule, llvm::StringRef kernel,
                                           const GpuTarget &target, GpuStage stage,
                                           const GpuCompileOptions &options = {});

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_COMPILE_H

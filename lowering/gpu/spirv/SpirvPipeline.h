// The SPIR-V code generator's entry points: the distributed GPU form of one
// kernel -> a spirv.module for Vulkan compute -> SPIR-V words, with the
// binding and push-constant layout a launch needs (docs/gpu-vulkan.md).
#ifndef TESSERA_LOWERING_GPU_SPIRV_SPIRVPIPELINE_H
#define TESSERA_LOWERING_GPU_SPIRV_SPIRVPIPELINE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/spirv/VulkanFeatures.h"
#include "lowering/gpu/spirv/VulkanKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

namespace tessera::gpu::vulkan {

/// Adds the lowering of the distributed GPU form to a finished spirv.module
/// (on a builtin module): prepare and check, convert, Tessera's kernel ABI,
/// spirv-lower-abi-attrs, canonicalize, spirv-update-vce, finalize.
void buildGpuToSpirvPipeline(mlir::OpPassManager &pm, const GpuTarget &target,
                             const VulkanFeatures &features);

/// Compiles the one kernel of `distributed` (the distributed GPU form; left
/// unchanged: a clone is lowered) for a Vulkan target whose device has
/// `features`. Fails with the diagnostics of the lowering, each naming the
/// op, its location and the target; or when the target is not Vulkan.
llvm::Expected<VulkanKernel> compileForVulkan(mlir::ModuleOp distributed, const GpuTarget &target,
                                              const VulkanFeatures &features = {});

/// Registers the passes of lowering/gpu/spirv and the pipeline
/// `tessera-gpu-to-spirv{target=vulkan:1.3:subgroup=8 without=float64,...}`.
void registerSpirvLoweringPasses();

/// Registers the dialects of the distributed GPU form and of SPIR-V, so that
/// a tool can parse the input and output of the pipeline.
void registerSpirvLoweringDialects(mlir::DialectRegistry &registry);

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_SPIRVPIPELINE_H

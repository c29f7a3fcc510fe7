// The AMD final steps: a kernel in the distributed GPU form -> ROCDL ->
// AMDGCN assembly and an HSACO code object, with the resource usage read
// back from the code object's metadata. docs/gpu-amd.md describes them.
//
//   auto target = tessera::gpu::GpuTarget::parse("hip:gfx942");
//   llvm::Expected<KernelBinary> binary = tessera::gpu::amd::compileForAmd(module, *target);
#ifndef TESSERA_LOWERING_GPU_AMD_AMDPIPELINE_H
#define TESSERA_LOWERING_GPU_AMD_AMDPIPELINE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu::amd {

struct AmdCompileOptions {
  /// LLVM optimization level of the AMDGPU code generator.
  unsigned optLevel = 3;
  /// Code object version (`amdhsa_code_object_version`): 500, the default of
  /// ROCm 6, loads on all its runtimes; 600 needs ROCm >= 6.3.
  unsigned codeObjectVersion = 500;
  /// A ROCm installation (holding amdgcn/bitcode and llvm/bin/ld.lld) to use
  /// instead of the directory staged from Debian's packages.
  std::string rocmPath;
};

/// Compiles the one kernel of `distributed` (left unchanged) for `target`,
/// which must be an AMD target. Errors name the kernel and the target and
/// carry every diagnostic with its location.
llvm::Expected<KernelBinary> compileForAmd(mlir::ModuleOp distributed, const GpuTarget &target,
                                           const AmdCompileOptions &options = {});

/// Adds the lowering to ROCDL to `pm` (on the container module): chip checks,
/// bare-pointer arguments, scf -> cf, amdgpu and gpu -> ROCDL (bare-pointer
/// memrefs, 64-bit index), then the #rocdl.target attribute.
void buildGpuToRocdlPipeline(mlir::OpPassManager &pm, const GpuTarget &target,
                             const AmdCompileOptions &options = {});

/// Dialects, interfaces and translations the AMD steps need in a context.
void registerAmdLoweringDependencies(mlir::DialectRegistry &registry);

/// Registers the passes of lowering/gpu/amd and the pipeline
/// `tessera-gpu-to-rocdl{chip=gfx942 O=3 abi=500 format=isa|bin}`.
void registerAmdLoweringPasses();

} // namespace tessera::gpu::amd

#endif // TESSERA_LOWERING_GPU_AMD_AMDPIPELINE_H

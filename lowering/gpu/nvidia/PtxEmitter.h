// The step from a gpu.module in the LLVM and NVVM dialects to PTX text.
#ifndef TESSERA_LOWERING_GPU_NVIDIA_PTXEMITTER_H
#define TESSERA_LOWERING_GPU_NVIDIA_PTXEMITTER_H

#include "lowering/gpu/nvidia/CudaToolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tessera::gpu {

/// Translates `module` (LLVM and NVVM dialect ops, an `#nvvm.target` from
/// nvvm-attach-target giving chip, features and O level) to LLVM IR, links
/// libdevice from `toolkit` when the code calls `__nv_*` functions, runs
/// LLVM's optimizer at the target's O level (NVVMReflect resolves
/// libdevice's `__nvvm_reflect` queries) and the NVPTX backend, with
/// `a * b + c` contracted to fma where `fpFusion`
/// (NvidiaCompileOptions::fpFusion). Failures are emitted as diagnostics on
/// `module`.
mlir::FailureOr<std::string> emitPtx(mlir::gpu::GPUModuleOp module, const CudaToolkit &toolkit,
                                     bool fpFusion);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_PTXEMITTER_H

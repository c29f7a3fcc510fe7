// The NVIDIA code generator's last steps: the distributed GPU form (one
// gpu.module with one gpu.func kernel, docs/gpu-nvidia.md) -> NVVM and LLVM
// dialects -> PTX (LLVM's NVPTX backend, libdevice linked) -> cubin (ptxas).
//
//   auto target = tessera::gpu::GpuTarget::parse("cuda:sm_90a");
//   auto binary = tessera::gpu::compileForNvidia(module, *target, {});
//   // binary->binary: cubin, binary->assembly: PTX, binary->usage: ptxas -v
#ifndef TESSERA_LOWERING_GPU_NVIDIA_NVIDIAPIPELINE_H
#define TESSERA_LOWERING_GPU_NVIDIA_NVIDIAPIPELINE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu {

struct NvidiaCompileOptions {
  /// Optimization level of LLVM and of ptxas, 0 to 3.
  unsigned optLevel = 3;
  /// Registers per thread the kernel may use (`.maxnreg`); 0 leaves it to
  /// ptxas. Fewer registers let more blocks share a multiprocessor, at the
  /// price of spills.
  unsigned maxRegisters = 0;
  /// `a * b + c` may become one fma.rn.f32, as Triton's `enable_fp_fusion`
  /// and nvcc's `--fmad` allow by default; false keeps each product and sum
  /// rounded on its own (add.rn/mul.rn, which ptxas does not fuse).
  bool fpFusion = true;
  /// The CUDA toolkit providing libdevice and ptxas; empty: $CUDA_HOME,
  /// $CUDA_PATH, $CUDA_ROOT, /usr/local/cuda (see CudaToolkit).
  std::string cudaRoot;
};

/// Compiles the kernel of `distributed` for `target` (an NVIDIA target). The
/// module is left as it is (a clone is lowered); its context gets the
/// dialects and interfaces of the lowering. The launch facts come from
/// the kernel's attributes: blockThreads from `known_block_size` (T, 1, 1),
/// dynamicSharedMemoryBytes from `tessera.shared_memory_bytes`. Errors name
/// the kernel and the target; an op the NVIDIA lowering cannot handle is
/// named with its location.
llvm::Expected<KernelBinary> compileForNvidia(mlir::ModuleOp distributed, const GpuTarget &target,
                                              const NvidiaCompileOptions &options = {});

struct NvvmLoweringOptions {
  std::string chip = "sm_90a";
  unsigned optLevel = 3;
};

/// Adds to `pm` (on a builtin.module) the lowering of every gpu.module to the
/// LLVM and NVVM dialects: nvvm-attach-target{chip, O, PTX 8.4 on sm_89 and
/// sm_90[a]}, then on each gpu.module tessera-gpu-bare-pointer-args,
/// tessera-nvgpu-float8-ldmatrix, convert-nvgpu-to-nvvm,
/// convert-scf-to-cf, convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv}
/// (which also lowers arith, math to libdevice calls, cf, memref, vector),
/// convert-nvvm-to-llvm (inline PTX for NVVM ops without an intrinsic, such
/// as nvvm.wgmma.mma_async),
/// tessera-nvvm-extern-dynamic-shared-memory, tessera-nvvm-tensor-map-params,
/// reconcile-unrealized-casts,
/// canonicalize, cse.
void buildGpuToNvvmPipeline(mlir::OpPassManager &pm, const NvvmLoweringOptions &options);

/// Registers the passes of lowering/gpu/nvidia and the pipeline
/// `tessera-gpu-to-nvvm{chip=sm_90a opt-level=3}`, and adds to `registry` the
/// dialects it reads and writes (gpu, nvgpu, nvvm, llvm, memref, vector, ...)
/// with their LLVM IR translations.
void registerNvidiaLowering(mlir::DialectRegistry &registry);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_NVIDIAPIPELINE_H

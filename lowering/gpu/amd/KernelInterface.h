// What the AMD steps read from a kernel in the distributed GPU form: the one
// kernel of a gpu.module and the launch facts attached to it.
#ifndef TESSERA_LOWERING_GPU_AMD_KERNELINTERFACE_H
#define TESSERA_LOWERING_GPU_AMD_KERNELINTERFACE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace tessera::gpu::amd {

inline constexpr llvm::StringLiteral kNumWarpsAttr = "tessera.num_warps";
inline constexpr llvm::StringLiteral kSharedMemoryBytesAttr = "tessera.shared_memory_bytes";

struct KernelInterface {
  mlir::gpu::GPUFuncOp kernel;
  /// known_block_size x (y and z are 1).
  unsigned blockThreads = 0;
  unsigned numWarps = 0;
  /// tessera.shared_memory_bytes: what the launch must provide.
  unsigned dynamicSharedMemoryBytes = 0;
  /// Sum of the kernel's workgroup attributions.
  uint64_t staticSharedMemoryBytes = 0;
};

/// The kernel of `module` and its launch facts. Reports what is missing or
/// malformed as an error on the offending op.
mlir::FailureOr<KernelInterface> readKernelInterface(mlir::gpu::GPUModuleOp module);

/// The single gpu.module of a distributed module; an error on `module`
/// otherwise.
mlir::FailureOr<mlir::gpu::GPUModuleOp> findKernelModule(mlir::ModuleOp module);

} // namespace tessera::gpu::amd

#endif // TESSERA_LOWERING_GPU_AMD_KERNELINTERFACE_H

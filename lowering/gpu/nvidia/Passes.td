#ifndef TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD
#define TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraNvvmExternDynamicSharedMemory
    : Pass<"tessera-nvvm-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory symbol extern, as PTX requires";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an internal,
    zero-sized global in address space 3. The NVPTX backend demotes such a
    global into the kernel as a one-byte static `.shared` variable, so the
    kernel reads the start of static shared memory and overruns the block's
    allocation by up to the alignment. Dynamic shared memory is the PTX
    declaration `.extern .shared .align A .b8 name[]`, which LLVM emits for
    an external global without initializer: this pass gives every zero-sized
    global of address space 3 that linkage, and an alignment of 1024 bytes,
    which the swizzled operands of wgmma (and TMA) assume of their buffers.

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    ```
  }];
}

#endif // TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD

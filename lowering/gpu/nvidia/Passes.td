#ifndef TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD
#define TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraGpuBarePointerArgs
    : Pass<"tessera-gpu-bare-pointer-args", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass the 1-D dynamic memref arguments of GPU kernels as bare pointers";
  let description = [{
    In the distributed GPU form every `!tile.ptr<T>` kernel argument is a
    `memref<?xT>`: a pointer whose extent the kernel does not know. MLIR's
    bare-pointer calling convention (`convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv}`)
    only takes memrefs of static shape, so this pass rewrites each such
    argument of a `gpu.func` kernel into an `!llvm.ptr` and rebuilds the memref
    at the top of the body from a descriptor whose allocated and aligned
    pointers are the argument, offset 0 and stride 1. The size is left
    undefined (poison), so only ops that address through the pointer (loads,
    stores, atomics, vector loads and stores, gathers, scatters, async
    copies) may use the argument; any other use is an error. After
    the GPU-to-NVVM conversion and `reconcile-unrealized-casts` the
    descriptor folds away and loads and stores index the pointer directly.
    Memref arguments of static shape are left to the bare-pointer convention.

    ```mlir
    gpu.func @k(%x: memref<?xf32>) kernel { %v = memref.load %x[%i] : memref<?xf32> ... }
    // becomes
    gpu.func @k(%p: !llvm.ptr) kernel {
      %d = ... llvm.insertvalue %p ... : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %x = builtin.unrealized_conversion_cast %d : !llvm.struct<...> to memref<?xf32>
      %v = memref.load %x[%i] : memref<?xf32> ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

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
    global of address space 3 that linkage.

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
}

#endif // TESSERA_LOWERING_GPU_NVIDIA_PASSES_TD

// Passes shared by the vendor pipelines of the GPU code generators.
#ifndef TESSERA_LOWERING_GPU_PASSES_TD
#define TESSERA_LOWERING_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraGpuBarePointerArgs
    : Pass<"tessera-gpu-bare-pointer-args", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass the 1-D dynamic memref arguments of GPU kernels as bare pointers";
  let description = [{
    In the distributed GPU form every `!tile.ptr<T>` kernel argument is a
    `memref<?xT>`: a pointer whose extent the kernel does not know. MLIR's
    bare-pointer calling convention (`convert-gpu-to-nvvm` and
    `convert-gpu-to-rocdl` with `use-bare-ptr-memref-call-conv`) only takes
    memrefs of static shape, so this pass rewrites each such
    argument of a `gpu.func` kernel into an `!llvm.ptr` and rebuilds the memref
    at the top of the body from a descriptor whose allocated and aligned
    pointers are the argument, offset 0 and stride 1. The size is left
    undefined (poison), so only ops that address through the pointer (loads,
    stores, atomics, vector loads and stores, gathers, scatters, async
    copies, taking the aligned pointer) may use the argument; any other use
    is an error. NVIDIA and AMD run it alike (on AMD the pointer is flat;
    LLVM's AMDGPU backend infers that kernel argument pointers are global).
    After the GPU-to-NVVM/ROCDL conversion and `reconcile-unrealized-casts` the
    descriptor folds away and loads and stores index the pointer directly.
    Memref arguments of static shape are left to the bare-pointer convention.
    A `tgpu.reinterpret_pointer` (a pointer cast to another element type)
    becomes such a descriptor too, on its source's aligned pointer.

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
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // TESSERA_LOWERING_GPU_PASSES_TD

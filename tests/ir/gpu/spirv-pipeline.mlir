// RUN: tessera-opt %s -tessera-gpu-to-spirv="target=vulkan:1.3:subgroup=8" | FileCheck %s
// RUN: tessera-opt %s -tessera-gpu-to-spirv="target=vulkan:1.2:subgroup=8" | FileCheck %s --check-prefix=V12

// The whole lowering: storage buffers 0 and 1 for the two pointers, the
// scalars in a push-constant block, LocalSize from known_block_size, the
// module's capabilities trimmed to what it uses, SPIR-V 1.6 for Vulkan 1.3.
// CHECK: spirv.module @__spv__axpy Logical GLSL450 requires #spirv.vce<v1.6, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]>
// CHECK-DAG: spirv.GlobalVariable @axpy_push_constants : !spirv.ptr<!spirv.struct<(f32 [0], i32 [4])>, PushConstant>
// CHECK-DAG: spirv.GlobalVariable @axpy_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @axpy_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK: spirv.func @axpy() "None"
// CHECK: spirv.Load "PushConstant"
// CHECK: spirv.mlir.selection
// CHECK: spirv.EntryPoint "GLCompute" @axpy, {{.*}}@axpy_push_constants
// CHECK: spirv.ExecutionMode @axpy "LocalSize", 64, 1, 1
// V12: requires #spirv.vce<v1.5, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]>
module attributes {gpu.container_module} {
  gpu.module @axpy {
    gpu.func @axpy(%x: memref<?xf32>, %alpha: f32, %y: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 8 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %block = arith.constant 64 : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      scf.if %inside {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %s = arith.mulf %alpha, %a : f32
        %r = arith.addf %s, %b : f32
        memref.store %r, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

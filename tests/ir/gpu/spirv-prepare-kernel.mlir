// RUN: tessera-opt %s -split-input-file -tessera-spirv-prepare-kernel="target=vulkan:1.3:subgroup=8" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tessera-spirv-prepare-kernel="target=vulkan:1.2:subgroup=16 without=float64,int64" | FileCheck %s --check-prefix=V12

// The target environment goes on the gpu.module: SPIR-V 1.6 for Vulkan 1.3
// (1.5 for 1.2), the capabilities the features allow, the subgroup size and
// shared memory of the target; the kernel gets its workgroup size as the
// entry-point ABI.
// CHECK: gpu.module @k attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Matrix, GroupNonUniform, Float16, Float64, Int8, Int16, Int64,
// CHECK-SAME: GroupNonUniformShuffle
// CHECK-SAME: AtomicFloat32AddEXT
// CHECK-SAME: api=Vulkan, #spirv.resource_limits<max_compute_shared_memory_size = 32768, {{.*}}subgroup_size = 8>>}
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// V12: #spirv.vce<v1.5, [Shader, Matrix, GroupNonUniform, Float16, Int8, Int16, StorageBuffer8BitAccess
// V12-SAME: subgroup_size = 16>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 8 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      gpu.return
    }
  }
}

// -----

// fp8 buffers are bytes to SPIR-V: moving them needs what i8 needs.
// CHECK-LABEL: gpu.func @copy_f8
// V12-LABEL: gpu.func @copy_f8
module attributes {gpu.container_module} {
  gpu.module @copy_f8 {
    gpu.func @copy_f8(%x: memref<?xf8E4M3FN>, %y: memref<?xf8E5M2>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf8E4M3FN>
      %b = arith.bitcast %v : f8E4M3FN to i8
      %w = arith.bitcast %b : i8 to f8E5M2
      memref.store %w, %y[%c0] : memref<?xf8E5M2>
      gpu.return
    }
  }
}

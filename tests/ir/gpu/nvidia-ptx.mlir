// RUN: tessera-opt %s --tessera-gpu-to-nvvm=chip=sm_90a --gpu-module-to-binary=format=isa | FileCheck %s

// The lowered kernel through LLVM's NVPTX backend (MLIR's serializer; the
// compiler links libdevice itself, see docs/gpu-nvidia.md). PTX 8.4 on
// sm_90a, which fp8 mma.sync needs (LLVM's lowest for the chip is 8.0).
// CHECK: gpu.binary @block_sum
// CHECK-SAME: .version 8.4
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK-SAME: .visible .entry block_sum(
// CHECK-SAME: .param .u64 .ptr .align 1 block_sum_param_0
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared
// CHECK-SAME: st.global.b32
module attributes {gpu.container_module} {
  gpu.module @block_sum {
    gpu.func @block_sum(%x: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
                    tessera.shared_memory_bytes = 8 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %partial = memref.view %bytes[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<2xf32, #gpu.address_space<workgroup>>
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<?xf32>
      %o1 = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %s, %ok = gpu.shuffle xor %v, %o1, %width : f32
      %sum = arith.addf %v, %s : f32
      %warp = arith.divui %tid, %c32 : index
      memref.store %sum, %partial[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %isThread0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %isThread0 {
        %c1 = arith.constant 1 : index
        %p0 = memref.load %partial[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
        %p1 = memref.load %partial[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
        %total = arith.addf %p0, %p1 : f32
        memref.store %total, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}

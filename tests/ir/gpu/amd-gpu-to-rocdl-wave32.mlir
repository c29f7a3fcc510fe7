// RUN: tessera-opt %s --tessera-gpu-to-rocdl="chip=gfx1100 format=isa" | FileCheck %s

// gfx1100 runs in waves of 32 and the device libraries are told so.
// CHECK: #rocdl.target<O = 3, chip = "gfx1100", abi = "500", flags = {no_wave64}>
// CHECK-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx1100\22
// CHECK-SAME: ds_store_b32
// CHECK-SAME: s_barrier
// CHECK-SAME: ds_load_b32
// CHECK-SAME: ds_bpermute_b32
// CHECK-SAME: .amdhsa_wavefront_size32 1

module attributes {gpu.container_module} {
  gpu.module @lds_shuffle {
    gpu.func @lds_shuffle(%x: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%stage: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
                           tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %pid = gpu.block_id x
      %block = arith.constant 64 : index
      %last = arith.constant 63 : index
      %base = arith.muli %pid, %block : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %stage[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %mirror = arith.subi %last, %tid : index
      %w = memref.load %stage[%mirror] : memref<64xf32, #gpu.address_space<workgroup>>
      %one = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %s, %ok = gpu.shuffle xor %w, %one, %width : f32
      memref.store %s, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}

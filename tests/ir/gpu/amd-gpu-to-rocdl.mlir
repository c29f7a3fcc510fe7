// RUN: tessera-opt %s --tessera-gpu-to-rocdl="chip=gfx942" | FileCheck %s --check-prefix=ROCDL
// RUN: tessera-opt %s --tessera-gpu-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: tessera-opt %s --tessera-gpu-to-rocdl="chip=gfx942 format=bin abi=600" | FileCheck %s --check-prefix=BIN
// RUN: not tessera-opt %s --tessera-gpu-to-rocdl="chip=gfx908" 2>&1 | FileCheck %s --check-prefix=BADCHIP

// ROCDL: gpu.module @masked_exp [#rocdl.target<O = 3, chip = "gfx942", abi = "500">]
// ROCDL: llvm.func @masked_exp(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32)
// ROCDL-SAME: rocdl.flat_work_group_size = "128,128"
// ROCDL-SAME: rocdl.kernel
// ROCDL: rocdl.workitem.id.x
// ROCDL: rocdl.workgroup.id.x
// ROCDL: llvm.load %{{.*}} : !llvm.ptr -> f32
// ROCDL: llvm.call @__ocml_erf_f32
// ROCDL: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// ROCDL-NOT: memref
// ROCDL-NOT: unrealized_conversion_cast

// ISA: gpu.binary @masked_exp [#gpu.object<#rocdl.target<O = 3, chip = "gfx942", abi = "500">, assembly = "
// ISA-SAME: .amdhsa_code_object_version 5
// ISA-SAME: global_load_dword
// ISA-SAME: v_exp_f32
// ISA-SAME: global_store_dword
// ISA-SAME: .amdhsa_kernel masked_exp
// ISA-NOT: __ocml

// abi = "600" is the attribute's default, which it does not print.
// BIN: gpu.binary @masked_exp [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">, bin = "\7FELF
// BIN-SAME: AMDGPU
// BIN-SAME: .wavefront_size@
// BIN-SAME: amdgcn-amd-amdhsa--gfx942
// BIN-SAME: masked_exp.kd

// BADCHIP: bad GPU target 'hip:gfx908': unknown AMD architecture 'gfx908'

module attributes {gpu.container_module} {
  gpu.module @masked_exp {
    gpu.func @masked_exp(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %pid = gpu.block_id x
      %block = arith.constant 128 : index
      %base = arith.muli %pid, %block : index
      %i = arith.addi %base, %tid : index
      %count = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %count : index
      scf.if %inside {
        %v = memref.load %x[%i] : memref<?xf32>
        %e = math.exp %v : f32
        %f = math.erf %e : f32
        memref.store %f, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// RUN: tessera-opt %s -split-input-file -tessera-spirv-convert-gpu-kernel | FileCheck %s

// The prepared gpu.module becomes a spirv.module in place; workgroup
// attributions become Workgroup variables, cf branches structured
// selections, shuffles subgroup shuffles, float atomics EXT.AtomicFAdd.
// CHECK-NOT: gpu.module
// CHECK: spirv.module @__spv__k Logical GLSL450
// CHECK: spirv.GlobalVariable @__workgroup_mem__{{[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<8 x f32>)>, Workgroup>
// CHECK: spirv.func @k(%[[X:.*]]: !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %{{.*}}: i32 {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1), StorageBuffer>})
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// CHECK: spirv.mlir.selection
// CHECK: spirv.GL.Exp
// CHECK: spirv.GroupNonUniformShuffleXor <Subgroup>
// CHECK: spirv.GroupNonUniformShuffleUp <Subgroup>
// CHECK: spirv.UGreaterThanEqual
// CHECK: spirv.GroupNonUniformShuffleDown <Subgroup>
// CHECK: spirv.ULessThan
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.EXT.AtomicFAdd <Device> <None>
// CHECK: spirv.AtomicExchange <Workgroup> <None>
// CHECK: spirv.Return
module attributes {gpu.container_module} {
  gpu.module @k attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6,
      [Shader, GroupNonUniform, GroupNonUniformShuffle, GroupNonUniformShuffleRelative,
       AtomicFloat32AddEXT], [SPV_EXT_shader_atomic_float_add]>, api=Vulkan,
      #spirv.resource_limits<subgroup_size = 8>>} {
    gpu.func @k(%x: memref<?xf32>, %n: i32)
        workgroup(%partial: memref<8xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>,
                    spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %tid, %limit : index
      cf.cond_br %inside, ^body, ^exit
    ^body:
      %v = memref.load %x[%tid] : memref<?xf32>
      %e = math.exp %v : f32
      %one = arith.constant 1 : i32
      %width = arith.constant 8 : i32
      %a, %va = gpu.shuffle xor %e, %one, %width : f32
      %b, %vb = gpu.shuffle up %a, %one, %width : f32
      %c, %vc = gpu.shuffle down %b, %one, %width : f32
      memref.store %c, %partial[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %old = memref.atomic_rmw addf %c, %x[%c0] : (f32, memref<?xf32>) -> f32
      %swapped = memref.atomic_rmw assign %old, %partial[%c0] : (f32, memref<8xf32, #gpu.address_space<workgroup>>) -> f32
      cf.br ^exit
    ^exit:
      gpu.return
    }
  }
}

// -----

// Math GLSL.std.450 lacks becomes ops it has: erf, erfc, cbrt and atan2 by
// polynomial approximations, fpowi by repeated multiplication, trunc as
// copysign(floor(|x|), x).
// CHECK-LABEL: spirv.module @__spv__m
// CHECK: spirv.func @m
// CHECK-NOT: math.
// CHECK: spirv.GL.FAbs
// CHECK: spirv.GL.Floor
// CHECK: spirv.Return
module attributes {gpu.container_module} {
  gpu.module @m attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>,
      api=Vulkan, #spirv.resource_limits<subgroup_size = 8>>} {
    gpu.func @m(%x: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>,
                    spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      %a = math.erf %v : f32
      %b = math.erfc %a : f32
      %c = math.cbrt %b : f32
      %d = math.atan2 %c, %v : f32
      %e = math.trunc %d : f32
      %f = math.fpowi %e, %n : f32, i32
      memref.store %f, %x[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// A barrier that must order global memory (tile.debug_barrier) includes
// UniformMemory in its semantics; a plain one orders workgroup memory.
// CHECK-LABEL: spirv.module @__spv__b
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
module attributes {gpu.container_module} {
  gpu.module @b attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>,
      api=Vulkan, #spirv.resource_limits<subgroup_size = 8>>} {
    gpu.func @b(%x: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>,
                    spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
      gpu.barrier {tessera.orders_global_memory}
      gpu.barrier
      gpu.return
    }
  }
}

// -----

// memref.atomic_rmw xori, which upstream's patterns leave out, is AtomicXor.
// CHECK-LABEL: spirv.module @__spv__xor
// CHECK: spirv.AtomicXor <Device> <None>
// CHECK-NOT: memref.atomic_rmw
module attributes {gpu.container_module} {
  gpu.module @xor attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>,
      api=Vulkan, #spirv.resource_limits<subgroup_size = 8>>} {
    gpu.func @xor(%x: memref<?xi32>, %v: i32) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>,
                    spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %old = memref.atomic_rmw xori %v, %x[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
}

// The distributed form goes through the target pipelines as it is.
// RUN: tessera-opt %s -tile-gpu-distribute | tessera-opt -tessera-gpu-to-nvvm=chip=sm_90a | FileCheck %s --check-prefix=NVVM
// RUN: tessera-opt %s -tile-gpu-distribute | tessera-opt -tessera-gpu-to-spirv=target=vulkan:1.3:subgroup=8 | FileCheck %s --check-prefix=SPIRV

// Row maxima of a [4, 32] tile (shuffles and a warp exchange), accumulated
// into `out` with atomics after a conversion through workgroup memory.
#X = #tgpu.layout<rank = 2, reg = [[0, 1], [1, 0], [2, 0]], lane = [[0, 2], [0, 4], [0, 8]], warp = [[0, 16]]>
#R = #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[0], [0], [0]], warp = [[0]]>
#S = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [0]], warp = [[0]]>
tile.func @row_max(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %rows = tile.make_range 0 to 4 : tensor<4xi32, #R>
  %c32 = arith.constant dense<32> : tensor<4xi32, #R>
  %starts = arith.muli %rows, %c32 : tensor<4xi32, #R>
  %x = arith.sitofp %starts : tensor<4xi32, #R> to tensor<4xf32, #R>
  %ones = arith.constant dense<1.0> : tensor<4x32xf32, #X>
  %m = tile.reduce %ones axis = 1 : tensor<4x32xf32, #X> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.maximumf %a, %b : f32
    tile.yield %s : f32
  }
  %sum = arith.addf %m, %x : tensor<4xf32, #R>
  %moved = tgpu.convert_layout %sum : tensor<4xf32, #R> -> tensor<4xf32, #S>
  %i = tile.make_range 0 to 4 : tensor<4xi32, #S>
  %pb = tile.splat %out : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>, #S>
  %pp = tile.addptr %pb, %i : tensor<4x!tile.ptr<f32>, #S>, tensor<4xi32, #S>
  %old = tile.atomic_rmw fadd, relaxed, gpu, %pp, %moved : tensor<4x!tile.ptr<f32>, #S>
  tile.return
}

// NVVM: llvm.func @row_max
// NVVM-SAME: nvvm.kernel
// NVVM: nvvm.shfl.sync bfly
// NVVM: nvvm.barrier
// NVVM: llvm.atomicrmw fadd

// SPIRV: spirv.module
// SPIRV: spirv.func @row_max
// SPIRV: spirv.GroupNonUniformShuffleXor
// SPIRV: spirv.ControlBarrier <Workgroup>
// SPIRV: spirv.EXT.AtomicFAdd

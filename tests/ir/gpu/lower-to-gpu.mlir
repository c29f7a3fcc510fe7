// RUN: tessera-opt %s -tile-lower-to-gpu="target=vulkan:1.3:subgroup=8 num-warps=2" | FileCheck %s
// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefix=CUDA

// The whole distribution from tile IR without layouts: a device function is
// inlined, layouts are assigned, the kernel is distributed and cleaned up.

tile.func private @scale(%x: tensor<128xf32>, %s: f32) -> tensor<128xf32> {
  %ss = tile.splat %s : f32 -> tensor<128xf32>
  %y = arith.mulf %x, %ss : tensor<128xf32>
  tile.return %y : tensor<128xf32>
}
tile.func @normalize(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %n : i32
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %inrow = tile.addptr %in, %start : !tile.ptr<f32>, i32
  %ib = tile.splat %inrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %ip, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %sum = tile.reduce %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %one = arith.constant 1.0 : f32
  %inv = arith.divf %one, %sum : f32
  %y = tile.call @scale(%x, %inv) : (tensor<128xf32>, f32) -> tensor<128xf32>
  %outrow = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %ob = tile.splat %outrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %ob, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %op, %y, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK: module attributes {gpu.container_module}
// CHECK-NOT: tile.func
// CHECK: gpu.module @normalize
// CHECK: gpu.func @normalize(%[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %{{.*}}: i32)
// CHECK-SAME: workgroup(%[[PARTIALS:.*]] : memref<2xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 16, 1, 1>
// CHECK-SAME: tessera.num_warps = 2 : i32
// CHECK: memref.load %[[IN]]
// Three lane bits of the 8-wide subgroups, then the two warps' partials.
// CHECK-COUNT-3: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.return

// On a 32-lane target each of the 128 threads holds one element of the row
// (a vector of 4 would leave three warps holding copies): five shuffles, the
// four warps' partials through shared memory (read back as one vector), and
// every thread stores its own element. Nothing touches shared memory after
// the partials are read, so the barrier that would end the reduction is left
// out (tile-gpu-elide-barriers).
// CUDA: gpu.func @normalize
// CUDA-SAME: known_block_size = array<i32: 128, 1, 1>
// CUDA-SAME: tessera.shared_memory_bytes = 16 : i32
// CUDA: %[[PARTIALS:.*]] = memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CUDA: %[[IN:.*]] = arith.cmpi slt
// CUDA: memref.load %arg0
// CUDA-COUNT-5: gpu.shuffle xor
// CUDA: memref.store %{{.*}}, %[[PARTIALS]]
// CUDA-NEXT: gpu.barrier
// CUDA-NEXT: vector.load %[[PARTIALS]][%c0{{.*}}] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CUDA-NOT: gpu.barrier
// CUDA: scf.if %[[IN]] {
// CUDA-NEXT: memref.store %{{.*}}, %arg1

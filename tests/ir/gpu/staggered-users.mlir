// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4" | FileCheck %s
// RUN: tessera-opt %s -tile-lower-to-gpu="target=hip:gfx942 num-warps=4" | FileCheck %s --check-prefix=AMD

// Layer norm's two sums: the second reduction's partials are placed after the
// first's (on NVIDIA bytes 16 to 32, SharedMemory::beginUser; elsewhere in a
// workgroup attribution of their own), so neither reduction ends with a
// barrier (tile-gpu-elide-barriers): one barrier each, between the partials'
// stores and loads.
tile.func @centered_square_sum(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %cols = tile.make_range 0 to 512 : tensor<512xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %cols : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %ip : tensor<512x!tile.ptr<f32>>
  %sum = tile.reduce %x axis = 0 : tensor<512xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sums = tile.splat %sum : f32 -> tensor<512xf32>
  %centered = arith.subf %x, %sums : tensor<512xf32>
  %squares = arith.mulf %centered, %centered : tensor<512xf32>
  %total = tile.reduce %squares axis = 0 : tensor<512xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  tile.store %out, %total : !tile.ptr<f32>
  tile.return
}

// CHECK: gpu.func @centered_square_sum
// CHECK-SAME: tessera.shared_memory_bytes = 32 : i32
// CHECK-DAG: %[[FIRST:.*]] = memref.view %{{.*}}[%c0{{.*}}][] {{.*}} to memref<4xf32
// CHECK-DAG: %[[SECOND:.*]] = memref.view %{{.*}}[%c16{{.*}}][] {{.*}} to memref<4xf32
// CHECK: memref.store %{{.*}}, %[[FIRST]]
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SECOND]]
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// AMD: gpu.func @centered_square_sum
// AMD-SAME: workgroup(%[[FIRST:[a-z0-9]+]] : memref<4xf32, {{.*}}, %[[SECOND:[a-z0-9]+]] : memref<4xf32,
// AMD: memref.store %{{.*}}, %[[FIRST]]
// AMD-NEXT: gpu.barrier
// AMD-NOT: gpu.barrier
// AMD: memref.store %{{.*}}, %[[SECOND]]
// AMD-NEXT: gpu.barrier
// AMD-NOT: gpu.barrier
// AMD: gpu.return

// RUN: tessera-opt %s -split-input-file -tile-merge-scalars | FileCheck %s

// `pid_n * 256` spelled for the loads and again for the store, and again in
// a loop: one value. Tiles stay apart; so do loads, which read memory.
tile.func @merged(%p: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %a = arith.muli %pid, %c256 : i32
  %b = arith.muli %pid, %c256 : i32
  %ra = tile.make_range 0 to 256 : tensor<256xi32>
  %rb = tile.make_range 0 to 256 : tensor<256xi32>
  %la = tile.load %p : !tile.ptr<i32>
  %lb = tile.load %p : !tile.ptr<i32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %c = arith.muli %pid, %c256 : i32
    %d = arith.addi %acc, %c : i32
    scf.yield %d : i32
  }
  %sum = arith.addi %a, %b : i32
  %sum2 = arith.addi %la, %lb : i32
  %t = tile.splat %sum : i32 -> tensor<256xi32>
  %u = arith.addi %ra, %rb : tensor<256xi32>
  %v = arith.addi %t, %u : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %ptrs = tile.addptr %ps, %v : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %w = tile.splat %sum2 : i32 -> tensor<256xi32>
  tile.store %ptrs, %w : tensor<256x!tile.ptr<i32>>
  %x = arith.addi %s, %a : i32
  tile.store %p, %x : !tile.ptr<i32>
  tile.return
}

// CHECK-LABEL: tile.func @merged
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[A:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK-NOT: arith.muli
// CHECK: %[[RA:.*]] = tile.make_range 0 to 256
// CHECK: %[[RB:.*]] = tile.make_range 0 to 256
// CHECK: %[[LA:.*]] = tile.load
// CHECK: %[[LB:.*]] = tile.load
// CHECK: scf.for
// CHECK-NOT: arith.muli
// CHECK:   arith.addi %{{.*}}, %[[A]] : i32
// CHECK: arith.addi %[[A]], %[[A]] : i32
// CHECK: arith.addi %[[LA]], %[[LB]] : i32
// CHECK: arith.addi %[[RA]], %[[RB]] : tensor<256xi32>

// -----

// An expression of a branch is not merged with its twin in the other branch
// (neither dominates the other); a combining region keeps its own constant.
tile.func @apart(%xp: !tile.ptr<f32>, %c: i1, %n: i32, %p: !tile.ptr<i32>) {
  %c3 = arith.constant 3 : i32
  %range = tile.make_range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %xp : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xptrs = tile.addptr %xs, %range : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %xptrs : tensor<64x!tile.ptr<f32>>
  %r = scf.if %c -> (i32) {
    %a = arith.muli %n, %c3 : i32
    scf.yield %a : i32
  } else {
    %b = arith.muli %n, %c3 : i32
    scf.yield %b : i32
  }
  tile.store %p, %r : !tile.ptr<i32>
  %zero = arith.constant 0.0 : f32
  %m = tile.reduce %x axis = 0 : tensor<64xf32> {
  ^bb0(%l: f32, %rr: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %l, %rr : f32
    %t = arith.maximumf %s, %z : f32
    tile.yield %t : f32
  }
  %y = arith.addf %m, %zero : f32
  tile.store %xp, %y : !tile.ptr<f32>
  tile.return
}

// CHECK-LABEL: tile.func @apart
// CHECK: scf.if
// CHECK:   arith.muli
// CHECK: } else {
// CHECK:   arith.muli
// CHECK: tile.reduce
// CHECK:   %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   arith.maximumf %{{.*}}, %[[Z]] : f32

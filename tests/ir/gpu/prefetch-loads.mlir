// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads | FileCheck %s

// A persistent row loop with tile.num_stages = 2: the row load goes one
// iteration ahead into a carried tile, the first one before the loop under
// `lower < upper`, the next one at the top of the body when it exists:
// `upper - row > step` (unsigned), which unlike `next < upper` stays true to
// the end where `row + step` wraps past the largest i32.

// CHECK-LABEL: tile.func @rows
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32, %[[PID:.*]]: i32, %[[STEP:.*]]: i32)
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[PID]], %[[N]] : i32
// CHECK: %[[OFF0:.*]] = tile.splat %[[PID]]
// CHECK: %[[P0:.*]] = tile.addptr %{{.*}}, %{{.*}}
// CHECK: %[[M0:.*]] = tile.splat %[[RUNS]] : i1 -> tensor<64xi1>
// CHECK: %[[FIRST:.*]] = tile.load %[[P0]], %[[M0]]
// CHECK: scf.for %[[ROW:.*]] = %[[PID]] to %[[N]] step %[[STEP]] iter_args(%[[CUR:.*]] = %[[FIRST]]) -> (tensor<64xf32>)
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[ROW]], %[[STEP]] : i32
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[N]], %[[ROW]] : i32
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ugt, %[[LEFT]], %[[STEP]] : i32
// CHECK-NEXT: tile.splat %[[NEXT]]
// CHECK: %[[MN:.*]] = tile.splat %[[MORE]] : i1 -> tensor<64xi1>
// CHECK-NEXT: %[[LOADED:.*]] = tile.load %{{.*}}, %[[MN]]
// CHECK-NOT: tile.load
// CHECK: arith.mulf %[[CUR]], %[[CUR]]
// CHECK: tile.store
// CHECK: scf.yield %[[LOADED]]
// CHECK: tile.num_stages = 2
tile.func @rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<64xi32>
    %offs = arith.addi %r, %cols : tensor<64xi32>
    %p = tile.addptr %xb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %sq = arith.mulf %v, %v : tensor<64xf32>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %sq : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// -----

// The load's own mask is kept, and-ed with the iteration's condition.

// CHECK-LABEL: tile.func @masked
// CHECK: %[[RUNS:.*]] = arith.cmpi slt
// CHECK: %[[OWN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK: %[[SPLAT:.*]] = tile.splat %[[RUNS]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[OWN]], %[[SPLAT]] : tensor<64xi1>
// CHECK: tile.load %{{.*}}, %[[BOTH]], %{{.*}} :
tile.func @masked(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %cols_n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %limit = tile.splat %cols_n : i32 -> tensor<64xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %row = %c0 to %n step %c1 : i32 {
    %r = tile.splat %row : i32 -> tensor<64xi32>
    %offs = arith.addi %r, %cols : tensor<64xi32>
    %m = arith.cmpi slt, %cols, %limit : tensor<64xi32>
    %p = tile.addptr %xb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p, %m, %zero : tensor<64x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %v, %m : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 3 : i32}
  tile.return
}

// -----

// Left alone: a loop without num_stages, one with a dot, a load whose
// address is loop-carried, a volatile load.

// CHECK-LABEL: tile.func private @kept
// CHECK-NOT: iter_args(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
// CHECK: scf.for
// CHECK: tile.load
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.dot
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (tensor<64x!tile.ptr<f32>>)
// CHECK: tile.load %[[P]]
// CHECK: scf.for
// CHECK: tile.load {{.*}} volatile
tile.func private @kept(%x: !tile.ptr<f32>, %n: i32, %a: tensor<16x16xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xb, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %d = tile.dot %a, %a, %a input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%q = %p) -> (tensor<64x!tile.ptr<f32>>) : i32 {
    %v = tile.load %q : tensor<64x!tile.ptr<f32>>
    tile.store %q, %v : tensor<64x!tile.ptr<f32>>
    %next = tile.addptr %q, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.load %p volatile : tensor<64x!tile.ptr<f32>>
    tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// -----

// An unsigned loop: the first iteration exists under `lower <u upper`.

// CHECK-LABEL: tile.func @unsigned_rows
// CHECK: %[[RUNS:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: tile.splat %[[RUNS]]
// CHECK: scf.for unsigned
// CHECK: arith.cmpi ugt
tile.func @unsigned_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for unsigned %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<64xi32>
    %offs = arith.addi %r, %cols : tensor<64xi32>
    %p = tile.addptr %xb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %v : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

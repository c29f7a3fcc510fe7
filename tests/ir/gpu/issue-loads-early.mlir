// RUN: tessera-opt %s -split-input-file -tile-gpu-issue-loads-early | FileCheck %s

// The weights of a layernorm-like kernel: their pointers and load move above
// the reduction of x (the distribution's barrier), right after x's load.
// CHECK-LABEL: tile.func @weights_before_reduction
// CHECK:      %[[COLS:.*]] = tile.make_range
// CHECK:      %[[X:.*]] = tile.load
// CHECK-NEXT: %[[WB:.*]] = tile.splat %arg1
// CHECK-NEXT: %[[WP:.*]] = tile.addptr %[[WB]], %[[COLS]]
// CHECK-NEXT: %[[W:.*]] = tile.load %[[WP]]
// CHECK-NEXT: tile.reduce %[[X]]
// CHECK:      arith.mulf %{{.*}}, %[[W]]
tile.func @weights_before_reduction(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %sum = tile.reduce %xv axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sums = tile.splat %sum : f32 -> tensor<128xf32>
  %centered = arith.subf %xv, %sums : tensor<128xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %wv = tile.load %wp : tensor<128x!tile.ptr<f32>>
  %out = arith.mulf %centered, %wv : tensor<128xf32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %out : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// A load stays below a store it might read from, a load whose address
// depends on the reduction stays below it, and a volatile load stays put.
// CHECK-LABEL: tile.func @loads_that_stay
// CHECK:      tile.reduce
// CHECK:      tile.store
// CHECK-NEXT: tile.load %{{.*}} : tensor<128x!tile.ptr<f32>>
// CHECK:      tile.reduce
// CHECK:      tile.addptr
// CHECK-NEXT: tile.load
// CHECK:      tile.reduce
// CHECK:      tile.load %{{.*}} volatile
tile.func @loads_that_stay(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %max = tile.reduce %xv axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.yield %m : f32
  }
  %maxs = tile.splat %max : f32 -> tensor<128xf32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %maxs : tensor<128x!tile.ptr<f32>>
  %again = tile.load %yp : tensor<128x!tile.ptr<f32>>
  %sum = tile.reduce %again axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sumi = arith.fptosi %sum : f32 to i32
  %at = tile.addptr %x, %sumi : !tile.ptr<f32>, i32
  %picked = tile.load %at : !tile.ptr<f32>
  %third = tile.reduce %again axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %v = tile.load %xp volatile : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// With nothing that exchanges between threads above it, a load is left
// where it is written.
// CHECK-LABEL: tile.func @nothing_to_pass
// CHECK:      arith.mulf
// CHECK-NEXT: tile.splat %arg1
// CHECK-NEXT: tile.addptr
// CHECK-NEXT: tile.load
tile.func @nothing_to_pass(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %sq = arith.mulf %xv, %xv : tensor<128xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %wv = tile.load %wp : tensor<128x!tile.ptr<f32>>
  tile.return
}

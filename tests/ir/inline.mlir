// RUN: tessera-opt %s -split-input-file -inline | FileCheck %s

// Device functions are inlined into kernels; once nothing calls them, the
// private functions are removed.

// CHECK-NOT: @square
// CHECK-LABEL: tile.func @kernel(
// CHECK-SAME: %[[X:[^:]*]]: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %[[Y:[^:]*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[OFFS:.*]] = tile.make_range 0 to 64 : tensor<64xi32>
// CHECK-NEXT: %[[XS:.*]] = tile.splat %[[X]]
// CHECK-NEXT: %[[XP:.*]] = tile.addptr %[[XS]], %[[OFFS]]
// CHECK-NEXT: %[[V:.*]] = tile.load %[[XP]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : tensor<64xf32>
// CHECK-NEXT: %[[YS:.*]] = tile.splat %[[Y]]
// CHECK-NEXT: %[[YP:.*]] = tile.addptr %[[YS]], %[[OFFS]]
// CHECK-NEXT: tile.store %[[YP]], %[[SQ]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
// CHECK-NOT: tile.call
// CHECK-NOT: @square
tile.func private @square(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = arith.mulf %x, %x : tensor<64xf32>
  tile.return %y : tensor<64xf32>
}

tile.func @kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>) {
  %offs = tile.make_range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %xp : tensor<64x!tile.ptr<f32>>
  %sq = tile.call @square(%v) : (tensor<64xf32>) -> tensor<64xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %yp, %sq : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// Calls nest: @norm2 calls @sum, which holds a reduction; both end up in the
// kernel, region and all, along with the device function's own memory ops.
// CHECK-NOT: tile.func private
// CHECK-LABEL: tile.func @nested(
// CHECK-SAME: %[[P:[^:]*]]: !tile.ptr<f32>, %[[OUT:[^:]*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[R:.*]] = tile.make_range 0 to 128 : tensor<128xi32>
// CHECK-NEXT: %[[PS:.*]] = tile.splat %[[P]]
// CHECK-NEXT: %[[A:.*]] = tile.addptr %[[PS]], %[[R]]
// CHECK-NEXT: %[[X:.*]] = tile.load %[[A]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : tensor<128xf32>
// CHECK-NEXT: %[[S:.*]] = tile.reduce %[[SQ]] axis = 0 : tensor<128xf32> {
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[RR:.*]]: f32):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[L]], %[[RR]] : f32
// CHECK-NEXT: tile.yield %[[ADD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[N:.*]] = math.sqrt %[[S]] : f32
// CHECK-NEXT: tile.store %[[OUT]], %[[N]] : !tile.ptr<f32>
// CHECK-NEXT: tile.return
// CHECK-NOT: tile.call
tile.func private @sum(%x: tensor<128xf32>) -> f32 {
  %s = tile.reduce %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  tile.return %s : f32
}

tile.func private @norm2(%p: !tile.ptr<f32>) -> f32 {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %a : tensor<128x!tile.ptr<f32>>
  %sq = arith.mulf %x, %x : tensor<128xf32>
  %s = tile.call @sum(%sq) : (tensor<128xf32>) -> f32
  %n = math.sqrt %s : f32
  tile.return %n : f32
}

tile.func @nested(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %n = tile.call @norm2(%p) : (!tile.ptr<f32>) -> f32
  tile.store %out, %n : !tile.ptr<f32>
  tile.return
}

// -----

// A call to a declaration has no body to inline and stays, as does the
// declaration; a private device function disappears once inlined.
// CHECK-LABEL: tile.func private @external(tensor<16xf32>) -> tensor<16xf32>
// CHECK-NOT: @helper(
// CHECK-LABEL: tile.func @calls_external(
// CHECK-SAME: %[[P:[^:]*]]: !tile.ptr<f32>)
// CHECK: %[[X:.*]] = tile.load
// CHECK-NEXT: %[[E:.*]] = tile.call @external(%[[X]]) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[E]] : tensor<16xf32>
// CHECK-NEXT: tile.store %{{.*}}, %[[N]]
tile.func private @external(tensor<16xf32>) -> tensor<16xf32>

tile.func private @helper(%x: tensor<16xf32>) -> tensor<16xf32> {
  %n = arith.negf %x : tensor<16xf32>
  tile.return %n : tensor<16xf32>
}

tile.func @calls_external(%p: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %x = tile.load %a : tensor<16x!tile.ptr<f32>>
  %e = tile.call @external(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %n = tile.call @helper(%e) : (tensor<16xf32>) -> tensor<16xf32>
  tile.store %a, %n : tensor<16x!tile.ptr<f32>>
  tile.return
}

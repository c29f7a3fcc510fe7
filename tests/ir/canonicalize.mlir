// RUN: tessera-opt %s -split-input-file -canonicalize | FileCheck %s

// Folders and canonicalization patterns of the tile dialect, each with the
// cases where it must not fire.

// CHECK-LABEL: tile.func private @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[I:.*]] = arith.constant dense<7> : tensor<16xi32>
// CHECK-NEXT: %[[B:.*]] = arith.constant dense<true> : tensor<16xi1>
// CHECK-NEXT: tile.return %[[C]], %[[I]], %[[B]]
tile.func private @splat_of_constant() -> (tensor<4x8xf32>, tensor<16xi32>, tensor<16xi1>) {
  %c = arith.constant 2.5 : f32
  %i = arith.constant 7 : i32
  %t = arith.constant true
  %0 = tile.splat %c : f32 -> tensor<4x8xf32>
  %1 = tile.splat %i : i32 -> tensor<16xi32>
  %2 = tile.splat %t : i1 -> tensor<16xi1>
  tile.return %0, %1, %2 : tensor<4x8xf32>, tensor<16xi32>, tensor<16xi1>
}

// -----

// A splat of a value that is not a constant stays.
// CHECK-LABEL: tile.func private @splat_of_argument
// CHECK-SAME: (%[[X:.*]]: f32, %[[P:.*]]: !tile.ptr<f16>)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<4xf32>
// CHECK-NEXT: %[[PS:.*]] = tile.splat %[[P]] : !tile.ptr<f16> -> tensor<4x!tile.ptr<f16>>
// CHECK-NEXT: tile.return %[[S]], %[[PS]]
tile.func private @splat_of_argument(%x: f32, %p: !tile.ptr<f16>) -> (tensor<4xf32>, tensor<4x!tile.ptr<f16>>) {
  %0 = tile.splat %x : f32 -> tensor<4xf32>
  %1 = tile.splat %p : !tile.ptr<f16> -> tensor<4x!tile.ptr<f16>>
  tile.return %0, %1 : tensor<4xf32>, tensor<4x!tile.ptr<f16>>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf32>)
// CHECK-NEXT: tile.return %[[X]] : tensor<32x64xf32>
tile.func private @broadcast_identity(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<32x64xf32> -> tensor<32x64xf32>
  tile.return %0 : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<32x64xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func private @broadcast_of_splat(%x: f32) -> tensor<32x64xf32> {
  %0 = tile.splat %x : f32 -> tensor<1x64xf32>
  %1 = tile.broadcast %0 : tensor<1x64xf32> -> tensor<32x64xf32>
  tile.return %1 : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<32x64xf16>
// CHECK-NEXT: tile.return %[[C]]
tile.func private @broadcast_of_constant() -> tensor<32x64xf16> {
  %c = arith.constant dense<1.0> : tensor<32x1xf16>
  %0 = tile.broadcast %c : tensor<32x1xf16> -> tensor<32x64xf16>
  tile.return %0 : tensor<32x64xf16>
}

// -----

// CHECK-LABEL: tile.func private @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<32x64xf32>
// CHECK-NEXT: tile.return %[[B]]
tile.func private @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x64xf32>
  %1 = tile.broadcast %0 : tensor<1x64xf32> -> tensor<32x64xf32>
  tile.return %1 : tensor<32x64xf32>
}

// -----

// A broadcast of an argument stays.
// CHECK-LABEL: tile.func private @broadcast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<1x64xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT: tile.return %[[B]]
tile.func private @broadcast_kept(%x: tensor<1x64xf32>) -> tensor<32x64xf32> {
  %0 = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
  tile.return %0 : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: tile.func private @expand_dims_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : i32 -> tensor<32x1xi32>
// CHECK-NEXT: tile.return %[[S]]
tile.func private @expand_dims_of_splat(%x: i32) -> tensor<32x1xi32> {
  %0 = tile.splat %x : i32 -> tensor<32xi32>
  %1 = tile.expand_dims %0, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  tile.return %1 : tensor<32x1xi32>
}

// -----

// CHECK-LABEL: tile.func private @expand_dims_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3> : tensor<1x32xi32>
// CHECK-NEXT: tile.return %[[C]]
tile.func private @expand_dims_of_constant() -> tensor<1x32xi32> {
  %c = arith.constant dense<3> : tensor<32xi32>
  %0 = tile.expand_dims %c, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  tile.return %0 : tensor<1x32xi32>
}

// -----

// Neither a non-splat constant nor an argument is expanded away.
// CHECK-LABEL: tile.func private @expand_dims_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
// CHECK-NEXT: %[[E0:.*]] = tile.expand_dims %[[C]], axis = 0 : tensor<4xi32> -> tensor<1x4xi32>
// CHECK-NEXT: %[[E1:.*]] = tile.expand_dims %[[X]], axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
// CHECK-NEXT: tile.return %[[E0]], %[[E1]]
tile.func private @expand_dims_kept(%x: tensor<4xi32>) -> (tensor<1x4xi32>, tensor<4x1xi32>) {
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %0 = tile.expand_dims %c, axis = 0 : tensor<4xi32> -> tensor<1x4xi32>
  %1 = tile.expand_dims %x, axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  tile.return %0, %1 : tensor<1x4xi32>, tensor<4x1xi32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<64xf32>
// CHECK-NEXT: tile.return %[[S]]
tile.func private @reshape_of_splat(%x: f32) -> tensor<64xf32> {
  %0 = tile.splat %x : f32 -> tensor<4x16xf32>
  %1 = tile.reshape %0 : tensor<4x16xf32> -> tensor<64xf32>
  tile.return %1 : tensor<64xf32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK-NEXT: tile.return %[[C]]
tile.func private @reshape_of_constant() -> tensor<8x8xf32> {
  %c = arith.constant dense<0.0> : tensor<64xf32>
  %0 = tile.reshape %c allow_reorder : tensor<64xf32> -> tensor<8x8xf32>
  tile.return %0 : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: tile.return %[[X]], %[[X]]
tile.func private @reshape_identity(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = tile.reshape %x : tensor<4x16xf32> -> tensor<4x16xf32>
  %1 = tile.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<4x16xf32>
  tile.return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// CHECK-LABEL: tile.func private @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[R0:.*]] = tile.reshape %[[X]] : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[R1:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x16xf32> -> tensor<2x32xf32>
// CHECK-NEXT: tile.return %[[R0]], %[[R1]]
tile.func private @reshape_of_reshape(%x: tensor<4x16xf32>) -> (tensor<8x8xf32>, tensor<2x32xf32>) {
  %0 = tile.reshape %x : tensor<4x16xf32> -> tensor<64xf32>
  %1 = tile.reshape %0 : tensor<64xf32> -> tensor<8x8xf32>
  %2 = tile.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xf32>
  %3 = tile.reshape %2 allow_reorder : tensor<64xf32> -> tensor<2x32xf32>
  tile.return %1, %3 : tensor<8x8xf32>, tensor<2x32xf32>
}

// -----

// A reshape back to the original shape disappears altogether.
// CHECK-LABEL: tile.func private @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: tile.return %[[X]]
tile.func private @reshape_round_trip(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = tile.reshape %x : tensor<4x16xf32> -> tensor<64xf32>
  %1 = tile.reshape %0 : tensor<64xf32> -> tensor<4x16xf32>
  tile.return %1 : tensor<4x16xf32>
}

// -----

// Reshapes that differ in allow_reorder are not combined.
// CHECK-LABEL: tile.func private @reshape_of_reshape_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[R0:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x16xf32> -> tensor<64xf32>
// CHECK-NEXT: %[[R1:.*]] = tile.reshape %[[R0]] : tensor<64xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[R2:.*]] = tile.reshape %[[X]] : tensor<4x16xf32> -> tensor<64xf32>
// CHECK-NEXT: %[[R3:.*]] = tile.reshape %[[R2]] allow_reorder : tensor<64xf32> -> tensor<8x8xf32>
// CHECK-NEXT: tile.return %[[R1]], %[[R3]]
tile.func private @reshape_of_reshape_kept(%x: tensor<4x16xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = tile.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xf32>
  %1 = tile.reshape %0 : tensor<64xf32> -> tensor<8x8xf32>
  %2 = tile.reshape %x : tensor<4x16xf32> -> tensor<64xf32>
  %3 = tile.reshape %2 allow_reorder : tensor<64xf32> -> tensor<8x8xf32>
  tile.return %1, %3 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// CHECK-LABEL: tile.func private @trans_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: tile.return %[[X]]
tile.func private @trans_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tile.trans %x, order = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  tile.return %0 : tensor<2x3x4xf32>
}

// -----

// Two transposes compose: order[i] = inner[outer[i]].
// CHECK-LABEL: tile.func private @trans_of_trans
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]], order = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: tile.return %[[T]]
tile.func private @trans_of_trans(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tile.trans %x, order = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tile.trans %0, order = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  tile.return %1 : tensor<4x2x3xf32>
}

// -----

// Transposing twice with [1, 0] gives the operand back.
// CHECK-LABEL: tile.func private @trans_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf16>)
// CHECK-NEXT: tile.return %[[X]]
tile.func private @trans_inverse(%x: tensor<32x64xf16>) -> tensor<32x64xf16> {
  %0 = tile.trans %x, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %1 = tile.trans %0, order = [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  tile.return %1 : tensor<32x64xf16>
}

// -----

// CHECK-LABEL: tile.func private @trans_of_splat
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<64x32xf16>
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f16 -> tensor<64x32xf16>
// CHECK-NEXT: tile.return %[[S]], %[[C]]
tile.func private @trans_of_splat(%x: f16) -> (tensor<64x32xf16>, tensor<64x32xf16>) {
  %0 = tile.splat %x : f16 -> tensor<32x64xf16>
  %1 = tile.trans %0, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %c = arith.constant dense<1.0> : tensor<32x64xf16>
  %2 = tile.trans %c, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  tile.return %1, %2 : tensor<64x32xf16>, tensor<64x32xf16>
}

// -----

// A real transpose of an argument stays.
// CHECK-LABEL: tile.func private @trans_kept
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf16>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]], order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
// CHECK-NEXT: tile.return %[[T]]
tile.func private @trans_kept(%x: tensor<32x64xf16>) -> tensor<64x32xf16> {
  %0 = tile.trans %x, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  tile.return %0 : tensor<64x32xf16>
}

// -----

// CHECK-LABEL: tile.func private @addptr_zero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[PS:.*]]: tensor<64x!tile.ptr<f32>>)
// CHECK-NEXT: tile.return %[[P]], %[[PS]], %[[P]]
tile.func private @addptr_zero(%p: !tile.ptr<f32>, %ps: tensor<64x!tile.ptr<f32>>)
    -> (!tile.ptr<f32>, tensor<64x!tile.ptr<f32>>, !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %z = arith.constant dense<0> : tensor<64xi32>
  %c0_64 = arith.constant 0 : i64
  %0 = tile.addptr %p, %c0 : !tile.ptr<f32>, i32
  %1 = tile.addptr %ps, %z : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %2 = tile.addptr %p, %c0_64 : !tile.ptr<f32>, i64
  tile.return %0, %1, %2 : !tile.ptr<f32>, tensor<64x!tile.ptr<f32>>, !tile.ptr<f32>
}

// -----

// A non-zero constant offset stays.
// CHECK-LABEL: tile.func private @addptr_nonzero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[C:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[C]] : !tile.ptr<f32>, i32
// CHECK-NEXT: tile.return %[[Q]]
tile.func private @addptr_nonzero(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c4 = arith.constant 4 : i32
  %0 = tile.addptr %p, %c4 : !tile.ptr<f32>, i32
  tile.return %0 : !tile.ptr<f32>
}

// -----

// CHECK-LABEL: tile.func private @addptr_chain
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[A:.*]]: tensor<64xi32>, %[[B:.*]]: tensor<64xi32>)
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[B]] : tensor<64xi32>
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[S]] : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
// CHECK-NEXT: tile.return %[[Q]]
tile.func private @addptr_chain(%p: tensor<64x!tile.ptr<f32>>, %a: tensor<64xi32>, %b: tensor<64xi32>)
    -> tensor<64x!tile.ptr<f32>> {
  %0 = tile.addptr %p, %a : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %1 = tile.addptr %0, %b : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.return %1 : tensor<64x!tile.ptr<f32>>
}

// -----

// Constant offsets of a chain add up to one constant.
// CHECK-LABEL: tile.func private @addptr_chain_constants
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<i8>)
// CHECK-NEXT: %[[C:.*]] = arith.constant 12 : i64
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[C]] : !tile.ptr<i8>, i64
// CHECK-NEXT: tile.return %[[Q]]
tile.func private @addptr_chain_constants(%p: !tile.ptr<i8>) -> !tile.ptr<i8> {
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %0 = tile.addptr %p, %c4 : !tile.ptr<i8>, i64
  %1 = tile.addptr %0, %c8 : !tile.ptr<i8>, i64
  tile.return %1 : !tile.ptr<i8>
}

// -----

// Offsets of different types are not added.
// CHECK-LABEL: tile.func private @addptr_chain_kept
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[A:.*]]: i32, %[[B:.*]]: i64)
// CHECK-NEXT: %[[Q0:.*]] = tile.addptr %[[P]], %[[A]] : !tile.ptr<f32>, i32
// CHECK-NEXT: %[[Q1:.*]] = tile.addptr %[[Q0]], %[[B]] : !tile.ptr<f32>, i64
// CHECK-NEXT: tile.return %[[Q1]]
tile.func private @addptr_chain_kept(%p: !tile.ptr<f32>, %a: i32, %b: i64) -> !tile.ptr<f32> {
  %0 = tile.addptr %p, %a : !tile.ptr<f32>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f32>, i64
  tile.return %1 : !tile.ptr<f32>
}

// -----

// CHECK-LABEL: tile.func private @load_all_true
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[Z:.*]]: tensor<64xf32>, %[[Q:.*]]: !tile.ptr<f16>)
// CHECK-NEXT: %[[X0:.*]] = tile.load %[[P]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[X1:.*]] = tile.load %[[P]] cache = cg volatile : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[X2:.*]] = tile.load %[[Q]] : !tile.ptr<f16>
// CHECK-NEXT: tile.return %[[X0]], %[[X1]], %[[X2]]
tile.func private @load_all_true(%p: tensor<64x!tile.ptr<f32>>, %z: tensor<64xf32>, %q: !tile.ptr<f16>)
    -> (tensor<64xf32>, tensor<64xf32>, f16) {
  %true = arith.constant dense<true> : tensor<64xi1>
  %t = arith.constant true
  %h = arith.constant 0.0 : f16
  %0 = tile.load %p, %true, %z : tensor<64x!tile.ptr<f32>>
  %1 = tile.load %p, %true cache = cg volatile : tensor<64x!tile.ptr<f32>>
  %2 = tile.load %q, %t, %h : !tile.ptr<f16>
  tile.return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, f16
}

// -----

// CHECK-LABEL: tile.func private @load_all_false
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[Z:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK-NEXT: tile.return %[[Z]], %[[C]]
tile.func private @load_all_false(%p: tensor<64x!tile.ptr<f32>>, %z: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %false = arith.constant dense<false> : tensor<64xi1>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %0 = tile.load %p, %false, %z : tensor<64x!tile.ptr<f32>>
  %1 = tile.load %p, %false, %one evict = evict_first : tensor<64x!tile.ptr<f32>>
  tile.return %0, %1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// An all-false load without `other` yields undefined values and stays; a
// volatile one must happen and stays; a mask that is not constant stays.
// CHECK-LABEL: tile.func private @load_kept
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[Z:.*]]: tensor<64xf32>, %[[M:.*]]: tensor<64xi1>)
// CHECK-NEXT: %[[F:.*]] = arith.constant dense<false> : tensor<64xi1>
// CHECK-NEXT: %[[X0:.*]] = tile.load %[[P]], %[[F]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[X1:.*]] = tile.load %[[P]], %[[F]], %[[Z]] volatile : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[X2:.*]] = tile.load %[[P]], %[[M]], %[[Z]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[X0]], %[[X1]], %[[X2]]
tile.func private @load_kept(%p: tensor<64x!tile.ptr<f32>>, %z: tensor<64xf32>, %m: tensor<64xi1>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %false = arith.constant dense<false> : tensor<64xi1>
  %0 = tile.load %p, %false : tensor<64x!tile.ptr<f32>>
  %1 = tile.load %p, %false, %z volatile : tensor<64x!tile.ptr<f32>>
  %2 = tile.load %p, %m, %z : tensor<64x!tile.ptr<f32>>
  tile.return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// A mask that is true in some lanes only is no constant mask.
// CHECK-LABEL: tile.func private @load_mixed_mask
// CHECK: %[[M:.*]] = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK: %[[X:.*]] = tile.load %{{.*}}, %[[M]], %{{.*}} : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[X]]
tile.func private @load_mixed_mask(%p: tensor<4x!tile.ptr<f32>>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = tile.load %p, %m, %z : tensor<4x!tile.ptr<f32>>
  tile.return %0 : tensor<4xf32>
}

// -----

// Unused loads are dead code; unused volatile loads are not.
// CHECK-LABEL: tile.func private @load_unused
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>)
// CHECK-NEXT: %{{.*}} = tile.load %[[P]] volatile : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func private @load_unused(%p: tensor<64x!tile.ptr<f32>>) {
  %0 = tile.load %p : tensor<64x!tile.ptr<f32>>
  %1 = tile.load %p volatile : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @store_all_true
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[V:.*]]: tensor<64xf32>, %[[Q:.*]]: !tile.ptr<i32>, %[[S:.*]]: i32)
// CHECK-NEXT: tile.store %[[P]], %[[V]] cache = wb : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[Q]], %[[S]] : !tile.ptr<i32>
// CHECK-NEXT: tile.return
tile.func private @store_all_true(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %q: !tile.ptr<i32>, %s: i32) {
  %true = arith.constant dense<true> : tensor<64xi1>
  %t = arith.constant true
  tile.store %p, %v, %true cache = wb : tensor<64x!tile.ptr<f32>>
  tile.store %q, %s, %t : !tile.ptr<i32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @store_all_false
// CHECK-NEXT: tile.return
tile.func private @store_all_false(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %q: !tile.ptr<i32>, %s: i32) {
  %false = arith.constant dense<false> : tensor<64xi1>
  %f = arith.constant false
  tile.store %p, %v, %false : tensor<64x!tile.ptr<f32>>
  tile.store %q, %s, %f evict = evict_last : !tile.ptr<i32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @store_kept
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[V:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xi1>)
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[C]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[V]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func private @store_kept(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi1>) {
  %c = arith.constant dense<[true, true, false, true]> : tensor<4xi1>
  tile.store %p, %v, %m : tensor<4x!tile.ptr<f32>>
  tile.store %p, %v, %c : tensor<4x!tile.ptr<f32>>
  tile.store %p, %v : tensor<4x!tile.ptr<f32>>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @assert_true
// CHECK-NEXT: tile.return
tile.func private @assert_true() {
  %true = arith.constant dense<true> : tensor<64xi1>
  %t = arith.constant true
  tile.assert %true, "never fires" : tensor<64xi1>
  tile.assert %t, "never fires either" : i1
  tile.return
}

// -----

// An assertion that is false or not known stays.
// CHECK-LABEL: tile.func private @assert_kept
// CHECK-SAME: (%[[C:.*]]: tensor<64xi1>)
// CHECK-NEXT: %[[F:.*]] = arith.constant false
// CHECK-NEXT: tile.assert %[[C]], "checked at run time" : tensor<64xi1>
// CHECK-NEXT: tile.assert %[[F]], "always fires" : i1
// CHECK-NEXT: tile.return
tile.func private @assert_kept(%c: tensor<64xi1>) {
  %f = arith.constant false
  tile.assert %c, "checked at run time" : tensor<64xi1>
  tile.assert %f, "always fires" : i1
  tile.return
}

// -----

// The patterns work together: a splatted pointer advanced by a splatted zero
// and loaded under a splatted true mask is a plain load of the splat.
// CHECK-LABEL: tile.func @together
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[OUT:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[PS:.*]] = tile.splat %[[P]] : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[X:.*]] = tile.load %[[PS]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %[[OS:.*]] = tile.splat %[[OUT]] : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[OS]], %[[X]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func @together(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %offs = tile.splat %c0 : i32 -> tensor<64xi32>
  %addrs = tile.addptr %ps, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %mask = tile.splat %true : i1 -> tensor<64xi1>
  %other = tile.splat %zero : f32 -> tensor<64xf32>
  %x = tile.load %addrs, %mask, %other : tensor<64x!tile.ptr<f32>>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  tile.store %os, %x, %mask : tensor<64x!tile.ptr<f32>>
  tile.return
}

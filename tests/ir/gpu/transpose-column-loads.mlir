// RUN: tessera-opt %s -split-input-file -tile-gpu-transpose-column-loads | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-gpu-transpose-column-loads -tile-gpu-assign-layouts="target=cuda:sm_90a num-warps=4" | FileCheck %s --check-prefix=LAYOUT

// B = W.T for W [N, K] given with strides (1, K): its pointers run down the
// columns of the [32, 64] block, so it is loaded as a [64, 32] block of rows
// and transposed; the splat mask and zero `other` are made again in that shape.
tile.func @columns_of_b(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %ke = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = tile.broadcast %ke : tensor<32x1xi32> -> tensor<32x64xi32>
  %ne = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<1x64xi32>
  %nK = arith.muli %ne, %Ks : tensor<1x64xi32>
  %nb = tile.broadcast %nK : tensor<1x64xi32> -> tensor<32x64xi32>
  %off = arith.addi %kb, %nb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %off : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
  %a0 = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %step = tile.splat %c32 : i32 -> tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<32x64xbf16>
  %acc, %bp = scf.for %i = %c0 to %K step %c32 iter_args(%acc_i = %acc0, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<32x64x!tile.ptr<bf16>>) : i32 {
    %at = tile.load %a0 : tensor<64x32x!tile.ptr<bf16>>
    %inside = arith.cmpi slt, %i, %K : i32
    %mask = tile.splat %inside : i1 -> tensor<32x64xi1>
    %bt = tile.load %bp_i, %mask, %zero : tensor<32x64x!tile.ptr<bf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %bp2 = tile.addptr %bp_i, %step : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
    scf.yield %next, %bp2 : tensor<64x64xf32>, tensor<32x64x!tile.ptr<bf16>>
  }
  %cptrs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @columns_of_b
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[BP:.*]] = %{{.*}})
// CHECK: %[[A:.*]] = tile.load
// CHECK-DAG: %[[PT:.*]] = tile.trans %[[BP]], order = [1, 0] : tensor<32x64x!tile.ptr<bf16>> -> tensor<64x32x!tile.ptr<bf16>>
// CHECK-DAG: %[[MASK:.*]] = tile.splat %{{.*}} : i1 -> tensor<64x32xi1>
// CHECK-DAG: %[[OTHER:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xbf16>
// CHECK: %[[ROWS:.*]] = tile.load %[[PT]], %[[MASK]], %[[OTHER]] : tensor<64x32x!tile.ptr<bf16>>
// CHECK: %[[B:.*]] = tile.trans %[[ROWS]], order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
// CHECK: tile.dot %[[A]], %[[B]]

// The loop carries B's pointers in the layout whose transpose the load
// wants: nothing is converted before the dot.
// LAYOUT-LABEL: tile.func @columns_of_b
// LAYOUT-NOT: tgpu.convert_layout
// LAYOUT: tile.dot

// -----

// Rows of B contiguous (the NN case), or columns of A contiguous: unchanged.
tile.func @rows_of_b_and_columns_of_a(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>) {
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %ke = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %k64 = tile.splat %c64 : i32 -> tensor<32x1xi32>
  %krow = arith.muli %ke, %k64 : tensor<32x1xi32>
  %kb = tile.broadcast %krow : tensor<32x1xi32> -> tensor<32x64xi32>
  %ne = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %nb = tile.broadcast %ne : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %kb, %nb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
  %aoff = tile.trans %boff, order = [1, 0] : tensor<32x64xi32> -> tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %at = tile.load %aptrs : tensor<64x32x!tile.ptr<bf16>>
  %bt = tile.load %bptrs : tensor<32x64x!tile.ptr<bf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = tile.dot %at, %bt, %acc0 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
  %cptrs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @rows_of_b_and_columns_of_a
// CHECK-NOT: tile.trans %{{.*}} : tensor<64x32xbf16>
// CHECK: %[[A:.*]] = tile.load %{{.*}} : tensor<64x32x!tile.ptr<bf16>>
// CHECK-NEXT: %[[B:.*]] = tile.load %{{.*}} : tensor<32x64x!tile.ptr<bf16>>
// CHECK: tile.dot %[[A]], %[[B]]

// RUN: tessera-opt %s -split-input-file -tile-combine-dot-add | FileCheck %s

// An addition to a dot into zero becomes the dot's accumulator, with the dot
// on either side of arith.addf or arith.addi, in a loop as `acc += dot(a, b)`.

// CHECK-LABEL: tile.func private @k_loop
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[N:.*]]: index)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: scf.yield %[[D]]
tile.func private @k_loop(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %n: index) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32> {
    %p = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %s = arith.addf %acc, %p : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  tile.return %r : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: tile.func private @dot_on_the_left
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf32>, %[[C:.*]]: tensor<16x16xf32>)
// CHECK-NOT: arith.addf
// CHECK: %[[D:.*]] = tile.dot %[[A]], %[[A]], %[[C]] input_precision = ieee
// CHECK-NEXT: tile.return %[[D]]
tile.func private @dot_on_the_left(%a: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %p = tile.dot %a, %a, %zero input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %s = arith.addf %p, %c : tensor<16x16xf32>
  tile.return %s : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: tile.func private @integers
// CHECK-SAME: (%[[A:.*]]: tensor<16x32xi8>, %[[B:.*]]: tensor<32x16xi8>, %[[C:.*]]: tensor<16x16xi32>)
// CHECK-NOT: arith.addi
// CHECK: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[C]]
// CHECK-NEXT: tile.return %[[D]]
tile.func private @integers(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>, %c: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %p = tile.dot %a, %b, %zero : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %s = arith.addi %c, %p : tensor<16x16xi32>
  tile.return %s : tensor<16x16xi32>
}

// -----

// Left alone: a dot read twice, a dot into a non-zero accumulator, an fp8 dot
// that promotes its sums every 32 products.

// CHECK-LABEL: tile.func private @kept
// CHECK: %[[P:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ZERO:.*]] :
// CHECK: arith.addf %{{.*}}, %[[P]]
// CHECK: %[[Q:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ONE:.*]] :
// CHECK: arith.addf %{{.*}}, %[[Q]]
// CHECK: %[[R:.*]] = tile.dot {{.*}} max_num_imprecise_acc = 32
// CHECK: arith.addf %{{.*}}, %[[R]]
tile.func private @kept(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>, %e: tensor<16x32xf8E4M3FN>,
                        %f: tensor<32x16xf8E4M3FN>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %p = tile.dot %a, %a, %zero : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %c, %p : tensor<16x16xf32>
  %q = tile.dot %a, %a, %one : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %t = arith.addf %c, %q : tensor<16x16xf32>
  %r = tile.dot %e, %f, %zero max_num_imprecise_acc = 32 : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  %u = arith.addf %c, %r : tensor<16x16xf32>
  tile.return %s, %p, %t, %u : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

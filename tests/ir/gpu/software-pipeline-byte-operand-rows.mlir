// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=2" | FileCheck %s
// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=2" | FileCheck %s

// A 64x64x64 int8 GEMM with B [K, N] row-major. wgmma and ldmatrix read an
// 8-bit B only K-major, so B's rows of N cannot be copied into a stage as
// they are. Its load gives each thread 4 consecutive rows of K of 8
// columns (LayoutAnchors::operandLoad): 4 loads of 8 bytes from memory, and
// for each column the 4 bytes of its rows, consecutive in the K-major
// stage, packed into one 32-bit store (DotPlan::sharedRuns), 8 stores
// where one byte per store took 32. Each 4 columns are the byte transpose
// of 4 row words: two rounds of interleaving shuffles (one prmt each).
// CHECK-LABEL: gpu.func @gemm_i8_64x64x64
// CHECK: scf.for
// CHECK: %[[K0:.*]] = vector.load %arg1[%arg{{[0-9]+}}] {{.*}} : memref<?xi8>, vector<8xi8>
// CHECK-NEXT: %[[K0N0:.*]] = vector.extract %[[K0]][0] : i8 from vector<8xi8>
// CHECK: %[[K1:.*]] = vector.load %arg1[%arg{{[0-9]+}}] {{.*}} : memref<?xi8>, vector<8xi8>
// CHECK-NEXT: %[[K1N0:.*]] = vector.extract %[[K1]][0] : i8 from vector<8xi8>
// CHECK: %[[K2:.*]] = vector.load %arg1[%arg{{[0-9]+}}] {{.*}} : memref<?xi8>, vector<8xi8>
// CHECK-NEXT: %[[K2N0:.*]] = vector.extract %[[K2]][0] : i8 from vector<8xi8>
// CHECK: %[[K3:.*]] = vector.load %arg1[%arg{{[0-9]+}}] {{.*}} : memref<?xi8>, vector<8xi8>
// CHECK-NEXT: %[[K3N0:.*]] = vector.extract %[[K3]][0] : i8 from vector<8xi8>
// CHECK-NOT: vector.load %arg1
// CHECK: %[[ROW0:.*]] = vector.from_elements %[[K0N0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: %[[ROW1:.*]] = vector.from_elements %[[K1N0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: %[[ROW2:.*]] = vector.from_elements %[[K2N0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: %[[ROW3:.*]] = vector.from_elements %[[K3N0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK-DAG: %[[LOW01:.*]] = vector.shuffle %[[ROW0]], %[[ROW1]] [0, 4, 1, 5]
// CHECK-DAG: %[[HIGH01:.*]] = vector.shuffle %[[ROW0]], %[[ROW1]] [2, 6, 3, 7]
// CHECK-DAG: %[[LOW23:.*]] = vector.shuffle %[[ROW2]], %[[ROW3]] [0, 4, 1, 5]
// CHECK-DAG: %[[HIGH23:.*]] = vector.shuffle %[[ROW2]], %[[ROW3]] [2, 6, 3, 7]
// CHECK-DAG: %[[COLUMN0:.*]] = vector.shuffle %[[LOW01]], %[[LOW23]] [0, 1, 4, 5]
// CHECK-DAG: %[[COLUMN1:.*]] = vector.shuffle %[[LOW01]], %[[LOW23]] [2, 3, 6, 7]
// CHECK-DAG: %[[COLUMN2:.*]] = vector.shuffle %[[HIGH01]], %[[HIGH23]] [0, 1, 4, 5]
// CHECK-DAG: %[[COLUMN3:.*]] = vector.shuffle %[[HIGH01]], %[[HIGH23]] [2, 3, 6, 7]
// CHECK: vector.store %[[COLUMN0]], %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// CHECK: vector.store %[[COLUMN1]]
// CHECK: vector.store %[[COLUMN2]]
// CHECK: vector.store %[[COLUMN3]]
// CHECK-COUNT-4: vector.store %{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// CHECK-NOT: memref.store %{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>
// CHECK: scf.yield
tile.func @gemm_i8_64x64x64(%a: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %b: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %c: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %r, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ce = tile.expand_dims %r, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ceb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %aroff = arith.muli %re, %Ks : tensor<64x1xi32>
  %aroffb = tile.broadcast %aroff : tensor<64x1xi32> -> tensor<64x64xi32>
  %aoff = arith.addi %aroffb, %ceb : tensor<64x64xi32>
  %abase = tile.splat %a : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %roff = arith.muli %re, %c64c : tensor<64x1xi32>
  %roffb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %off = arith.addi %roffb, %ceb : tensor<64x64xi32>
  %bbase = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bptrs = tile.addptr %bbase, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %astep = tile.splat %c64 : i32 -> tensor<64x64xi32>
  %c4096 = arith.constant 4096 : i32
  %bstep = tile.splat %c4096 : i32 -> tensor<64x64xi32>
  %acc0 = arith.constant dense<0> : tensor<64x64xi32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c64
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xi32>, tensor<64x64x!tile.ptr<i8>>, tensor<64x64x!tile.ptr<i8>>) : i32 {
    %at = tile.load %ap_i : tensor<64x64x!tile.ptr<i8>>
    %bt = tile.load %bp_i : tensor<64x64x!tile.ptr<i8>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xi8> * tensor<64x64xi8> -> tensor<64x64xi32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xi32>, tensor<64x64x!tile.ptr<i8>>, tensor<64x64x!tile.ptr<i8>>
  }
  %cbase = tile.splat %c : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %cptrs = tile.addptr %cbase, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<i32>>
  tile.return
}

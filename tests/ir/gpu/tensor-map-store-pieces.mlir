// RUN: tessera-opt %s -tile-flatten-loops -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=3 tensor-maps=true" | FileCheck %s

// A TMA store whose block does not fit in the shared memory the loop's rings
// leave (a persistent GEMM's epilogue: four stages of 48 KB beside a 64 KB
// bf16 tile of 4 panels) goes out a piece at a time through one buffer of
// the panels that fit (2 of 4, 32 KB): each piece written, fenced, copied
// and committed, and its buffer read by the copies before the next piece is
// written; the earlier stores' writes are waited for once, before the first
// piece's copies. The accumulator's panels are known per register, so
// stmatrix writes each piece's own half; a block whose threads spread along
// its rows (a coalesced load's) writes each run under a test of its column.
tile.func @epilogue_in_pieces(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %x: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<128x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x256xbf16>>
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<128x256xbf16>>
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<128x256xbf16>>
  %dy = tile.make_tensor_descriptor %y, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<128x256xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c128 : i32
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<128x256xf32>) : i32 {
      %at = tile.descriptor_load %da[%row, %k] : !tile.tensordesc<tensor<128x64xbf16>>
      %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x256xbf16>>
      %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16> * tensor<64x256xbf16> -> tensor<128x256xf32>
      scf.yield %next : tensor<128x256xf32>
    }
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.descriptor_store %dc[%row, %c0], %out : !tile.tensordesc<tensor<128x256xbf16>>
    %moved = tile.descriptor_load %dx[%row, %c0] : !tile.tensordesc<tensor<128x256xbf16>>
    tile.descriptor_store %dy[%row, %c0], %moved : !tile.tensordesc<tensor<128x256xbf16>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: gpu.func @epilogue_in_pieces
// CHECK-SAME: tessera.shared_memory_bytes = 230400
// CHECK: scf.for {{.*}} : i64
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// The accumulator, columns 0-127 then 128-255:
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK-NOT: "cp.async.bulk.wait_group 0;"
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: arith.addi %{{.*}}, %c128_i32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// The loaded block, each run stored if its column is in the piece:
// CHECK: %[[IN_PIECE:.*]] = arith.cmpi ult, %{{.*}}, %c128_i32
// CHECK-NEXT: scf.if %[[IN_PIECE]] {
// CHECK: vector.store {{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c128_i32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: "cp.async.bulk.wait_group.read 0;"

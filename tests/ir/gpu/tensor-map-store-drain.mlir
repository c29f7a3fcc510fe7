// RUN: tessera-opt %s -tile-flatten-loops -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=4" | FileCheck %s

// A store TMA could write, with no shared memory left for even one of its
// panels, goes out element-wise, and first waits for the writes of the TMA
// copies before it. Here a persistent GEMM's five stages of 40 KB leave
// 27 KB: the accumulator's 64x256 bf16 block (four 8 KB panels) goes out by
// TMA in halves, and as the next store is one TMA could write, it waits only
// until its copies have read their buffer (wait_group.read). The next
// block, 256x64 bf16 into the same tensor C, is one 32 KB panel: stored
// element-wise, after wait_group 0, since the accumulator's copies may still
// be writing rows of C it overlaps (lowerStore).
// CHECK-LABEL: gpu.func @no_room_left
// CHECK-SAME: tessera.shared_memory_bytes = 222208
// CHECK: scf.for {{.*}} : i64
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: st.global
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: cp.async.bulk
// CHECK: st.global
tile.func @no_room_left(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %x: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x256xbf16>>
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x256xbf16>>
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<256x64xbf16>>
  %dy = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<256x64xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x256xf32>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x256xf32>) : i32 {
      %at = tile.descriptor_load %da[%row, %k] : !tile.tensordesc<tensor<64x64xbf16>>
      %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x256xbf16>>
      %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x256xbf16> -> tensor<64x256xf32>
      scf.yield %next : tensor<64x256xf32>
    }
    %out = arith.truncf %acc : tensor<64x256xf32> to tensor<64x256xbf16>
    tile.descriptor_store %dc[%row, %c0], %out : !tile.tensordesc<tensor<64x256xbf16>>
    %moved = tile.descriptor_load %dx[%row, %c0] : !tile.tensordesc<tensor<256x64xbf16>>
    tile.descriptor_store %dy[%row, %c0], %moved : !tile.tensordesc<tensor<256x64xbf16>>
  } {tile.flatten}
  tile.return
}

// RUN: tessera-opt %s -split-input-file -tile-flatten-loops -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=3 tensor-maps=true" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-flatten-loops -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=3 tensor-maps=true warp-specialize=true" | FileCheck %s --check-prefix=WS

// The TMA store of a pipelined loop's body (a flattened persistent GEMM's
// epilogue) writes a buffer the loop reserves beside its rings: each run of
// the store first waits for the copies of the run before to have read the
// buffer and meets the other threads at a barrier, and leaves its own copies
// reading the buffer while the next tile's dots run. After the loop the copies' reads are waited for before the barrier
// that precedes the release of the loop's shared memory. Here the 64 KB
// tile goes out in two pieces (four stages of 48 KB leave 32 KB), the
// buffer read before its second piece is written; the loop for a K without
// steps comes after the release, its store a user of its own.
tile.func @persistent_gemm(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %tiles: i32) {
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
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: gpu.func @persistent_gemm
// CHECK-SAME: tessera.shared_memory_bytes = 230400
// CHECK: scf.for {{.*}} : i64
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for {{.*}} : i32
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return

// The consumers of the warp-specialized form (the whole tile in one piece:
// three stages leave 64 KB) meet at their named barrier.
// WS-LABEL: gpu.func @persistent_gemm
// WS-SAME: tessera.shared_memory_bytes = 214016
// WS: nvvm.exit
// WS: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WS: "cp.async.bulk.wait_group.read 0;"
// WS-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// WS-COUNT-16: nvvm.stmatrix
// WS: "cp.async.bulk.wait_group 0;"
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS-NEXT: "cp.async.bulk.commit_group;"
// WS-NOT: cp.async.bulk.wait_group
// WS: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WS: "cp.async.bulk.wait_group.read 0;"
// WS-NEXT: nvvm.barrier id = %c1_i32
// WS: gpu.return

// -----

// Two stores in the body, each with a buffer of its own: the second one's
// wait before it writes its buffer leaves the first one's copies (the most
// recent bulk group) reading theirs. Its wait for the writes of earlier
// copies, before its own, waits for those too: the two write through
// different arguments. The warp-specialized form does the same in its
// consumers.
tile.func @two_outputs(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %d: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %dd = tile.make_tensor_descriptor %d, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
      %at = tile.descriptor_load %da[%row, %k] : !tile.tensordesc<tensor<64x64xbf16>>
      %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
      %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xbf16>
    tile.descriptor_store %dc[%row, %c0], %out : !tile.tensordesc<tensor<64x128xbf16>>
    tile.descriptor_store %dd[%row, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: gpu.func @two_outputs
// CHECK: scf.for {{.*}} : i64
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 1;"
// CHECK-NEXT: gpu.barrier
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NEXT: "cp.async.bulk.commit_group;"
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return

// WS-LABEL: gpu.func @two_outputs
// WS: nvvm.exit
// WS: "cp.async.bulk.wait_group.read 0;"
// WS-NEXT: nvvm.barrier id = %c1_i32
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS-NEXT: "cp.async.bulk.commit_group;"
// WS-NEXT: "cp.async.bulk.wait_group.read 1;"
// WS-NEXT: nvvm.barrier id = %c1_i32
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS-NEXT: "cp.async.bulk.commit_group;"
// WS-NOT: cp.async.bulk.wait_group
// WS: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WS: "cp.async.bulk.wait_group.read 0;"
// WS-NEXT: nvvm.barrier id = %c1_i32
// WS: gpu.return

// -----

// Blocks of one descriptor that lie apart (offsets a block's width apart
// along a dimension, as the halves of Triton's EPILOGUE_SUBTILE; the offset
// computed again, as the front end spells it for each store): the second
// store leaves the first one's copies writing too. The third overlaps the
// second (32 columns on): it waits for every earlier write.
tile.func @side_by_side(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %tiles: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c96 = arith.constant 96 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
      %at = tile.descriptor_load %da[%row, %k] : !tile.tensordesc<tensor<64x64xbf16>>
      %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x64xbf16>>
      %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
      scf.yield %next : tensor<64x64xf32>
    }
    %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
    %c2 = arith.constant 2 : i32
    %first = arith.muli %row, %c2 : i32
    %two = arith.constant 2 : i32
    %first_again = arith.muli %row, %two : i32
    %column = arith.addi %first_again, %c64 : i32
    %overlapping = arith.addi %first, %c96 : i32
    tile.descriptor_store %dc[%row, %first], %out : !tile.tensordesc<tensor<64x64xbf16>>
    tile.descriptor_store %dc[%row, %column], %out : !tile.tensordesc<tensor<64x64xbf16>>
    tile.descriptor_store %dc[%row, %overlapping], %out : !tile.tensordesc<tensor<64x64xbf16>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: gpu.func @side_by_side
// CHECK: scf.for {{.*}} : i64
// CHECK: "cp.async.bulk.wait_group.read 0;"
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 1;"
// CHECK: "cp.async.bulk.wait_group 1;"
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 1;"
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: "cp.async.bulk.wait_group.read 0;"

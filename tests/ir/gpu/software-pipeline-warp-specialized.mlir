// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=true warp-specialize=true" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=false warp-specialize=true" | FileCheck %s --check-prefix=NOTMA
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=3 tensor-maps=true warp-specialize=true" | FileCheck %s --check-prefix=W8
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=true" | FileCheck %s --check-prefix=LOOP

// With warp-specialize, a pipelined loop whose blocks TMA copies gets a
// producer warpgroup (warps 4 to 7 of a program of 4 + 4), whose first warp
// issues the copies: it waits until the consumers
// have released a stage (its `empty` mbarrier, 4 arrivals, the first round
// on phase 1, which counts as done), announces the stage's bytes and issues
// every copy itself, then exits. The 4 consumer warps wait on the stage's
// `full` mbarrier, compute, and each releases the stage of the dot before
// once its wait has seen that dot finish; no barrier of the whole program in
// the loop, and the barriers after the producer's branch are named barrier 1
// of the consumers' 128 threads.

tile.func @ws_gemm(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c64] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @ws_gemm
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: tessera.producer_warps = 4 : i32
// The full mbarriers (one arrival) and the empty ones (one per consumer warp):
// CHECK-COUNT-3: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK: gpu.barrier
// CHECK-COUNT-3: "mbarrier.init.shared::cta.b64 [$0], 4;"
// CHECK: gpu.barrier
// CHECK: %[[PRODUCERS:.*]] = arith.cmpi uge, %[[WARP:.*]], %c4_i32 : i32
// CHECK-NEXT: scf.if %[[PRODUCERS]] {
// One consumer warpgroup has all the registers it can use at launch: no
// setmaxnreg (W8 below).
// CHECK-NOT: setmaxnreg
// CHECK-NEXT: %[[ISSUER:.*]] = arith.cmpi eq, %[[WARP]], %c4_i32 : i32
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK-NEXT: scf.for {{.*}} iter_args(%[[STAGE:.*]] = %c0_i32, %[[PHASE:.*]] = %c1_i32) -> (i32, i32)
// CHECK: mbarrier.try_wait.parity{{.*}}, "r,r" %{{.*}}, %[[PHASE]]
// 64x64 (A) + 2x64x64 (B) bf16, announced and copied by the producer alone:
// CHECK: mbarrier.arrive.expect_tx{{.*}}, "r,r,r" %{{.*}}, %c24576_i32, %c1_i32
// CHECK-COUNT-3: cp.async.bulk.tensor.2d{{.*}}"r,l,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32
// CHECK-NOT: wgmma
// CHECK: nvvm.exit
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A"
// CHECK-NOT: gpu.barrier
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: "mbarrier.inval.shared::cta.b64 [$0];"
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// Two consumer warpgroups: 65536 registers over 12 warps give 168 per thread
// at launch; the producer warpgroup gives back all but 40 and the consumers
// take 232.
// W8-LABEL: gpu.func @ws_gemm
// W8-SAME: known_block_size = array<i32: 384, 1, 1>
// W8: %[[PRODUCERS8:.*]] = arith.cmpi uge, %{{.*}}, %c8_i32 : i32
// W8-NEXT: scf.if %[[PRODUCERS8]] {
// W8-NEXT: "setmaxnreg.dec.sync.aligned.u32 40;"
// W8: nvvm.exit
// W8: "setmaxnreg.inc.sync.aligned.u32 232;"
// W8: nvvm.wgmma.mma_async
// W8: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32

// NOTMA-LABEL: gpu.func @ws_gemm
// NOTMA-SAME: known_block_size = array<i32: 128, 1, 1>
// NOTMA-NOT: nvvm.exit
// NOTMA: nvgpu.device_async_copy

// -----

// A K loop inside a loop over tiles (a persistent GEMM not flattened) is not
// the kernel's own: the producer would have to run the outer loop too. It
// stays one stream of 4 warps.
tile.func @nested(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %tiles: i32) {
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
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
      %at = tile.descriptor_load %da[%row, %k] : !tile.tensordesc<tensor<64x64xbf16>>
      %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
      %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
      scf.yield %next : tensor<64x128xf32>
    }
    tile.descriptor_store %dc[%row, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  }
  tile.return
}

// CHECK-LABEL: gpu.func @nested
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-NOT: tessera.producer_warps
// CHECK-NOT: nvvm.exit
// CHECK: cp.async.bulk.tensor
// CHECK-NOT: nvvm.exit
// CHECK: gpu.return

// -----

// Marked tile.flatten (tl.range(..., flatten=True)), the same nest becomes one
// loop over (tile, K block) pairs (tile-flatten-loops): the producer runs
// through every tile of the program, the tile's store under `if last` in the
// consumers' loop, and the loop for a K without steps after it, in the
// consumers alone.
tile.func @flattened(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %tiles: i32) {
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
    tile.descriptor_store %dc[%row, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: gpu.func @flattened
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: scf.if
// CHECK: scf.for {{.*}} : i64 {
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.2d
// CHECK: nvvm.exit
// CHECK: scf.for {{.*}} : i64 {
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK: scf.if
// CHECK: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: scf.yield
// CHECK: "mbarrier.inval.shared::cta.b64 [$0];"
// CHECK: scf.for {{.*}} : i32 {
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// Tile work before the loop (a load) would run in the producer warp too,
// with a warp index its layout does not have: no specialization.
tile.func @tile_work_first(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %bias: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %ldc = arith.extsi %N : i32 to i64
  %dbias = tile.make_tensor_descriptor %bias, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  %acc0 = tile.descriptor_load %dbias[%c0, %c0] : !tile.tensordesc<tensor<64x128xf32>>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @tile_work_first
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-NOT: nvvm.exit
// CHECK: cp.async.bulk.tensor
// CHECK-NOT: nvvm.exit
// CHECK: gpu.return

// -----

// Without the option, a loop that asks for it itself (tile.warp_specialize,
// Triton's tl.range(..., warp_specialize=True)) is specialized where TMA
// copies its blocks; the other kernels above are not.
tile.func @asked_by_the_loop(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c64] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  } {tile.warp_specialize}
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// LOOP-LABEL: gpu.func @ws_gemm
// LOOP-SAME: known_block_size = array<i32: 128, 1, 1>
// LOOP-LABEL: gpu.func @asked_by_the_loop
// LOOP-SAME: known_block_size = array<i32: 256, 1, 1>
// LOOP: nvvm.exit

// NOTMA-LABEL: gpu.func @asked_by_the_loop
// NOTMA-SAME: known_block_size = array<i32: 128, 1, 1>
// NOTMA-NOT: nvvm.exit

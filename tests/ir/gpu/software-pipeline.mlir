// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=3" | FileCheck %s --check-prefix=CUDA
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4 num-stages=4" | FileCheck %s --check-prefix=VK
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=1" | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3" | FileCheck %s --check-prefix=WGMMA

// Software pipelining of a K loop whose masked loads feed a dot: the loads
// are copied into rings of shared-memory stages num-stages - 1 iterations
// ahead of the dot that reads them.

tile.func @matmul(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %lda: i32 {tile.divisibility = 16 : i32}, %ldb: i32 {tile.divisibility = 16 : i32}, %ldc: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %m = tile.make_range 0 to 64 : tensor<64xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %am = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %arow = arith.muli %am, %ldas : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %akb : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %bk = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %brow = arith.muli %bk, %ldbs : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x32xf16>
  %bzero = arith.constant dense<0.0> : tensor<32x64xf16>
  %bstep = arith.muli %ldb, %c32 : i32
  %astepv = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %bstepv = tile.splat %bstep : i32 -> tensor<32x64xi32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %K, %i : i32
    %lefta = tile.splat %left : i32 -> tensor<1x32xi32>
    %amask1 = arith.cmpi slt, %ak, %lefta : tensor<1x32xi32>
    %amask = tile.broadcast %amask1 : tensor<1x32xi1> -> tensor<64x32xi1>
    %at = tile.load %ap_i, %amask, %zero : tensor<64x32x!tile.ptr<f16>>
    %leftb = tile.splat %left : i32 -> tensor<32x1xi32>
    %bmask1 = arith.cmpi slt, %bk, %leftb : tensor<32x1xi32>
    %bmask = tile.broadcast %bmask1 : tensor<32x1xi1> -> tensor<32x64xi1>
    %bt = tile.load %bp_i, %bmask, %bzero : tensor<32x64x!tile.ptr<f16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %astepv : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %bstepv : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %cm = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldcs = tile.splat %ldc : i32 -> tensor<64x1xi32>
  %crow = arith.muli %cm, %ldcs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// Two rings of three stages, [64, 32] and [32, 64] f16 (4 KiB each stage).
// CUDA-LABEL: gpu.func @matmul
// CUDA: %[[A:.*]] = memref.view %[[SHM:.*]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6144xf16, #gpu.address_space<workgroup>>
// CUDA: %[[B:.*]] = memref.view %[[SHM]][%c12288{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6144xf16, #gpu.address_space<workgroup>>
// Prologue: iterations 0 and 1, each issued only if it exists, one group each.
// A run of 8 f16 is one 16-byte cp.async where it is aligned and wholly in or
// out of the mask (the number of elements read, 8 or 0, zero-fills the rest);
// element loads and stores otherwise.
// CUDA: scf.if
// CUDA: scf.if
// CUDA-NEXT: nvgpu.device_async_copy %arg0[%{{.*}}], %[[A]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CUDA: } else {
// CUDA: memref.store %{{.*}}, %[[A]]
// CUDA: nvgpu.device_async_copy %arg1[%{{.*}}], %[[B]][%{{.*}}], 8, %{{.*}} {bypassL1}
// CUDA: nvvm.cp.async.commit.group
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvvm.cp.async.commit.group
// The loop carries the accumulator (32 registers), the pointers two
// iterations ahead (16 + 16 offsets) and the stages it reads (from 0) and
// writes (from 2); not the current pointers.
// CUDA: scf.for %[[IV:.*]] = %c0_i32 to %arg6 step %c32_i32 iter_args({{.*}}, %[[READ:.*]] = %c0_i32, %[[WRITE:.*]] = %c2_i32) -> ([[F32S:(f32, ){31}]]f32, [[INDICES:(index, ){31}]]index, i32, i32) : i32 {
// CUDA-NEXT: nvvm.cp.async.wait.group 1
// CUDA-NEXT: gpu.barrier
// Iteration t + 2 goes to the stage written.
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvgpu.device_async_copy %arg1
// CUDA: nvvm.cp.async.commit.group
// The dot reads its stage with no store of its own and no barrier after.
// CUDA-NOT: gpu.barrier
// CUDA: nvgpu.ldmatrix %[[A]][%[[A0:[0-9]+]]]
// The warp's second M tile is 16 rows on, whole periods of the swizzle: the
// first tile's address plus a constant (the ldmatrix's immediate offset).
// CUDA: %[[A1:.*]] = arith.addi %[[A0]], %c512 : index
// CUDA-NEXT: nvgpu.ldmatrix %[[A]][%[[A1]]]
// CUDA: nvvm.mma.sync
// CUDA-NOT: gpu.barrier
// Both stages move on by one, wrapping after 3 (no remainder of a count).
// CUDA: %[[R1:.*]] = arith.addi %[[READ]], %c1_i32 : i32
// CUDA-NEXT: %[[RW:.*]] = arith.cmpi eq, %[[R1]], %c3_i32 : i32
// CUDA-NEXT: arith.select %[[RW]], %c0_i32, %[[R1]] : i32
// CUDA-NEXT: %[[W1:.*]] = arith.addi %[[WRITE]], %c1_i32 : i32
// CUDA-NOT: arith.remui
// CUDA: scf.yield
// CUDA-NEXT: }
// CUDA-NEXT: gpu.barrier

// Vulkan has no asynchronous copies: loads and workgroup stores in the same
// order, and two stages of the four asked for (synchronous copies gain
// nothing from more), one barrier per iteration.
// VK-LABEL: gpu.func @matmul
// VK-SAME: workgroup(%[[VA:.*]] : memref<4096xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[VB:.*]] : memref<4096xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// VK-NOT: nvgpu
// VK: memref.store %{{.*}}, %[[VA]]
// VK: memref.store %{{.*}}, %[[VB]]
// VK: scf.for
// VK-NEXT: gpu.barrier
// VK: memref.store %{{.*}}, %[[VA]]
// VK: memref.load %[[VA]]
// VK: math.fma
// VK: scf.yield
// VK: gpu.barrier

// One stage: no pipelining, the loop carries the current pointers and each
// dot stores its operands between two barriers.
// OFF-LABEL: gpu.func @matmul
// OFF-NOT: cp.async
// OFF: scf.for
// OFF: memref.load %arg0
// OFF: gpu.barrier
// OFF: nvvm.mma.sync
// OFF: gpu.barrier
// OFF: scf.yield

// -----

// The same loop with 16-byte aligned arguments and K, lda, ldb multiples of
// 16 elements: the contiguity analysis proves every run of 8 aligned in every
// iteration (the pointers advance by multiples of 8) and `k < K - i` constant
// over it, so each run is one cp.async with no run-time check and no element
// fallback; only whether the iteration exists is tested.
tile.func @matmul_proved(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %lda: i32 {tile.divisibility = 16 : i32}, %ldb: i32 {tile.divisibility = 16 : i32}, %ldc: i32, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %m = tile.make_range 0 to 64 : tensor<64xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %am = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %arow = arith.muli %am, %ldas : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %akb : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %bk = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %brow = arith.muli %bk, %ldbs : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x32xf16>
  %bzero = arith.constant dense<0.0> : tensor<32x64xf16>
  %bstep = arith.muli %ldb, %c32 : i32
  %astepv = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %bstepv = tile.splat %bstep : i32 -> tensor<32x64xi32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %K, %i : i32
    %lefta = tile.splat %left : i32 -> tensor<1x32xi32>
    %amask1 = arith.cmpi slt, %ak, %lefta : tensor<1x32xi32>
    %amask = tile.broadcast %amask1 : tensor<1x32xi1> -> tensor<64x32xi1>
    %at = tile.load %ap_i, %amask, %zero : tensor<64x32x!tile.ptr<f16>>
    %leftb = tile.splat %left : i32 -> tensor<32x1xi32>
    %bmask1 = arith.cmpi slt, %bk, %leftb : tensor<32x1xi32>
    %bmask = tile.broadcast %bmask1 : tensor<32x1xi1> -> tensor<32x64xi1>
    %bt = tile.load %bp_i, %bmask, %bzero : tensor<32x64x!tile.ptr<f16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %astepv : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %bstepv : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %cm = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldcs = tile.splat %ldc : i32 -> tensor<64x1xi32>
  %crow = arith.muli %cm, %ldcs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CUDA-LABEL: gpu.func @matmul_proved
// CUDA-NOT: memref.store
// CUDA-NOT: } else {
// CUDA: %[[IN:.*]] = arith.select %{{.*}}, %c8, %c0 : index
// CUDA-NEXT: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%{{.*}}], 8, %[[IN]] {bypassL1}
// CUDA-NOT: memref.store
// CUDA-NOT: } else {
// CUDA: scf.for
// CUDA-NEXT: nvvm.cp.async.wait.group 1
// CUDA-NEXT: gpu.barrier
// CUDA-NOT: memref.store
// CUDA-NOT: } else {
// CUDA: nvgpu.device_async_copy %arg1
// CUDA-NOT: memref.store
// CUDA-NOT: } else {
// CUDA: nvvm.cp.async.commit.group
// CUDA: nvvm.mma.sync
// CUDA: scf.yield

// -----

// Descriptor blocks, the descriptors made in the loop body: the later
// iteration's descriptors and offsets are made again ahead of its copies,
// and the loop carries only the accumulator and the iteration count.
tile.func @descriptors(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %one = arith.constant 1 : i64
  %ldk = arith.extsi %K : i32 to i64
  %ldn = arith.extsi %N : i32 to i64
  %acc0 = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%acc_i = %acc0) -> (tensor<32x32xf32>) : i32 {
    %da = tile.make_tensor_descriptor %a, [%M, %K], [%ldk, %one]
            : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x16xf32>>
    %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldn, %one]
            : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x32xf32>>
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<32x16xf32>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<16x32xf32>>
    %next = tile.dot %at, %bt, %acc_i : tensor<32x16xf32> * tensor<16x32xf32> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldn, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x32xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<32x32xf32>>
  tile.return
}

// CUDA-LABEL: gpu.func @descriptors
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvgpu.device_async_copy %arg1
// CUDA: nvvm.cp.async.commit.group
// CUDA: scf.for %{{.*}} iter_args({{.*}}) -> ([[ACC:(f32, ){7}]]f32, i32, i32) : i32 {
// CUDA-NEXT: nvvm.cp.async.wait.group 1
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvgpu.device_async_copy %arg1
// CUDA: nvvm.cp.async.commit.group
// CUDA: nvvm.mma.sync

// VK-LABEL: gpu.func @descriptors
// VK-NOT: nvgpu
// VK: scf.for
// VK-NEXT: gpu.barrier
// VK: math.fma

// -----

// Descriptor blocks proved aligned (16-byte base and row strides, offsets
// multiples of the runs), as host TensorDescriptors are: each run is one
// cp.async with no branch around it. A's last extent K divides by the runs,
// so a run is wholly in or out (a predicated copy); B's N does not, so a run
// copies the elements before N and zero-fills the rest (its source size).
tile.func @descriptor_copies(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32 {tile.divisibility = 16 : i32}, %lda: i64 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x32xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<32x64xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x32xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<32x64xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x64xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x64xf32>>
  tile.return
}

// CUDA-LABEL: gpu.func @descriptor_copies
// CUDA: scf.for %{{.*}} : i32 {
// CUDA: scf.if
// CUDA-NOT: scf.if
// CUDA-NOT: arith.minsi
// CUDA: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1}
// CUDA-NOT: scf.if
// CUDA: %[[LEFT:.*]] = arith.maxsi %{{.*}}, %c0_i32 : i32
// CUDA-NEXT: arith.minsi %[[LEFT]], %c8_i32 : i32
// CUDA-NOT: scf.if
// CUDA: nvgpu.device_async_copy %arg1[%{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1}
// CUDA-NOT: scf.if
// CUDA: nvvm.cp.async.commit.group

// -----

// B given as [N, K] (a PyTorch Linear's weight) and transposed for the dot.
// wgmma keeps B K-major, so the loaded [64, 32] block's rows land in
// 16-byte runs: both operands are copied with cp.async and the transpose
// costs nothing.
tile.func @transposed_b(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %roff = arith.muli %re, %Ks : tensor<64x1xi32>
  %roffb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x32xi32>
  %ke = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %keb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %roffb, %keb : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %aptrs = tile.addptr %abase, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %step = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x32x!tile.ptr<bf16>>) : i32 {
    %at = tile.load %ap_i : tensor<64x32x!tile.ptr<bf16>>
    %bnk = tile.load %bp_i : tensor<64x32x!tile.ptr<bf16>>
    %bt = tile.trans %bnk, order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x32x!tile.ptr<bf16>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %cm, %c64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// The wgmma of one iteration runs on while the next issues its copies, so
// the rings have num-stages + 1 = 4 stages of 4 KiB, the copies still run
// two iterations ahead, each dot waits for the previous one (wait.group 1)
// and the loop waits for the last one.
// WGMMA-LABEL: gpu.func @transposed_b
// The warp index is read from lane 0, so that ptxas keeps it, and the
// descriptors computed from it, in uniform registers.
// WGMMA: %[[WARP:.*]] = arith.divui %{{.*}}, %c32_i32 : i32
// WGMMA-NEXT: %{{.*}}, %{{.*}} = gpu.shuffle idx %[[WARP]], %c0_i32, %c32_i32 : i32
// WGMMA: %[[BRING:.*]] = memref.view %{{.*}}[%c16384{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8192xbf16, #gpu.address_space<workgroup>>
// WGMMA: nvgpu.device_async_copy %arg1[%{{.*}}], %[[BRING]][%{{.*}}], 8 {bypassL1}
// The loop and its last wait run only where the loop runs: the path that
// skips it sets the accumulator after the join, not between a wgmma and
// its wait (ptxas would serialize every wgmma otherwise).
// WGMMA: %[[RUNS:.*]] = arith.cmpi sgt, %arg3, %c0_i32 : i32
// WGMMA: scf.if %[[RUNS]] -> ([[ACC:(f32, ){31}f32]]) {
// One fence for the async proxy and one barrier per iteration make the
// stage ready for wgmma; the dot adds none of its own.
// WGMMA: scf.for
// WGMMA-NEXT: nvvm.cp.async.wait.group 1
// WGMMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA-NEXT: gpu.barrier
// WGMMA-NOT: nvgpu.device_async_copy
// WGMMA-NOT: nvvm.fence.proxy
// A's descriptors: the stage's start (an i32 counter) and the start-address
// field in 32 bits, the stride and swizzle high word a constant; the next K
// step adds 32 bytes (2 units) to the low word alone.
// WGMMA: arith.muli %{{.*}}, %c4096_i32 : i32
// WGMMA: %[[FIELD:.*]] = arith.andi %{{.*}}, %c16383_i32 : i32
// WGMMA-NEXT: %[[LOW:.*]] = arith.ori %[[FIELD]], %c65536_i32 : i32
// WGMMA-NEXT: %[[WIDE:.*]] = arith.extui %[[LOW]] : i32 to i64
// WGMMA-NEXT: %[[FIRST:.*]] = arith.ori %[[WIDE]], %[[HIGH:.*]] : i64
// WGMMA: nvvm.wgmma.mma_async %[[FIRST]]
// WGMMA-NEXT: %[[NEXT:.*]] = arith.addi %[[LOW]], %c2_i32 : i32
// WGMMA-NEXT: %[[NEXTWIDE:.*]] = arith.extui %[[NEXT]] : i32 to i64
// WGMMA-NEXT: arith.ori %[[NEXTWIDE]], %[[HIGH]] : i64
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// The copies go out while the dot runs, before it waits for the one before.
// WGMMA-NOT: gpu.barrier
// WGMMA: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%{{.*}}], 8 {bypassL1}
// WGMMA: nvgpu.device_async_copy %arg1[%{{.*}}], %[[BRING]][%{{.*}}], 8 {bypassL1}
// WGMMA: nvvm.cp.async.commit.group
// WGMMA-NOT: gpu.barrier
// The waits pass the accumulator through, so that its readers follow them.
// WGMMA: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A", "{{(=f,)+}}0,1,2,{{.*}},31"
// WGMMA: scf.yield
// WGMMA-NEXT: }
// WGMMA-NEXT: {{.*}} = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WGMMA: scf.yield
// WGMMA-NEXT: } else {
// WGMMA-NEXT: scf.yield %cst, %cst,
// WGMMA-NEXT: }
// WGMMA-NEXT: gpu.barrier

// -----

// A dot whose result is also read by another op in the loop finishes in its
// iteration: three stages, copies two iterations ahead, wait.group 0.
tile.func @accumulator_read_in_the_loop(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %roff = arith.muli %re, %Ks : tensor<64x1xi32>
  %roffb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x32xi32>
  %ke = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %keb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %roffb, %keb : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %aptrs = tile.addptr %abase, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %step = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x32x!tile.ptr<bf16>>) : i32 {
    %at = tile.load %ap_i : tensor<64x32x!tile.ptr<bf16>>
    %bnk = tile.load %bp_i : tensor<64x32x!tile.ptr<bf16>>
    %bt = tile.trans %bnk, order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %dot = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %next = arith.mulf %dot, %half : tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x32x!tile.ptr<bf16>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %cm, %c64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// WGMMA-LABEL: gpu.func @accumulator_read_in_the_loop
// WGMMA: memref.view %{{.*}}[%c12288{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6144xbf16, #gpu.address_space<workgroup>>
// WGMMA: scf.for
// WGMMA-NEXT: nvvm.cp.async.wait.group 1
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// WGMMA: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WGMMA-NOT: wgmma.wait

// -----

// B = W.t() of a 16-byte aligned [N, K] weight, K a multiple of 16: loaded
// as rows of W (tile-gpu-transpose-column-loads), whose runs the analysis
// proves aligned and wholly in or out of `k < K - i` through the transposes
// of the pointers and the mask: every copy is one cp.async, no fallback.
tile.func @columns_of_b_proved(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ka = tile.splat %K : i32 -> tensor<64x1xi32>
  %aoff1 = arith.muli %re, %Ka : tensor<64x1xi32>
  %aoffb = tile.broadcast %aoff1 : tensor<64x1xi32> -> tensor<64x32xi32>
  %ka = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kab = tile.broadcast %ka : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %aoffb, %kab : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %ke = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kb = tile.broadcast %ke : tensor<32x1xi32> -> tensor<32x64xi32>
  %ne = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<1x64xi32>
  %nK = arith.muli %ne, %Ks : tensor<1x64xi32>
  %nb = tile.broadcast %nK : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %kb, %nb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
  %astep = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %bstep = tile.splat %c32 : i32 -> tensor<32x64xi32>
  %azero = arith.constant dense<0.0> : tensor<64x32xbf16>
  %bzero = arith.constant dense<0.0> : tensor<32x64xbf16>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<32x64x!tile.ptr<bf16>>) : i32 {
    %left = arith.subi %K, %i : i32
    %la = tile.splat %left : i32 -> tensor<1x32xi32>
    %am1 = arith.cmpi slt, %ka, %la : tensor<1x32xi32>
    %am = tile.broadcast %am1 : tensor<1x32xi1> -> tensor<64x32xi1>
    %at = tile.load %ap_i, %am, %azero : tensor<64x32x!tile.ptr<bf16>>
    %lb = tile.splat %left : i32 -> tensor<32x1xi32>
    %bm1 = arith.cmpi slt, %ke, %lb : tensor<32x1xi32>
    %bm = tile.broadcast %bm1 : tensor<32x1xi1> -> tensor<32x64xi1>
    %bt = tile.load %bp_i, %bm, %bzero : tensor<32x64x!tile.ptr<bf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<bf16>>, tensor<32x64x!tile.ptr<bf16>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %cm, %c64 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// WGMMA-LABEL: gpu.func @columns_of_b_proved
// WGMMA-NOT: memref.store
// WGMMA-NOT: } else {
// WGMMA: scf.for
// WGMMA-NOT: memref.store
// WGMMA-NOT: } else {
// WGMMA: nvvm.wgmma.mma_async
// WGMMA-NOT: memref.store
// WGMMA-NOT: } else {
// WGMMA: %[[IN:.*]] = arith.select %{{.*}}, %c8, %c0 : index
// WGMMA-NEXT: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%{{.*}}], 8, %[[IN]] {bypassL1}
// WGMMA-NOT: memref.store
// WGMMA-NOT: } else {
// WGMMA: nvgpu.device_async_copy %arg1[%{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1}
// WGMMA-NOT: memref.store
// WGMMA-NOT: } else {
// WGMMA: nvvm.cp.async.commit.group
// WGMMA: scf.yield

// -----

// A persistent loop over output tiles, its K loop flattened into it (the
// persistent GEMM of Triton's tutorials): each step's tile and k-block come
// from dividing the step by the loop-invariant k-block count, and the last
// step of a tile stores the accumulator and starts it again from zero.
tile.func @persistent_tiles(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %kTiles: i32, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %K = arith.muli %kTiles, %c32 : i32
  %last = arith.subi %kTiles, %c1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %tile = arith.divsi %i, %kTiles : i32
    %ki = arith.remsi %i, %kTiles : i32
    %row0 = arith.muli %tile, %c64 : i32
    %row0s = tile.splat %row0 : i32 -> tensor<64xi32>
    %arows = arith.addi %row0s, %rows : tensor<64xi32>
    %are = tile.expand_dims %arows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
    %aroff = arith.muli %are, %Ks : tensor<64x1xi32>
    %aroffb = tile.broadcast %aroff : tensor<64x1xi32> -> tensor<64x32xi32>
    %k0 = arith.muli %ki, %c32 : i32
    %k0s = tile.splat %k0 : i32 -> tensor<32xi32>
    %ks = arith.addi %k0s, %k : tensor<32xi32>
    %ke = tile.expand_dims %ks, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %keb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %aroffb, %keb : tensor<64x32xi32>
    %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
    %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %bre = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %broff = arith.muli %bre, %Ks : tensor<64x1xi32>
    %broffb = tile.broadcast %broff : tensor<64x1xi32> -> tensor<64x32xi32>
    %boff = arith.addi %broffb, %keb : tensor<64x32xi32>
    %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
    %bptrs = tile.addptr %bbase, %boff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %at = tile.load %aptrs : tensor<64x32x!tile.ptr<bf16>>
    %bnk = tile.load %bptrs : tensor<64x32x!tile.ptr<bf16>>
    %bt = tile.trans %bnk, order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %dot = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %isLast = arith.cmpi eq, %ki, %last : i32
    %next = arith.select %isLast, %acc0, %dot : tensor<64x64xf32>
    scf.if %isLast {
      %cre = tile.expand_dims %arows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
      %c64s = tile.splat %c64 : i32 -> tensor<64x1xi32>
      %croff = arith.muli %cre, %c64s : tensor<64x1xi32>
      %croffb = tile.broadcast %croff : tensor<64x1xi32> -> tensor<64x64xi32>
      %cn = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
      %coff = arith.addi %croffb, %cnb : tensor<64x64xi32>
      %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
      %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
      tile.store %cptrs, %dot : tensor<64x64x!tile.ptr<f32>>
    }
    scf.yield %next : tensor<64x64xf32>
  }
  tile.return
}

// The addresses of a later step divide by %kTiles, which a step past the
// end may not make safe: they are computed, with the copies, only where
// that step exists. The rings get num-stages + 1 = 4 stages of 4 KiB (the
// wgmma runs on into the next step), the epilogue's conversion buffer sits
// above them, and the dot is waited for only in the branch that stores it,
// which restarts the accumulator through one inline asm (a select of zeros
// and the running registers would read them before their wait).
// WGMMA-LABEL: gpu.func @persistent_tiles
// WGMMA: %[[ARING:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8192xbf16, #gpu.address_space<workgroup>>
// WGMMA: memref.view %{{.*}}[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4352xf32, #gpu.address_space<workgroup>>
// WGMMA: scf.if %{{.*}} {
// WGMMA-NEXT: arith.divsi %c0_i32, %arg3 : i32
// WGMMA: nvgpu.device_async_copy %arg0[%{{.*}}], %[[ARING]][%{{.*}}], 8 {bypassL1}
// WGMMA: nvvm.cp.async.commit.group
// The step's own tile is found before its dot; the later step's, and its
// copies, while the dot runs.
// WGMMA: scf.for
// WGMMA-NEXT: nvvm.cp.async.wait.group 1
// WGMMA-NEXT: nvvm.fence.proxy
// WGMMA-NEXT: gpu.barrier
// WGMMA-NOT: nvgpu.device_async_copy
// WGMMA: arith.divsi %{{.*}}, %arg3 : i32
// WGMMA-NOT: nvgpu.device_async_copy
// WGMMA: nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT: llvm.extractvalue
// WGMMA-NOT: "wgmma.wait_group
// WGMMA: scf.if %{{.*}} {
// WGMMA-NEXT: arith.divsi
// WGMMA: nvgpu.device_async_copy %arg1
// WGMMA: nvvm.cp.async.commit.group
// WGMMA-NEXT: "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A"
// WGMMA-NOT: wgmma.wait_group
// WGMMA: scf.if %{{.*}} -> ([[ACC:(f32, ){31}f32]]) {
// WGMMA-NEXT: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"
// WGMMA: gpu.barrier
// WGMMA: "mov.b32 $0, $32;
// WGMMA-NEXT: llvm.extractvalue
// WGMMA: } else {
// WGMMA-NEXT: scf.yield
// WGMMA-NEXT: }
// WGMMA: scf.yield
// WGMMA-NEXT: }
// WGMMA-NEXT: "wgmma.wait_group.sync.aligned 0; // wait {{[0-9]+}}\0A"

// mma.sync finishes in its step; the accumulator restarts in the branch
// that stores it, through one inline asm, not by a select of every register
// in every step.
// CUDA-LABEL: gpu.func @persistent_tiles
// CUDA: scf.for
// CUDA: scf.if %{{.*}} {
// CUDA-NEXT: arith.divsi
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvvm.cp.async.commit.group
// CUDA: nvvm.mma.sync
// CUDA-NOT: arith.select %{{.*}}, %cst
// CUDA: scf.if %{{.*}} -> ([[ACC:(f32, ){31}f32]]) {
// CUDA: gpu.barrier
// CUDA: "mov.b32 $0, $32;
// CUDA: } else {
// CUDA-NEXT: scf.yield
// CUDA-NEXT: }
// CUDA-NOT: arith.select %{{.*}}, %cst
// CUDA: scf.yield

// -----

// The carried form of a persistent loop moves to its next tile under
// `if ki == 0`, with a promise about it there (tile.assume, as Triton's
// tutorial writes `tl.assume(pid_m >= 0)`): a promise is no effect that
// keeps the branch out of the later iteration's addresses, so the loop is
// pipelined; the branch is computed with the copies where that step exists.
// CUDA-LABEL: gpu.func @promise_in_address_branch
// CUDA: scf.for
// CUDA-NEXT: nvvm.cp.async.wait.group 1
// CUDA-NEXT: gpu.barrier
// CUDA: scf.if %{{.*}} -> (
// CUDA: nvgpu.device_async_copy %arg0
// CUDA: nvvm.cp.async.commit.group
// CUDA: nvvm.mma.sync
tile.func @promise_in_address_branch(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %kTiles: i32, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm1 = arith.constant -1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %K = arith.muli %kTiles, %c32 : i32
  %last = arith.subi %kTiles, %c1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %tileOut = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %tile_i = %cm1) -> (tensor<64x64xf32>, i32) : i32 {
    %ki = arith.remsi %i, %kTiles : i32
    %first = arith.cmpi eq, %ki, %c0 : i32
    %tile = scf.if %first -> (i32) {
      %t = arith.addi %tile_i, %c1 : i32
      %ok = arith.cmpi sge, %t, %c0 : i32
      tile.assume %ok
      scf.yield %t : i32
    } else {
      scf.yield %tile_i : i32
    }
    %row0 = arith.muli %tile, %c64 : i32
    %row0s = tile.splat %row0 : i32 -> tensor<64xi32>
    %arows = arith.addi %row0s, %rows : tensor<64xi32>
    %are = tile.expand_dims %arows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
    %aroff = arith.muli %are, %Ks : tensor<64x1xi32>
    %aroffb = tile.broadcast %aroff : tensor<64x1xi32> -> tensor<64x32xi32>
    %k0 = arith.muli %ki, %c32 : i32
    %k0s = tile.splat %k0 : i32 -> tensor<32xi32>
    %ks = arith.addi %k0s, %k : tensor<32xi32>
    %ke = tile.expand_dims %ks, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %keb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %aroffb, %keb : tensor<64x32xi32>
    %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
    %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %bre = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %broff = arith.muli %bre, %Ks : tensor<64x1xi32>
    %broffb = tile.broadcast %broff : tensor<64x1xi32> -> tensor<64x32xi32>
    %boff = arith.addi %broffb, %keb : tensor<64x32xi32>
    %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
    %bptrs = tile.addptr %bbase, %boff : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %at = tile.load %aptrs : tensor<64x32x!tile.ptr<bf16>>
    %bnk = tile.load %bptrs : tensor<64x32x!tile.ptr<bf16>>
    %bt = tile.trans %bnk, order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %dot = tile.dot %at, %bt, %acc_i : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
    %isLast = arith.cmpi eq, %ki, %last : i32
    %next = arith.select %isLast, %acc0, %dot : tensor<64x64xf32>
    scf.if %isLast {
      %cre = tile.expand_dims %arows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
      %c64s = tile.splat %c64 : i32 -> tensor<64x1xi32>
      %croff = arith.muli %cre, %c64s : tensor<64x1xi32>
      %croffb = tile.broadcast %croff : tensor<64x1xi32> -> tensor<64x64xi32>
      %cn = tile.expand_dims %rows, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
      %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
      %coff = arith.addi %croffb, %cnb : tensor<64x64xi32>
      %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
      %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
      tile.store %cptrs, %dot : tensor<64x64x!tile.ptr<f32>>
    }
    scf.yield %next, %tile : tensor<64x64xf32>, i32
  }
  tile.return
}

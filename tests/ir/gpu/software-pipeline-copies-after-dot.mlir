// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=3" | FileCheck %s --check-prefix=EARLY
// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=8 num-stages=4" | FileCheck %s --check-prefix=LATE

// A 128x256x64 bf16 GEMM: a stage of both operands is 48 KiB, so four fit
// in sm_90's 227 KiB of shared memory and five do not.
//
// With num-stages=3 the overlapped wgmma gets its extra stage (a ring of
// 4): under one barrier, the copies of t + 2 go out while the dot of t
// runs, between its issue and its wait for the dot of t - 1.
// EARLY-LABEL: gpu.func @gemm_128x256x64
// EARLY: memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32768xbf16, #gpu.address_space<workgroup>>
// EARLY: memref.view %{{.*}}[%c65536{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<65536xbf16, #gpu.address_space<workgroup>>
// EARLY: scf.for
// EARLY-NEXT: nvvm.cp.async.wait.group 1
// EARLY-NEXT: nvvm.fence.proxy
// EARLY-NEXT: gpu.barrier
// EARLY-NOT: nvgpu.device_async_copy
// EARLY: nvvm.wgmma.mma_async
// EARLY: nvvm.wgmma.commit.group.sync.aligned
// EARLY-NOT: gpu.barrier
// A thread's runs of A (B) are rows 32 (8) apart, whole swizzle periods:
// each is the first run's place in the stage plus a constant (ptxas folds
// it into the copy's address), not a place of its own computed and kept.
// EARLY: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%[[A0:.*]]]
// EARLY: %[[A1:.*]] = arith.addi %[[A0]], %c2048 : index
// EARLY: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%[[A1]]]
// EARLY: %[[A2:.*]] = arith.addi %[[A0]], %c4096 : index
// EARLY: nvgpu.device_async_copy %arg0[%{{.*}}], %{{.*}}[%[[A2]]]
// EARLY: nvgpu.device_async_copy %arg1[%{{.*}}], %{{.*}}[%[[B0:.*]]]
// EARLY: %[[B1:.*]] = arith.addi %[[B0]], %c512 : index
// EARLY: nvgpu.device_async_copy %arg1[%{{.*}}], %{{.*}}[%[[B1]]]
// EARLY: nvvm.cp.async.commit.group
// EARLY-NOT: gpu.barrier
// EARLY: "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A"
// EARLY-NOT: gpu.barrier
// EARLY-NOT: nvgpu.device_async_copy
// EARLY: scf.yield

// With num-stages=4 the fifth stage does not fit: the ring keeps four, and
// the copies of t + 3 move after the dot of t has waited for the dot of
// t - 1 and a second barrier, into the stage that dot read. Three
// iterations of copies are in flight (wait.group 2), one more than the
// early order gets from the same shared memory.
// LATE-LABEL: gpu.func @gemm_128x256x64
// LATE: memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32768xbf16, #gpu.address_space<workgroup>>
// LATE: memref.view %{{.*}}[%c65536{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<65536xbf16, #gpu.address_space<workgroup>>
// LATE-COUNT-3: nvvm.cp.async.commit.group
// LATE: scf.for
// LATE-NEXT: nvvm.cp.async.wait.group 2
// LATE-NEXT: nvvm.fence.proxy
// LATE-NEXT: gpu.barrier
// LATE-NOT: nvgpu.device_async_copy
// LATE: nvvm.wgmma.mma_async
// LATE: "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A"
// LATE-NOT: nvgpu.device_async_copy
// LATE: gpu.barrier
// LATE: nvgpu.device_async_copy
// LATE: nvvm.cp.async.commit.group
// LATE-NOT: nvgpu.device_async_copy
// LATE: scf.yield
tile.func @gemm_128x256x64(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %rows = tile.make_range 0 to 128 : tensor<128xi32>
  %cols = tile.make_range 0 to 256 : tensor<256xi32>
  %k = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<128x1xi32>
  %roff = arith.muli %re, %Ks : tensor<128x1xi32>
  %roffb = tile.broadcast %roff : tensor<128x1xi32> -> tensor<128x64xi32>
  %ka = tile.expand_dims %k, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kab = tile.broadcast %ka : tensor<1x64xi32> -> tensor<128x64xi32>
  %aoff = arith.addi %roffb, %kab : tensor<128x64xi32>
  %abase = tile.splat %a : !tile.ptr<bf16> -> tensor<128x64x!tile.ptr<bf16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<128x64x!tile.ptr<bf16>>, tensor<128x64xi32>
  %kb = tile.expand_dims %k, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c256 = arith.constant dense<256> : tensor<64x1xi32>
  %kboff = arith.muli %kb, %c256 : tensor<64x1xi32>
  %kbb = tile.broadcast %kboff : tensor<64x1xi32> -> tensor<64x256xi32>
  %nb = tile.expand_dims %cols, axis = 0 : tensor<256xi32> -> tensor<1x256xi32>
  %nbb = tile.broadcast %nb : tensor<1x256xi32> -> tensor<64x256xi32>
  %boff = arith.addi %kbb, %nbb : tensor<64x256xi32>
  %bbase = tile.splat %b : !tile.ptr<bf16> -> tensor<64x256x!tile.ptr<bf16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<64x256x!tile.ptr<bf16>>, tensor<64x256xi32>
  %astep = tile.splat %c64 : i32 -> tensor<128x64xi32>
  %c16384 = arith.constant 16384 : i32
  %bstep = tile.splat %c16384 : i32 -> tensor<64x256xi32>
  %acc0 = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c64
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<128x256xf32>, tensor<128x64x!tile.ptr<bf16>>, tensor<64x256x!tile.ptr<bf16>>) : i32 {
    %at = tile.load %ap_i : tensor<128x64x!tile.ptr<bf16>>
    %bt = tile.load %bp_i : tensor<64x256x!tile.ptr<bf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x64xbf16> * tensor<64x256xbf16> -> tensor<128x256xf32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<128x64x!tile.ptr<bf16>>, tensor<128x64xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<64x256x!tile.ptr<bf16>>, tensor<64x256xi32>
    scf.yield %next, %ap2, %bp2 : tensor<128x256xf32>, tensor<128x64x!tile.ptr<bf16>>, tensor<64x256x!tile.ptr<bf16>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %c256r = arith.constant dense<256> : tensor<128x1xi32>
  %crow = arith.muli %cm, %c256r : tensor<128x1xi32>
  %crowb = tile.broadcast %crow : tensor<128x1xi32> -> tensor<128x256xi32>
  %cn = tile.expand_dims %cols, axis = 0 : tensor<256xi32> -> tensor<1x256xi32>
  %cnb = tile.broadcast %cn : tensor<1x256xi32> -> tensor<128x256xi32>
  %coff = arith.addi %crowb, %cnb : tensor<128x256xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<128x256x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xi32>
  tile.store %cptrs, %acc : tensor<128x256x!tile.ptr<f32>>
  tile.return
}

// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=2" | FileCheck %s

// A 64x32x64 fp32 GEMM on tf32 wgmma, which reads B only K-major: B's rows
// of N are contiguous in memory, and with N = 32 the dot cannot run swapped
// (C^T = B^T A^T needs 64 of N for the instruction's M), so B's copies into
// a stage are one 4-byte cp.async per element.
//
// Memory: each copy addresses from the first offset of its run of 4
// consecutive elements plus a constant (folded into the copy's address),
// so one offset per run stays live across the loop, not one per copy.
//
// Shared memory: the swizzle places the copies of runs 0 and 1 at distances
// that differ from thread to thread, so each copy gets an index of its own;
// runs 2 and 3 are 32 lines of K further, a whole number of the swizzle's
// repeats: their copies' indices are runs 0 and 1's plus one constant in
// every thread (DotPlan::sharedRunPlaces), not indices computed again.
// CHECK-LABEL: gpu.func @gemm_f32_64x32x64
// CHECK: scf.for
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvgpu.device_async_copy %arg1[%[[B0:arg[0-9]+]]], %{{.*}}[%[[S0:[0-9]+]]], 1 :
// CHECK: %[[B01:.*]] = arith.addi %[[B0]], %c1 : index
// CHECK-NEXT: nvgpu.device_async_copy %arg1[%[[B01]]], %{{.*}}[%[[S1:[0-9]+]]], 1 :
// CHECK: %[[B02:.*]] = arith.addi %[[B0]], %c2 : index
// CHECK-NEXT: nvgpu.device_async_copy %arg1[%[[B02]]], %{{.*}}, 1 :
// CHECK: %[[B03:.*]] = arith.addi %[[B0]], %c3 : index
// CHECK-NEXT: nvgpu.device_async_copy %arg1[%[[B03]]], %{{.*}}, 1 :
// CHECK-NOT: arith.addi %[[B0]], %c4
// CHECK: nvgpu.device_async_copy %arg1[%arg{{[0-9]+}}], %{{.*}}, 1 :
// CHECK: %[[T0:.*]] = arith.addi %[[S0]], %[[D:c[0-9]+]] : index
// CHECK-NEXT: nvgpu.device_async_copy %arg1[%[[B2:arg[0-9]+]]], %{{.*}}[%[[T0]]], 1 :
// CHECK-NEXT: %[[T1:.*]] = arith.addi %[[S1]], %[[D]] : index
// CHECK-NEXT: %[[B21:.*]] = arith.addi %[[B2]], %c1 : index
// CHECK-NEXT: nvgpu.device_async_copy %arg1[%[[B21]]], %{{.*}}[%[[T1]]], 1 :
// CHECK: scf.yield
tile.func @gemm_f32_64x32x64(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 32 : tensor<32xi32>
  %k = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %roff = arith.muli %re, %Ks : tensor<64x1xi32>
  %roffb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x64xi32>
  %ka = tile.expand_dims %k, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kab = tile.broadcast %ka : tensor<1x64xi32> -> tensor<64x64xi32>
  %aoff = arith.addi %roffb, %kab : tensor<64x64xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %kb = tile.expand_dims %k, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32n = arith.constant dense<32> : tensor<64x1xi32>
  %kboff = arith.muli %kb, %c32n : tensor<64x1xi32>
  %kbb = tile.broadcast %kboff : tensor<64x1xi32> -> tensor<64x32xi32>
  %nb = tile.expand_dims %cols, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %nbb = tile.broadcast %nb : tensor<1x32xi32> -> tensor<64x32xi32>
  %boff = arith.addi %kbb, %nbb : tensor<64x32xi32>
  %bbase = tile.splat %b : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %bptrs = tile.addptr %bbase, %boff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %astep = tile.splat %c64 : i32 -> tensor<64x64xi32>
  %c2048 = arith.constant 2048 : i32
  %bstep = tile.splat %c2048 : i32 -> tensor<64x32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x32xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c64
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x32xf32>, tensor<64x64x!tile.ptr<f32>>, tensor<64x32x!tile.ptr<f32>>) : i32 {
    %at = tile.load %ap_i : tensor<64x64x!tile.ptr<f32>>
    %bt = tile.load %bp_i : tensor<64x32x!tile.ptr<f32>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xf32> * tensor<64x32xf32> -> tensor<64x32xf32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x32xf32>, tensor<64x64x!tile.ptr<f32>>, tensor<64x32x!tile.ptr<f32>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32r = arith.constant dense<32> : tensor<64x1xi32>
  %crow = arith.muli %cm, %c32r : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x32xi32>
  %cn = tile.expand_dims %cols, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cnb = tile.broadcast %cn : tensor<1x32xi32> -> tensor<64x32xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x32xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %cptrs, %acc : tensor<64x32x!tile.ptr<f32>>
  tile.return
}

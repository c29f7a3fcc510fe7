// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=2" | FileCheck %s

// A 64x64x32 fp32 GEMM on tf32 wgmma with B's rows of N contiguous in
// memory: wgmma reads a tf32 B from shared memory only K-major, so the dot
// runs swapped, C^T = B^T A^T (Wgmma.h). B's copies into a stage stay
// 16 bytes wide (its rows of N, as a 16-bit B's); the instruction's A is B,
// loaded from them into registers; its B is A, through descriptors.
//
// Fragments: four indices per thread; every other fragment of the dot is
// one of them plus a constant (8 lines of K on: a whole swizzle repeat).
// The fragments are loaded before wgmma.fence, which must follow every
// ordinary write of a register a wgmma reads.
// CHECK-LABEL: gpu.func @gemm_f32_64x64x32
// CHECK: nvgpu.device_async_copy %arg1[%{{.*}}], %{{.*}}[%{{.*}}], 4 {bypassL1}
// CHECK: scf.for
// CHECK: %[[F0:.*]] = memref.load %[[B:.*]][%[[I0:[0-9]+]]] : memref<6144xf32
// CHECK-NEXT: arith.bitcast %[[F0]] : f32 to i32
// CHECK-NEXT: memref.load %[[B]][%{{[0-9]+}}]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: memref.load %[[B]][%{{[0-9]+}}]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: memref.load %[[B]][%{{[0-9]+}}]
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: %[[I4:.*]] = arith.addi %[[I0]], %c256 : index
// CHECK-NEXT: memref.load %[[B]][%[[I4]]]
// CHECK-NOT: arith.xori
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}setp.ne.b32 p, 1, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1;{{.*}}"=f,{{.*}},0,1,{{.*}},31,r,r,r,r,l"
// CHECK-COUNT-3: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvgpu.device_async_copy %arg1[%arg{{[0-9]+}}], %{{.*}}[%{{.*}}], 4 {bypassL1}
// CHECK: scf.yield
tile.func @gemm_f32_64x64x32(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %roff = arith.muli %re, %Ks : tensor<64x1xi32>
  %roffb = tile.broadcast %roff : tensor<64x1xi32> -> tensor<64x32xi32>
  %ka = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kab = tile.broadcast %ka : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %roffb, %kab : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %kb = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %kboff = arith.muli %kb, %c64 : tensor<32x1xi32>
  %kbb = tile.broadcast %kboff : tensor<32x1xi32> -> tensor<32x64xi32>
  %nb = tile.expand_dims %cols, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %nbb = tile.broadcast %nb : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %kbb, %nbb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %astep = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %c2048 = arith.constant 2048 : i32
  %bstep = tile.splat %c2048 : i32 -> tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>) : i32 {
    %at = tile.load %ap_i : tensor<64x32x!tile.ptr<f32>>
    %bt = tile.load %bp_i : tensor<32x64x!tile.ptr<f32>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %cm, %c64r : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %cols, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// A 128x64x32 GEMM: four m64n128k8 steps, each 64 x 128 x 8 products, so
// two steps a commit group (Wgmma.cpp, swappedStepsPerGroup). A group's
// fragments are loaded after the wait that ends the group before the running
// one, so that two groups' fragments are live at a time, not the whole K
// tile's of two dots.
// CHECK-LABEL: gpu.func @gemm_f32_128x64x32
// CHECK: scf.for
// CHECK-COUNT-8: memref.load %{{.*}} : memref<6144xf32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-8: memref.load %{{.*}} : memref<6144xf32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: "wgmma.wait_group.sync.aligned 1; // wait {{[0-9]+}}\0A"
// CHECK: scf.yield
tile.func @gemm_f32_128x64x32(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rows = tile.make_range 0 to 128 : tensor<128xi32>
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<128x1xi32>
  %roff = arith.muli %re, %Ks : tensor<128x1xi32>
  %roffb = tile.broadcast %roff : tensor<128x1xi32> -> tensor<128x32xi32>
  %ka = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kab = tile.broadcast %ka : tensor<1x32xi32> -> tensor<128x32xi32>
  %aoff = arith.addi %roffb, %kab : tensor<128x32xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<128x32x!tile.ptr<f32>>
  %aptrs = tile.addptr %abase, %aoff : tensor<128x32x!tile.ptr<f32>>, tensor<128x32xi32>
  %kb = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %kboff = arith.muli %kb, %c64 : tensor<32x1xi32>
  %kbb = tile.broadcast %kboff : tensor<32x1xi32> -> tensor<32x64xi32>
  %nb = tile.expand_dims %cols, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %nbb = tile.broadcast %nb : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %kbb, %nbb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %astep = tile.splat %c32 : i32 -> tensor<128x32xi32>
  %c2048 = arith.constant 2048 : i32
  %bstep = tile.splat %c2048 : i32 -> tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c32
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<128x64xf32>, tensor<128x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>) : i32 {
    %at = tile.load %ap_i : tensor<128x32x!tile.ptr<f32>>
    %bt = tile.load %bp_i : tensor<32x64x!tile.ptr<f32>>
    %next = tile.dot %at, %bt, %acc_i : tensor<128x32xf32> * tensor<32x64xf32> -> tensor<128x64xf32>
    %ap2 = tile.addptr %ap_i, %astep : tensor<128x32x!tile.ptr<f32>>, tensor<128x32xi32>
    %bp2 = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<128x64xf32>, tensor<128x32x!tile.ptr<f32>>, tensor<32x64x!tile.ptr<f32>>
  }
  %cm = tile.expand_dims %rows, axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %c64r = arith.constant dense<64> : tensor<128x1xi32>
  %crow = arith.muli %cm, %c64r : tensor<128x1xi32>
  %crowb = tile.broadcast %crow : tensor<128x1xi32> -> tensor<128x64xi32>
  %cn = tile.expand_dims %cols, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<128x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<128x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<128x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xi32>
  tile.store %cptrs, %acc : tensor<128x64x!tile.ptr<f32>>
  tile.return
}

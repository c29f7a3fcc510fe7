// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=3" | FileCheck %s --check-prefixes=CUDA,MMA
// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3" | FileCheck %s --check-prefixes=CUDA,WGMMA
// RUN: tessera-opt %s -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4 num-stages=3" | FileCheck %s --check-prefix=VK

// A dot operand defined before a pipelined loop (attention's Q against a
// ring of K blocks) is stored into a buffer of its own once, before the loop,
// behind one barrier (and, for wgmma, which reads shared memory through the
// async proxy, a proxy fence), and staged for the loop: no iteration stores
// it again, and the dot, its operands both staged, needs no barrier of its
// own.

tile.func @q_times_k_blocks(%q: !tile.ptr<f16>, %k: !tile.ptr<f16>, %out: !tile.ptr<f32>, %ldk: i32 {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %m = tile.make_range 0 to 64 : tensor<64xi32>
  %d = tile.make_range 0 to 32 : tensor<32xi32>
  %qm = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32v = arith.constant dense<32> : tensor<64x1xi32>
  %qrow = arith.muli %qm, %c32v : tensor<64x1xi32>
  %qrowb = tile.broadcast %qrow : tensor<64x1xi32> -> tensor<64x32xi32>
  %qd = tile.expand_dims %d, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %qdb = tile.broadcast %qd : tensor<1x32xi32> -> tensor<64x32xi32>
  %qoff = arith.addi %qrowb, %qdb : tensor<64x32xi32>
  %qbase = tile.splat %q : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qptrs = tile.addptr %qbase, %qoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %qt = tile.load %qptrs : tensor<64x32x!tile.ptr<f16>>
  %kd = tile.expand_dims %d, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kdb = tile.broadcast %kd : tensor<32x1xi32> -> tensor<32x64xi32>
  %kn = tile.expand_dims %m, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ldks = tile.splat %ldk : i32 -> tensor<1x64xi32>
  %kcol = arith.muli %kn, %ldks : tensor<1x64xi32>
  %kcolb = tile.broadcast %kcol : tensor<1x64xi32> -> tensor<32x64xi32>
  %koff = arith.addi %kdb, %kcolb : tensor<32x64xi32>
  %kbase = tile.splat %k : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %kptrs = tile.addptr %kbase, %koff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %kstep = arith.muli %ldk, %c64 : i32
  %kstepv = tile.splat %kstep : i32 -> tensor<32x64xi32>
  %acc, %kp = scf.for %i = %c0 to %n step %c64
      iter_args(%acc_i = %acc0, %kp_i = %kptrs) -> (tensor<64x64xf32>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %kt = tile.load %kp_i : tensor<32x64x!tile.ptr<f16>>
    %s = tile.dot %qt, %kt, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %kp2 = tile.addptr %kp_i, %kstepv : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %s, %kp2 : tensor<64x64xf32>, tensor<32x64x!tile.ptr<f16>>
  }
  %om = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64v = arith.constant dense<64> : tensor<64x1xi32>
  %orow = arith.muli %om, %c64v : tensor<64x1xi32>
  %orowb = tile.broadcast %orow : tensor<64x1xi32> -> tensor<64x64xi32>
  %on = tile.expand_dims %m, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %onb = tile.broadcast %on : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %orowb, %onb : tensor<64x64xi32>
  %obase = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %optrs = tile.addptr %obase, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %optrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CUDA-LABEL: gpu.func @q_times_k_blocks
// CUDA: memref.view {{.*}} to memref<6144xf16
// CUDA: %[[Q:.*]] = memref.view %{{.*}}[%c12288][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2048xf16
// CUDA-COUNT-2: vector.store %{{.*}}, %[[Q]][
// WGMMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CUDA-NEXT: gpu.barrier
// CUDA: scf.for
// CUDA-NOT: store %{{.*}}, %[[Q]][
// MMA: nvgpu.ldmatrix %[[Q]][
// WGMMA: memref.extract_aligned_pointer_as_index %[[Q]]
// WGMMA: nvvm.wgmma.mma_async
// CUDA-NOT: store %{{.*}}, %[[Q]][
// CUDA: scf.yield
// CUDA: gpu.return

// VK-LABEL: gpu.func @q_times_k_blocks
// VK-SAME: %[[Q:[a-z0-9]+]] : memref<2048xf16, #gpu.address_space<workgroup>>
// VK-COUNT-16: memref.store %{{.*}}, %[[Q]][
// VK-NEXT: gpu.barrier
// VK: scf.for
// VK-NOT: memref.store %{{.*}}, %[[Q]][
// VK: memref.load %[[Q]][
// VK-NOT: memref.store %{{.*}}, %[[Q]][
// VK: scf.yield

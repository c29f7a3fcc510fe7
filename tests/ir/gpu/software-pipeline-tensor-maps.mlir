// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=true" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=false" | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=3 tensor-maps=true" | FileCheck %s --check-prefix=SM80

// With tensor-maps, the pipelined blocks of host descriptors (made of kernel
// arguments only, 16-byte aligned) that wgmma reads are copied by TMA: a
// tensor-map parameter per descriptor, 128-byte panels copied by
// cp.async.bulk.tensor on the stage's mbarrier (a descriptor's panels by
// consecutive warps, one each), and every thread waiting on that mbarrier's
// phase before the dot.

tile.func @tma_gemm(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
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

// CHECK-LABEL: gpu.func @tma_gemm
// CHECK-SAME: %[[A_MAP:[a-z0-9]+]]: !llvm.ptr, %[[B_MAP:[a-z0-9]+]]: !llvm.ptr) kernel
// CHECK-SAME: tessera.tensor_maps = [{base = 0 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "zero", shape = array<i64: 1, 2>, strides = array<i64: 3>, swizzle = 128 : i64}, {base = 4 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "zero", shape = array<i64: 2, 5>, strides = array<i64: 6>, swizzle = 128 : i64}]
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: "mbarrier.init.shared::cta.b64 [$0], 1;"
// CHECK: "fence.mbarrier_init.release.cluster;"
// CHECK: "prefetch.tensormap [$0];", "l" %[[A_MAP]]
// CHECK: "prefetch.tensormap [$0];", "l" %[[B_MAP]]
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// The prologue's copies, each of 64x64 (A) + 2x64x64 (B's two panels) bf16 = 24 KiB:
// The bytes announced by one lane (elect.sync) of warp 0, predicated, not
// branched on; A's box copied by warp 0, B's two in one instruction by warps
// 1 and 2, each its own panel (warp - 1):
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[WARP:.*]], %c0_i32
// CHECK: %[[WARP0:.*]] = arith.extui %[[IS0]]
// CHECK: elect.sync %tessera_lane|%tessera_elected, -1; setp.ne.and.b32 %tessera_issue, $2, 0, %tessera_elected; @%tessera_issue mbarrier.arrive.expect_tx.shared::cta.b64 %tessera_state, [$0], $1; }", "r,r,r" %{{.*}}, %c24576_i32, %[[WARP0]] :
// CHECK: cp.async.bulk.tensor.2d{{.*}}"r,l,r,r,r,r" %{{.*}}, %[[A_MAP]], %{{.*}}, %{{.*}}, %{{.*}}, %[[WARP0]] :
// CHECK: %[[AFTER1:.*]] = arith.addi %[[WARP]], %c3_i32
// CHECK: %[[TURN:.*]] = arith.remui %[[AFTER1]], %c4_i32
// CHECK: %[[ISSUES:.*]] = arith.cmpi ult, %[[TURN]], %c2_i32
// CHECK: %[[B_WARPS:.*]] = arith.extui %[[ISSUES]]
// CHECK: %[[PANEL_BYTES:.*]] = arith.muli %[[TURN]], %c8192_i32
// CHECK: %[[PANEL:.*]] = arith.addi %{{.*}}, %[[PANEL_BYTES]]
// CHECK: %[[PANEL_COLUMNS:.*]] = arith.muli %[[TURN]], %c64_i32
// CHECK: %[[COLUMN:.*]] = arith.addi %[[PANEL_COLUMNS]], %c64_i32
// CHECK: cp.async.bulk.tensor.2d{{.*}}"r,l,r,r,r,r" %[[PANEL]], %[[B_MAP]], %[[COLUMN]], %{{.*}}, %{{.*}}, %[[B_WARPS]] :
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: mbarrier.arrive.expect_tx
// CHECK: scf.for {{.*}} -> (f32,
// CHECK-NOT: nvvm.cp.async
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: cp.async.bulk.tensor.2d
// CHECK: "mbarrier.inval.shared::cta.b64 [$0];"

// OFF-LABEL: gpu.func @tma_gemm
// OFF-NOT: tessera.tensor_maps
// OFF-NOT: cp.async.bulk.tensor
// OFF: nvgpu.device_async_copy

// SM80-LABEL: gpu.func @tma_gemm
// SM80-NOT: tessera.tensor_maps
// SM80-NOT: cp.async.bulk.tensor
// SM80: nvgpu.device_async_copy

// -----

// A descriptor whose strides are not proved to be multiples of 16 bytes (A),
// or that is not made of arguments alone (B's stride is 64 N), is copied
// with cp.async.
tile.func @not_tma(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %N2 = arith.muli %N, %c64 : i32
  %ldb = arith.extsi %N2 : i32 to i64
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @not_tma
// CHECK-NOT: tessera.tensor_maps
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: nvgpu.device_async_copy

// -----

// Made in the kernel from arguments, as tl.make_tensor_descriptor(a_ptr,
// [M, K], [K, 1], ...) is: the i32 stride is sign-extended, the recipe
// names the i32 argument, and the launch encodes the map as for a host
// descriptor.
tile.func @kernel_made(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %lda = arith.extsi %K : i32 to i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %ldb = arith.extsi %N : i32 to i64
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldb, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @kernel_made
// CHECK-SAME: tessera.tensor_maps = [{base = 0 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "zero", shape = array<i64: 1, 2>, strides = array<i64: 2>, swizzle = 128 : i64}, {base = 3 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "zero", shape = array<i64: 2, 4>, strides = array<i64: 4>, swizzle = 128 : i64}]
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: cp.async.bulk.tensor.2d

// -----

// Extents and strides that are constants (a constexpr head dimension) go into
// the recipe as constants (-1 in place of an argument number).
tile.func @constant_extents(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %M: i32, %k: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %N: i32, %o: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ld = arith.constant 64 : i64
  %one = arith.constant 1 : i64
  %dq = tile.make_tensor_descriptor %q, [%M, %c64], [%ld, %one]
          : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %dk = tile.make_tensor_descriptor %k, [%N, %c64], [%ld, %one]
          : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %n = %c0 to %N step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %qt = tile.descriptor_load %dq[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>>
    %kt = tile.descriptor_load %dk[%n, %c0] : !tile.tensordesc<tensor<64x64xf16>>
    %ktt = tile.trans %kt, order = [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %next = tile.dot %qt, %ktt, %acc_i : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %do = tile.make_tensor_descriptor %o, [%M, %c64], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x64xf32>>
  tile.descriptor_store %do[%c0, %c0], %acc : !tile.tensordesc<tensor<64x64xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @constant_extents
// CHECK-SAME: {base = 2 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 64>, constant_strides = array<i64: 64>, element = f16, padding = "zero", shape = array<i64: 3, -1>, strides = array<i64: -1>, swizzle = 128 : i64}
// CHECK: cp.async.bulk.tensor.2d

// -----

// NaN padding: TMA fills with NaN, so with tensor-maps a NaN-padded
// descriptor's block is staged too. B is TMA-copied (recipe padding "nan");
// A, whose stride is computed, is copied into its stages by ordinary loads
// (NaN where outside) and shared stores, not by cp.async, which fills zeros.
tile.func @nan_padding(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %K2 = arith.muli %K, %c64 : i32
  %lda = arith.extsi %K2 : i32 to i64
  %da = tile.make_tensor_descriptor %a, [%M, %K], [%lda, %one] padding = nan
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x64xbf16>>
  %db = tile.make_tensor_descriptor %b, [%K, %N], [%ldb, %one] padding = nan
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  %acc0 = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc_i = %acc0) -> (tensor<64x128xf32>) : i32 {
    %at = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<64x64xbf16>>
    %bt = tile.descriptor_load %db[%k, %c0] : !tile.tensordesc<tensor<64x128xbf16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x64xbf16> * tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %ldc = arith.extsi %N : i32 to i64
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x128xf32>>
  tile.descriptor_store %dc[%c0, %c0], %acc : !tile.tensordesc<tensor<64x128xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @nan_padding
// CHECK-SAME: tessera.tensor_maps = [{base = 3 : i64, {{.*}} padding = "nan"
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
// CHECK: dense<0x7FC0> : vector<8xbf16>
// CHECK: scf.for
// CHECK: mbarrier.try_wait.parity
// CHECK: nvvm.fence.proxy
// CHECK: gpu.barrier
// CHECK: cp.async.bulk.tensor.2d
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<16384xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>

// OFF-LABEL: gpu.func @nan_padding
// OFF-NOT: tessera.tensor_maps

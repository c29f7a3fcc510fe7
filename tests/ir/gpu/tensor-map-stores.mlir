// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=true" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 tensor-maps=false" | FileCheck %s --check-prefix=OFF

// With tensor-maps, a block stored through a descriptor made of arguments
// alone (16-byte aligned, its rows' extent a multiple of 16 bytes: 8 bf16
// here, 4 f32 and 16 f32 below) is written by TMA: the block goes into shared
// memory as 128-byte panels swizzled as TMA reads them (stmatrix from the
// wgmma accumulator, whose conversion to the coalescing layout is not
// lowered), then, after a fence for the async proxy and a barrier, one
// cp.async.bulk.tensor per panel, the panels spread over the warps. At the
// kernel's end only the copies' reads of shared memory are waited for, and
// the barrier that ends the store goes (tile-gpu-elide-barriers): nothing
// after it writes shared memory.

tile.func @gemm_epilogue(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %M: i32, %K: i32, %lda: i64 {tile.divisibility = 16 : i32}, %b: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 8 : i32}, %ldb: i64 {tile.divisibility = 16 : i32}, %c: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %ldc: i64 {tile.divisibility = 16 : i32}) {
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
  %out = arith.truncf %acc : tensor<64x128xf32> to tensor<64x128xbf16>
  %dc = tile.make_tensor_descriptor %c, [%M, %N], [%ldc, %one]
          : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  tile.descriptor_store %dc[%c64, %c0], %out : !tile.tensordesc<tensor<64x128xbf16>>
  tile.return
}

// CHECK-LABEL: gpu.func @gemm_epilogue
// CHECK-SAME: %[[C_MAP:[a-z0-9]+]]: !llvm.ptr) kernel
// CHECK-SAME: {base = 7 : i64, box = array<i64: 64, 64>, constant_shape = array<i64: 0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "zero", shape = array<i64: 1, 5>, strides = array<i64: 8>, swizzle = 128 : i64}]
// CHECK: nvvm.wgmma.mma_async
// The accumulator goes into the panels once, with stmatrix, nothing back
// into registers:
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: memref.load
// CHECK-NOT: vector.load
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[TURN:.*]] = arith.remui
// CHECK: %[[ISSUES:.*]] = arith.cmpi ult, %[[TURN]], %c2_i32
// CHECK: %[[ISSUER:.*]] = arith.extui %[[ISSUES]]
// CHECK: "{ {{.*}}elect.sync{{.*}}@%tessera_issue cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3]; }", "l,r,r,r,r" %[[C_MAP]], %{{.*}}, %c64_i32, %{{.*}}, %[[ISSUER]]
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.return

// OFF-LABEL: gpu.func @gemm_epilogue
// OFF-NOT: tessera.tensor_maps
// OFF-NOT: bulk_group
// OFF: memref.extract_aligned_pointer_as_index %arg7
// OFF: st.global.v4.b32

// -----

// A TMA store followed by another access through its argument (y's 4-row
// store) waits for its writes, as for a plain store's; a
// block of f32 not in a matrix layout goes into the panels by vector stores
// of its runs (4 f32, 16 bytes). A descriptor without a tensor map (its base
// not proved 16-byte aligned) and a block of 4 rows (a panel would not start
// on the swizzle's repeat; 2 f32 a thread) store through registers.
tile.func @copies(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %z: !tile.ptr<f32>, %M: i32, %N: i32 {tile.divisibility = 4 : i32}, %ld: i64 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %dy = tile.make_tensor_descriptor %y, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %dz = tile.make_tensor_descriptor %z, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %dx4 = tile.make_tensor_descriptor %x, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<4x64xf32>>
  %dy4 = tile.make_tensor_descriptor %y, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<4x64xf32>>
  %block = tile.descriptor_load %dx[%c0, %c0] : !tile.tensordesc<tensor<32x64xf32>>
  tile.descriptor_store %dy[%c0, %c0], %block : !tile.tensordesc<tensor<32x64xf32>>
  %rows = tile.descriptor_load %dx4[%c0, %c0] : !tile.tensordesc<tensor<4x64xf32>>
  tile.descriptor_store %dy4[%c0, %c0], %rows : !tile.tensordesc<tensor<4x64xf32>>
  tile.descriptor_store %dz[%c0, %c0], %block : !tile.tensordesc<tensor<32x64xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @copies
// CHECK-SAME: %[[Y_MAP:[a-z0-9]+]]: !llvm.ptr) kernel
// CHECK-SAME: tessera.tensor_maps = [{base = 1 : i64, box = array<i64: 32, 32>, {{.*}}element = f32, {{.*}}swizzle = 128 : i64}]
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group {{.*}} %[[Y_MAP]]
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: bulk_group
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: st.global.v2.b32
// CHECK: vector.store %{{.*}}, %arg2[

// -----

// Work after a TMA store that does not go through its argument (here a flag
// stored through another) waits only for the copies' reads of the buffer;
// a TMA store in a loop first waits for the writes of the iteration before,
// ahead of the barrier before its copies, and each iteration's writes drain
// while the next one runs.
tile.func @stores_then_more(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %flag: !tile.ptr<i32>, %M: i32, %N: i32 {tile.divisibility = 16 : i32}, %ld: i64 {tile.divisibility = 16 : i32}, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %dy = tile.make_tensor_descriptor %y, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  scf.for %i = %c0 to %steps step %c1 : i32 {
    %row = arith.muli %i, %c32 : i32
    %block = tile.descriptor_load %dx[%row, %c0] : !tile.tensordesc<tensor<32x64xf32>>
    tile.descriptor_store %dy[%row, %c0], %block : !tile.tensordesc<tensor<32x64xf32>>
  }
  tile.store %flag, %c1 : !tile.ptr<i32>
  tile.return
}

// CHECK-LABEL: gpu.func @stores_then_more
// CHECK: scf.for
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: "cp.async.bulk.wait_group 0;"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: "cp.async.bulk.commit_group;"
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }

// -----

// TMA writes whole 16-byte chunks of a row: where the last extent may end
// inside one (N a multiple of 2 f32 only, 8 bytes), a TMA store would
// overwrite what follows it, so the block is stored element-wise.
tile.func @ragged_rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %M: i32, %N: i32 {tile.divisibility = 2 : i32}, %ld: i64 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %dy = tile.make_tensor_descriptor %y, [%M, %N], [%ld, %one]
          : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %block = tile.descriptor_load %dx[%c0, %c0] : !tile.tensordesc<tensor<32x64xf32>>
  tile.descriptor_store %dy[%c0, %c0], %block : !tile.tensordesc<tensor<32x64xf32>>
  tile.return
}

// CHECK-LABEL: gpu.func @ragged_rows
// CHECK-NOT: bulk_group
// CHECK: vector.store %{{.*}}, %arg1[
// CHECK-NOT: bulk_group
// CHECK: gpu.return

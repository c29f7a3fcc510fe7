// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32:coopmat num-warps=4 num-stages=1" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4 num-stages=1" | FileCheck %s --check-prefix=PLAIN
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32:coopmat num-warps=4 num-stages=1" \
// RUN:   | tessera-opt -split-input-file -tessera-gpu-to-spirv="target=vulkan:1.3:subgroup=32:coopmat" | FileCheck %s --check-prefix=SPIRV

// An f16 dot on a Vulkan target with cooperative matrices: the operands go
// row-major to workgroup memory, the accumulator through a buffer of its
// own (M * N f32): each thread stores its registers, the subgroups load
// their 16x16 pieces, multiply over K (unrolled: 32 / 16 steps), store them
// back, and each thread reads its registers again.

tile.func @dot(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) {
  %ra = tile.make_range 0 to 2048 : tensor<2048xi32>
  %ia = tile.reshape %ra : tensor<2048xi32> -> tensor<64x32xi32>
  %pa = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qa = tile.addptr %pa, %ia : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %va = tile.load %qa : tensor<64x32x!tile.ptr<f16>>
  %ib = tile.reshape %ra : tensor<2048xi32> -> tensor<32x64xi32>
  %pb = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %qb = tile.addptr %pb, %ib : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %vb = tile.load %qb : tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %vb, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %rc = tile.make_range 0 to 4096 : tensor<4096xi32>
  %ic = tile.reshape %rc : tensor<4096xi32> -> tensor<64x64xi32>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %ic : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %d : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @dot
// CHECK-SAME: workgroup(%[[A:[^ ]*]] : memref<2048xf16, #gpu.address_space<workgroup>> {{.*}}, %[[B:[^ ]*]] : memref<2048xf16, #gpu.address_space<workgroup>> {{.*}}, %[[C:[^ ]*]] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}}, %[[A]]
// CHECK: memref.store {{.*}}, %[[B]]
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}}, %[[C]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[C]][{{.*}}] {leadDimension = 64 : index} {{.*}} -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_load_matrix %[[A]][{{.*}}] {leadDimension = 32 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[B]][{{.*}}] {leadDimension = 64 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK-COUNT-4: gpu.subgroup_mma_store_matrix {{.*}}, %[[C]][{{.*}}] {leadDimension = 64 : index}
// CHECK: gpu.barrier
// CHECK: memref.load %[[C]]

// PLAIN-LABEL: gpu.func @dot
// PLAIN-NOT: subgroup_mma
// PLAIN: math.fma
// PLAIN-NOT: subgroup_mma

// SPIRV: spirv.module @__spv__dot Logical GLSL450 requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR{{.*}}], [{{.*}}SPV_KHR_cooperative_matrix{{.*}}]>
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor> : !spirv.ptr<f32, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPIRV: spirv.KHR.CooperativeMatrixStore

// -----

// Two pieces for four subgroups (a 16x32 result): subgroups 2 and 3 skip
// the multiplication.
tile.func @small(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) {
  %ra = tile.make_range 0 to 256 : tensor<256xi32>
  %ia = tile.reshape %ra : tensor<256xi32> -> tensor<16x16xi32>
  %pa = tile.splat %a : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>>
  %qa = tile.addptr %pa, %ia : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
  %va = tile.load %qa : tensor<16x16x!tile.ptr<f16>>
  %rb = tile.make_range 0 to 512 : tensor<512xi32>
  %ib = tile.reshape %rb : tensor<512xi32> -> tensor<16x32xi32>
  %pb = tile.splat %b : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %qb = tile.addptr %pb, %ib : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %vb = tile.load %qb : tensor<16x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %d = tile.dot %va, %vb, %zero : tensor<16x16xf16> * tensor<16x32xf16> -> tensor<16x32xf32>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %ib : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>
  tile.store %qc, %d : tensor<16x32x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @small
// CHECK: %[[BUSY:.*]] = arith.cmpi ult, %{{.*}}, %c2
// CHECK: scf.if %[[BUSY]] {
// CHECK-COUNT-1: gpu.subgroup_mma_compute
// CHECK: }
// CHECK: gpu.barrier

// -----

// f32 operands have no cooperative-matrix shape here: the FMA path.
tile.func @f32dot(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>) {
  %ra = tile.make_range 0 to 1024 : tensor<1024xi32>
  %ia = tile.reshape %ra : tensor<1024xi32> -> tensor<32x32xi32>
  %pa = tile.splat %a : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %qa = tile.addptr %pa, %ia : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %va = tile.load %qa : tensor<32x32x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %va, %va, %zero : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %ia : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %qc, %d : tensor<32x32x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @f32dot
// CHECK-NOT: subgroup_mma
// CHECK: math.fma

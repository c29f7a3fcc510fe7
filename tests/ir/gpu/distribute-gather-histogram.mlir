// RUN: tessera-opt %s -split-input-file -tile-gpu-distribute | FileCheck %s

// gather on a Vulkan target with 8-lane subgroups and 2 warps (16 threads, 2
// elements each): the source goes to a workgroup buffer, each register reads
// at its index wrapped into the axis (& 31), between two barriers.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
tile.func @gather(%x: !tile.ptr<f32>, %i: !tile.ptr<i32>, %out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %xp = tile.addptr %xb, %r : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %ib = tile.splat %i : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #L>
  %ip = tile.addptr %ib, %r : tensor<32x!tile.ptr<i32>, #L>, tensor<32xi32, #L>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %op = tile.addptr %ob, %r : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %src = tile.load %xp : tensor<32x!tile.ptr<f32>, #L>
  %idx = tile.load %ip : tensor<32x!tile.ptr<i32>, #L>
  %g = tile.gather %src[%idx] axis = 0 : tensor<32xf32, #L>, tensor<32xi32, #L> -> tensor<32xf32, #L>
  tile.store %op, %g : tensor<32x!tile.ptr<f32>, #L>
  tile.return
}

// CHECK-LABEL: gpu.func @gather
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[I0:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: %[[I1:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: %[[W0:.*]] = arith.andi %[[I0]], %c31_i32
// CHECK: %[[F0:.*]] = arith.addi %{{.*}}, %[[W0]] overflow<nsw, nuw>
// CHECK: %[[X0:.*]] = arith.index_cast %[[F0]]
// CHECK: memref.load %[[BUF]][%[[X0]]]
// CHECK: %[[W1:.*]] = arith.andi %[[I1]], %c31_i32
// CHECK: memref.load %[[BUF]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<?xf32>

// -----

// histogram: the 8 counts (one per lane of each warp, copied in both warps)
// are zeroed, the 32 elements each counted once with a workgroup atomic
// where their value is below 8 as unsigned and the mask holds, and read back.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
#B = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4]], warp = [[0]]>
tile.func @histogram(%x: !tile.ptr<i16>, %out: !tile.ptr<i32>, %n: i32)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %xb = tile.splat %x : !tile.ptr<i16> -> tensor<32x!tile.ptr<i16>, #L>
  %xp = tile.addptr %xb, %r : tensor<32x!tile.ptr<i16>, #L>, tensor<32xi32, #L>
  %values = tile.load %xp : tensor<32x!tile.ptr<i16>, #L>
  %nb = tile.splat %n : i32 -> tensor<32xi32, #L>
  %mask = arith.cmpi slt, %r, %nb : tensor<32xi32, #L>
  %h = tile.histogram %values, mask %mask : tensor<32xi16, #L>, tensor<32xi1, #L> -> tensor<8xi32, #B>
  %rb = tile.make_range 0 to 8 : tensor<8xi32, #B>
  %ob = tile.splat %out : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>, #B>
  %op = tile.addptr %ob, %rb : tensor<8x!tile.ptr<i32>, #B>, tensor<8xi32, #B>
  tile.store %op, %h : tensor<8x!tile.ptr<i32>, #B>
  tile.return
}

// CHECK-LABEL: gpu.func @histogram
// CHECK-SAME: workgroup(%[[COUNTS:.*]] : memref<8xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[M0:.*]] = arith.cmpi slt
// CHECK: %[[M1:.*]] = arith.cmpi slt
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNTS]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[V0:.*]] = arith.extsi %{{.*}} : i16 to i32
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[V0]], %c8_i32
// CHECK: %[[ON0:.*]] = arith.andi %[[IN0]], %[[M0]]
// CHECK: scf.if %[[ON0]] {
// CHECK: %[[BIN0:.*]] = arith.index_cast %[[V0]]
// CHECK: memref.atomic_rmw addi %c1_i32{{.*}}, %[[COUNTS]][%[[BIN0]]]
// CHECK: %[[V1:.*]] = arith.extsi %{{.*}} : i16 to i32
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[V1]], %c8_i32
// CHECK: %[[ON1:.*]] = arith.andi %[[IN1]], %[[M1]]
// CHECK: scf.if %[[ON1]] {
// CHECK: memref.atomic_rmw addi
// CHECK: gpu.barrier
// CHECK: memref.load %[[COUNTS]]
// CHECK: gpu.barrier
// CHECK-NOT: memref.atomic_rmw

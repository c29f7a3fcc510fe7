// RUN: tessera-opt %s -split-input-file -tile-gpu-distribute | FileCheck %s

// Vector add on a Vulkan target with 8-lane subgroups and 2 warps: 16
// threads, 2 elements each. Pointers become memref<?xf32> arguments and
// element offsets; every access is one memref op per register under its mask.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
tile.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %pid = tile.program_id x
  %c32 = arith.constant 32 : i32
  %start = arith.muli %pid, %c32 : i32
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %s = tile.splat %start : i32 -> tensor<32xi32, #L>
  %offs = arith.addi %s, %r : tensor<32xi32, #L>
  %nb = tile.splat %n : i32 -> tensor<32xi32, #L>
  %mask = arith.cmpi slt, %offs, %nb : tensor<32xi32, #L>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %xp = tile.addptr %xb, %offs : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %yp = tile.addptr %yb, %offs : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %op = tile.addptr %ob, %offs : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %a = tile.load %xp, %mask : tensor<32x!tile.ptr<f32>, #L>
  %b = tile.load %yp, %mask : tensor<32x!tile.ptr<f32>, #L>
  %sum = arith.addf %a, %b : tensor<32xf32, #L>
  tile.store %op, %sum, %mask : tensor<32x!tile.ptr<f32>, #L>
  tile.return
}

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @add
// CHECK: gpu.func @add(%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[N:.*]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 16, 1, 1>
// CHECK-SAME: tessera.num_warps = 2 : i32
// CHECK-SAME: tessera.shared_memory_bytes = 0 : i32
// The thread facts and the layout's lane and warp contributions: lane bits
// 0..2 move by 2, 4, 8 and the warp bit by 16.
// CHECK: %[[TIDX:.*]] = gpu.thread_id x
// CHECK: %[[TID:.*]] = arith.index_castui %[[TIDX]] : index to i32
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %[[EIGHT]]
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %[[EIGHT]]
// CHECK: arith.andi %[[LANE]]
// CHECK: arith.shrui %[[LANE]]
// CHECK: arith.andi %[[WARP]]
// CHECK: %[[COORD:.*]] = arith.xori
// CHECK: gpu.block_id x
// Register 0 is at the thread's coordinate, register 1 one further: the
// coordinate's bit 0 is clear, so that is a sum, and the block's start joins
// the coordinate before the register's constant, which stays outermost.
// CHECK: %[[START:.*]] = arith.muli
// CHECK: arith.addi %[[COORD]], %{{.*}} overflow<nsw, nuw> : i32
// CHECK: %[[R0:.*]] = arith.addi %[[START]], %[[COORD]] : i32
// CHECK: %[[BOTH:.*]] = arith.addi %[[START]], %[[COORD]] : i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[R1:.*]] = arith.addi %[[BOTH]], %[[ONE]] : i32
// CHECK: %[[M0:.*]] = arith.cmpi slt
// CHECK: %[[M1:.*]] = arith.cmpi slt
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[A0:.*]] = scf.if %[[M0]] -> (f32) {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: scf.yield %[[V]]
// CHECK: } else {
// CHECK: scf.if %[[M1]] -> (f32)
// CHECK: memref.load %[[Y]]
// CHECK: memref.load %[[Y]]
// CHECK: %[[S0:.*]] = arith.addf %[[A0]], %{{.*}} : f32
// CHECK: %[[S1:.*]] = arith.addf
// CHECK: scf.if %[[M0]] {
// CHECK-NEXT: memref.store %[[S0]], %[[OUT]][%{{.*}}] : memref<?xf32>
// CHECK: scf.if %[[M1]] {
// CHECK-NEXT: memref.store %[[S1]], %[[OUT]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// A conversion between layouts with the same lane and warp bases is a
// register renaming: no workgroup memory, no barrier.

#A = #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[4], [8], [16]], warp = [[32]]>
#B = #tgpu.layout<rank = 1, reg = [[2], [1]], lane = [[4], [8], [16]], warp = [[32]]>
tile.func @rename(%p: !tile.ptr<i32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 64 : tensor<64xi32, #A>
  %c = tgpu.convert_layout %r : tensor<64xi32, #A> -> tensor<64xi32, #B>
  %pb = tile.splat %p : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>, #B>
  %pp = tile.addptr %pb, %c : tensor<64x!tile.ptr<i32>, #B>, tensor<64xi32, #B>
  tile.store %pp, %c : tensor<64x!tile.ptr<i32>, #B>
  tile.return
}

// CHECK-LABEL: gpu.func @rename
// CHECK-NOT: workgroup
// The range registers 0..3 hold offsets 0, 1, 2, 3; #B's registers 1 and 2
// are #A's registers 2 and 1, so the second store writes the value 2 apart.
// CHECK: %[[R1:.*]] = arith.addi %[[T:.*]], %c1_i32{{.*}} overflow<nsw, nuw> : i32
// CHECK: %[[R2:.*]] = arith.addi %[[T]], %c2_i32{{.*}} overflow<nsw, nuw> : i32
// CHECK: memref.store %[[T]]
// CHECK: memref.store %[[R2]]
// CHECK: memref.store %[[R1]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// A conversion that moves elements between threads goes through a row-major
// workgroup buffer: store, barrier, load, barrier. On Vulkan the buffer is a
// workgroup attribution.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
#T = #tgpu.layout<rank = 1, reg = [[16]], lane = [[1], [2], [4]], warp = [[8]]>
tile.func @transpose_threads(%p: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %f = arith.sitofp %r : tensor<32xi32, #L> to tensor<32xf32, #L>
  %c = tgpu.convert_layout %f : tensor<32xf32, #L> -> tensor<32xf32, #T>
  %i = tile.make_range 0 to 32 : tensor<32xi32, #T>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #T>
  %pp = tile.addptr %pb, %i : tensor<32x!tile.ptr<f32>, #T>, tensor<32xi32, #T>
  tile.store %pp, %c : tensor<32x!tile.ptr<f32>, #T>
  tile.return
}

// CHECK-LABEL: gpu.func @transpose_threads
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: tessera.shared_memory_bytes = 0
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[BUF]]
// CHECK: memref.load %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store

// -----

// The same on NVIDIA: a view of dynamic shared memory, whose size the kernel
// records for the launch.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [[64]]>
#T = #tgpu.layout<rank = 1, reg = [[64]], lane = [[1], [2], [4], [8], [16]], warp = [[32]]>
tile.func @transpose_threads_nvidia(%p: !tile.ptr<f16>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "cuda:sm_90a"} {
  %r = tile.make_range 0 to 128 : tensor<128xi32, #L>
  %f = arith.sitofp %r : tensor<128xi32, #L> to tensor<128xf16, #L>
  %c = tgpu.convert_layout %f : tensor<128xf16, #L> -> tensor<128xf16, #T>
  %i = tile.make_range 0 to 128 : tensor<128xi32, #T>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>, #T>
  %pp = tile.addptr %pb, %i : tensor<128x!tile.ptr<f16>, #T>, tensor<128xi32, #T>
  tile.store %pp, %c : tensor<128x!tile.ptr<f16>, #T>
  tile.return
}

// CHECK-LABEL: gpu.func @transpose_threads_nvidia
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-SAME: tessera.shared_memory_bytes = 256 : i32
// CHECK: %[[DSM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[BUF:.*]] = memref.view %[[DSM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[BUF]]
// CHECK: gpu.barrier

// -----

// Reading the buffer back: runs of registers that hold consecutive elements
// of a row (8 f16 here) are one 16-byte vector load each, where every other
// basis keeps the runs aligned.

#S = #tgpu.layout<rank = 1, reg = [[16], [32], [64], [128]], lane = [[1], [2], [4], [8], [256]], warp = []>
#V = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8]], lane = [[16], [32], [64], [128], [256]], warp = []>
tile.func @vector_reads(%p: !tile.ptr<f16>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_90a"} {
  %r = tile.make_range 0 to 512 : tensor<512xi32, #S>
  %f = arith.sitofp %r : tensor<512xi32, #S> to tensor<512xf16, #S>
  %c = tgpu.convert_layout %f : tensor<512xf16, #S> -> tensor<512xf16, #V>
  %i = tile.make_range 0 to 512 : tensor<512xi32, #V>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>, #V>
  %pp = tile.addptr %pb, %i : tensor<512x!tile.ptr<f16>, #V>, tensor<512xi32, #V>
  tile.store %pp, %c : tensor<512x!tile.ptr<f16>, #V>
  tile.return
}

// CHECK-LABEL: gpu.func @vector_reads
// CHECK: gpu.barrier
// CHECK-NOT: memref.load
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<512xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<512xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: memref.load
// CHECK: gpu.barrier

// -----

// Register bit 3 moves by 9: the run from register 8 holds 9, 8, 11, 10, ...
// so every register is read on its own.

#S2 = #tgpu.layout<rank = 1, reg = [[16], [32], [64], [128]], lane = [[1], [2], [4], [8], [256]], warp = []>
#X = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [9]], lane = [[16], [32], [64], [128], [256]], warp = []>
tile.func @xor_runs_read_elements(%p: !tile.ptr<f16>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_90a"} {
  %r = tile.make_range 0 to 512 : tensor<512xi32, #S2>
  %f = arith.sitofp %r : tensor<512xi32, #S2> to tensor<512xf16, #S2>
  %c = tgpu.convert_layout %f : tensor<512xf16, #S2> -> tensor<512xf16, #X>
  %i = tile.make_range 0 to 512 : tensor<512xi32, #X>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>, #X>
  %pp = tile.addptr %pb, %i : tensor<512x!tile.ptr<f16>, #X>, tensor<512xi32, #X>
  tile.store %pp, %c : tensor<512x!tile.ptr<f16>, #X>
  tile.return
}

// CHECK-LABEL: gpu.func @xor_runs_read_elements
// CHECK: gpu.barrier
// CHECK-NOT: vector.load
// CHECK: memref.load
// CHECK: gpu.barrier

// -----

// A row reduction over [4, 32] whose rows span 8 lanes (3 lane bits) and both
// warps: registers first, then a butterfly of three shuffles, then the two
// warps' partials through workgroup memory.

#X = #tgpu.layout<rank = 2, reg = [[0, 1], [1, 0], [2, 0]], lane = [[0, 2], [0, 4], [0, 8]], warp = [[0, 16]]>
#R = #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[0], [0], [0]], warp = [[0]]>
tile.func @row_sum(%out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %one = arith.constant dense<1.0> : tensor<4x32xf32, #X>
  %sum = tile.reduce %one axis = 1 : tensor<4x32xf32, #X> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %i = tile.make_range 0 to 4 : tensor<4xi32, #R>
  %pb = tile.splat %out : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>, #R>
  %pp = tile.addptr %pb, %i : tensor<4x!tile.ptr<f32>, #R>, tensor<4xi32, #R>
  tile.store %pp, %sum : tensor<4x!tile.ptr<f32>, #R>
  tile.return
}

// CHECK-LABEL: gpu.func @row_sum
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[LANE:.*]] = arith.remui
// CHECK: %[[WARP:.*]] = arith.divui
// The result is held by copies in every lane and both warps: only lane 0 of
// warp 0 stores it.
// CHECK: %[[LANES:.*]] = arith.andi %[[LANE]], %c7_i32
// CHECK: %[[FIRSTLANE:.*]] = arith.cmpi eq, %[[LANES]], %c0_i32
// CHECK: %[[WARPS:.*]] = arith.andi %[[WARP]], %c1_i32
// CHECK: %[[FIRSTWARP:.*]] = arith.cmpi eq, %[[WARPS]]
// CHECK: %[[OWNER:.*]] = arith.andi %[[FIRSTLANE]], %[[FIRSTWARP]]
// Two registers per row, four rows.
// CHECK-COUNT-4: arith.addf %cst, %cst : f32
// CHECK-COUNT-4: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c8_i32{{.*}} : f32
// CHECK-COUNT-4: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c8_i32{{.*}} : f32
// CHECK-COUNT-4: gpu.shuffle xor %{{.*}}, %c4_i32{{.*}}, %c8_i32{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[BUF]]
// CHECK: memref.load %[[BUF]]
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: scf.if %[[OWNER]] {
// CHECK-NEXT: memref.store

// -----

// A dot on the FMA path (Vulkan has no matrix instructions here): operands to
// row-major workgroup buffers as they are, then one k-loop carrying every
// accumulator register of the thread, widening what it reads to f32.

#A = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0]], warp = [[8, 0]]>
#B = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0]], warp = [[0, 8]]>
#C = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [0, 4], [0, 8]], lane = [[1, 0], [2, 0], [4, 0]], warp = [[8, 0]]>
tile.func @fma_dot(%x: f16)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %a = tile.splat %x : f16 -> tensor<16x8xf16, #A>
  %b = tile.splat %x : f16 -> tensor<8x16xf16, #B>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32, #C>
  %c = tile.dot %a, %b, %zero : tensor<16x8xf16, #A> * tensor<8x16xf16, #B> -> tensor<16x16xf32, #C>
  tile.return
}

// CHECK-LABEL: gpu.func @fma_dot
// CHECK-SAME: workgroup(%[[ABUF:.*]] : memref<128xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BBUF:.*]] : memref<128xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-COUNT-8: memref.store %{{.*}}, %[[ABUF]]
// CHECK-COUNT-8: memref.store %{{.*}}, %[[BBUF]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %cst
// CHECK-SAME: -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// One row of A, 16 columns of B per step.
// CHECK: memref.load %[[ABUF]]
// CHECK: arith.extf
// CHECK-COUNT-16: memref.load %[[BBUF]]
// CHECK-COUNT-16: math.fma
// CHECK: scf.yield
// CHECK: gpu.barrier

// -----

// Loop-carried tiles are flattened into one iter arg per register; a
// loop-carried pointer keeps its base argument and carries its offsets.

#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
tile.func @accumulate(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>, %steps: i32)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %p0 = tile.addptr %pb, %r : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  %zero = arith.constant dense<0.0> : tensor<32xf32, #L>
  %c32 = arith.constant dense<32> : tensor<32xi32, #L>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc, %pend = scf.for %i = %c0 to %steps step %c1
      iter_args(%a = %zero, %q = %p0) -> (tensor<32xf32, #L>, tensor<32x!tile.ptr<f32>, #L>) : i32 {
    %v = tile.load %q : tensor<32x!tile.ptr<f32>, #L>
    %s = arith.addf %a, %v : tensor<32xf32, #L>
    %next = tile.addptr %q, %c32 : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
    scf.yield %s, %next : tensor<32xf32, #L>, tensor<32x!tile.ptr<f32>, #L>
  }
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %op = tile.addptr %ob, %r : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  tile.store %op, %acc : tensor<32x!tile.ptr<f32>, #L>
  tile.return
}

// CHECK-LABEL: gpu.func @accumulate
// CHECK-SAME: (%[[P:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[STEPS:.*]]: i32)
// CHECK: %[[RES:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args(%[[A0:.*]] = %cst, %[[A1:.*]] = %cst, %[[Q0:.*]] = %{{.*}}, %[[Q1:.*]] = %{{.*}}) -> (f32, f32, index, index)  : i32 {
// CHECK: %[[V0:.*]] = memref.load %[[P]][%[[Q0]]]
// CHECK: %[[V1:.*]] = memref.load %[[P]][%[[Q1]]]
// CHECK: %[[S0:.*]] = arith.addf %[[A0]], %[[V0]]
// CHECK: %[[S1:.*]] = arith.addf %[[A1]], %[[V1]]
// CHECK: %[[N0:.*]] = arith.addi %[[Q0]]
// CHECK: %[[N1:.*]] = arith.addi %[[Q1]]
// CHECK: scf.yield %[[S0]], %[[S1]], %[[N0]], %[[N1]] : f32, f32, index, index
// CHECK: memref.store %[[RES]]#0, %[[OUT]]
// CHECK: memref.store %[[RES]]#1, %[[OUT]]

// -----

// Atomics update each element once: the tile of 8 elements is held by both
// warps, so only warp 0 performs the adds; the old values go to the copies in
// warp 1 through workgroup memory.

#D = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4]], warp = [[0]]>
tile.func @histogram(%bins: !tile.ptr<f32>, %out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 8 : tensor<8xi32, #D>
  %pb = tile.splat %bins : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #D>
  %pp = tile.addptr %pb, %r : tensor<8x!tile.ptr<f32>, #D>, tensor<8xi32, #D>
  %one = arith.constant dense<1.0> : tensor<8xf32, #D>
  %old = tile.atomic_rmw fadd, relaxed, gpu, %pp, %one : tensor<8x!tile.ptr<f32>, #D>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #D>
  %op = tile.addptr %ob, %r : tensor<8x!tile.ptr<f32>, #D>, tensor<8xi32, #D>
  tile.store %op, %old : tensor<8x!tile.ptr<f32>, #D>
  tile.return
}

// CHECK-LABEL: gpu.func @histogram
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[WARP:.*]] = arith.divui
// CHECK: %[[WARPBIT:.*]] = arith.andi %[[WARP]], %{{.*}}
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[WARPBIT]], %{{.*}}
// CHECK: %[[OLD:.*]] = scf.if %[[OWNER]] -> (f32) {
// CHECK-NEXT: %[[RMW:.*]] = memref.atomic_rmw addf %cst, %{{.*}}[%{{.*}}] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: scf.yield %[[RMW]]
// CHECK: scf.if %[[OWNER]] {
// CHECK-NEXT: memref.store %[[OLD]], %[[BUF]]
// CHECK: gpu.barrier
// CHECK: %[[SHARED:.*]] = memref.load %[[BUF]]
// CHECK: gpu.barrier
// CHECK: scf.if %[[OWNER]] {
// CHECK-NEXT: memref.store %[[SHARED]]

// -----

// On NVIDIA (and AMD) a run of registers holding a contiguous piece of a row
// moves as one vector when it is aligned and wholly unmasked at run time;
// otherwise element by element (the ragged edge). 4 floats per thread: one
// 16-byte load per run, checked against the address's low 4 bits; on NVIDIA
// an ld.global.v4 of inline PTX, which LLVM cannot split into element loads
// and merge with the fallback's.

#V = #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128]]>
tile.func @copy_vectorized(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "cuda:sm_80"} {
  %r = tile.make_range 0 to 256 : tensor<256xi32, #V>
  %nb = tile.splat %n : i32 -> tensor<256xi32, #V>
  %mask = arith.cmpi slt, %r, %nb : tensor<256xi32, #V>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #V>
  %xp = tile.addptr %xb, %r : tensor<256x!tile.ptr<f32>, #V>, tensor<256xi32, #V>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #V>
  %op = tile.addptr %ob, %r : tensor<256x!tile.ptr<f32>, #V>, tensor<256xi32, #V>
  %a = tile.load %xp, %mask : tensor<256x!tile.ptr<f32>, #V>
  tile.store %op, %a, %mask : tensor<256x!tile.ptr<f32>, #V>
  tile.return
}

// CHECK-LABEL: gpu.func @copy_vectorized
// CHECK: %[[XADDR:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<?xf32> -> index
// CHECK: %[[LOW:.*]] = arith.andi %{{.*}}, %c15
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]]
// CHECK: %[[M01:.*]] = arith.andi %[[ALIGNED]], %{{.*}}
// CHECK: %[[M012:.*]] = arith.andi %[[M01]], %{{.*}}
// CHECK: %[[WHOLE:.*]] = arith.andi %[[M012]], %{{.*}}
// CHECK: %[[VALS:.*]]:4 = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK: llvm.inline_asm has_side_effects {{.*}}%tessera_global, $4; ld.global.v4.b32 {$0, $1, $2, $3}, [%tessera_global]; }", "=r,=r,=r,=r,l"
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load
// The store: the same run, one vector.store, element stores on the edge.
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: scf.if
// CHECK-NEXT: %[[OUTVEC:.*]] = vector.from_elements %[[VALS]]#0, %[[VALS]]#1, %[[VALS]]#2, %[[VALS]]#3 : vector<4xf32>
// CHECK-NEXT: vector.store %[[OUTVEC]], %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: memref.store
// CHECK: gpu.return

// -----

// tile.debug_barrier is a barrier that orders global memory too.

#L = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4], [8], [16]], warp = []>
tile.func @debug_barrier(%p: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #L>
  %f = arith.sitofp %r : tensor<32xi32, #L> to tensor<32xf32, #L>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #L>
  %pp = tile.addptr %pb, %r : tensor<32x!tile.ptr<f32>, #L>, tensor<32xi32, #L>
  tile.store %pp, %f : tensor<32x!tile.ptr<f32>, #L>
  tile.debug_barrier
  %g = tile.load %pp : tensor<32x!tile.ptr<f32>, #L>
  tile.store %pp, %g : tensor<32x!tile.ptr<f32>, #L>
  tile.return
}

// CHECK-LABEL: gpu.func @debug_barrier
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier {tessera.orders_global_memory}
// CHECK: memref.load

// -----

// A 16x64 f16 tile from a tensor-core accumulator's distribution (lanes
// 4 to a row, pairs of columns) to rows of 8-element runs, on NVIDIA: the
// shared rows are padded by 16 bytes (64 + 8 elements, a row stride of 72)
// so the 8 rows one store instruction writes fall into different banks. The
// accumulator holds stmatrix fragments: on sm_90 each thread's 16 pairs go
// out in 4 stmatrix.x4 (sm_80 below stores its 32 elements one by one).
#Acc = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#Rows = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>
tile.func @padded_rows(%p: !tile.ptr<f16>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_90a"} {
  %z = arith.constant dense<1.0> : tensor<16x64xf16, #Acc>
  %c = tgpu.convert_layout %z : tensor<16x64xf16, #Acc> -> tensor<16x64xf16, #Rows>
  %b = arith.constant dense<0> : tensor<16x64xi32, #Rows>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>, #Rows>
  %pp = tile.addptr %pb, %b : tensor<16x64x!tile.ptr<f16>, #Rows>, tensor<16x64xi32, #Rows>
  tile.store %pp, %c : tensor<16x64x!tile.ptr<f16>, #Rows>
  tile.return
}

// CHECK-LABEL: gpu.func @padded_rows
// CHECK-SAME: tessera.shared_memory_bytes = 2304 : i32
// CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1152xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.store
// CHECK: arith.constant 72 : i32
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1152xf16, #gpu.address_space<workgroup>>, vector<8xf16>

// -----

#Acc = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#Rows = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [0, 4], [4, 0], [8, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = []>
tile.func @padded_rows_sm80(%p: !tile.ptr<f16>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  %z = arith.constant dense<1.0> : tensor<16x64xf16, #Acc>
  %c = tgpu.convert_layout %z : tensor<16x64xf16, #Acc> -> tensor<16x64xf16, #Rows>
  %b = arith.constant dense<0> : tensor<16x64xi32, #Rows>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>, #Rows>
  %pp = tile.addptr %pb, %b : tensor<16x64x!tile.ptr<f16>, #Rows>, tensor<16x64xi32, #Rows>
  tile.store %pp, %c : tensor<16x64x!tile.ptr<f16>, #Rows>
  tile.return
}

// CHECK-LABEL: gpu.func @padded_rows_sm80
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-32: memref.store %{{.*}} : memref<1152xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.store %{{.*}} : memref<1152xf16
// CHECK: gpu.barrier

// -----

// A conversion of 128 KiB on a target with 32 KiB of shared memory goes
// through one 32 KiB buffer in four pieces, halved along the coordinate's
// top bits, which register bits of both layouts hold: a barrier after each
// piece's stores and after its loads.
#L = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8], [16], [32], [64], [128], [256], [512], [1024], [2048]], lane = [[4096], [8192], [16384]], warp = []>
#T = #tgpu.layout<rank = 1, reg = [[8], [16], [32], [64], [128], [256], [512], [1024], [2048], [4096], [8192], [16384]], lane = [[1], [2], [4]], warp = []>
tile.func @conversion_in_pieces(%out: !tile.ptr<i32>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32, #L>
  %c = tgpu.convert_layout %r : tensor<32768xi32, #L> -> tensor<32768xi32, #T>
  %base = tile.splat %out : !tile.ptr<i32> -> tensor<32768x!tile.ptr<i32>, #T>
  %ptrs = tile.addptr %base, %c : tensor<32768x!tile.ptr<i32>, #T>, tensor<32768xi32, #T>
  tile.store %ptrs, %c : tensor<32768x!tile.ptr<i32>, #T>
  tile.return
}
// CHECK-LABEL: gpu.func @conversion_in_pieces
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// The same 128 KiB where the layouts share no register bit: #L's warp bits
// hold the coordinate's top bits, #T's register bits. The warps take turns
// with the four pieces (warp bits 2 and 1: 00, 01, 10, 11), each storing its
// 128 registers while the others wait at the barrier; every thread loads a
// quarter of its registers from each piece.
#L = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8], [16], [32], [64]], lane = [[128], [256], [512], [1024], [2048]], warp = [[4096], [8192], [16384]]>
#T = #tgpu.layout<rank = 1, reg = [[256], [512], [1024], [2048], [4096], [8192], [16384]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64], [128]]>
tile.func @storing_warps_take_turns(%out: !tile.ptr<i32>)
    attributes {tgpu.num_warps = 8 : i32, tgpu.target = "vulkan:1.3:subgroup=32"} {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32, #L>
  %c = tgpu.convert_layout %r : tensor<32768xi32, #L> -> tensor<32768xi32, #T>
  %base = tile.splat %out : !tile.ptr<i32> -> tensor<32768x!tile.ptr<i32>, #T>
  %ptrs = tile.addptr %base, %c : tensor<32768x!tile.ptr<i32>, #T>, tensor<32768xi32, #T>
  tile.store %ptrs, %c : tensor<32768x!tile.ptr<i32>, #T>
  tile.return
}
// CHECK-LABEL: gpu.func @storing_warps_take_turns
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[BIT2:.*]] = arith.andi %[[WARP:.*]], %c4_i32
// CHECK: arith.cmpi eq, %[[BIT2]]
// CHECK: %[[BIT1:.*]] = arith.andi %[[WARP]], %c2_i32
// CHECK: arith.cmpi eq, %[[BIT1]]
// CHECK: scf.if
// CHECK-COUNT-128: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-32: memref.load
// CHECK: gpu.barrier {tessera.ends_shared_memory_user}
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK-COUNT-128: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: scf.if
// CHECK: gpu.barrier {tessera.ends_shared_memory_user}

// -----

// Back from #T to #L: every thread stores a quarter of its registers to
// each piece, and the warps take turns loading theirs. Registers of a warp
// not loading a piece keep what an earlier piece gave them (zero before).
#L = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8], [16], [32], [64]], lane = [[128], [256], [512], [1024], [2048]], warp = [[4096], [8192], [16384]]>
#T = #tgpu.layout<rank = 1, reg = [[256], [512], [1024], [2048], [4096], [8192], [16384]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64], [128]]>
tile.func @loading_warps_take_turns(%out: !tile.ptr<i32>)
    attributes {tgpu.num_warps = 8 : i32, tgpu.target = "vulkan:1.3:subgroup=32"} {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32, #T>
  %c = tgpu.convert_layout %r : tensor<32768xi32, #T> -> tensor<32768xi32, #L>
  %base = tile.splat %out : !tile.ptr<i32> -> tensor<32768x!tile.ptr<i32>, #L>
  %ptrs = tile.addptr %base, %c : tensor<32768x!tile.ptr<i32>, #L>, tensor<32768xi32, #L>
  tile.store %ptrs, %c : tensor<32768x!tile.ptr<i32>, #L>
  tile.return
}
// CHECK-LABEL: gpu.func @loading_warps_take_turns
// CHECK-COUNT-32: memref.store %{{.*}} : memref<8192xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[FIRST:.*]]:128 = scf.if %{{.*}} -> (i32,
// CHECK-COUNT-128: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %c0_i32
// CHECK: gpu.barrier {tessera.ends_shared_memory_user}
// CHECK: %[[SECOND:.*]]:128 = scf.if
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[FIRST]]#0, %[[FIRST]]#1,
// CHECK: scf.if
// CHECK: %[[FOURTH:.*]]:128 = scf.if
// CHECK: memref.store %[[FOURTH]]#0, %arg0

// -----

// A row kept in the registers of its broadcast: register bits 2 and 3 are
// zero (the [4, 16] tile's rows), so each thread's 4 columns are held 4
// times over. They are loaded once and shared (CSE merges the copies' sums).

#ROW = #tgpu.layout<rank = 1, reg = [[1], [2], [0], [0]], lane = [[4], [8], [0], [0], [0]], warp = []>
tile.func @row_copies_load_once(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=32"} {
  %i = tile.make_range 0 to 16 : tensor<16xi32, #ROW>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ROW>
  %pp = tile.addptr %pb, %i : tensor<16x!tile.ptr<f32>, #ROW>, tensor<16xi32, #ROW>
  %row = tile.load %pp : tensor<16x!tile.ptr<f32>, #ROW>
  %sum = arith.addf %row, %row : tensor<16xf32, #ROW>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ROW>
  %op = tile.addptr %ob, %i : tensor<16x!tile.ptr<f32>, #ROW>, tensor<16xi32, #ROW>
  tile.store %op, %sum : tensor<16x!tile.ptr<f32>, #ROW>
  tile.return
}

// CHECK-LABEL: gpu.func @row_copies_load_once
// CHECK-COUNT-4: memref.load %arg0
// CHECK-NOT: memref.load
// CHECK: gpu.return

// -----

// Eight rows per thread, each spread over four warps, the lanes all along
// the columns: rather than every thread loading its rows' 8 x 4 partials,
// each lane loads, for each of its rows, the partial of the warp its two
// lowest bits name, and a butterfly over lanes 1 and 2 combines the four:
// one barrier, 8 values read (Triton's form).

#X = #tgpu.layout<rank = 2, reg = [[0, 1], [1, 0], [2, 0], [4, 0]], lane = [[0, 2], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>
#R = #tgpu.layout<rank = 1, reg = [[1], [2], [4]], lane = [[0], [0], [0]], warp = [[0], [0]]>
tile.func @row_sums_across_lanes(%out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 4 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %one = arith.constant dense<1.0> : tensor<8x64xf32, #X>
  %sum = tile.reduce %one axis = 1 : tensor<8x64xf32, #X> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %i = tile.make_range 0 to 8 : tensor<8xi32, #R>
  %pb = tile.splat %out : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #R>
  %pp = tile.addptr %pb, %i : tensor<8x!tile.ptr<f32>, #R>, tensor<8xi32, #R>
  tile.store %pp, %sum : tensor<8x!tile.ptr<f32>, #R>
  tile.return
}

// CHECK-LABEL: gpu.func @row_sums_across_lanes
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c8_i32
// CHECK-COUNT-8: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[SLOT:.*]] = arith.andi %[[LANE]], %c3_i32
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[SLOT]] : i32
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[AT]]
// CHECK: %[[PARTIAL:.*]] = memref.load %[[BUF]][%[[INDEX]]]
// CHECK: gpu.shuffle xor %[[PARTIAL]], %c1_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK-COUNT-7: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK-NOT: memref.load
// CHECK: gpu.barrier {tessera.ends_shared_memory_user}
// CHECK-NOT: memref.load %[[BUF]]
// CHECK: gpu.return

// -----

// The same with a row bit on the lowest lane, whose lanes then hold other
// rows: the 32 partials (row-major, a row's four warps adjacent) are spread
// one per thread, combined by a butterfly over lanes 1 and 2, and the first
// lane of each four writes its row's sum behind them; every thread then
// reads its 4 sums.

#X = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2], [2, 0], [4, 0]], lane = [[1, 0], [0, 4], [0, 8]], warp = [[0, 16], [0, 32]]>
#R = #tgpu.layout<rank = 1, reg = [[2], [4]], lane = [[1], [0], [0]], warp = [[0], [0]]>
tile.func @row_sums_spread_over_threads(%out: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 4 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %one = arith.constant dense<1.0> : tensor<8x64xf32, #X>
  %sum = tile.reduce %one axis = 1 : tensor<8x64xf32, #X> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %i = tile.make_range 0 to 8 : tensor<8xi32, #R>
  %pb = tile.splat %out : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #R>
  %pp = tile.addptr %pb, %i : tensor<8x!tile.ptr<f32>, #R>, tensor<8xi32, #R>
  tile.store %pp, %sum : tensor<8x!tile.ptr<f32>, #R>
  tile.return
}

// CHECK-LABEL: gpu.func @row_sums_spread_over_threads
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<40xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TID:.*]] = arith.index_cast{{.*}} : index to i32
// CHECK-COUNT-4: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[SLOT:.*]] = arith.andi %[[TID]], %c3_i32
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[SLOT]], %c0
// CHECK: %[[MINE:.*]] = arith.addi %[[TID]], %c0
// CHECK-NOT: arith.minui
// CHECK: %[[PARTIAL:.*]] = memref.load %[[BUF]]
// CHECK: %[[OTHER:.*]], %{{.*}} = gpu.shuffle xor %[[PARTIAL]], %c1_i32{{.*}}, %c8_i32
// CHECK: %[[PAIR:.*]] = arith.addf %[[PARTIAL]], %[[OTHER]]
// CHECK: gpu.shuffle xor %[[PAIR]], %c2_i32{{.*}}, %c8_i32
// CHECK: %[[ROWSUM:.*]] = arith.addf %[[PAIR]]
// CHECK: scf.if %[[LEADER]] {
// CHECK:   %[[ROW:.*]] = arith.divui %[[MINE]], %c4_i32
// CHECK:   %[[AT:.*]] = arith.addi %[[ROW]], %c32_i32
// CHECK:   %[[ATINDEX:.*]] = arith.index_cast %[[AT]]
// CHECK:   memref.store %[[ROWSUM]], %[[BUF]][%[[ATINDEX]]]
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %[[BUF]]
// CHECK-NOT: memref.load
// CHECK: gpu.barrier

// -----

// A range's registers differ by constants, and arithmetic keeps each
// register's constant outermost, where LLVM folds it into the access:
// register 1 of `r * 128 + n + r` is `(t * 128 + n + t) + 129`, t the
// thread's coordinate, which register 1 extends by a sum (its bit 0 is
// clear), and the two terms' constants add up.
#R = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = [[16]]>
tile.func @constant_outermost(%p: !tile.ptr<i32>, %n: i32)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32 : tensor<32xi32, #R>
  %k = arith.constant dense<128> : tensor<32xi32, #R>
  %s = arith.muli %r, %k : tensor<32xi32, #R>
  %ns = tile.splat %n : i32 -> tensor<32xi32, #R>
  %o = arith.addi %s, %ns : tensor<32xi32, #R>
  %o2 = arith.addi %o, %r : tensor<32xi32, #R>
  %pb = tile.splat %p : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #R>
  %pp = tile.addptr %pb, %o2 : tensor<32x!tile.ptr<i32>, #R>, tensor<32xi32, #R>
  tile.store %pp, %s : tensor<32x!tile.ptr<i32>, #R>
  tile.return
}

// CHECK-LABEL: gpu.func @constant_outermost
// CHECK: arith.addi %[[T:.*]], %c1_i32{{.*}} overflow<nsw, nuw> : i32
// CHECK: %[[S0:.*]] = arith.muli %[[T]], %[[K:.*]] : i32
// CHECK-NEXT: %[[TK:.*]] = arith.muli %[[T]], %[[K]] : i32
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[TK]], %[[C128]] : i32
// CHECK-NEXT: %[[O0:.*]] = arith.addi %[[S0]], %arg1 : i32
// CHECK-NEXT: %[[TN:.*]] = arith.addi %[[TK]], %arg1 : i32
// CHECK-NEXT: %[[C128B:.*]] = arith.constant 128 : i32
// CHECK-NEXT: arith.addi %[[TN]], %[[C128B]] : i32
// CHECK-NEXT: arith.addi %[[O0]], %[[T]] : i32
// CHECK-NEXT: %[[TNT:.*]] = arith.addi %[[TN]], %[[T]] : i32
// CHECK-NEXT: %[[C129:.*]] = arith.constant 129 : i32
// CHECK-NEXT: arith.addi %[[TNT]], %[[C129]] : i32
// CHECK: memref.store %[[S0]]
// CHECK: memref.store %[[S1]]

// -----

// Integers print with their sign, or as unsigned numbers where unsigned_args
// says so (zero-extended, %u and %llu).
// CHECK-LABEL: gpu.func @print_unsigned
// CHECK: %[[A:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: gpu.printf "words pid (%d, %d, %d) (operand 0) %u\0A", {{.*}}, %[[A]]
// CHECK: gpu.printf "words pid (%d, %d, %d) (operand 1) %llu\0A"
// CHECK: %[[C:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: gpu.printf "words pid (%d, %d, %d) (operand 2) %d\0A", {{.*}}, %[[C]]
tile.func @print_unsigned(%a: i8, %b: i64, %c: i8)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  tile.print "words " (%a, %b, %c : i8, i64, i8) {unsigned_args = array<i1: true, true, false>}
  tile.return
}

// -----

// A pointer cast to another element type views the same memory as those
// elements (tgpu.reinterpret_pointer); its index scales by the ratio of the
// sizes: f32 element 3 is byte 12, f32 element 2 the 1st i64 word.
// CHECK-LABEL: gpu.func @reinterpret
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>
// CHECK: %[[BYTES:.*]] = tgpu.reinterpret_pointer %[[X]] : memref<?xf32> to memref<?xi8>
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[BYTE:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK: memref.load %[[BYTES]][%[[BYTE]]] : memref<?xi8>
// CHECK: %[[WORDS:.*]] = tgpu.reinterpret_pointer %[[X]] : memref<?xf32> to memref<?xi64>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[SCALED:.*]] = arith.muli %{{.*}}, %[[FOUR]] : index
// CHECK: %[[WORD:.*]] = arith.floordivsi %[[SCALED]], %[[C8]] : index
// CHECK: memref.store %{{.*}}, %[[WORDS]][%[[WORD]]] : memref<?xi64>
tile.func @reinterpret(%x: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %third = tile.addptr %x, %c3 : !tile.ptr<f32>, i32
  %bytes = tile.bitcast %third : !tile.ptr<f32> -> !tile.ptr<i8>
  %b = tile.load %bytes : !tile.ptr<i8>
  %second = tile.addptr %x, %c2 : !tile.ptr<f32>, i32
  %words = tile.bitcast %second : !tile.ptr<f32> -> !tile.ptr<i64>
  %w = arith.extsi %b : i8 to i64
  tile.store %words, %w : !tile.ptr<i64>
  tile.return
}

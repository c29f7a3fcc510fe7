// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4" | FileCheck %s --check-prefixes=CHECK,CP
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefixes=CHECK,CP
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4 read-back-loads=always" | FileCheck %s --check-prefixes=CHECK,SYNC
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 read-back-loads=never" | FileCheck %s --check-prefix=REGS
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4" | FileCheck %s --check-prefix=REGS

// A persistent row loop without a dot that asks for 3 stages
// (tl.range(..., num_stages=3)): its row load is read back, through a ring
// of 2 stages that hold the next 2 iterations' rows. At the top of an
// iteration each thread waits for its own copies of this one, reads them
// back, and at once copies the iteration 2 later into the slots it just
// read: no barrier, no stage busy through the body, and no registers
// carried for the rows in flight. Without cp.async (and not asked to read
// back everywhere) or with read-back-loads=never, the row is prefetched one
// iteration ahead into registers the loop carries.

// CP-LABEL: gpu.func @centered_rows
// CP-SAME: "{{.*}}: 2 stages (num_stages 3), copies 2 iterations ahead by cp.async (1 load read back into registers)"
// CP: nvgpu.device_async_copy %arg0[%{{.*}}], %[[RING:.*]][%{{.*}}]
// CP: nvvm.cp.async.commit.group
// CP: nvgpu.device_async_copy %arg0[%{{.*}}], %[[RING]][%{{.*}}]
// CP: nvvm.cp.async.commit.group
// CP: scf.for %{{.*}} iter_args(%[[READ:.*]] = %{{.*}}, %[[WRITE:.*]] = %{{.*}}) -> (i32, i32)
// CP-NEXT: nvvm.cp.async.wait.group 1
// CP-NOT: gpu.barrier
// CP: vector.load %[[RING]]
// CP-NOT: gpu.barrier
// CP: nvgpu.device_async_copy %arg0[%{{.*}}], %[[RING]][%{{.*}}]
// CP: nvvm.cp.async.commit.group
// CP-NOT: %arg0[
// CP: gpu.shuffle xor

// SYNC-LABEL: gpu.func @centered_rows
// SYNC-SAME: "{{.*}}: 2 stages (num_stages 3), copies 2 iterations ahead by loads and shared stores (1 load read back into registers)"
// SYNC: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32)
// SYNC-NOT: gpu.barrier
// SYNC: memref.load %[[RING:.*]][%{{.*}}] : memref<512xf32, #gpu.address_space<workgroup>>
// SYNC-NOT: gpu.barrier
// SYNC: memref.load %arg0
// SYNC: memref.store %{{.*}}, %[[RING]]

// The ring is free for other users once every thread is past the loop.
// CHECK: scf.yield %{{.*}}, %{{.*}} : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier

// REGS-LABEL: gpu.func @centered_rows
// REGS-NOT: read back
// REGS: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
tile.func @centered_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %nrows: i32, %ncols: i32) {
  %pid = tile.program_id x
  %programs = tile.num_programs x
  %c2 = arith.constant 2 : i32
  %first = arith.muli %pid, %c2 : i32
  %step = arith.muli %programs, %c2 : i32
  %pair = tile.make_range 0 to 2 : tensor<2xi32>
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %colsr = tile.expand_dims %cols, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cols2 = tile.broadcast %colsr : tensor<1x128xi32> -> tensor<2x128xi32>
  %width = tile.splat %ncols : i32 -> tensor<2x128xi32>
  %incols = arith.cmpi slt, %cols2, %width : tensor<2x128xi32>
  %zero = arith.constant dense<0.0> : tensor<2x128xf32>
  %nf = arith.sitofp %ncols : i32 to f32
  %n2 = tile.splat %nf : f32 -> tensor<2xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<2x128x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<2x128x!tile.ptr<f32>>
  scf.for %block = %first to %nrows step %step : i32 {
    %b = tile.splat %block : i32 -> tensor<2xi32>
    %rows = arith.addi %b, %pair : tensor<2xi32>
    %rowsc = tile.expand_dims %rows, axis = 1 : tensor<2xi32> -> tensor<2x1xi32>
    %rows2 = tile.broadcast %rowsc : tensor<2x1xi32> -> tensor<2x128xi32>
    %height = tile.splat %nrows : i32 -> tensor<2x128xi32>
    %inrows = arith.cmpi slt, %rows2, %height : tensor<2x128xi32>
    %mask = arith.andi %inrows, %incols : tensor<2x128xi1>
    %starts = arith.muli %rows2, %width : tensor<2x128xi32>
    %offs = arith.addi %starts, %cols2 : tensor<2x128xi32>
    %p = tile.addptr %xb, %offs : tensor<2x128x!tile.ptr<f32>>, tensor<2x128xi32>
    %v = tile.load %p, %mask, %zero : tensor<2x128x!tile.ptr<f32>>
    %sum = tile.reduce %v axis = 1 : tensor<2x128xf32> {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tile.yield %s : f32
    }
    %mean = arith.divf %sum, %n2 : tensor<2xf32>
    %meanc = tile.expand_dims %mean, axis = 1 : tensor<2xf32> -> tensor<2x1xf32>
    %means = tile.broadcast %meanc : tensor<2x1xf32> -> tensor<2x128xf32>
    %centered = arith.subf %v, %means : tensor<2x128xf32>
    %q = tile.addptr %yb, %offs : tensor<2x128x!tile.ptr<f32>>, tensor<2x128xi32>
    tile.store %q, %centered, %mask : tensor<2x128x!tile.ptr<f32>>
  } {tile.num_stages = 3 : i32}
  tile.return
}

// -----

// A gather: the indices' load is prefetched into registers (the rows'
// addresses read its values, so the distribution copies no load of the
// loop ahead), and its load of the next iteration's indices, whose value
// only goes to the loop's next iteration, is not read back as well.

// CHECK-LABEL: gpu.func @gathered_rows
// CHECK-NOT: read back
// CHECK: scf.for {{.*}} iter_args
// REGS-LABEL: gpu.func @gathered_rows
// REGS-NOT: read back
// REGS: scf.for {{.*}} iter_args
tile.func @gathered_rows(%idx: !tile.ptr<i32>, %x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                         %nrows: i32) {
  %pid = tile.program_id x
  %programs = tile.num_programs x
  %c64 = arith.constant 64 : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %ib = tile.splat %idx : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %row = %pid to %nrows step %programs : i32 {
    %start = arith.muli %row, %c64 : i32
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %offs = arith.addi %starts, %cols : tensor<64xi32>
    %ip = tile.addptr %ib, %offs : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
    %i = tile.load %ip : tensor<64x!tile.ptr<i32>>
    %p = tile.addptr %xb, %i : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %v : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 3 : i32}
  tile.return
}

// -----

// One row through a pointer tile the loop advances, one through addresses
// from the induction variable: the prefetch pass leaves the second (it
// cannot prefetch the first), and both are read back, the first's
// pointers carried ahead as the recurrence of a dot loop's are.

// CP-LABEL: gpu.func @walked_rows
// CP-SAME: "{{.*}}: 2 stages (num_stages 3), copies 2 iterations ahead by cp.async (2 loads read back into registers)"
// SYNC-LABEL: gpu.func @walked_rows
// SYNC-SAME: "{{.*}}: 2 stages (num_stages 3), copies 2 iterations ahead by loads and shared stores (2 loads read back into registers)"
// REGS-LABEL: gpu.func @walked_rows
// REGS-NOT: read back
tile.func @walked_rows(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c1024 = arith.constant 1024 : i32
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %stride = tile.splat %c1024 : i32 -> tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %first = tile.addptr %xb, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%p = %first)
      -> (tensor<1024x!tile.ptr<f32>>) : i32 {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>>
    %start = arith.muli %i, %c1024 : i32
    %starts = tile.splat %start : i32 -> tensor<1024xi32>
    %offs = arith.addi %starts, %cols : tensor<1024xi32>
    %wp = tile.addptr %wb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %wv = tile.load %wp : tensor<1024x!tile.ptr<f32>>
    %sum = arith.addf %v, %wv : tensor<1024xf32>
    %q = tile.addptr %yb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %q, %sum : tensor<1024x!tile.ptr<f32>>
    %next = tile.addptr %p, %stride : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    scf.yield %next : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 3 : i32}
  tile.return
}

// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=cuda:sm_90a num-warps=4" | FileCheck %s --check-prefixes=CHECK,LEFT
// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefixes=CHECK,LEFT
// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=cuda:sm_90a num-warps=4 read-back-loads=never" | FileCheck %s --check-prefixes=CHECK,REGS
// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=vulkan:1.3:subgroup=32 num-warps=4" | FileCheck %s --check-prefixes=CHECK,REGS
// RUN: tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=vulkan:1.3:subgroup=32 num-warps=4 read-back-loads=always" | FileCheck %s --check-prefixes=CHECK,LEFT
// RUN: not tessera-opt %s -split-input-file -tile-gpu-prefetch-loads="target=cuda:sm_7" 2>&1 | FileCheck %s --check-prefix=BAD

// Where tile-gpu-distribute reads loads back (cp.async on sm_80 and later,
// or read-back-loads=always), a row load it can read back is left in its
// iteration: the distribution copies it ahead into shared memory. Elsewhere
// it is prefetched into a tile the loop carries.

// CHECK-LABEL: tile.func @rows
// LEFT-NOT: tile.load
// LEFT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// LEFT: tile.load
// LEFT: tile.num_stages = 3
// REGS: tile.load
// REGS: scf.for {{.*}} iter_args
// BAD: tile-gpu-prefetch-loads: {{.*}}sm_7
tile.func @rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<1024xi32>
    %offs = arith.addi %r, %cols : tensor<1024xi32>
    %p = tile.addptr %xb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %m = arith.cmpi slt, %offs, %r : tensor<1024xi32>
    %v = tile.load %p, %m, %zero : tensor<1024x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %q, %v : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 3 : i32}
  tile.return
}

// -----

// Prefetched on every target: a load from the argument the loop writes
// (copied ahead it would pass that write), one whose `other` is not zero
// (cp.async fills zeros), one that gives each of the 128 threads 2 bytes
// (cp.async copies 4 or more), and an unsigned loop's.

// CHECK-LABEL: tile.func @in_place
// CHECK: tile.load
// CHECK: scf.for {{.*}} iter_args
tile.func @in_place(%x: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<1024xi32>
    %offs = arith.addi %r, %cols : tensor<1024xi32>
    %p = tile.addptr %xb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>>
    %twice = arith.addf %v, %v : tensor<1024xf32>
    tile.store %p, %twice : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// CHECK-LABEL: tile.func @minus_infinity_outside
// CHECK: tile.load
// CHECK: scf.for {{.*}} iter_args
tile.func @minus_infinity_outside(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32,
                                  %step: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<1024xi32>
    %offs = arith.addi %r, %cols : tensor<1024xi32>
    %p = tile.addptr %xb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %m = arith.cmpi slt, %offs, %r : tensor<1024xi32>
    %v = tile.load %p, %m, %ninf : tensor<1024x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %q, %v : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// CHECK-LABEL: tile.func @two_bytes_a_thread
// CHECK: tile.load
// CHECK: scf.for {{.*}} iter_args
tile.func @two_bytes_a_thread(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %n: i32, %pid: i32,
                              %step: i32) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<128xi32>
    %offs = arith.addi %r, %cols : tensor<128xi32>
    %p = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %v = tile.load %p : tensor<128x!tile.ptr<f16>>
    %q = tile.addptr %yb, %offs : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    tile.store %q, %v : tensor<128x!tile.ptr<f16>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// CHECK-LABEL: tile.func @unsigned_rows
// CHECK: tile.load
// CHECK: scf.for unsigned {{.*}} iter_args
tile.func @unsigned_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  scf.for unsigned %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<1024xi32>
    %offs = arith.addi %r, %cols : tensor<1024xi32>
    %p = tile.addptr %xb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %q, %v : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// -----

// A stage of 64 Ki f32 would take more than half of sm_90a's shared memory:
// prefetched into registers.

// CHECK-LABEL: tile.func @wide_rows
// CHECK: tile.load
// CHECK: scf.for {{.*}} iter_args
tile.func @wide_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 65536 : tensor<65536xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<65536xi32>
    %offs = arith.addi %r, %cols : tensor<65536xi32>
    %p = tile.addptr %xb, %offs : tensor<65536x!tile.ptr<f32>>, tensor<65536xi32>
    %v = tile.load %p : tensor<65536x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<65536x!tile.ptr<f32>>, tensor<65536xi32>
    tile.store %q, %v : tensor<65536x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

// -----

// A gather: the rows' indices come from one load, the rows from another
// through them. The distribution pipelines no load of such a loop (the
// second's addresses read the first's values), so the indices are
// prefetched into registers on every target.

// CHECK-LABEL: tile.func @gathered_rows
// CHECK: tile.load
// CHECK: scf.for {{.*}} iter_args
tile.func @gathered_rows(%idx: !tile.ptr<i32>, %x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32,
                         %pid: i32, %step: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %ib = tile.splat %idx : !tile.ptr<i32> -> tensor<1024x!tile.ptr<i32>>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  scf.for %row = %pid to %n step %step : i32 {
    %r = tile.splat %row : i32 -> tensor<1024xi32>
    %offs = arith.addi %r, %cols : tensor<1024xi32>
    %ip = tile.addptr %ib, %offs : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
    %i = tile.load %ip : tensor<1024x!tile.ptr<i32>>
    %p = tile.addptr %xb, %i : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %q, %v : tensor<1024x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  tile.return
}

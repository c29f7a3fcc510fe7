// RUN: tessera-opt %s -split-input-file -tile-flatten-loops | FileCheck %s

// A persistent kernel's tile loop (marked tile.flatten, as tl.range(...,
// flatten=True) marks it) and its K loop become one loop over (tile, K
// block) pairs: K's step and the tile carried, the accumulator restarted
// from its initial value after each tile's last step, whose epilogue (the
// store, with its own copy of the row computation) runs under `if last`.
// A second loop runs the epilogues on the initial values where K has no
// step. A producer warpgroup asked for the nest is the flattened loop's, and
// its every step redoes the row (the form the producer was measured in).

tile.func @persistent(%c: !tile.ptr<f32>, %tiles: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %pid = tile.program_id x
  scf.for %t = %pid to %tiles step %c4 : i32 {
    %row = arith.muli %t, %c16 : i32
    %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %kf = arith.sitofp %k : i32 to f32
      %rf = arith.sitofp %row : i32 to f32
      %s = arith.addf %kf, %rf : f32
      %v = tile.splat %s : f32 -> tensor<16xf32>
      %n = arith.addf %a, %v : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %base = tile.addptr %c, %row : !tile.ptr<f32>, i32
    %ptrs = tile.splat %base : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %offs = tile.make_range 0 to 16 : tensor<16xi32>
    %at = tile.addptr %ptrs, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %at, %acc : tensor<16x!tile.ptr<f32>>
  } {tile.flatten, tile.warp_specialize}
  tile.return
}

// CHECK-LABEL: tile.func @persistent
// The trip counts in 64 bits, their product the flattened loop's:
// CHECK: %[[K_TRIPS:.*]] = arith.maxsi
// CHECK: %[[TILE_TRIPS:.*]] = arith.maxsi
// CHECK: %[[STEPS:.*]] = arith.muli %[[TILE_TRIPS]], %[[K_TRIPS]] : i64
// CHECK: %[[LAST_K:.*]] = arith.subi %[[K_TRIPS]], %c1_i64
// CHECK: scf.for %{{.*}} = %c0_i64 to %[[STEPS]] step %c1_i64 iter_args(%[[KI:.*]] = %c0_i64, %[[T:.*]] = %[[PID:.*]], %[[A:.*]] = %[[ZERO:.*]]) -> (i64, i32, tensor<16xf32>) : i64 {
// CHECK:   %[[KI32:.*]] = arith.trunci %[[KI]] : i64 to i32
// CHECK:   %[[KMUL:.*]] = arith.muli %[[KI32]], %c16_i32
// CHECK:   %[[K:.*]] = arith.addi %c0_i32, %[[KMUL]]
// CHECK:   %[[ROW:.*]] = arith.muli %[[T]], %c16_i32
// CHECK:   arith.sitofp %[[K]]
// CHECK:   arith.sitofp %[[ROW]]
// CHECK:   %[[NEXT:.*]] = arith.addf %[[A]], %{{.*}} : tensor<16xf32>
// CHECK:   %[[LAST:.*]] = arith.cmpi eq, %[[KI]], %[[LAST_K]] : i64
// CHECK:   scf.if %[[LAST]] {
// CHECK:     %[[ROW2:.*]] = arith.muli %[[T]], %c16_i32
// CHECK:     tile.addptr %{{.*}}, %[[ROW2]]
// CHECK:     tile.store %{{.*}}, %[[NEXT]]
// CHECK:   }
// CHECK:   %[[KI1:.*]] = arith.addi %[[KI]], %c1_i64
// CHECK:   %[[KI_NEXT:.*]] = arith.select %[[LAST]], %c0_i64, %[[KI1]]
// CHECK:   %[[T1:.*]] = arith.addi %[[T]], %c4_i32
// CHECK:   %[[T_NEXT:.*]] = arith.select %[[LAST]], %[[T1]], %[[T]]
// CHECK:   %[[A_NEXT:.*]] = arith.select %[[LAST]], %[[ZERO]], %[[NEXT]]
// CHECK:   scf.yield %[[KI_NEXT]], %[[T_NEXT]], %[[A_NEXT]]
// CHECK: } {tile.warp_specialize}
// CHECK: %[[NO_K:.*]] = arith.cmpi eq, %[[K_TRIPS]], %c0_i64
// CHECK: %[[END:.*]] = arith.select %[[NO_K]], %{{.*}}, %[[PID]] : i32
// CHECK: scf.for %[[T2:.*]] = %[[PID]] to %[[END]] step %c4_i32 : i32 {
// CHECK:   %[[ROW3:.*]] = arith.muli %[[T2]], %c16_i32
// CHECK:   tile.addptr %{{.*}}, %[[ROW3]]
// CHECK:   tile.store %{{.*}}, %[[ZERO]]
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: tile.return

// -----

// Without tile.warp_specialize (carry-tile-work, the default), the work
// before the K loop runs once per tile: the first step of a tile computes
// the row (`ki == 0`), the loop carries it, and the loads and the epilogue
// read the carried row. It starts from the first tile's row, never read
// (zeros would tell the contiguity analysis that a carried column range has
// one value throughout).

tile.func @carried(%c: !tile.ptr<f32>, %tiles: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %pid = tile.program_id x
  scf.for %t = %pid to %tiles step %c4 : i32 {
    %row = arith.muli %t, %c16 : i32
    %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %kf = arith.sitofp %k : i32 to f32
      %rf = arith.sitofp %row : i32 to f32
      %s = arith.addf %kf, %rf : f32
      %v = tile.splat %s : f32 -> tensor<16xf32>
      %n = arith.addf %a, %v : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %base = tile.addptr %c, %row : !tile.ptr<f32>, i32
    %ptrs = tile.splat %base : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %offs = tile.make_range 0 to 16 : tensor<16xi32>
    %at = tile.addptr %ptrs, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %at, %acc : tensor<16x!tile.ptr<f32>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: tile.func @carried
// CHECK: arith.subi %{{.*}}, %c1_i64 : i64
// CHECK: %[[FIRST_ROW:[a-z0-9_]+]] = arith.muli %[[PID:[a-z0-9_]+]], %c16_i32 : i32
// CHECK-NEXT: scf.for %{{.*}} iter_args(%[[KI:[a-z0-9_]+]] = %c0_i64, %[[T:[a-z0-9_]+]] = %[[PID]], %[[ROW_IN:[a-z0-9_]+]] = %[[FIRST_ROW]], %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}) -> (i64, i32, i32, tensor<16xf32>) : i64 {
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[KI]], %c0_i64 : i64
// CHECK:   %[[ROW:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK:     %[[FRESH:.*]] = arith.muli %[[T]], %c16_i32
// CHECK:     scf.yield %[[FRESH]]
// CHECK:   } else {
// CHECK:     scf.yield %[[ROW_IN]]
// CHECK:   }
// CHECK:   arith.sitofp %[[ROW]]
// CHECK:   %[[LAST:.*]] = arith.cmpi eq, %[[KI]], %{{.*}} : i64
// CHECK:   scf.if %[[LAST]] {
// CHECK-NOT: arith.muli
// CHECK:     tile.addptr %{{.*}}, %[[ROW]]
// CHECK:     tile.store
// CHECK:   }
// CHECK:   scf.yield %{{.*}}, %{{.*}}, %[[ROW]], %{{.*}} : i64, i32, i32, tensor<16xf32>
// CHECK: }

// -----

// An epilogue that reads the tile itself (not only the work before the K
// loop) reads the flattened loop's tile.

tile.func @epilogue_reads_the_tile(%c: !tile.ptr<f32>, %tiles: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %pid = tile.program_id x
  scf.for %t = %pid to %tiles step %c4 : i32 {
    %row = arith.muli %t, %c16 : i32
    %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %rf = arith.sitofp %row : i32 to f32
      %v = tile.splat %rf : f32 -> tensor<16xf32>
      %n = arith.addf %a, %v : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %again = arith.muli %t, %c16 : i32
    %base = tile.addptr %c, %again : !tile.ptr<f32>, i32
    %ptrs = tile.splat %base : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %offs = tile.make_range 0 to 16 : tensor<16xi32>
    %at = tile.addptr %ptrs, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %at, %acc : tensor<16x!tile.ptr<f32>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: tile.func @epilogue_reads_the_tile
// CHECK: scf.for %{{.*}} iter_args(%[[KI:[a-z0-9_]+]] = %c0_i64, %[[T:[a-z0-9_]+]] = %{{[a-z0-9_]+}}, {{.*}} : i64 {
// CHECK:   arith.cmpi eq, %[[KI]], %c0_i64 : i64
// CHECK:   %[[LAST:.*]] = arith.cmpi eq, %[[KI]], %{{.*}} : i64
// CHECK:   scf.if %[[LAST]] {
// CHECK:     %[[AGAIN:.*]] = arith.muli %[[T]], %c16_i32
// CHECK:     tile.addptr %{{.*}}, %[[AGAIN]]
// CHECK:     tile.store
// CHECK:   }

// -----

// The first tile may not exist (a program beyond the tiles): in the carried
// work's initial value a division divides by at least 1. Work that is the
// same for every tile (a range) moves above the loop instead of being
// carried.

tile.func @divided(%c: !tile.ptr<f32>, %tiles: i32, %per_row: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16xf32>
  %pid = tile.program_id x
  scf.for %t = %pid to %tiles step %c4 : i32 {
    %q = arith.divsi %t, %per_row : i32
    %row = arith.muli %q, %c16 : i32
    %lanes = tile.make_range 0 to 16 : tensor<16xi32>
    %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %rf = arith.sitofp %row : i32 to f32
      %v = tile.splat %rf : f32 -> tensor<16xf32>
      %lf = arith.sitofp %lanes : tensor<16xi32> to tensor<16xf32>
      %w = arith.addf %v, %lf : tensor<16xf32>
      %n = arith.addf %a, %w : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %base = tile.addptr %c, %row : !tile.ptr<f32>, i32
    %ptrs = tile.splat %base : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %offs = tile.make_range 0 to 16 : tensor<16xi32>
    %at = tile.addptr %ptrs, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %at, %acc : tensor<16x!tile.ptr<f32>>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: tile.func @divided
// CHECK: %[[LANES:.*]] = tile.make_range 0 to 16
// CHECK: %[[SAFE:.*]] = arith.maxsi %arg2, %c1_i32 : i32
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[PID:.*]], %[[SAFE]] : i32
// CHECK-NEXT: %[[FIRST_ROW:.*]] = arith.muli %[[Q]], %c16_i32 : i32
// CHECK-NEXT: scf.for %{{.*}} iter_args(%{{.*}} = %c0_i64, %{{.*}} = %[[PID]], %{{.*}} = %[[FIRST_ROW]], %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}) -> (i64, i32, i32, tensor<16xf32>)
// CHECK:   scf.if
// CHECK:     arith.divsi %{{.*}}, %arg2 : i32
// CHECK:   arith.sitofp %[[LANES]]

// -----

// Not flattened: an unmarked nest; a tile loop carrying a value; work with
// effects before the K loop (it would run in every step); a K loop whose
// bound changes with the tile.
tile.func @left_alone(%c: !tile.ptr<f32>, %tiles: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %r = scf.for %k = %c0 to %K step %c1 iter_args(%a = %zero) -> (f32) : i32 {
      scf.yield %a : f32
    }
    tile.store %c, %r : !tile.ptr<f32>
  }
  %sum = scf.for %t = %c0 to %tiles step %c1 iter_args(%s = %zero) -> (f32) : i32 {
    %r = scf.for %k = %c0 to %K step %c1 iter_args(%a = %s) -> (f32) : i32 {
      scf.yield %a : f32
    }
    scf.yield %r : f32
  } {tile.flatten}
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    tile.store %c, %zero : !tile.ptr<f32>
    %r = scf.for %k = %c0 to %K step %c1 iter_args(%a = %zero) -> (f32) : i32 {
      scf.yield %a : f32
    }
    tile.store %c, %r : !tile.ptr<f32>
  } {tile.flatten}
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %r = scf.for %k = %c0 to %t step %c1 iter_args(%a = %zero) -> (f32) : i32 {
      scf.yield %a : f32
    }
    tile.store %c, %r : !tile.ptr<f32>
  } {tile.flatten}
  tile.return
}

// CHECK-LABEL: tile.func @left_alone
// CHECK-NOT: i64
// CHECK-COUNT-8: scf.for
// CHECK-NOT: scf.for
// CHECK: tile.return

// RUN: tessera-opt %s -split-input-file -tile-gpu-assign-layouts="target=cuda:sm_90a num-warps=4" -tile-gpu-version-signed-remainders | FileCheck %s

// Columns from %first * 512 on, modulo %n, read in a loop: the rest of the
// kernel after `%first * 512` runs in two versions, the first on its
// maximum with 0, which the contiguity analysis proves non-negative.
tile.func @versioned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %first: i32, %n: i32 {tile.divisibility = 16 : i32}, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %start = arith.muli %first, %c512 : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %starts = tile.splat %start : i32 -> tensor<512xi32>
  %cols = arith.addi %starts, %range : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<512xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<512xf32>) : i32 {
    %rowStart = arith.muli %r, %n : i32
    %rowStarts = tile.splat %rowStart : i32 -> tensor<512xi32>
    %offsets = arith.addi %rowStarts, %wrapped : tensor<512xi32>
    %ptrs = tile.addptr %base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    %v = tile.load %ptrs : tensor<512x!tile.ptr<f32>>
    %next = arith.addf %acc, %v : tensor<512xf32>
    scf.yield %next : tensor<512xf32>
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %outPtrs, %sum : tensor<512x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @versioned
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[OK:.*]] = arith.cmpi sge, %[[START]], %[[ZERO]] : i32
// CHECK: scf.if %[[OK]] {
// CHECK:   %[[MAX:.*]] = arith.maxsi %[[START]], %{{.*}} : i32
// CHECK:   tile.splat %[[MAX]]
// CHECK:   arith.remsi
// CHECK:   scf.for
// CHECK:     tile.load
// CHECK:   tile.store
// CHECK: } else {
// CHECK:   tile.splat %[[START]]
// CHECK:   arith.remsi
// CHECK:   scf.for
// CHECK:     tile.load
// CHECK:   tile.store
// CHECK: }
// CHECK-NEXT: tile.return

// -----

// The same columns read once, outside any loop: one check per run, and no
// second version.
tile.func @outside_a_loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %first: i32, %n: i32 {tile.divisibility = 16 : i32}) {
  %c512 = arith.constant 512 : i32
  %start = arith.muli %first, %c512 : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %starts = tile.splat %start : i32 -> tensor<512xi32>
  %cols = arith.addi %starts, %range : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<512xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %ptrs = tile.addptr %base, %wrapped : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %ptrs : tensor<512x!tile.ptr<f32>>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %outPtrs, %v : tensor<512x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @outside_a_loop
// CHECK-NOT: scf.if
// CHECK: tile.return

// -----

// 128 columns over 4 warps: each thread holds one, so no run is checked.
tile.func @one_column_a_thread(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %first: i32, %n: i32 {tile.divisibility = 16 : i32},
                               %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %start = arith.muli %first, %c128 : i32
  %range = tile.make_range 0 to 128 : tensor<128xi32>
  %starts = tile.splat %start : i32 -> tensor<128xi32>
  %cols = arith.addi %starts, %range : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<128xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
    %rowStart = arith.muli %r, %n : i32
    %rowStarts = tile.splat %rowStart : i32 -> tensor<128xi32>
    %offsets = arith.addi %rowStarts, %wrapped : tensor<128xi32>
    %ptrs = tile.addptr %base, %offsets : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %v = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
    %next = arith.addf %acc, %v : tensor<128xf32>
    scf.yield %next : tensor<128xf32>
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %outPtrs, %sum : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @one_column_a_thread
// CHECK-NOT: scf.if
// CHECK: tile.return

// -----

// Columns from a program's own block: program ids are non-negative, so the
// runs are proved already.
tile.func @proved(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %start = arith.muli %pid, %c512 : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %starts = tile.splat %start : i32 -> tensor<512xi32>
  %cols = arith.addi %starts, %range : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<512xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<512xf32>) : i32 {
    %rowStart = arith.muli %r, %n : i32
    %rowStarts = tile.splat %rowStart : i32 -> tensor<512xi32>
    %offsets = arith.addi %rowStarts, %wrapped : tensor<512xi32>
    %ptrs = tile.addptr %base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    %v = tile.load %ptrs : tensor<512x!tile.ptr<f32>>
    %next = arith.addf %acc, %v : tensor<512xf32>
    scf.yield %next : tensor<512xf32>
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %outPtrs, %sum : tensor<512x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @proved
// CHECK-NOT: scf.if
// CHECK: tile.return

// -----

// A dividend read from memory has no scalar to test: left as it is.
tile.func @loaded_dividend(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                           %idx: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                           %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                           %n: i32 {tile.divisibility = 16 : i32}, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %idxs = tile.splat %idx : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>>
  %idxPtrs = tile.addptr %idxs, %range : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  %cols = tile.load %idxPtrs : tensor<512x!tile.ptr<i32>>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<512xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<512xf32>) : i32 {
    %rowStart = arith.muli %r, %n : i32
    %rowStarts = tile.splat %rowStart : i32 -> tensor<512xi32>
    %offsets = arith.addi %rowStarts, %wrapped : tensor<512xi32>
    %ptrs = tile.addptr %base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    %v = tile.load %ptrs : tensor<512x!tile.ptr<f32>>
    %next = arith.addf %acc, %v : tensor<512xf32>
    scf.yield %next : tensor<512xf32>
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %outPtrs, %sum : tensor<512x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @loaded_dividend
// CHECK-NOT: scf.if
// CHECK: tile.return

// -----

// The columns of each block of an outer loop: the rest of the outer body is
// versioned, and its `if` gives the body the sum it yields.
tile.func @in_a_loop_body(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %first: i32, %n: i32 {tile.divisibility = 16 : i32},
                          %blocks: i32, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c512 = arith.constant 512 : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %total = scf.for %b = %c0 to %blocks step %c1 iter_args(%all = %zero) -> (tensor<512xf32>) : i32 {
    %block = arith.addi %first, %b : i32
    %start = arith.muli %block, %c512 : i32
    %starts = tile.splat %start : i32 -> tensor<512xi32>
    %cols = arith.addi %starts, %range : tensor<512xi32>
    %wrapped = arith.remsi %cols, %ns : tensor<512xi32>
    %sum = scf.for %r = %c0 to %rows step %c1 iter_args(%acc = %all) -> (tensor<512xf32>) : i32 {
      %rowStart = arith.muli %r, %n : i32
      %rowStarts = tile.splat %rowStart : i32 -> tensor<512xi32>
      %offsets = arith.addi %rowStarts, %wrapped : tensor<512xi32>
      %ptrs = tile.addptr %base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
      %v = tile.load %ptrs : tensor<512x!tile.ptr<f32>>
      %next = arith.addf %acc, %v : tensor<512xf32>
      scf.yield %next : tensor<512xf32>
    }
    scf.yield %sum : tensor<512xf32>
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %outPtrs = tile.addptr %outs, %range : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %outPtrs, %total : tensor<512x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func @in_a_loop_body
// CHECK: scf.for
// CHECK:   %[[START:.*]] = arith.muli
// CHECK:   %[[OK:.*]] = arith.cmpi sge, %[[START]]
// CHECK:   %[[SUM:.*]] = scf.if %[[OK]] -> (tensor<512xf32, #{{.*}}>) {
// CHECK:     arith.maxsi %[[START]]
// CHECK:     %[[FAST:.*]] = scf.for
// CHECK:     scf.yield %[[FAST]]
// CHECK:   } else {
// CHECK:     %[[CHECKED:.*]] = scf.for
// CHECK:     scf.yield %[[CHECKED]]
// CHECK:   }
// CHECK:   scf.yield %[[SUM]]

// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=1" | FileCheck %s

// Offsets wrapped with % n keep 16-byte vectors in groups of 4 floats: n is
// divisible by 16 and the groups start at multiples of 64. The program id
// is not negative, so the groups are proved consecutive.
tile.func @wrapped(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x
  %c128 = arith.constant 128 : i32
  %first = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %fs = tile.splat %first : i32 -> tensor<128xi32>
  %cols = arith.addi %fs, %r : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<128xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %pb, %wrapped : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %ob, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %x : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @wrapped
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[ALIGNED]]
// CHECK-NEXT: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>

// -----

// The same with a first column of unknown sign: a negative group wraps at 0
// once at most, so each run is one vector where its last offset is its
// first + 3 at run time, and element loads at their own offsets otherwise.
tile.func @maybe_negative(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  %c128 = arith.constant 128 : i32
  %first = arith.muli %m, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %fs = tile.splat %first : i32 -> tensor<128xi32>
  %cols = arith.addi %fs, %r : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<128xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %pb, %wrapped : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %ob, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %x : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @maybe_negative
// CHECK: %[[FIRST:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: %[[LAST:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[EXPECTED:.*]] = arith.addi %[[FIRST]], %c3 : index
// CHECK: %[[CONSECUTIVE:.*]] = arith.cmpi eq, %[[LAST]], %[[EXPECTED]] : index
// CHECK: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[CONSECUTIVE]] : i1
// CHECK: scf.if %[[WHOLE]]
// CHECK-NEXT: vector.load %arg0[%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: memref.load %arg0[%[[FIRST]]]
// CHECK: memref.load %arg0[%{{.*}}]

// -----

// The same with `tl.assume(m >= 0)`: the first column is non-negative, so
// the runs are proved consecutive and only their alignment is checked.
tile.func @assumed_non_negative(%p: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sge, %m, %c0 : i32
  tile.assume %ok
  %c128 = arith.constant 128 : i32
  %first = arith.muli %m, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %fs = tile.splat %first : i32 -> tensor<128xi32>
  %cols = arith.addi %fs, %r : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<128xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %pb, %wrapped : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %ob, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %x : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @assumed_non_negative
// CHECK-NOT: tile.assume
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[ALIGNED]]
// CHECK-NEXT: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>

// -----

// Nothing is known of n, but tl.multiple_of / tl.max_contiguous promise runs
// of 128 consecutive offsets starting at multiples of 128: whole-row vectors
// of 4 floats, with no run-time check of the runs.
tile.func @hinted(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %c128 = arith.constant 128 : i32
  %first = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %fs = tile.splat %first : i32 -> tensor<128xi32>
  %cols = arith.addi %fs, %r : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %wrapped = arith.remsi %cols, %ns : tensor<128xi32>
  %hinted = tile.hint %wrapped {multiple_of = 128 : i64, max_contiguous = 128 : i64} : tensor<128xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %pb, %hinted : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %ob, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %x : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @hinted
// CHECK-NOT: tile.hint
// CHECK: vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: gpu.return

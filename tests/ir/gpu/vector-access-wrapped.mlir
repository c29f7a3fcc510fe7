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
// CHECK: ld.global.v4.b32

// -----

// The same with a first column of unknown sign: a negative group wraps at 0
// once at most, right after its first value, so each run is one vector where
// its last offset is its first + 3 at run time (tested as a difference,
// which stays the same where both move alike). Otherwise the first element
// is read at its own offset and the others address back from the last: only
// the endpoints' offsets are computed.
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
// CHECK-NEXT: %[[LAST:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NOT: arith.index_cast
// CHECK: %[[SPAN:.*]] = arith.subi %[[LAST]], %[[FIRST]] : index
// CHECK: %[[CONSECUTIVE:.*]] = arith.cmpi eq, %[[SPAN]], %c3 : index
// CHECK: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[CONSECUTIVE]] : i1
// CHECK: scf.if %[[WHOLE]]
// CHECK: ld.global.v4.b32
// CHECK: } else {
// CHECK-NEXT: memref.load %arg0[%[[FIRST]]]
// CHECK-NEXT: %[[SECOND:.*]] = arith.addi %[[LAST]], %c-2 : index
// CHECK-NEXT: memref.load %arg0[%[[SECOND]]]
// CHECK-NEXT: %[[THIRD:.*]] = arith.addi %[[LAST]], %c-1 : index
// CHECK-NEXT: memref.load %arg0[%[[THIRD]]]
// CHECK-NEXT: memref.load %arg0[%[[LAST]]]

// -----

// The same through a pointer of 16-byte aligned rows: the runs are proved
// aligned, so their endpoints are all they check (the aligned pointer only
// addresses the vector).
tile.func @maybe_negative_aligned(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
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

// CHECK-LABEL: gpu.func @maybe_negative_aligned
// CHECK: %[[FIRST:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[LAST:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %arg0
// CHECK-NEXT: %[[SPAN:.*]] = arith.subi %[[LAST]], %[[FIRST]] : index
// CHECK-NEXT: %[[CONSECUTIVE:.*]] = arith.cmpi eq, %[[SPAN]], %c3 : index
// CHECK-NEXT: scf.if %[[CONSECUTIVE]]
// CHECK: ld.global.v4.b32
// CHECK: } else {
// CHECK-NEXT: memref.load %arg0[%[[FIRST]]]

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
// CHECK: ld.global.v4.b32

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

// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=1 tensor-maps=false" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=hip:gfx942 num-warps=1" | FileCheck %s --check-prefix=AMD

// A row of a 16-byte aligned argument, masked by `cols < n` with n a
// multiple of 16: every 16-byte run is aligned and wholly in or out of the
// mask at compile time, so each is one vector access under the mask of its
// first element: no alignment check, no element-by-element fallback. On
// NVIDIA the load is one predicated ld.global whose registers start as the
// fill (no branch for LLVM to sink the loaded values' users into) and the
// store one predicated st.global (no branch for ptxas to keep); on AMD
// branches around a vector load and store (of 8 bytes: 128 floats on a
// 64-lane wave). (tensor-maps=false: with TMA, sm_90a's default, the
// descriptor block below would be stored by TMA.)
tile.func @row(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %v, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @row
// CHECK: %[[IN:.*]] = arith.cmpi slt
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[START:.*]] = arith.addi %[[BASE]]
// CHECK: %[[ADDRESS:.*]] = arith.index_castui %[[START]] : index to i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .u64 %tessera_global; cvta.to.global.u64 %tessera_global, $5; @$4 ld.global.v4.b32 {$0, $1, $2, $3}, [%tessera_global]; }", "=r,=r,=r,=r,b,l,0,1,2,3" %[[IN]], %[[ADDRESS]]
// CHECK-NOT: scf.if %[[IN]] ->
// CHECK-NOT: memref.load
// CHECK: %[[OUT:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[OUTSTART:.*]] = arith.addi %[[OUT]]
// CHECK: %[[OUTADDRESS:.*]] = arith.index_castui %[[OUTSTART]] : index to i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .u64 %tessera_global; cvta.to.global.u64 %tessera_global, $1; @$0 st.global.v4.b32 [%tessera_global], {$2, $3, $4, $5}; }", "b,l,r,r,r,r" %[[IN]], %[[OUTADDRESS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i1, i64, i32, i32, i32, i32) -> ()
// CHECK-NOT: scf.if
// CHECK-NOT: vector.store
// CHECK-NOT: memref.store

// AMD-LABEL: gpu.func @row
// AMD-NOT: memref.extract_aligned_pointer_as_index
// AMD-NOT: llvm.inline_asm
// AMD: %[[IN:.*]] = arith.cmpi slt
// AMD: scf.if %[[IN]] -> (f32, f32)
// AMD-NEXT: vector.load %arg0[%{{.*}}] {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// AMD: scf.if %{{.*}} {
// AMD: vector.store %{{.*}}, %arg1[%{{.*}}] {alignment = 8 : i64}

// -----

// `cols <= n` changes value between n and n + 1, inside a run: checked per
// run at run time, with the element fallback.
tile.func @row_inclusive(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi sle, %cols, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @row_inclusive
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: ld.global.v4.b32
// CHECK: } else {
// CHECK: memref.load %arg0

// -----

// The mask of a select is proved constant over each run of 4 registers
// (`cols < n`, n a multiple of 16): one comparison per run serves all four
// selects, where LLVM could not see that `col + 1 < n` is `col < n`.
tile.func @masked_select(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %w = arith.select %mask, %v, %zero : tensor<128xi1>, tensor<128xf32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %w : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @masked_select
// CHECK: %[[IN:.*]] = arith.cmpi slt
// CHECK-NOT: arith.cmpi slt
// CHECK-COUNT-4: arith.select %[[IN]]
// CHECK-NOT: arith.cmpi slt
// CHECK: gpu.return

// -----

// Descriptor blocks proved the same way: a 16-byte aligned base and row
// stride, a first column of 0 and a last extent that is a multiple of 16, so
// every 8-element run of a row is aligned and wholly inside or outside the
// shape. Each is one predicated ld.global / st.global, with no branch.
// CHECK-LABEL: gpu.func @descriptor_blocks
// CHECK-NOT: scf.if
// CHECK: @$4 ld.global.v4.b32
// CHECK-NOT: scf.if
// CHECK: @$0 st.global.v4.b32
// CHECK-NOT: scf.if
// CHECK: gpu.return
tile.func @descriptor_blocks(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %M: i32, %N: i32 {tile.divisibility = 16 : i32}, %ld: i64 {tile.divisibility = 16 : i32}) {
  %one = arith.constant 1 : i64
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %row = arith.muli %pid, %c64 : i32
  %c0 = arith.constant 0 : i32
  %dx = tile.make_tensor_descriptor %x, [%M, %N], [%ld, %one]
          : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %dy = tile.make_tensor_descriptor %y, [%M, %N], [%ld, %one]
          : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %block = tile.descriptor_load %dx[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>>
  tile.descriptor_store %dy[%row, %c0], %block : !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

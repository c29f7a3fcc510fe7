// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=1" | FileCheck %s

// Inline assembly runs once per register of the result (128 f32 in vectors
// of 4 on 32 lanes: 4 registers each); pure assembly has no side effects.

// CHECK-LABEL: gpu.func @tanh_approx
// CHECK-COUNT-4: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=r,r" %{{.*}} : (f32) -> f32
// CHECK-NOT: llvm.inline_asm
tile.func @tanh_approx(%x: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %t = tile.inline_asm_elementwise "tanh.approx.f32 $0, $1;"(%v) constraints "=r,r" pure : (tensor<128xf32>) -> tensor<128xf32>
  tile.store %xp, %t : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// pack 2: each operand and result of the assembly is a vector of two
// halves (one 32-bit register); two results come back as a struct. Without
// `pure` the assembly has side effects.

// CHECK-LABEL: gpu.func @packed_halves
// CHECK: %[[V:.*]] = llvm.insertelement
// CHECK: %[[PAIR:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r" %{{.*}} : (vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xi16>)>
// CHECK: llvm.extractvalue %[[PAIR]][0]
// CHECK: llvm.extractvalue %[[PAIR]][1]
// CHECK: llvm.extractelement
tile.func @packed_halves(%x: !tile.ptr<f16>, %y: !tile.ptr<i16>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %v = tile.load %xp : tensor<64x!tile.ptr<f16>>
  %a, %b = tile.inline_asm_elementwise "mov.b32 $0, $2; mov.b32 $1, $2;"(%v) constraints "=r,=r,r" pack 2 : (tensor<64xf16>) -> (tensor<64xf16>, tensor<64xi16>)
  tile.store %xp, %a : tensor<64x!tile.ptr<f16>>
  %ys = tile.splat %y : !tile.ptr<i16> -> tensor<64x!tile.ptr<i16>>
  %yp = tile.addptr %ys, %r : tensor<64x!tile.ptr<i16>>, tensor<64xi32>
  tile.store %yp, %b : tensor<64x!tile.ptr<i16>>
  tile.return
}

// -----

// 16 halves on 32 lanes: a thread holds one element, half a pack of two. The
// pack is that element twice; only the first result is kept.

// CHECK-LABEL: gpu.func @padded_pack
// CHECK: %[[X:.*]] = memref.load
// CHECK: %[[LOW:.*]] = llvm.insertelement %[[X]], %{{.*}}[%{{.*}} : i32] : vector<2xf16>
// CHECK-NEXT: %[[PAIR:.*]] = llvm.insertelement %[[X]], %[[LOW]][%{{.*}} : i32] : vector<2xf16>
// CHECK-NEXT: %[[Y:.*]] = llvm.inline_asm {{.*}} %[[PAIR]] : (vector<2xf16>) -> vector<2xf16>
// CHECK-NEXT: %[[KEPT:.*]] = llvm.extractelement %[[Y]][%c0_i32 : i32]
// CHECK-NOT: llvm.extractelement
// CHECK: memref.store %[[KEPT]]
tile.func @padded_pack(%x: !tile.ptr<f16>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<16x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %r : tensor<16x!tile.ptr<f16>>, tensor<16xi32>
  %v = tile.load %xp : tensor<16x!tile.ptr<f16>>
  %y = tile.inline_asm_elementwise "mul.rn.f16x2 $0, $1, $1;"(%v) constraints "=r,r" pure pack 2 : (tensor<16xf16>) -> tensor<16xf16>
  tile.store %xp, %y : tensor<16x!tile.ptr<f16>>
  tile.return
}

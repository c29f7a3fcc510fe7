// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=1" | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=hip:gfx942 num-warps=1" | FileCheck %s --check-prefix=AMD

// On NVIDIA, f32 `/`, exp and exp2 take Triton's fast forms: div.full.f32,
// ex2.approx.f32 of x * log2(e) for exp, ex2.approx.ftz.f32 for exp2 (as
// Triton: subnormals flushed). tile.precise_divf stays a
// correctly rounded division; f64 and the other backends keep arith/math.
tile.func @fast(%xp: !tile.ptr<f32>, %yp: !tile.ptr<f32>, %dp: !tile.ptr<f64>, %out: !tile.ptr<f32>, %outd: !tile.ptr<f64>) {
  %i = tile.make_range 0 to 128 : tensor<128xi32>
  %xb = tile.splat %xp : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xs = tile.addptr %xb, %i : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %xs : tensor<128x!tile.ptr<f32>>
  %yb = tile.splat %yp : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ys = tile.addptr %yb, %i : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %y = tile.load %ys : tensor<128x!tile.ptr<f32>>
  %db = tile.splat %dp : !tile.ptr<f64> -> tensor<128x!tile.ptr<f64>>
  %ds = tile.addptr %db, %i : tensor<128x!tile.ptr<f64>>, tensor<128xi32>
  %d = tile.load %ds : tensor<128x!tile.ptr<f64>>
  %q = arith.divf %x, %y : tensor<128xf32>
  %e = math.exp %x : tensor<128xf32>
  %e2 = math.exp2 %x : tensor<128xf32>
  %p = tile.precise_divf %x, %y : tensor<128xf32>
  %qd = arith.divf %d, %d : tensor<128xf64>
  %s1 = arith.addf %q, %e : tensor<128xf32>
  %s2 = arith.addf %e2, %p : tensor<128xf32>
  %s = arith.addf %s1, %s2 : tensor<128xf32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %os = tile.addptr %ob, %i : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %os, %s : tensor<128x!tile.ptr<f32>>
  %odb = tile.splat %outd : !tile.ptr<f64> -> tensor<128x!tile.ptr<f64>>
  %ods = tile.addptr %odb, %i : tensor<128x!tile.ptr<f64>>, tensor<128xi32>
  tile.store %ods, %qd : tensor<128x!tile.ptr<f64>>
  tile.return
}

// Four registers per thread: each op once per register.
// CHECK-LABEL: gpu.func @fast
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X:.*]], %[[Y:.*]]) : (f32, f32) -> f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[LOG2E]] : f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[SCALED]]) : (f32) -> f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: arith.divf %[[X]], %[[Y]] : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NOT: math.exp

// AMD-LABEL: gpu.func @fast
// AMD-NOT: llvm.call_intrinsic
// AMD: arith.divf %{{.*}} : f32
// AMD: math.exp %{{.*}} : f32
// AMD: math.exp2 %{{.*}} : f32

// -----

// f16 and bf16 take the f32 forms between a widening and one rounding back
// (LLVM would widen them into div.rn.f32 and its range-reduced exp).
tile.func @halves(%hp: !tile.ptr<f16>, %bp: !tile.ptr<bf16>) {
  %i = tile.make_range 0 to 32 : tensor<32xi32>
  %hb = tile.splat %hp : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %hs = tile.addptr %hb, %i : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  %h = tile.load %hs : tensor<32x!tile.ptr<f16>>
  %bb = tile.splat %bp : !tile.ptr<bf16> -> tensor<32x!tile.ptr<bf16>>
  %bs = tile.addptr %bb, %i : tensor<32x!tile.ptr<bf16>>, tensor<32xi32>
  %b = tile.load %bs : tensor<32x!tile.ptr<bf16>>
  %q = arith.divf %h, %h : tensor<32xf16>
  %e = math.exp %q : tensor<32xf16>
  %e2 = math.exp2 %b : tensor<32xbf16>
  tile.store %hs, %e : tensor<32x!tile.ptr<f16>>
  tile.store %bs, %e2 : tensor<32x!tile.ptr<bf16>>
  tile.return
}

// CHECK-LABEL: gpu.func @halves
// CHECK: %[[H:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[H]], %{{.*}}) : (f32, f32) -> f32
// CHECK: %[[QH:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK: %[[QW:.*]] = arith.extf %[[QH]] : f16 to f32
// CHECK: %[[SCALED:.*]] = arith.mulf %[[QW]], %{{.*}} : f32
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[SCALED]]) : (f32) -> f32
// CHECK: arith.truncf %[[E]] : f32 to f16
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[E2:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[B]]) : (f32) -> f32
// CHECK: arith.truncf %[[E2]] : f32 to bf16
// CHECK-NOT: math.exp
// CHECK-NOT: arith.divf

// AMD-LABEL: gpu.func @halves
// AMD-NOT: llvm.call_intrinsic
// AMD: arith.divf %{{.*}} : f16

// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tessera-nvvm-float8-conversions))' | FileCheck %s

// sm_89: a conversion without a partner (of its direction and fp8 type):
// from fp8, the byte twice through cvt.rn.f16x2.e4m3x2 (its low half,
// widened where f32 is asked; bf16 through f32, exactly); to fp8, the value
// as f32 twice through cvt.rn.satfinite (f16 widened first), its low byte.
// CHECK-LABEL: gpu.func @conversions
// CHECK: %[[B:.*]] = arith.bitcast %arg0 : f8E4M3FN to i8
// CHECK: %[[PAIR:.*]] = vector.from_elements %[[B]], %[[B]] : vector<2xi8>
// CHECK: %[[HALVES:.*]] = nvvm.convert.f8x2.to.f16x2 %[[PAIR]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: %[[HALF:.*]] = vector.extract %[[HALVES]][0] : f16 from vector<2xf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[HALF]] : f16 to f32
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: %[[SINGLE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[BF:.*]] = arith.truncf %[[SINGLE]] : f32 to bf16
// CHECK: %[[PACKED:.*]] = nvvm.convert.f32x2.to.f8x2 %arg2, %arg2 {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[BYTES:.*]] = llvm.bitcast %[[PACKED]] : i16 to vector<2xi8>
// CHECK: %[[BYTE:.*]] = vector.extract %[[BYTES]][0]
// CHECK: %[[NARROW:.*]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK: %[[F32:.*]] = arith.extf %arg3 : f16 to f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[F32]], %[[F32]] {{.*}} : i16(f8E5M2)
// CHECK-NOT: arith.extf {{.*}} f8
// CHECK-NOT: arith.truncf {{.*}} to f8
// CHECK: gpu.return %[[WIDE]], %[[BF]], %[[NARROW]]
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_89">] {
    gpu.func @conversions(%a: f8E4M3FN, %b: f8E5M2, %c: f32, %d: f16)
        -> (f32, bf16, f8E4M3FN, f8E5M2) {
      %0 = arith.extf %a : f8E4M3FN to f32
      %1 = arith.extf %b : f8E5M2 to bf16
      %2 = arith.truncf %c : f32 to f8E4M3FN
      %3 = arith.truncf %d : f16 to f8E5M2
      gpu.return %0, %1, %2, %3 : f32, bf16, f8E4M3FN, f8E5M2
    }
  }
}

// -----

// Integers to and from fp8 go through f32 (canonicalization folds
// truncf(sitofp) into an sitofp to fp8).
// CHECK-LABEL: gpu.func @integers
// CHECK: %[[S:.*]] = arith.sitofp %arg0 : i32 to f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[S]], %[[S]] {{.*}} : i16(f8E4M3FN)
// CHECK: %[[U:.*]] = arith.uitofp %arg0 : i32 to f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[U]], %[[U]] {{.*}} : i16(f8E5M2)
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.fptosi %[[W]] : f32 to i16
// CHECK-NOT: to f8E
// CHECK-NOT: arith.fptoui {{.*}} f8E
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @integers(%i: i32, %q: f8E4M3FN) -> (f8E4M3FN, f8E5M2, i16) {
      %0 = arith.sitofp %i : i32 to f8E4M3FN
      %1 = arith.uitofp %i : i32 to f8E5M2
      %2 = arith.fptosi %q : f8E4M3FN to i16
      gpu.return %0, %1, %2 : f8E4M3FN, f8E5M2, i16
    }
  }
}

// -----

// Ampere has no fp8 conversions: an error at the conversion.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @narrow(%c: f32) -> f8E4M3FN {
      // expected-error @below {{converting 'f32' to 'f8E4M3FN' needs the fp8 conversions of sm_89 or later, not sm_80}}
      %0 = arith.truncf %c : f32 to f8E4M3FN
      gpu.return %0 : f8E4M3FN
    }
  }
}

// -----

// Neighbours pair up, in order, where the second's operand is available at
// the first: one cvt for two values (the first in the low byte or half). A
// conversion whose operand comes after its would-be partner waits for the
// next one; the last, alone, converts its value twice.
// CHECK-LABEL: gpu.func @pairs
// CHECK: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %arg1, %arg0 {{.*}} : i16(f8E4M3FN)
// CHECK: %[[BYTES:.*]] = llvm.bitcast %[[PAIR]] : i16 to vector<2xi8>
// CHECK: %[[LOW:.*]] = vector.extract %[[BYTES]][0]
// CHECK: %[[Q0:.*]] = arith.bitcast %[[LOW]] : i8 to f8E4M3FN
// CHECK: %[[HIGH:.*]] = vector.extract %[[BYTES]][1]
// CHECK: %[[Q1:.*]] = arith.bitcast %[[HIGH]] : i8 to f8E4M3FN
// CHECK: nvvm.convert.f32x2.to.f8x2 %arg2, %arg2 {{.*}} : i16(f8E4M3FN)
// CHECK: %[[B0:.*]] = arith.bitcast %arg3 : f8E5M2 to i8
// CHECK: %[[B1:.*]] = arith.bitcast %arg4 : f8E5M2 to i8
// CHECK: %[[BYTES:.*]] = vector.from_elements %[[B0]], %[[B1]] : vector<2xi8>
// CHECK: %[[HALVES:.*]] = nvvm.convert.f8x2.to.f16x2 %[[BYTES]] : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: %[[H0:.*]] = vector.extract %[[HALVES]][0]
// CHECK: %[[H1:.*]] = vector.extract %[[HALVES]][1]
// CHECK: %[[SUM:.*]] = arith.addf %[[H0]], %[[H1]] : f16
// CHECK: %[[X:.*]] = arith.extf %[[SUM]] : f16 to f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[X]], %[[X]] {{.*}} : i16(f8E4M3FN)
// CHECK: gpu.return %[[Q0]], %[[Q1]]
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @pairs(%a: f32, %b: f32, %c: f32, %d: f8E5M2, %e: f8E5M2)
        -> (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN) {
      %0 = arith.truncf %a : f32 to f8E4M3FN
      %1 = arith.truncf %b : f32 to f8E4M3FN
      %2 = arith.truncf %c : f32 to f8E4M3FN
      %3 = arith.extf %d : f8E5M2 to f16
      %4 = arith.extf %e : f8E5M2 to f16
      %5 = arith.addf %3, %4 : f16
      %6 = arith.extf %5 : f16 to f32
      %7 = arith.truncf %6 : f32 to f8E4M3FN
      gpu.return %0, %1, %2, %7 : f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN
    }
  }
}

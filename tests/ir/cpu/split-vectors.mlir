// RUN: tessera-opt %s -split-input-file -tile-cpu-split-vectors="vector-bits=512" -cse | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-cpu-split-vectors="vector-bits=256" -cse | FileCheck %s --check-prefix=AVX2

// A chain of elementwise ops on a 64-lane tile becomes the same chain on
// four 16-lane chunks (eight 8-lane ones for 256-bit registers), computed
// chunk after chunk and concatenated once for the return.
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-4: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK: return %{{.*}} : vector<64xf32>
// AVX2-LABEL: func.func @chain(
// AVX2-COUNT-8: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @chain(%a: vector<64xf32>, %b: vector<64xf32>) -> vector<64xf32> {
  %m = arith.mulf %a, %b : vector<64xf32>
  %s = arith.addf %m, %a : vector<64xf32>
  return %s : vector<64xf32>
}

// -----

// A vector that fits one register is left alone.
// CHECK-LABEL: func.func @short(
// CHECK-NEXT: %[[N:.*]] = arith.negf %{{.*}} : vector<16xf32>
// CHECK-NEXT: return %[[N]]
func.func @short(%a: vector<16xf32>) -> vector<16xf32> {
  %n = arith.negf %a : vector<16xf32>
  return %n : vector<16xf32>
}

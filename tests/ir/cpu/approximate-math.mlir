// RUN: tessera-opt %s -tile-cpu-approximate-math | FileCheck %s

// exp and tanh on f32 vectors become vector arithmetic, not calls.
// CHECK-LABEL: func.func @f
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: math.fma {{.*}} : vector<64xf32>
func.func @f(%x: vector<64xf32>) -> vector<64xf32> {
  %e = math.exp %x : vector<64xf32>
  %t = math.tanh %e : vector<64xf32>
  return %t : vector<64xf32>
}

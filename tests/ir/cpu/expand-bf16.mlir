// RUN: tessera-opt %s -tile-cpu-expand-bf16 | FileCheck %s

// f32 -> bf16 rounds to nearest even with integer arithmetic and bf16 -> f32
// shifts the bits up: no arith.truncf/extf on bf16 is left for LLVM, which
// would call __truncsfbf2.
// CHECK-LABEL: func.func @round_trip
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK: arith.extui %{{.*}} : vector<8xi16> to vector<8xi32>
// CHECK: arith.shli
func.func @round_trip(%x: vector<8xf32>) -> vector<8xf32> {
  %b = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  %y = arith.extf %b : vector<8xbf16> to vector<8xf32>
  return %y : vector<8xf32>
}

// Other float conversions are left alone.
// CHECK-LABEL: func.func @half
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @half(%x: f32) -> f16 {
  %h = arith.truncf %x : f32 to f16
  return %h : f16
}

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

// On tiles, before the tiles become vectors: the same bit manipulation.
// CHECK-LABEL: tile.func private @on_tiles
// CHECK-NOT: arith.truncf
// CHECK: arith.trunci %{{.*}} : tensor<4x8xi32> to tensor<4x8xi16>
// CHECK: arith.bitcast %{{.*}} : tensor<4x8xi16> to tensor<4x8xbf16>
tile.func private @on_tiles(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %b = arith.truncf %x : tensor<4x8xf32> to tensor<4x8xbf16>
  tile.return %b : tensor<4x8xbf16>
}

// bf16 <-> f64 goes through f32: exact one way, rounded twice the other.
// CHECK-LABEL: func.func @double
// CHECK-NOT: bf16 to f64
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @double(%b: bf16, %d: f64) -> (f64, bf16) {
  %wide = arith.extf %b : bf16 to f64
  %narrow = arith.truncf %d : f64 to bf16
  return %wide, %narrow : f64, bf16
}

// A bf16 dot multiplies the f32 values of its operands, exactly (ieee).
// CHECK-LABEL: tile.func private @dot
// CHECK: %[[A:.*]] = arith.bitcast %{{.*}} : tensor<16x16xi32> to tensor<16x16xf32>
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : tensor<16x16xi32> to tensor<16x16xf32>
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32>
tile.func private @dot(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %acc: tensor<16x16xf32>)
    -> tensor<16x16xf32> {
  %c = tile.dot %a, %b, %acc : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.return %c : tensor<16x16xf32>
}

// RUN: tessera-opt %s -split-input-file -tile-expand-float8-conversions | FileCheck %s

// Conversions from fp8 become integer arithmetic on the byte, through f32;
// subnormals through uitofp and a power of two. E5M2 to f16 is a shift.
// CHECK-LABEL: tile.func private @from_float8
// CHECK-NOT: arith.extf %{{.*}} : tensor<64xf8E4M3FN>
// CHECK: arith.bitcast %{{.*}} : tensor<64xf8E4M3FN> to tensor<64xi8>
// CHECK: arith.extui %{{.*}} : tensor<64xi8> to tensor<64xi32>
// CHECK: arith.constant dense<0.001953125> : tensor<64xf32>
// CHECK: arith.uitofp %{{.*}} : tensor<64xi32> to tensor<64xf32>
// CHECK: arith.bitcast %{{.*}} : tensor<64xi32> to tensor<64xf32>
// CHECK: arith.truncf %{{.*}} : tensor<64xf32> to tensor<64xbf16>
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: arith.shli %{{.*}} : i16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK-NOT: arith.extf
tile.func private @from_float8(%x: tensor<64xf8E4M3FN>, %y: f8E5M2) -> (tensor<64xbf16>, f16) {
  %a = arith.extf %x : tensor<64xf8E4M3FN> to tensor<64xbf16>
  %b = arith.extf %y : f8E5M2 to f16
  tile.return %a, %b : tensor<64xbf16>, f16
}

// -----

// Conversions to fp8: f16 widens to f32 first, and the byte is computed
// with integer arithmetic, saturated (0x7b, E5M2's largest finite value).
// CHECK-LABEL: tile.func private @to_float8
// CHECK: arith.extf %{{.*}} : tensor<8x8xf16> to tensor<8x8xf32>
// CHECK: arith.bitcast %{{.*}} : tensor<8x8xf32> to tensor<8x8xi32>
// CHECK: arith.constant dense<123> : tensor<8x8xi32>
// CHECK: arith.trunci %{{.*}} : tensor<8x8xi32> to tensor<8x8xi8>
// CHECK: arith.bitcast %{{.*}} : tensor<8x8xi8> to tensor<8x8xf8E5M2>
// CHECK-NOT: arith.truncf
tile.func private @to_float8(%x: tensor<8x8xf16>) -> tensor<8x8xf8E5M2> {
  %q = arith.truncf %x : tensor<8x8xf16> to tensor<8x8xf8E5M2>
  tile.return %q : tensor<8x8xf8E5M2>
}

// -----

// Other conversions stay.
// CHECK-LABEL: tile.func private @others
// CHECK-NEXT: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
tile.func private @others(%x: f16) -> bf16 {
  %w = arith.extf %x : f16 to f32
  %n = arith.truncf %w : f32 to bf16
  tile.return %n : bf16
}

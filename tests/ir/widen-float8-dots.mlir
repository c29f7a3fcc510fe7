// RUN: tessera-opt %s -split-input-file -tile-widen-float8-dots | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-widen-float8-dots=operand-type=f32 | FileCheck %s --check-prefix=F32
// RUN: not tessera-opt %s -split-input-file -tile-widen-float8-dots=operand-type=bf16 2>&1 | FileCheck %s --check-prefix=BAD

// fp8 operands (one of each type here) become f16 ones; the bound on
// imprecise sums goes with them. With operand-type=f32 an f32 accumulator
// takes f32 operands, multiplied at full precision (ieee).
// CHECK-LABEL: tile.func private @mixed
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<64x32xf8E4M3FN> to tensor<64x32xf16>
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<32x64xf8E5M2> to tensor<32x64xf16>
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NOT: max_num_imprecise_acc
// F32-LABEL: tile.func private @mixed
// F32: arith.extf %{{.*}} : tensor<64x32xf8E4M3FN> to tensor<64x32xf32>
// F32: tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = ieee : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
// BAD: operand-type must be f16 or f32, not 'bf16'
tile.func private @mixed(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>,
                         %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tile.dot %a, %b, %acc max_num_imprecise_acc = 32
      : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  tile.return %c : tensor<64x64xf32>
}

// -----

// An f16 accumulator needs f16 operands, whatever operand-type says; other
// dots stay.
// F32-LABEL: tile.func private @half_accumulator
// F32: arith.extf %{{.*}} : tensor<16x16xf8E5M2> to tensor<16x16xf16>
// F32: tile.dot %{{.*}} : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
// F32: tile.dot %{{.*}} : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
tile.func private @half_accumulator(%a: tensor<16x16xf8E5M2>, %acc: tensor<16x16xf16>,
                                    %i: tensor<16x16xi8>, %iacc: tensor<16x16xi32>)
    -> (tensor<16x16xf16>, tensor<16x16xi32>) {
  %c = tile.dot %a, %a, %acc : tensor<16x16xf8E5M2> * tensor<16x16xf8E5M2> -> tensor<16x16xf16>
  %d = tile.dot %i, %i, %iacc : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  tile.return %c, %d : tensor<16x16xf16>, tensor<16x16xi32>
}

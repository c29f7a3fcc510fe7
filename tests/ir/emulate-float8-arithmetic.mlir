// RUN: tessera-opt %s -tile-emulate-float8-arithmetic | FileCheck %s --check-prefixes=CHECK,FP8
// RUN: tessera-opt %s -tile-emulate-float8-arithmetic=bf16=true \
// RUN:   | FileCheck %s --check-prefixes=CHECK,BF16

// Arithmetic, comparisons and math on fp8 run on f32 between conversions;
// moves of fp8 values (select, constants) and dots stay as they are.
// CHECK-LABEL: tile.func private @ops
// CHECK-SAME: (%[[X:.*]]: tensor<128xf8E5M2>, %[[Y:.*]]: tensor<128xf8E5M2>, %[[S:.*]]: f8E4M3FN
// CHECK-DAG: %[[X32:.*]] = arith.extf %[[X]] {{.*}}: tensor<128xf8E5M2> to tensor<128xf32>
// CHECK-DAG: %[[Y32:.*]] = arith.extf %[[Y]] {{.*}}: tensor<128xf8E5M2> to tensor<128xf32>
// CHECK: %[[SUM32:.*]] = arith.addf %[[X32]], %[[Y32]] : tensor<128xf32>
// CHECK: %[[SUM:.*]] = arith.truncf %[[SUM32]] {{.*}}: tensor<128xf32> to tensor<128xf8E5M2>
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : tensor<128xf32>
// CHECK: %[[PICK:.*]] = arith.select %{{.*}}, %[[SUM]], %[[Y]] : tensor<128xi1>, tensor<128xf8E5M2>
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} {{.*}}: f32 to f8E4M3FN
// CHECK: tile.dot %{{.*}} : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
tile.func private @ops(%x: tensor<128xf8E5M2>, %y: tensor<128xf8E5M2>, %s: f8E4M3FN,
                       %a: tensor<16x16xf8E4M3FN>, %acc: tensor<16x16xf32>)
    -> (tensor<128xf8E5M2>, f8E4M3FN, tensor<16x16xf32>) {
  %sum = arith.addf %x, %y : tensor<128xf8E5M2>
  %less = arith.cmpf olt, %sum, %y : tensor<128xf8E5M2>
  %pick = arith.select %less, %sum, %y : tensor<128xi1>, tensor<128xf8E5M2>
  %e = math.exp %s : f8E4M3FN
  %c = tile.dot %a, %a, %acc : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  tile.return %pick, %e, %c : tensor<128xf8E5M2>, f8E4M3FN, tensor<16x16xf32>
}

// The tile ops that compute are emulated as arith's; print shows the f32
// value, and its hex form the fp8 bits.
// CHECK-LABEL: tile.func private @tile_ops
// CHECK: %[[CLAMPED:.*]] = tile.clamp %{{.*}}, %{{.*}}, %{{.*}} propagate_nan = all : tensor<8xf32>
// CHECK: arith.truncf %[[CLAMPED]] {{.*}}: tensor<8xf32> to tensor<8xf8E5M2>
// CHECK: tile.precise_sqrt %{{.*}} : tensor<8xf32>
// CHECK: tile.precise_divf %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK: tile.print "x = "(%{{.*}} : tensor<8xf32>)
// CHECK: tile.print "bits = " hex(%{{.*}} : tensor<8xf8E5M2>)
tile.func private @tile_ops(%x: tensor<8xf8E5M2>, %lo: tensor<8xf8E5M2>, %hi: tensor<8xf8E5M2>)
    -> (tensor<8xf8E5M2>, tensor<8xf8E5M2>, tensor<8xf8E5M2>) {
  %c = tile.clamp %x, %lo, %hi propagate_nan = all : tensor<8xf8E5M2>
  %r = tile.precise_sqrt %x : tensor<8xf8E5M2>
  %q = tile.precise_divf %x, %hi : tensor<8xf8E5M2>
  tile.print "x = " (%x : tensor<8xf8E5M2>)
  tile.print "bits = " hex (%x : tensor<8xf8E5M2>)
  tile.return %c, %r, %q : tensor<8xf8E5M2>, tensor<8xf8E5M2>, tensor<8xf8E5M2>
}

// bf16 computes in f32 where the target asks for it (the CPU); a conversion
// from an integer rounds once from f32, and moves stay bf16.
// CHECK-LABEL: tile.func private @bf16
// FP8: arith.mulf %{{.*}}, %{{.*}} : tensor<8xbf16>
// FP8: arith.sitofp %{{.*}} : tensor<8xi32> to tensor<8xbf16>
// BF16: arith.mulf %{{.*}}, %{{.*}} : tensor<8xf32>
// BF16: arith.truncf %{{.*}} {{.*}}: tensor<8xf32> to tensor<8xbf16>
// BF16: arith.sitofp %{{.*}} : tensor<8xi32> to tensor<8xf32>
// BF16: arith.truncf %{{.*}} {{.*}}: tensor<8xf32> to tensor<8xbf16>
// CHECK: arith.select %{{.*}} : tensor<8xi1>, tensor<8xbf16>
tile.func private @bf16(%x: tensor<8xbf16>, %i: tensor<8xi32>, %m: tensor<8xi1>)
    -> tensor<8xbf16> {
  %sq = arith.mulf %x, %x : tensor<8xbf16>
  %f = arith.sitofp %i : tensor<8xi32> to tensor<8xbf16>
  %pick = arith.select %m, %sq, %f : tensor<8xi1>, tensor<8xbf16>
  tile.return %pick : tensor<8xbf16>
}

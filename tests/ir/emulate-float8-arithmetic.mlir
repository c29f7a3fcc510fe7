// RUN: tessera-opt %s -tile-emulate-float8-arithmetic | FileCheck %s

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

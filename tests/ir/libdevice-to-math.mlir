// RUN: tessera-opt %s -split-input-file -tile-libdevice-to-math | FileCheck %s

// libdevice calls become the op that computes their function, on f32 (the
// `f` functions), f64, and integers; calls whose types are not the
// function's, and functions without a counterpart, stay calls.

// CHECK-LABEL: tile.func private @floats
// CHECK-SAME: (%[[X:.*]]: tensor<64xf32>, %[[Y:.*]]: tensor<64xf32>, %[[D:.*]]: f64)
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[X]] : tensor<64xf32>
// CHECK-NEXT: %[[A:.*]] = math.atan2 %[[X]], %[[Y]] : tensor<64xf32>
// CHECK-NEXT: %[[P:.*]] = math.powf %[[D]], %[[D]] : f64
// CHECK-NEXT: %[[M:.*]] = arith.maxnumf %[[X]], %[[Y]] : tensor<64xf32>
// CHECK-NEXT: %[[F:.*]] = math.fma %[[X]], %[[Y]], %[[X]] : tensor<64xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : tensor<64xf32>
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : f64
// CHECK-NEXT: tile.return %[[T]], %[[A]], %[[P]], %[[M]], %[[F]], %[[E]], %[[R]]
tile.func private @floats(%x: tensor<64xf32>, %y: tensor<64xf32>, %d: f64)
    -> (tensor<64xf32>, tensor<64xf32>, f64, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, f64) {
  %t = tile.extern_elementwise "__nv_tanhf"(%x) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %a = tile.extern_elementwise "__nv_atan2f"(%x, %y) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %p = tile.extern_elementwise "__nv_pow"(%d, %d) lib "libdevice" pure : (f64, f64) -> f64
  %m = tile.extern_elementwise "__nv_fmaxf"(%x, %y) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %f = tile.extern_elementwise "__nv_fmaf"(%x, %y, %x) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %e = tile.extern_elementwise "__nv_fast_expf"(%x) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %r = tile.extern_elementwise "__nv_rint"(%d) lib "libdevice" pure : (f64) -> f64
  tile.return %t, %a, %p, %m, %f, %e, %r : tensor<64xf32>, tensor<64xf32>, f64, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, f64
}

// -----

// Predicates answer an i32, 0 or 1, from arith.cmpf (NaN is unordered;
// finite is ordered and not infinite in magnitude); `__nv_popcll` counts an
// i64 into an i32; `__nv_umulhi` is the high half of the unsigned product.

// CHECK-LABEL: tile.func private @integers
// CHECK-SAME: (%[[X:.*]]: tensor<16xf64>, %[[L:.*]]: tensor<16xi64>, %[[I:.*]]: i32, %[[F:.*]]: f32)
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : tensor<16xf64>
// CHECK-NEXT: %[[NANI:.*]] = arith.extui %[[NAN]] : tensor<16xi1> to tensor<16xi32>
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[F]] : f32
// CHECK-NEXT: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[FIN:.*]] = arith.cmpf one, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT: %[[FINI:.*]] = arith.extui %[[FIN]] : i1 to i32
// CHECK-NEXT: %[[POP:.*]] = math.ctpop %[[L]] : tensor<16xi64>
// CHECK-NEXT: %[[POPI:.*]] = arith.trunci %[[POP]] : tensor<16xi64> to tensor<16xi32>
// CHECK-NEXT: %[[LOW:.*]], %[[HIGH:.*]] = arith.mului_extended %[[I]], %[[I]] : i32
// CHECK-NEXT: %[[MIN:.*]] = arith.minsi %[[L]], %[[L]] : tensor<16xi64>
// CHECK-NEXT: tile.return %[[NANI]], %[[FINI]], %[[POPI]], %[[HIGH]], %[[MIN]]
tile.func private @integers(%x: tensor<16xf64>, %l: tensor<16xi64>, %i: i32, %f: f32)
    -> (tensor<16xi32>, i32, tensor<16xi32>, i32, tensor<16xi64>) {
  %nan = tile.extern_elementwise "__nv_isnand"(%x) lib "libdevice" pure : (tensor<16xf64>) -> tensor<16xi32>
  %fin = tile.extern_elementwise "__nv_finitef"(%f) lib "libdevice" pure : (f32) -> i32
  %pop = tile.extern_elementwise "__nv_popcll"(%l) lib "libdevice" pure : (tensor<16xi64>) -> tensor<16xi32>
  %hi = tile.extern_elementwise "__nv_umulhi"(%i, %i) lib "libdevice" pure : (i32, i32) -> i32
  %min = tile.extern_elementwise "__nv_llmin"(%l, %l) lib "libdevice" pure : (tensor<16xi64>, tensor<16xi64>) -> tensor<16xi64>
  tile.return %nan, %fin, %pop, %hi, %min : tensor<16xi32>, i32, tensor<16xi32>, i32, tensor<16xi64>
}

// -----

// CHECK-LABEL: tile.func private @left_as_calls
// CHECK-NEXT: tile.extern_elementwise "__nv_tanhf"(%{{.*}}) lib "libdevice" pure : (f64) -> f64
// CHECK-NEXT: tile.extern_elementwise "__nv_tanh"(%{{.*}}) lib "libdevice" pure : (f32) -> f32
// CHECK-NEXT: tile.extern_elementwise "__nv_lgammaf"(%{{.*}}) lib "libdevice" pure : (f32) -> f32
// CHECK-NEXT: tile.extern_elementwise "__nv_atan2f"(%{{.*}}) lib "libdevice" pure : (f32) -> f32
// CHECK-NEXT: tile.extern_elementwise "my_tanhf"(%{{.*}}) lib "mylib" path "/opt/mylib.bc" pure : (f32) -> f32
tile.func private @left_as_calls(%d: f64, %x: f32) -> (f64, f32, f32, f32, f32) {
  %wrong_type = tile.extern_elementwise "__nv_tanhf"(%d) lib "libdevice" pure : (f64) -> f64
  %wrong_width = tile.extern_elementwise "__nv_tanh"(%x) lib "libdevice" pure : (f32) -> f32
  %no_op = tile.extern_elementwise "__nv_lgammaf"(%x) lib "libdevice" pure : (f32) -> f32
  %one_operand = tile.extern_elementwise "__nv_atan2f"(%x) lib "libdevice" pure : (f32) -> f32
  %other_library = tile.extern_elementwise "my_tanhf"(%x) lib "mylib" path "/opt/mylib.bc" pure : (f32) -> f32
  tile.return %wrong_type, %wrong_width, %no_op, %one_operand, %other_library : f64, f32, f32, f32, f32
}

// RUN: tessera-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessera-amd-bare-pointer-args))' \
// RUN:   | FileCheck %s

// CHECK-LABEL: gpu.func @vector_add
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[N:.*]]: i32)
// CHECK: %[[POISON:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[A0:.*]] = llvm.insertvalue %[[X]], %[[POISON]][0]
// CHECK: %[[A1:.*]] = llvm.insertvalue %[[X]], %[[A0]][1]
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK: %[[A2:.*]] = llvm.insertvalue %[[ZERO]], %[[A1]][2]
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: %[[A3:.*]] = llvm.insertvalue %[[ONE]], %[[A2]][4, 0]
// CHECK: %[[XM:.*]] = builtin.unrealized_conversion_cast %[[A3]] : {{.*}} to memref<?xf32>
// CHECK: builtin.unrealized_conversion_cast {{.*}} to memref<?xf32>
// CHECK: memref.load %[[XM]]
// CHECK: memref.store
// CHECK-NOT: %[[X]]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @vector_add {
    gpu.func @vector_add(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// Static memrefs are left to MLIR's own bare-pointer convention.
// CHECK-LABEL: gpu.func @static_shape
// CHECK-SAME: (%{{.*}}: memref<16xf32>)
module attributes {gpu.container_module} {
  gpu.module @static_shape {
    gpu.func @static_shape(%x: memref<16xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @extent {
    gpu.func @extent(%x: memref<?xf32>, %out: memref<?xindex>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'memref.dim' op uses argument #0 of kernel 'extent' in a way that needs its extent, which the bare-pointer kernel ABI does not pass (only loads, stores and atomics may use a pointer argument)}}
      %n = memref.dim %x, %c0 : memref<?xf32>
      memref.store %n, %out[%c0] : memref<?xindex>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @two_d {
    // expected-error @+1 {{argument #0 of kernel 'two_d' has type 'memref<?x?xf32>'; the distributed GPU form passes pointers as memref<?xT>}}
    gpu.func @two_d(%x: memref<?x?xf32>) kernel {
      gpu.return
    }
  }
}

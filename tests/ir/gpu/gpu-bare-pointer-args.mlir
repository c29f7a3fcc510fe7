// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tessera-gpu-bare-pointer-args))' | FileCheck %s

// A dynamic 1-D memref becomes a pointer and a descriptor rebuilt from it;
// static memrefs and scalars stay for convert-gpu-to-nvvm's bare pointers.
// CHECK-LABEL: gpu.func @pointers
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr, %[[S:.*]]: memref<4xf32>, %[[N:.*]]: i32)
// CHECK: %[[UNDEF:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[D0:.*]] = llvm.insertvalue %[[X]], %[[UNDEF]][0]
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[X]], %[[D0]][1]
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[ZERO]], %[[D1]][2]
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: %[[D3:.*]] = llvm.insertvalue %[[ONE]], %[[D2]][4, 0]
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %[[D3]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xf32>
// CHECK: memref.load %[[M]][
// CHECK: memref.store {{.*}}, %[[S]][
module attributes {gpu.container_module} {
  gpu.module @pointers {
    gpu.func @pointers(%x: memref<?xf32>, %s: memref<4xf32>, %n: i32) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      memref.store %v, %s[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

// Only kernels change: device functions keep their memref arguments.
// CHECK-LABEL: gpu.func @helper
// CHECK-SAME: (%{{.*}}: memref<?xf32>)
module attributes {gpu.container_module} {
  gpu.module @device_function {
    gpu.func @helper(%x: memref<?xf32>) {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @matrix {
    // expected-error @+1 {{kernel argument #0 has type 'memref<?x?xf32>', which has no bare-pointer form}}
    gpu.func @matrix(%x: memref<?x?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @extent {
    gpu.func @extent(%x: memref<?xf32>, %out: memref<1xindex>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'memref.dim' needs more of pointer argument #0 than its address}}
      %n = memref.dim %x, %c0 : memref<?xf32>
      memref.store %n, %out[%c0] : memref<1xindex>
      gpu.return
    }
  }
}

// -----

// A view of a pointer as other elements: a descriptor of that type on the
// source's aligned pointer, which the argument's own descriptor gives.
// CHECK-LABEL: gpu.func @views
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr)
// CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<?xf32>
// CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[M]] : memref<?xf32> -> index
// CHECK: %[[INT:.*]] = arith.index_cast %[[ADDRESS]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[INT]] : i64 to !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.insertvalue %[[PTR]], %{{.*}}[0]
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[PTR]], %[[D0]][1]
// CHECK: %[[BYTES:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<{{.*}}> to memref<?xi8>
// CHECK: memref.load %[[BYTES]][
// CHECK-NOT: tgpu.reinterpret_pointer
module attributes {gpu.container_module} {
  gpu.module @views {
    gpu.func @views(%x: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %bytes = tgpu.reinterpret_pointer %x : memref<?xf32> to memref<?xi8>
      %b = memref.load %bytes[%c1] : memref<?xi8>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @bad_view {
    gpu.func @bad_view(%x: memref<?xf32>) kernel {
      // expected-error @+1 {{'tgpu.reinterpret_pointer' op views elements of 'f32' as the same type}}
      %same = tgpu.reinterpret_pointer %x : memref<?xf32> to memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @strided_view {
    gpu.func @strided_view(%x: memref<4xf32>) kernel {
      // expected-error @+1 {{'tgpu.reinterpret_pointer' op views pointers of the distributed form (memref<?xT>), got 'memref<4xf32>' to 'memref<?xi8>'}}
      %bytes = tgpu.reinterpret_pointer %x : memref<4xf32> to memref<?xi8>
      gpu.return
    }
  }
}

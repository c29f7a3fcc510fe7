// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tessera-nvvm-tensor-map-params))' | FileCheck %s

// The last arguments, one per tensor_maps entry, become 128-byte by-value
// grid constants aligned to 64; the others keep their attributes.
// CHECK-LABEL: llvm.func @copies
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32,
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-NOT: llvm.byval
// CHECK-LABEL: llvm.func @no_maps
// CHECK-NOT: llvm.byval
module attributes {gpu.container_module} {
  gpu.module @kernel {
    llvm.func @copies(%a: !llvm.ptr<1> {llvm.noalias}, %m: i32, %map: !llvm.ptr) attributes {nvvm.kernel, tessera.tensor_maps = [{base = 0 : i64, box = array<i64: 64, 64>, element = bf16, padding = "zero", shape = array<i64: 1, 1>, strides = array<i64: 1>, swizzle = 128 : i64}]} {
      llvm.return
    }
    llvm.func @no_maps(%a: !llvm.ptr) attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernel {
    // expected-error @+1 {{tensor-map argument 1 is not a pointer}}
    llvm.func @bad(%a: !llvm.ptr<1>, %m: i32) attributes {nvvm.kernel, tessera.tensor_maps = [{base = 0 : i64}]} {
      llvm.return
    }
  }
}

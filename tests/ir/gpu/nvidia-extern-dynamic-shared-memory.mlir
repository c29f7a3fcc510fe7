// RUN: tessera-opt %s --pass-pipeline='builtin.module(gpu.module(tessera-nvvm-extern-dynamic-shared-memory))' | FileCheck %s

// The zero-sized shared global of gpu.dynamic_shared_memory becomes extern
// and 1024-byte aligned; sized shared arrays and other address spaces keep
// their linkage.
// CHECK-LABEL: gpu.module @kernel
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
module attributes {gpu.container_module} {
  gpu.module @kernel {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
    llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  }
}

// RUN: tessera-opt %s -tile-cpu-prepare-kernels -tile-cpu-lower-tiles -tile-cpu-emit-grid-entry | FileCheck %s

// The entry reads each argument through the array of void* and calls the
// kernel with the program ids and grid size.
// CHECK: func.func @k__grid_entry(%[[ARGS:.*]]: !llvm.ptr, %[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32, %[[NX:.*]]: i32, %[[NY:.*]]: i32, %[[NZ:.*]]: i32)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[A0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P:.*]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[ARGS]][1]
// CHECK: %[[A1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[F:.*]] = llvm.load %[[A1]] : !llvm.ptr -> f32
// CHECK: %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: %[[FLAG:.*]] = llvm.trunc %[[B]] : i8 to i1
// CHECK: call @k(%[[P]], %[[F]], %[[FLAG]], %[[X]], %[[Y]], %[[Z]], %[[NX]], %[[NY]], %[[NZ]])
tile.func @k(%p: !tile.ptr<f32>, %s: f32, %flag: i1) {
  tile.store %p, %s, %flag : !tile.ptr<f32>
  tile.return
}

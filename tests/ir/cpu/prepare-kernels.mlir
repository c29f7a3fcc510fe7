// RUN: tessera-opt %s -split-input-file -tile-cpu-prepare-kernels | FileCheck %s

// Device functions are inlined and erased; the kernel gets the six grid
// arguments, which replace program_id and num_programs.
// CHECK-NOT: @twice
// CHECK: func.func @k(%{{.*}}: !tile.ptr<i32>, %[[PX:.*]]: i32, %[[PY:.*]]: i32, %[[PZ:.*]]: i32, %[[NX:.*]]: i32, %[[NY:.*]]: i32, %[[NZ:.*]]: i32) attributes {tessera.kernel}
// CHECK: arith.addi %[[PY]], %[[PY]]
// CHECK: arith.addi %{{.*}}, %[[NZ]]
// CHECK: return
tile.func private @twice(%x: i32) -> i32 {
  %y = arith.addi %x, %x : i32
  tile.return %y : i32
}
tile.func @k(%p: !tile.ptr<i32>) {
  %pid = tile.program_id y
  %n = tile.num_programs z
  %t = tile.call @twice(%pid) : (i32) -> i32
  %v = arith.addi %t, %n : i32
  tile.store %p, %v : !tile.ptr<i32>
  tile.return
}

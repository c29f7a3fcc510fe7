// RUN: tessera-opt %s | tessera-opt | FileCheck %s

// #tgpu.layout prints its bases back as parsed (under #layout aliases);
// tgpu.convert_layout round-trips, and tile.reduce infers the layout of its
// result from its operand's: here the store of the row sums only verifies
// because that inferred layout is #sums.

#row = #tgpu.layout<rank = 2, reg = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0]]>
#col = #tgpu.layout<rank = 2, reg = [[1, 0], [2, 0]], lane = [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 8]]>
#sums = #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[4], [8], [0], [0], [0]], warp = [[0]]>

// CHECK-DAG: #[[ROW:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[8, 0]]>
// CHECK-DAG: #[[COL:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[1, 0], [2, 0]], lane = {{\[}}[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 8]]>
// CHECK-DAG: #[[SUMS:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = {{\[}}[1], [2]], lane = {{\[}}[4], [8], [0], [0], [0]], warp = {{\[}}[0]]>
// CHECK-LABEL: tile.func private @convert_and_reduce
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<16x16xf32, #[[ROW]]>
// CHECK: %[[C:[0-9]+]] = tgpu.convert_layout %[[X]] : tensor<16x16xf32, #[[ROW]]> -> tensor<16x16xf32, #[[COL]]>
// CHECK: %[[S:[0-9]+]] = tile.reduce %[[C]] axis = 1 : tensor<16x16xf32, #[[COL]]>
// CHECK: tile.store %{{.*}}, %[[S]] : tensor<16x!tile.ptr<f32>, #[[SUMS]]>
tile.func private @convert_and_reduce(%p: !tile.ptr<f32>, %x: tensor<16x16xf32, #row>) {
  %c = tgpu.convert_layout %x : tensor<16x16xf32, #row> -> tensor<16x16xf32, #col>
  %s = tile.reduce %c axis = 1 : tensor<16x16xf32, #col> {
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    tile.yield %sum : f32
  }
  %r = tile.make_range 0 to 16 : tensor<16xi32, #sums>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #sums>
  %ptrs = tile.addptr %b, %r : tensor<16x!tile.ptr<f32>, #sums>, tensor<16xi32, #sums>
  tile.store %ptrs, %s : tensor<16x!tile.ptr<f32>, #sums>
  tile.return
}

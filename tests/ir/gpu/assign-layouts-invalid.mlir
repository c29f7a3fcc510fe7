// RUN: tessera-opt %s -split-input-file -tile-gpu-assign-layouts="target=cuda:sm_80 num-warps=4" -verify-diagnostics

tile.func private @square(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = arith.mulf %x, %x : tensor<16xf32>
  tile.return %y : tensor<16xf32>
}
tile.func @calls(%p: !tile.ptr<f32>) {
  %x = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{'tile.call' of @square is left: device functions must be inlined (-inline) before tile-gpu-assign-layouts for target cuda:sm_80}}
  %y = tile.call @square(%x) : (tensor<16xf32>) -> tensor<16xf32>
  tile.return
}

// -----

tile.func @not_power_of_two(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{tile 'tensor<24xi32>' has a shape that is not a power of two in every dimension; GPU target cuda:sm_80 distributes only such tiles}}
  %r = tile.make_range 0 to 24 : tensor<24xi32>
  tile.return
}

// -----

tile.func @unknown_op_on_tiles(%p: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %ptrs = tile.addptr %b, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  // expected-error @+1 {{'ub.poison' on tiles is not supported by the GPU layout assignment for target cuda:sm_80}}
  %v = ub.poison : tensor<16xf32>
  tile.store %ptrs, %v : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func @other_region_op(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'scf.execute_region' with regions is not supported by the GPU layout assignment for target cuda:sm_80}}
  %v = scf.execute_region -> tensor<16xf32> {
    %c = arith.constant dense<1.0> : tensor<16xf32>
    scf.yield %c : tensor<16xf32>
  }
  tile.return
}

// -----

tile.func @one(%p: !tile.ptr<f32>) {
  tile.return
}
// expected-error @+1 {{a second kernel: tile-gpu-assign-layouts compiles one kernel per module, the first is @one}}
tile.func @two(%p: !tile.ptr<f32>) {
  tile.return
}

// -----

// expected-error @+1 {{no kernel with a body to assign layouts to}}
module {
  tile.func private @device(%x: i32) -> i32 {
    tile.return %x : i32
  }
}

// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a layout has rank >= 1}}
func.func private @rank_zero(tensor<4xf32, #tgpu.layout<rank = 0, reg = [], lane = [], warp = []>>)

// -----

// expected-error @+1 {{a basis has 2 coordinates, one per dimension}}
func.func private @short_basis(tensor<4x4xf32, #tgpu.layout<rank = 2, reg = [[1]], lane = [], warp = []>>)

// -----

// expected-error @+1 {{basis coordinates are non-negative}}
func.func private @negative(tensor<2xf32, #tgpu.layout<rank = 1, reg = [[-1]], lane = [], warp = []>>)

// -----

// expected-error @+1 {{a rank-1 layout on a rank-2 tile}}
func.func private @rank_mismatch(tensor<2x2xf32, #tgpu.layout<rank = 1, reg = [[1]], lane = [], warp = []>>)

// -----

// Two bases for one bit: element 1 is held twice, elements 2 and 3 never.
// expected-error @+1 {{does not map onto every element of the tile exactly}}
func.func private @not_onto(tensor<4xf32, #tgpu.layout<rank = 1, reg = [[1]], lane = [[1]], warp = []>>)

// -----

// expected-error @+1 {{does not map onto every element of the tile exactly}}
func.func private @too_few_bases(tensor<8xf32, #tgpu.layout<rank = 1, reg = [[1]], lane = [[2]], warp = []>>)

// -----

// expected-error @+1 {{does not map onto every element of the tile exactly}}
func.func private @non_power_of_two(tensor<6xf32, #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [[4]], warp = []>>)

// -----

func.func @convert_without_layout(%x: tensor<4xf32>) {
  // expected-error @+1 {{converts between tiles that both carry a #tgpu.layout}}
  %y = tgpu.convert_layout %x : tensor<4xf32> -> tensor<4xf32, #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [], warp = []>>
  return
}

// -----

func.func @convert_other_shape(%x: tensor<4xf32, #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [], warp = []>>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %y = tgpu.convert_layout %x : tensor<4xf32, #tgpu.layout<rank = 1, reg = [[1], [2]], lane = [], warp = []>> -> tensor<8xf32, #tgpu.layout<rank = 1, reg = [[1], [2], [4]], lane = [], warp = []>>
  return
}

// -----

// The operand's layout reduced along axis 1 is #tgpu.layout<rank = 1, reg = [[1]], ...>,
// not the result type written here.
#rows = #tgpu.layout<rank = 2, reg = [[1, 0], [0, 1]], lane = [], warp = []>
func.func @reduce_result_layout(%x: tensor<2x2xf32, #rows>) {
  // expected-error @+2 {{'tile.reduce' op inferred type(s) 'tensor<2xf32, #tgpu.layout<rank = 1, reg = [[1]], lane = [], warp = []>>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %s = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    tile.yield %sum : f32
  }) : (tensor<2x2xf32, #rows>) -> tensor<2xf32>
  return
}

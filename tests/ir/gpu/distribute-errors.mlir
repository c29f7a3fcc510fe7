// RUN: tessera-opt %s -split-input-file -tile-gpu-distribute -verify-diagnostics

#L = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4]], warp = [[0]]>
tile.func @stray_pointer(%p: !tile.ptr<f32>)
    attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %addr = arith.constant 16 : i64
  // expected-error @below {{'tile.int_to_ptr' op making pointers from integers is not supported on GPU targets yet (target vulkan:1.3:subgroup=8}}
  %q = tile.int_to_ptr %addr : i64 -> !tile.ptr<f32>
  tile.return
}

// -----

tile.func @no_layout(%n: i32)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  // expected-error @below {{'tile.make_range' op uses the tile type 'tensor<32xi32>' without a #tgpu.layout (run tile-gpu-assign-layouts first)}}
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  tile.return
}

// -----

// A layout made for another warp size.
#L = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4]], warp = []>
tile.func @wrong_lanes(%n: i32)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  // expected-error @below {{'tile.make_range' op uses the layout shape=[8] reg=[] lane=[[1], [2], [4]] warp=[] of 8 lanes and 1 warps in a program of 1 warps of 32 lanes}}
  %r = tile.make_range 0 to 8 : tensor<8xi32, #L>
  tile.return
}

// -----

// Operand and result layouts of a shape op that would move data between
// threads: the layout assignment must not produce them.
#L = #tgpu.layout<rank = 1, reg = [[1]], lane = [[2], [4], [8]], warp = []>
#E = #tgpu.layout<rank = 2, reg = [[1, 0]], lane = [[4, 0], [2, 0], [8, 0]], warp = []>
tile.func @bad_expand(%n: i32)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 16 : tensor<16xi32, #L>
  // expected-error @below {{'tile.expand_dims' op cannot be lowered without moving data between threads}}
  %e = tile.expand_dims %r, axis = 1 : tensor<16xi32, #L> -> tensor<16x1xi32, #E>
  tile.return
}

// -----

#L = #tgpu.layout<rank = 1, reg = [], lane = [[1], [2], [4]], warp = []>
tile.func @print_on_vulkan(%n: i32)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  // expected-error @below {{'tile.print' op printing and asserting on Vulkan (which has no device printf) is not supported on GPU targets yet (target vulkan:1.3:subgroup=8}}
  tile.print "n = " (%n : i32)
  tile.return
}

// -----

tile.func @select_bases(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %c: i1)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "cuda:sm_80"} {
  // expected-error @below {{'arith.select' op a select between pointers into different kernel arguments is not supported on GPU targets yet (target cuda:sm_80)}}
  %r = arith.select %c, %p, %q : !tile.ptr<f32>
  tile.return
}

// -----

// An op that would need more shared memory than the target has: no basis
// of #T alone moves along one coordinate bit (each register also moves
// along bit 0, each lane along two bits), so the conversion cannot go
// through in pieces.
#L = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8], [16], [32], [64], [128], [256], [512], [1024], [2048]], lane = [[4096], [8192], [16384]], warp = []>
#T = #tgpu.layout<rank = 1, reg = [[9], [17], [33], [65], [129], [257], [513], [1025], [2049], [4097], [8193], [16385]], lane = [[3], [5], [7]], warp = []>
tile.func @too_much_shared(%n: i32)
    attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=8"} {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32, #L>
  // expected-error @below {{'tgpu.convert_layout' op needs 131072 bytes of shared memory in all, more than the 32768 bytes one program has on vulkan:1.3:subgroup=8}}
  %c = tgpu.convert_layout %r : tensor<32768xi32, #L> -> tensor<32768xi32, #T>
  tile.return
}

// -----

// expected-error @below {{'tile.func' op has no 'tgpu.target' (run tile-gpu-assign-layouts first)}}
tile.func @no_target(%n: i32) attributes {tgpu.num_warps = 1 : i32} {
  tile.return
}

// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=1" -verify-diagnostics

// Vulkan links no device library: calls of one are errors on the call, and
// of libdevice only the functions a math op computes run there.

tile.func @ocml_on_vulkan(%x: f32, %out: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op calls '__ocml_tanh_f32' of library 'ocml', which target vulkan:1.3:subgroup=32:shared=32768 cannot link: it links no device library}}
  %y = tile.extern_elementwise "__ocml_tanh_f32"(%x) lib "ocml" pure : (f32) -> f32
  tile.store %out, %y : !tile.ptr<f32>
  tile.return
}

// -----

tile.func @lgamma_on_vulkan(%x: f32, %out: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op calls '__nv_lgammaf' of library 'libdevice', which target vulkan:1.3:subgroup=32:shared=32768 cannot link}}
  %y = tile.extern_elementwise "__nv_lgammaf"(%x) lib "libdevice" pure : (f32) -> f32
  tile.store %out, %y : !tile.ptr<f32>
  tile.return
}

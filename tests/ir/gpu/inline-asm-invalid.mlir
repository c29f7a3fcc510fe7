// RUN: tessera-opt %s -split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=1" -verify-diagnostics

// SPIR-V has no inline assembly.

tile.func @on_vulkan(%x: f32, %out: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op runs target assembly, which target vulkan:1.3:subgroup=32:shared=32768 cannot: SPIR-V has no inline assembly}}
  %y = tile.inline_asm_elementwise "tanh.approx.f32 $0, $1;"(%x) constraints "=r,r" pure : (f32) -> f32
  tile.store %out, %y : !tile.ptr<f32>
  tile.return
}

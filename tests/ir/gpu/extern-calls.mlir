// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=1" | FileCheck %s
// RUN: tessera-opt %s -tile-lower-to-gpu="target=hip:gfx942 num-warps=1" | FileCheck %s --check-prefix=AMD

// A libdevice call: on NVIDIA every register calls the function, declared
// once in the gpu.module; AMD computes it with the math op
// (tile-libdevice-to-math), which its own lowering turns into ocml.

// CHECK-LABEL: gpu.module @calls
// CHECK: llvm.func @__nv_tanhf(f32) -> f32
// CHECK-LABEL: gpu.func @calls
// CHECK-COUNT-4: llvm.call @__nv_tanhf(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call @__nv_tanhf

// AMD-LABEL: gpu.module @calls
// AMD-NOT: __nv_tanhf
// AMD-COUNT-2: math.tanh %{{.*}} : f32
// AMD-NOT: __nv_tanhf
tile.func @calls(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>>
  %t = tile.extern_elementwise "__nv_tanhf"(%v) lib "libdevice" pure : (tensor<128xf32>) -> tensor<128xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %op, %t : tensor<128x!tile.ptr<f32>>
  tile.return
}

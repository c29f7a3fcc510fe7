// RUN: tessera-opt %s -tile-gpu-version-signed-remainders -verify-diagnostics

// The pass reads each kernel's target off tile-gpu-assign-layouts' attribute.
// expected-error @+1 {{has no 'tgpu.target' (run tile-gpu-assign-layouts first)}}
tile.func @k(%p: !tile.ptr<f32>) {
  tile.return
}

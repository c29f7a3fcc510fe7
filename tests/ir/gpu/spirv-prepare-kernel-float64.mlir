// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tessera-spirv-prepare-kernel="target=vulkan:1.3:subgroup=8" | FileCheck %s

// f64 arithmetic GLSL.std.450 has for every float width passes.
// CHECK-LABEL: gpu.func @square_root
// CHECK: math.sqrt %{{.*}} : f64
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @square_root(%x: memref<?xf64>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf64>
      %r = math.sqrt %v : f64
      %f = math.fma %r, %v, %v : f64
      memref.store %f, %x[%c0] : memref<?xf64>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<?xf64>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf64>
      // expected-error @+1 {{'math.exp' op (target vulkan:1.3:subgroup=8:shared=32768): f64 exp has no SPIR-V lowering: GLSL.std.450's exponential, logarithmic, trigonometric, hyperbolic and power functions take 16 or 32-bit floats}}
      %e = math.exp %v : f64
      gpu.return
    }
  }
}

// -----

// erf has no GLSL instruction; its polynomial expansion is f32's.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<?xf64>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf64>
      // expected-error @+1 {{f64 erf has no SPIR-V lowering}}
      %e = math.erf %v : f64
      gpu.return
    }
  }
}

// -----

// The same function on f32 passes.
// CHECK-LABEL: gpu.func @single
// CHECK: math.erf %{{.*}} : f32
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @single(%x: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      %e = math.erf %v : f32
      memref.store %e, %x[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// RUN: tessera-opt %s -split-input-file -verify-diagnostics -tessera-spirv-prepare-kernel="target=vulkan:1.3:subgroup=8 without=float64"

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      // expected-error @+1 {{'arith.extf' op (target vulkan:1.3:subgroup=8:shared=32768): f64 needs the Vulkan feature shaderFloat64, which the device lacks}}
      %d = arith.extf %v : f32 to f64
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{argument 0 of type 'memref<?xbf16>': bf16 has no SPIR-V lowering for Vulkan}}
    gpu.func @k(%x: memref<?xbf16>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%v: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      // expected-error @+1 {{'arith.truncf' op (target vulkan:1.3:subgroup=8:shared=32768): 8-bit floats have no SPIR-V arithmetic}}
      %q = arith.truncf %v : f32 to f8E4M3FN
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%v: f32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %one = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      // expected-error @+1 {{'gpu.shuffle' op (target vulkan:1.3:subgroup=8:shared=32768): the shuffle width must be the constant subgroup size 8}}
      %r, %ok = gpu.shuffle xor %v, %one, %width : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      // expected-error @+1 {{atomic 'maximumf' has no SPIR-V lowering}}
      %old = memref.atomic_rmw maximumf %one, %x[%c0] : (f32, memref<?xf32>) -> f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{Vulkan has no dynamic shared memory (tessera.shared_memory_bytes = 1024)}}
    gpu.func @k(%x: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.shared_memory_bytes = 1024 : i32} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{the kernel's workgroup memory (65536 bytes) exceeds the target's 32768 bytes}}
    gpu.func @k() workgroup(%big: memref<16384xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{the kernel needs known_block_size (the workgroup size)}}
    gpu.func @k(%x: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{argument 0 of type 'memref<4x4xf32>': pointer arguments must be memref<?xT> in the default memory space}}
    gpu.func @k(%x: memref<4x4xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}

// -----

// Cooperative matrices only where the target says :coopmat.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k() workgroup(%buffer: memref<256xf16, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'gpu.subgroup_mma_load_matrix' op (target vulkan:1.3:subgroup=8:shared=32768): cooperative matrices need a target with :coopmat}}
      %a = gpu.subgroup_mma_load_matrix %buffer[%c0] {leadDimension = 16 : index} : memref<256xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
      gpu.return
    }
  }
}

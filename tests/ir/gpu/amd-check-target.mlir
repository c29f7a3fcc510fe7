// RUN: tessera-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tessera-amd-check-target{chip=gfx1100}))' \
// RUN:   | FileCheck %s

// A wave32 kernel that gfx1100 runs: no diagnostics, unchanged.
// CHECK-LABEL: gpu.module @fits
// CHECK: gpu.shuffle xor
module attributes {gpu.container_module} {
  gpu.module @fits {
    gpu.func @fits(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %v = memref.load %x[%c0] : memref<?xf32>
      %s, %ok = gpu.shuffle xor %v, %one, %width : f32
      memref.store %s, %x[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @mfma {
    gpu.func @mfma(%out: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %a = arith.constant dense<1.0> : vector<4xf16>
      %c = arith.constant dense<0.0> : vector<4xf32>
      // expected-error @+1 {{'amdgpu.mfma' op needs MFMA matrix cores (CDNA: gfx90a, gfx942); hip:gfx1100 has none}}
      %d = amdgpu.mfma 16x16x16 %a * %a + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @wide_shuffle {
    gpu.func @wide_shuffle(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %width = arith.constant 64 : i32
      %v = memref.load %x[%c0] : memref<?xf32>
      // expected-error @+1 {{'gpu.shuffle' op exchanges values across 64 lanes, but a wave of hip:gfx1100 has 32}}
      %s, %ok = gpu.shuffle xor %v, %one, %width : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @wave64 {
    // expected-error @+1 {{kernel 'wave64' was distributed for 128 threads in 2 warps, but a wave of hip:gfx1100 has 32 threads (distribute it for this target)}}
    gpu.func @wave64(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @too_much_lds {
    // expected-error @+1 {{kernel 'too_much_lds' needs 69632 bytes of workgroup memory (LDS); hip:gfx1100 has 65536}}
    gpu.func @too_much_lds(%x: memref<?xf32>)
        workgroup(%stage: memref<16384xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
                           tessera.shared_memory_bytes = 4096 : i32} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @nvidia {
    gpu.func @nvidia(%x: memref<?xi32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      // expected-error @+1 {{'nvvm.read.ptx.sreg.laneid' op is an NVIDIA operation; hip:gfx1100 cannot run it}}
      %lane = nvvm.read.ptx.sreg.laneid : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @fp8 {
    gpu.func @fp8(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      // expected-error @+1 {{'arith.truncf' op uses 'f8E5M2FNUZ': floats narrower than 16 bits need gfx942 (FNUZ 8-bit floats); the target is hip:gfx1100}}
      %narrow = arith.truncf %v : f32 to f8E5M2FNUZ
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @no_warps {
    // expected-error @+1 {{kernel 'no_warps' has no 'tessera.num_warps' integer attribute (the distributed GPU form sets it)}}
    gpu.func @no_warps(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.shared_memory_bytes = 0 : i32} {
      gpu.return
    }
  }
}

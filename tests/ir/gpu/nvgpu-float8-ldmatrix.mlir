// RUN: tessera-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tessera-nvgpu-float8-ldmatrix))' | FileCheck %s

// An ldmatrix.x4 of e4m3 elements becomes nvvm.ldmatrix at the buffer's
// address plus the index, each of its four words the row of bytes the
// result held; an .x2 of e5m2 two words. An ldmatrix of 16-bit elements is
// left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: gpu.func @fragments
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %arg1 : index
// CHECK: %[[WIDE:.*]] = arith.index_castui %[[AT]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[WIDE]] : i64 to !llvm.ptr<3>
// CHECK: %[[WORDS:.*]] = nvvm.ldmatrix %[[PTR]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: %[[W0:.*]] = llvm.extractvalue %[[WORDS]][0]
// CHECK: %[[P0:.*]] = vector.from_elements %[[W0]] : vector<1xi32>
// CHECK: %[[B0:.*]] = vector.bitcast %[[P0]] : vector<1xi32> to vector<4xf8E4M3FN>
// CHECK: vector.insert %[[B0]], %{{.*}} [0] : vector<4xf8E4M3FN> into vector<4x4xf8E4M3FN>
// CHECK-COUNT-3: vector.insert %{{.*}} : vector<4xf8E4M3FN> into vector<4x4xf8E4M3FN>
// CHECK-NOT: nvgpu.ldmatrix %arg0
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, {{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-COUNT-2: vector.bitcast %{{.*}} : vector<1xi32> to vector<4xf8E5M2>
// CHECK: nvgpu.ldmatrix %arg2
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fragments(%bytes: memref<4096xf8E4M3FN, #gpu.address_space<workgroup>>, %i: index,
                        %halves: memref<2048xf16, #gpu.address_space<workgroup>>,
                        %others: memref<4096xf8E5M2, #gpu.address_space<workgroup>>)
        -> (vector<4x4xf8E4M3FN>, vector<2x4xf8E5M2>, vector<4x2xf16>) {
      %a = nvgpu.ldmatrix %bytes[%i] {numTiles = 4 : i32, transpose = false}
          : memref<4096xf8E4M3FN, #gpu.address_space<workgroup>> -> vector<4x4xf8E4M3FN>
      %b = nvgpu.ldmatrix %others[%i] {numTiles = 2 : i32, transpose = false}
          : memref<4096xf8E5M2, #gpu.address_space<workgroup>> -> vector<2x4xf8E5M2>
      %h = nvgpu.ldmatrix %halves[%i] {numTiles = 4 : i32, transpose = false}
          : memref<2048xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      gpu.return %a, %b, %h : vector<4x4xf8E4M3FN>, vector<2x4xf8E5M2>, vector<4x2xf16>
    }
  }
}

// -----

// The distribution's shared buffers are 1-D; another fp8 ldmatrix is an
// error at its place rather than a guess at its addresses.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tiles(%bytes: memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>>, %i: index)
        -> vector<4x4xf8E4M3FN> {
      // expected-error @below {{'nvgpu.ldmatrix' op of fp8 elements reads only 1-D buffers of the identity layout}}
      %a = nvgpu.ldmatrix %bytes[%i, %i] {numTiles = 4 : i32, transpose = false}
          : memref<64x64xf8E4M3FN, #gpu.address_space<workgroup>> -> vector<4x4xf8E4M3FN>
      gpu.return %a : vector<4x4xf8E4M3FN>
    }
  }
}

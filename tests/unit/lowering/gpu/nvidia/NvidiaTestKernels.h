// Hand-written kernels in the distributed GPU form (docs/gpu-nvidia.md), the
// input of compileForNvidia, shared by the code generator's and the CUDA
// runtime's tests.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_NVIDIATESTKERNELS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_NVIDIATESTKERNELS_H

#include "lowering/gpu/nvidia/NvidiaPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringRef.h"

namespace tessera::gpu::testing {

/// out[i] = x[i] + y[i] for i < n; 128 threads, one element each.
inline constexpr llvm::StringLiteral kVectorAdd = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @vector_add {
    gpu.func @vector_add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 4 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c128 = arith.constant 128 : index
      %base = arith.muli %bid, %c128 : index
      %i = arith.addi %base, %tid : index
      %bound = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %bound : index
      scf.if %inside {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// Per block of 64 threads: each warp sums its 32 values with xor shuffles,
/// lane 0 writes the warp's sum to a workgroup buffer, and after a barrier
/// thread 0 writes the block's sum to out[block].
inline constexpr llvm::StringLiteral kBlockSum = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @block_sum {
    gpu.func @block_sum(%x: memref<?xf32>, %out: memref<?xf32>) workgroup(%partial: memref<2xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<?xf32>
      %width = arith.constant 32 : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %s16, %ok16 = gpu.shuffle xor %v, %o16, %width : f32
      %v16 = arith.addf %v, %s16 : f32
      %s8, %ok8 = gpu.shuffle xor %v16, %o8, %width : f32
      %v8 = arith.addf %v16, %s8 : f32
      %s4, %ok4 = gpu.shuffle xor %v8, %o4, %width : f32
      %v4 = arith.addf %v8, %s4 : f32
      %s2, %ok2 = gpu.shuffle xor %v4, %o2, %width : f32
      %v2 = arith.addf %v4, %s2 : f32
      %s1, %ok1 = gpu.shuffle xor %v2, %o1, %width : f32
      %warpSum = arith.addf %v2, %s1 : f32
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %isLane0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %isLane0 {
        memref.store %warpSum, %partial[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %isThread0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %isThread0 {
        %c1 = arith.constant 1 : index
        %p0 = memref.load %partial[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
        %p1 = memref.load %partial[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
        %total = arith.addf %p0, %p1 : f32
        memref.store %total, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// out[i] = exp(x) + erf(x) + tanh(x) + log(1 + x*x) + pow(|x|, 0.5): every
/// term a libdevice function.
inline constexpr llvm::StringLiteral kMath = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @math_ops {
    gpu.func @math_ops(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 4 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c128 = arith.constant 128 : index
      %base = arith.muli %bid, %c128 : index
      %i = arith.addi %base, %tid : index
      %bound = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %bound : index
      scf.if %inside {
        %v = memref.load %x[%i] : memref<?xf32>
        %one = arith.constant 1.0 : f32
        %half = arith.constant 0.5 : f32
        %e = math.exp %v : f32
        %f = math.erf %v : f32
        %t = math.tanh %v : f32
        %sq = arith.mulf %v, %v : f32
        %sq1 = arith.addf %sq, %one : f32
        %l = math.log %sq1 : f32
        %a = math.absf %v : f32
        %p = math.powf %a, %half : f32
        %s1 = arith.addf %e, %f : f32
        %s2 = arith.addf %s1, %t : f32
        %s3 = arith.addf %s2, %l : f32
        %s4 = arith.addf %s3, %p : f32
        memref.store %s4, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// One warp computes C = A x B (m16n8k16, f16 in, f32 out) on the tensor
/// cores as the tensor-core emitter does: A (16x16, row-major) and B (16x8,
/// row-major) are staged in workgroup memory, read back as fragments with
/// ldmatrix (B transposed), multiplied by mma.sync, and each lane stores its
/// two accumulator pairs to C (16x8, row-major).
inline constexpr llvm::StringLiteral kMmaSync = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @mma_sync {
    gpu.func @mma_sync(%a: memref<?xf16>, %b: memref<?xf16>, %c: memref<?xf32>)
        workgroup(%aTile: memref<256xf16, #gpu.address_space<workgroup>>,
                  %bTile: memref<128xf16, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, tessera.num_warps = 1 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %aBase = arith.muli %lane, %c8 : index
      scf.for %k = %c0 to %c8 step %c1 {
        %i = arith.addi %aBase, %k : index
        %v = memref.load %a[%i] : memref<?xf16>
        memref.store %v, %aTile[%i] : memref<256xf16, #gpu.address_space<workgroup>>
      }
      %bBase = arith.muli %lane, %c4 : index
      scf.for %k = %c0 to %c4 step %c1 {
        %i = arith.addi %bBase, %k : index
        %v = memref.load %b[%i] : memref<?xf16>
        memref.store %v, %bTile[%i] : memref<128xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      // ldmatrix.x4: lanes 0-15 address rows 0-15 of A's left 8 columns,
      // lanes 16-31 the right 8 columns; .x2.trans: lanes 0-15 rows of B.
      %row = arith.remui %lane, %c16 : index
      %half = arith.divui %lane, %c16 : index
      %aRow = arith.muli %row, %c16 : index
      %aCol = arith.muli %half, %c8 : index
      %aIndex = arith.addi %aRow, %aCol : index
      %aFrag = nvgpu.ldmatrix %aTile[%aIndex] {numTiles = 4 : i32, transpose = false}
          : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      %bIndex = arith.muli %row, %c8 : index
      %bFrag = nvgpu.ldmatrix %bTile[%bIndex] {numTiles = 2 : i32, transpose = true}
          : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%aFrag, %bFrag, %zero) {mmaShape = [16, 8, 16]}
          : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      // Lane l holds C[l / 4][2 * (l % 4) + {0, 1}] and the same 8 rows below.
      %top = vector.extract %d[0] : vector<2xf32> from vector<2x2xf32>
      %bottom = vector.extract %d[1] : vector<2xf32> from vector<2x2xf32>
      %quad = arith.divui %lane, %c4 : index
      %inQuad = arith.remui %lane, %c4 : index
      %col = arith.muli %inQuad, %c2 : index
      %rowStart = arith.muli %quad, %c8 : index
      %topIndex = arith.addi %rowStart, %col : index
      %bottomIndex = arith.addi %topIndex, %c64 : index
      vector.store %top, %c[%topIndex] : memref<?xf32>, vector<2xf32>
      vector.store %bottom, %c[%bottomIndex] : memref<?xf32>, vector<2xf32>
      gpu.return
    }
  }
}
)mlir";

/// Reverses 16384 floats per block through 64 KiB of dynamic shared memory
/// (above the 48 KiB a launch gets without opting in).
inline constexpr llvm::StringLiteral kDynamicShared = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @reverse_in_shared {
    gpu.func @reverse_in_shared(%x: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>, tessera.num_warps = 8 : i32,
                    tessera.shared_memory_bytes = 65536 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %c16384 = arith.constant 16384 : index
      %c16383 = arith.constant 16383 : index
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %tile = memref.view %bytes[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<16384xf32, #gpu.address_space<workgroup>>
      %base = arith.muli %bid, %c16384 : index
      scf.for %j = %tid to %c16384 step %c256 {
        %g = arith.addi %base, %j : index
        %v = memref.load %x[%g] : memref<?xf32>
        memref.store %v, %tile[%j] : memref<16384xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %j = %tid to %c16384 step %c256 {
        %r = arith.subi %c16383, %j : index
        %v = memref.load %tile[%r] : memref<16384xf32, #gpu.address_space<workgroup>>
        %g = arith.addi %base, %j : index
        memref.store %v, %out[%g] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// Parses `text` (named kernel.mlir in locations) into `context`, after
/// giving it the dialects of the NVIDIA lowering; null (with the parser's
/// diagnostics printed) on a syntax error.
inline mlir::OwningOpRef<mlir::ModuleOp> parseKernel(mlir::MLIRContext &context,
                                                     llvm::StringRef text) {
  mlir::DialectRegistry registry;
  registerNvidiaLowering(registry);
  context.appendDialectRegistry(registry);
  return mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(&context),
                                                 "kernel.mlir");
}

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_NVIDIATESTKERNELS_H

// Hand-written kernels in the distributed GPU form (docs/gpu-vulkan.md), for
// the SPIR-V compiler's tests and the Vulkan runtime's. Each is instantiated
// for a subgroup size S: 8 subgroups per workgroup, so B = 8 * S threads.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRV_VULKANTESTKERNELS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRV_VULKANTESTKERNELS_H

#include "lowering/gpu/spirv/SpirvPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MathExtras.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::test::vulkan {

/// Subgroups per workgroup in every test kernel.
inline constexpr unsigned kWarpsPerBlock = 8;

/// Replaces $S (subgroup size), $H (S / 2), $L (log2 S), $B (threads per
/// block) and $W (subgroups per block) in `text`.
inline std::string instantiate(std::string text, unsigned subgroupSize) {
  const std::pair<const char *, unsigned> values[] = {
      {"$S", subgroupSize},
      {"$H", subgroupSize / 2},
      {"$L", llvm::Log2_32(subgroupSize)},
      {"$B", subgroupSize * kWarpsPerBlock},
      {"$W", kWarpsPerBlock}};
  for (const auto &[name, value] : values) {
    std::string replacement = std::to_string(value);
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at))
      text.replace(at, 2, replacement);
  }
  return text;
}

/// out[i] = x[i] + y[i] for i < n; masked with unstructured control flow.
inline constexpr const char *kVectorAdd = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @vector_add {
    gpu.func @vector_add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %block = arith.constant $B : index
      %base = arith.muli %bid, %block : index
      %i = arith.addi %base, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      cf.cond_br %inside, ^compute, ^done
    ^compute:
      %a = memref.load %x[%i] : memref<?xf32>
      %b = memref.load %y[%i] : memref<?xf32>
      %sum = arith.addf %a, %b : f32
      memref.store %sum, %out[%i] : memref<?xf32>
      cf.br ^done
    ^done:
      gpu.return
    }
  }
}
)mlir";

/// out[i] = alpha * x[i] + (k + base) for i < n: scalars of three widths
/// interleaved with buffers (push constants alpha +0, k +4, base +8, n +16).
inline constexpr const char *kScalarArgs = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @scalar_args {
    gpu.func @scalar_args(%x: memref<?xf32>, %alpha: f32, %out: memref<?xf32>, %k: i32,
                          %base: i64, %n: i32) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %block = arith.constant $B : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      scf.if %inside {
        %v = memref.load %x[%i] : memref<?xf32>
        %scaled = arith.mulf %alpha, %v : f32
        %base32 = arith.trunci %base : i64 to i32
        %shift = arith.addi %k, %base32 : i32
        %shiftf = arith.sitofp %shift : i32 to f32
        %r = arith.addf %scaled, %shiftf : f32
        memref.store %r, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// out[block] = sum of x over the block's elements (i < n): a shuffle-xor
/// tree per subgroup, partial sums in workgroup memory, a barrier, thread 0
/// adds the partials.
inline constexpr const char *kBlockSum = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @block_sum {
    gpu.func @block_sum(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32)
        workgroup(%partial: memref<$Wxf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %block = arith.constant $B : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      %v = scf.if %inside -> (f32) {
        %loaded = memref.load %x[%i] : memref<?xf32>
        scf.yield %loaded : f32
      } else {
        scf.yield %zero : f32
      }
      %width = arith.constant $S : i32
      %half = arith.constant $H : i32
      %steps = arith.constant $L : index
      %reduced = scf.for %step = %c0 to %steps step %c1 iter_args(%acc = %v) -> (f32) {
        %step32 = arith.index_cast %step : index to i32
        %offset = arith.shrui %half, %step32 : i32
        %other, %valid = gpu.shuffle xor %acc, %offset, %width : f32
        %next = arith.addf %acc, %other : f32
        scf.yield %next : f32
      }
      %subgroup = arith.constant $S : index
      %lane = arith.remui %tid, %subgroup : index
      %warp = arith.divui %tid, %subgroup : index
      %leader = arith.cmpi eq, %lane, %c0 : index
      scf.if %leader {
        memref.store %reduced, %partial[%warp] : memref<$Wxf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %warps = arith.constant $W : index
        %total = scf.for %w = %c0 to %warps step %c1 iter_args(%s = %zero) -> (f32) {
          %p = memref.load %partial[%w] : memref<$Wxf32, #gpu.address_space<workgroup>>
          %t = arith.addf %s, %p : f32
          scf.yield %t : f32
        }
        memref.store %total, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir";

/// y[i] = x[i] * scale + 1 in f16 for i < n (f16 buffers and an f16 push constant).
inline constexpr const char *kHalfScale = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @half_scale {
    gpu.func @half_scale(%x: memref<?xf16>, %y: memref<?xf16>, %scale: f16, %n: i32) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %block = arith.constant $B : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      scf.if %inside {
        %v = memref.load %x[%i] : memref<?xf16>
        %one = arith.constant 1.0 : f16
        %scaled = arith.mulf %v, %scale : f16
        %r = arith.addf %scaled, %one : f16
        memref.store %r, %y[%i] : memref<?xf16>
      }
      gpu.return
    }
  }
}
)mlir";

/// sum[0] += x[i] (f32 atomic add) and counts[i % 4] += 1 (i32 atomic add)
/// for i < n.
inline constexpr const char *kAtomicAdd = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @atomic_add {
    gpu.func @atomic_add(%x: memref<?xf32>, %sum: memref<?xf32>, %counts: memref<?xi32>, %n: i32)
        kernel attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                           tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %block = arith.constant $B : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %limit = arith.index_cast %n : i32 to index
      %inside = arith.cmpi ult, %i, %limit : index
      scf.if %inside {
        %c0 = arith.constant 0 : index
        %c4 = arith.constant 4 : index
        %one = arith.constant 1 : i32
        %v = memref.load %x[%i] : memref<?xf32>
        %old = memref.atomic_rmw addf %v, %sum[%c0] : (f32, memref<?xf32>) -> f32
        %bucket = arith.remui %i, %c4 : index
        %oldCount = memref.atomic_rmw addi %one, %counts[%bucket] : (i32, memref<?xi32>) -> i32
      }
      gpu.return
    }
  }
}
)mlir";

/// out = inclusive prefix sums of x within each subgroup (shuffle up).
inline constexpr const char *kSubgroupScan = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @subgroup_scan {
    gpu.func @subgroup_scan(%x: memref<?xi32>, %out: memref<?xi32>) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %block = arith.constant $B : index
      %start = arith.muli %bid, %block : index
      %i = arith.addi %start, %tid : index
      %v = memref.load %x[%i] : memref<?xi32>
      %width = arith.constant $S : i32
      %one = arith.constant 1 : i32
      %steps = arith.constant $L : index
      %scan = scf.for %step = %c0 to %steps step %c1 iter_args(%acc = %v) -> (i32) {
        %step32 = arith.index_cast %step : index to i32
        %offset = arith.shli %one, %step32 : i32
        %other, %valid = gpu.shuffle up %acc, %offset, %width : i32
        %added = arith.addi %acc, %other : i32
        %next = arith.select %valid, %added, %acc : i32
        scf.yield %next : i32
      }
      memref.store %scan, %out[%i] : memref<?xi32>
      gpu.return
    }
  }
}
)mlir";

/// For each program (bx, by, bz) of a 3-D grid, thread 0 writes
/// out[p] = bx + 100 by + 10000 bz + bias (+ 1000000 where flags[p]), with
/// p = bx + nx (by + ny bz): program ids, grid sizes, an i1 buffer and an i8
/// push constant.
inline constexpr const char *kGridIds = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @grid_ids {
    gpu.func @grid_ids(%flags: memref<?xi1>, %out: memref<?xi32>, %bias: i8) kernel
        attributes {known_block_size = array<i32: $B, 1, 1>, tessera.num_warps = $W : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %bx = gpu.block_id x
        %by = gpu.block_id y
        %bz = gpu.block_id z
        %nx = gpu.grid_dim x
        %ny = gpu.grid_dim y
        %zy = arith.muli %ny, %bz : index
        %row = arith.addi %by, %zy : index
        %rows = arith.muli %nx, %row : index
        %p = arith.addi %bx, %rows : index
        %c100 = arith.constant 100 : index
        %c10000 = arith.constant 10000 : index
        %y100 = arith.muli %by, %c100 : index
        %z10000 = arith.muli %bz, %c10000 : index
        %xy = arith.addi %bx, %y100 : index
        %xyz = arith.addi %xy, %z10000 : index
        %id = arith.index_cast %xyz : index to i32
        %wide = arith.extsi %bias : i8 to i32
        %biased = arith.addi %id, %wide : i32
        %flag = memref.load %flags[%p] : memref<?xi1>
        %million = arith.constant 1000000 : i32
        %zero = arith.constant 0 : i32
        %extra = arith.select %flag, %million, %zero : i32
        %value = arith.addi %biased, %extra : i32
        memref.store %value, %out[%p] : memref<?xi32>
      }
      gpu.return
    }
  }
}
)mlir";

/// A context with the dialects of the distributed form and of SPIR-V.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  gpu::vulkan::registerSpirvLoweringDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

inline mlir::OwningOpRef<mlir::ModuleOp> parseKernel(mlir::MLIRContext &context,
                                                     const std::string &text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

} // namespace tessera::test::vulkan

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRV_VULKANTESTKERNELS_H

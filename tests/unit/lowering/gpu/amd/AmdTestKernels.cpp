#include "AmdTestKernels.h"

#include "tests/unit/kernels/TileKernels.h"

#include "llvm/ADT/StringRef.h"

#include <utility>

namespace tessera::gpu::amd::testing {

namespace {
/// Fills in @ATTRIBUTES@ (the distributed form's kernel attributes for two
/// warps), @BLOCK@ (threads per workgroup), @LAST@ (@BLOCK@ - 1) and @WAVE@.
std::string instantiate(llvm::StringRef text, unsigned waveSize) {
  unsigned block = 2 * waveSize;
  std::pair<std::string, std::string> substitutions[] = {
      {"@ATTRIBUTES@", "known_block_size = array<i32: " + std::to_string(block) +
                           ", 1, 1>, tessera.num_warps = 2 : i32, "
                           "tessera.shared_memory_bytes = 0 : i32"},
      {"@BLOCK@", std::to_string(block)},
      {"@LAST@", std::to_string(block - 1)},
      {"@WAVE@", std::to_string(waveSize)}};
  std::string result = text.str();
  for (const auto &[placeholder, value] : substitutions)
    result = tessera::test_kernels::withReplaced(result, placeholder, value);
  return result;
}
} // namespace

std::string maskedVectorAdd(unsigned waveSize) {
  return instantiate(R"mlir(
module attributes {gpu.container_module} {
  gpu.module @vector_add {
    gpu.func @vector_add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %n: i32)
        kernel attributes {@ATTRIBUTES@} {
      %tid = gpu.thread_id x
      %pid = gpu.block_id x
      %block = arith.constant @BLOCK@ : index
      %base = arith.muli %pid, %block : index
      %i = arith.addi %base, %tid : index
      %count = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %count : index
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
)mlir",
                     waveSize);
}

std::string workgroupMemoryShuffle(unsigned waveSize) {
  return instantiate(R"mlir(
module attributes {gpu.container_module} {
  gpu.module @lds_shuffle {
    gpu.func @lds_shuffle(%x: memref<?xf32>, %out: memref<?xf32>)
        workgroup(%stage: memref<@BLOCK@xf32, #gpu.address_space<workgroup>>)
        kernel attributes {@ATTRIBUTES@} {
      %tid = gpu.thread_id x
      %pid = gpu.block_id x
      %block = arith.constant @BLOCK@ : index
      %last = arith.constant @LAST@ : index
      %base = arith.muli %pid, %block : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %stage[%tid] : memref<@BLOCK@xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %mirror = arith.subi %last, %tid : index
      %w = memref.load %stage[%mirror] : memref<@BLOCK@xf32, #gpu.address_space<workgroup>>
      %one = arith.constant 1 : i32
      %width = arith.constant @WAVE@ : i32
      %neighbour, %ok = gpu.shuffle xor %w, %one, %width : f32
      %tid32 = arith.index_cast %tid : index to i32
      %lane = arith.remui %tid32, %width : i32
      %rotated = arith.addi %lane, %one : i32
      %source = arith.remui %rotated, %width : i32
      %next, %ok2 = gpu.shuffle idx %neighbour, %source, %width : f32
      memref.store %next, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
)mlir",
                     waveSize);
}

std::string mathFunctions(unsigned waveSize) {
  return instantiate(R"mlir(
module attributes {gpu.container_module} {
  gpu.module @math_functions {
    gpu.func @math_functions(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32)
        kernel attributes {@ATTRIBUTES@} {
      %tid = gpu.thread_id x
      %pid = gpu.block_id x
      %block = arith.constant @BLOCK@ : index
      %base = arith.muli %pid, %block : index
      %i = arith.addi %base, %tid : index
      %count = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %count : index
      scf.if %inside {
        %v = memref.load %x[%i] : memref<?xf32>
        %e = math.exp %v : f32
        %f = math.erf %v : f32
        %t = math.tanh %v : f32
        %wide = arith.extf %v : f32 to f64
        %fw = math.erf %wide : f64
        %fn = arith.truncf %fw : f64 to f32
        %s1 = arith.addf %e, %f : f32
        %s2 = arith.addf %s1, %t : f32
        %s3 = arith.addf %s2, %fn : f32
        memref.store %s3, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
)mlir",
                     waveSize);
}

} // namespace tessera::gpu::amd::testing

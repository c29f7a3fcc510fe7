// What the AMD steps refuse, and that the error names the construct, where
// it is and the target.
#include "AmdTestKernels.h"
#include "AmdTestUtils.h"

#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/amd/CodeObject.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace tessera::gpu;
using namespace tessera::gpu::amd;
using namespace tessera::gpu::amd::testing;

namespace {

/// The error compileForAmd gives for `text` on `chip`; "" when it compiles.
std::string compileError(llvm::StringRef text, llvm::StringRef chip,
                         const AmdCompileOptions &options = {}) {
  auto context = makeAmdContext();
  auto module = parseKernel(*context, text);
  if (!module)
    return "the test kernel does not parse";
  llvm::Expected<GpuTarget> target = GpuTarget::parse(chip);
  if (!target)
    return llvm::toString(target.takeError());
  llvm::Expected<KernelBinary> binary = compileForAmd(*module, *target, options);
  return binary ? std::string() : llvm::toString(binary.takeError());
}

constexpr llvm::StringLiteral kMfmaKernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @mfma {
    gpu.func @mfma(%out: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %a = arith.constant dense<1.0> : vector<4xf16>
      %c = arith.constant dense<0.0> : vector<4xf32>
      %d = amdgpu.mfma 16x16x16 %a * %a + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      %e = vector.extract %d[0] : f32 from vector<4xf32>
      %i = arith.constant 0 : index
      memref.store %e, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
)mlir";

TEST(AmdErrorsTest, MfmaOnRdnaNamesTheOpAndTheChip) {
  std::string error = compileError(kMfmaKernel, "hip:gfx1100");
  EXPECT_NE(error.find("'amdgpu.mfma' op needs MFMA matrix cores"), std::string::npos) << error;
  EXPECT_NE(error.find("hip:gfx1100"), std::string::npos) << error;
  // The location of the op: line 9 of the kernel text.
  EXPECT_NE(error.find(":9:"), std::string::npos) << error;
}

TEST(AmdErrorsTest, KernelDistributedForAnotherWaveSizeIsRefused) {
  std::string error = compileError(maskedVectorAdd(/*waveSize=*/64), "hip:gfx1100");
  EXPECT_NE(error.find("distributed for 128 threads in 2 warps"), std::string::npos) << error;
  EXPECT_NE(error.find("a wave of hip:gfx1100 has 32 threads"), std::string::npos) << error;
}

TEST(AmdErrorsTest, ShuffleWiderThanTheWaveIsRefused) {
  std::string kernel = workgroupMemoryShuffle(/*waveSize=*/32);
  std::string width = "arith.constant 32 : i32";
  ASSERT_NE(kernel.find(width), std::string::npos);
  kernel.replace(kernel.find(width), width.size(), "arith.constant 64 : i32");
  std::string error = compileError(kernel, "hip:gfx1100");
  EXPECT_NE(error.find("'gpu.shuffle' op exchanges values across 64 lanes, but a wave of "
                       "hip:gfx1100 has 32"),
            std::string::npos)
      << error;
}

TEST(AmdErrorsTest, ExtentOfAPointerArgumentIsRefused) {
  constexpr llvm::StringLiteral kernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @extent {
    gpu.func @extent(%x: memref<?xf32>, %out: memref<?xi64>) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %n64 = arith.index_cast %n : index to i64
      memref.store %n64, %out[%c0] : memref<?xi64>
      gpu.return
    }
  }
}
)mlir";
  std::string error = compileError(kernel, "hip:gfx942");
  EXPECT_NE(error.find("'memref.dim' needs more of pointer argument #0 than its address, but the "
                       "kernel does not know its extent"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("for hip:gfx942"), std::string::npos) << error;
}

TEST(AmdErrorsTest, NvidiaOperationIsRefused) {
  constexpr llvm::StringLiteral kernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @nv {
    gpu.func @nv(%out: memref<?xi32>) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %lane = nvvm.read.ptx.sreg.laneid : i32
      %c0 = arith.constant 0 : index
      memref.store %lane, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}
)mlir";
  auto context = makeAmdContext();
  context->loadDialect<mlir::NVVM::NVVMDialect>();
  auto module = parseKernel(*context, kernel);
  ASSERT_TRUE(module);
  llvm::Expected<KernelBinary> binary = compileForAmd(*module, *GpuTarget::parse("hip:gfx942"));
  ASSERT_FALSE(static_cast<bool>(binary));
  std::string error = llvm::toString(binary.takeError());
  EXPECT_NE(error.find("'nvvm.read.ptx.sreg.laneid' op is an NVIDIA operation"),
            std::string::npos)
      << error;
}

TEST(AmdErrorsTest, WorkgroupMemoryBeyondTheLdsIsRefused) {
  constexpr llvm::StringLiteral kernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @big {
    gpu.func @big(%out: memref<?xf32>) workgroup(%stage: memref<16384xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
                           tessera.shared_memory_bytes = 4096 : i32} {
      gpu.return
    }
  }
}
)mlir";
  std::string error = compileError(kernel, "hip:gfx942");
  EXPECT_NE(error.find("needs 69632 bytes of workgroup memory (LDS); hip:gfx942 has 65536"),
            std::string::npos)
      << error;
}

TEST(AmdErrorsTest, Fp8OutsideGfx942IsRefused) {
  constexpr llvm::StringLiteral kernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @fp8 {
    gpu.func @fp8(%x: memref<?xf32>, %out: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      %narrow = arith.truncf %v : f32 to f8E4M3FNUZ
      %wide = arith.extf %narrow : f8E4M3FNUZ to f32
      memref.store %wide, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
)mlir";
  std::string error = compileError(kernel, "hip:gfx90a");
  EXPECT_NE(error.find("'arith.truncf' op uses 'f8E4M3FNUZ'"), std::string::npos) << error;
  EXPECT_NE(error.find("hip:gfx90a"), std::string::npos) << error;
  EXPECT_EQ(compileError(kernel, "hip:gfx942"), "");
}

TEST(AmdErrorsTest, CallsNoDeviceLibraryDefinesAreRefused) {
  constexpr llvm::StringLiteral kernel = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @unresolved {
    func.func private @__ocml_no_such_function_f32(f32) -> f32
    gpu.func @unresolved(%x: memref<?xf32>) kernel attributes {
        known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 2 : i32,
        tessera.shared_memory_bytes = 0 : i32} {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      %r = func.call @__ocml_no_such_function_f32(%v) : (f32) -> f32
      memref.store %r, %x[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
)mlir";
  std::string error = compileError(kernel, "hip:gfx942");
  EXPECT_NE(error.find("the code object calls functions no device library defines: "
                       "__ocml_no_such_function_f32"),
            std::string::npos)
      << error;
}

TEST(AmdErrorsTest, NonAmdTargetsAndUnknownCodeObjectVersionsAreRefused) {
  std::string error = compileError(maskedVectorAdd(32), "cuda:sm_90a");
  EXPECT_NE(error.find("cannot compile kernel 'vector_add' for cuda:sm_90a: not an AMD target"),
            std::string::npos)
      << error;
  AmdCompileOptions options;
  options.codeObjectVersion = 400;
  error = compileError(maskedVectorAdd(64), "hip:gfx942", options);
  EXPECT_NE(error.find("code object version 400 is not supported"), std::string::npos) << error;
}

TEST(AmdErrorsTest, CodeObjectVersion600IsAccepted) {
  auto context = makeAmdContext();
  auto module = parseKernel(*context, maskedVectorAdd(64));
  ASSERT_TRUE(module);
  AmdCompileOptions options;
  options.codeObjectVersion = 600;
  llvm::Expected<KernelBinary> binary =
      compileForAmd(*module, *GpuTarget::parse("hip:gfx942"), options);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  llvm::Expected<CodeObject> object = readCodeObject(binary->binary);
  ASSERT_TRUE(static_cast<bool>(object)) << llvm::toString(object.takeError());
  EXPECT_EQ(object->codeObjectVersion, 6);
}

TEST(AmdErrorsTest, ReadingSomethingElseThanACodeObjectFails) {
  std::vector<uint8_t> garbage{'n', 'o', 't', ' ', 'e', 'l', 'f'};
  llvm::Expected<CodeObject> object = readCodeObject(garbage);
  ASSERT_FALSE(static_cast<bool>(object));
  EXPECT_NE(llvm::toString(object.takeError()).find("malformed AMDGPU code object"),
            std::string::npos);

  auto self = llvm::MemoryBuffer::getFile("/proc/self/exe");
  ASSERT_TRUE(static_cast<bool>(self));
  llvm::ArrayRef<uint8_t> host(reinterpret_cast<const uint8_t *>((*self)->getBufferStart()),
                               (*self)->getBufferSize());
  object = readCodeObject(host);
  ASSERT_FALSE(static_cast<bool>(object));
  EXPECT_NE(llvm::toString(object.takeError()).find("not an AMDGPU (amdgcn) ELF file"),
            std::string::npos);
}

} // namespace

// A compiled GPU kernel survives its trip through a cache payload field for
// field, and text that is not such a payload is refused, not half-read.
#include "runtime/cache/GpuKernelCodec.h"

#include "tests/unit/runtime/cache/CacheTestUtils.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::runtime;
using namespace tessera::runtime::cache_testing;

namespace {

/// A kernel with every field away from its default: two tensor maps (one of
/// argument extents, one with a constant and NaN padding), ptxas's report,
/// bytes 0 to 255 (every value base64 must keep) and notes.
gpu::CompiledGpuKernel nvidiaKernel() {
  gpu::CompiledGpuKernel kernel;
  gpu::KernelBinary &binary = kernel.binary;
  binary.target = targetFor("cuda:sm_90a");
  binary.kernelName = "matmul";
  for (int byte = 0; byte < 256; ++byte)
    binary.binary.push_back(uint8_t(byte));
  binary.assembly = ".version 9.0\n.target sm_90a\n// \"quoted\" \\ and a tab\t\n";
  binary.ptxForDriverJit = true;
  binary.blockThreads = 384;
  binary.dynamicSharedMemoryBytes = 147504;
  gpu::TensorMapParam a;
  a.base = 0;
  a.shape = {{3, 0}, {5, 0}};
  a.outerStrides = {{6, 0}};
  a.element = "bf16";
  a.elementBytes = 2;
  a.box = {64, 128};
  a.swizzleBytes = 128;
  gpu::TensorMapParam b = a;
  b.base = 1;
  b.shape = {{-1, 4096}, {4, 0}};
  b.outerStrides = {{-1, 4096}};
  b.nanPadding = true;
  binary.tensorMaps = {a, b};
  binary.usage.registers = 168;
  binary.usage.sharedMemoryBytes = 0;
  binary.usage.spillStoreBytes = 8;
  binary.usage.spillLoadBytes = 12;
  binary.usage.stackFrameBytes = 16;
  binary.usage.serializedWgmma = "C7515";
  binary.usage.report = "ptxas info    : Used 168 registers\n";
  kernel.dots = {"k.py:12:15: wgmma.m64n256k16.bf16"};
  kernel.pipelines = {"k.py:10:5: 4 stages (num_stages 3), copies 2 iterations ahead by TMA"};
  return kernel;
}

} // namespace

TEST(GpuKernelCodec, NvidiaKernelRoundTrips) {
  gpu::CompiledGpuKernel kernel = nvidiaKernel();
  llvm::Expected<gpu::CompiledGpuKernel> decoded =
      decodeGpuKernel(encodeGpuKernel(kernel), kernel.binary.target);
  ASSERT_TRUE(static_cast<bool>(decoded)) << llvm::toString(decoded.takeError());
  expectSameBinary(decoded->binary, kernel.binary);
  EXPECT_EQ(decoded->dots, kernel.dots);
  EXPECT_EQ(decoded->pipelines, kernel.pipelines);
  EXPECT_FALSE(decoded->vulkan.has_value());
}

TEST(GpuKernelCodec, VulkanShaderKeepsItsBindingsAndBinary) {
  gpu::CompiledGpuKernel kernel;
  kernel.binary.target = targetFor("vulkan:1.3:subgroup=8");
  kernel.binary.kernelName = "add";
  kernel.binary.binary = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0};
  kernel.binary.assembly = "spirv.module Logical GLSL450 {}";
  kernel.binary.blockThreads = 64;
  gpu::vulkan::VulkanKernel shader;
  shader.binary = kernel.binary;
  gpu::vulkan::VulkanKernelParam buffer, scalar;
  buffer.type = "f32";
  buffer.bytes = 4;
  buffer.binding = 2;
  scalar.kind = gpu::vulkan::VulkanKernelParam::Kind::PushConstant;
  scalar.type = "i64";
  scalar.bytes = 8;
  scalar.offset = 8;
  shader.abi.params = {buffer, scalar};
  shader.abi.pushConstantBytes = 16;
  shader.workgroupSize = {64, 1, 1};
  shader.spirvVersion = 0x00010600;
  shader.capabilities = {"Shader", "Int64"};
  shader.extensions = {"SPV_KHR_storage_buffer_storage_class"};
  kernel.vulkan = shader;

  llvm::Expected<gpu::CompiledGpuKernel> decoded =
      decodeGpuKernel(encodeGpuKernel(kernel), kernel.binary.target);
  ASSERT_TRUE(static_cast<bool>(decoded)) << llvm::toString(decoded.takeError());
  expectSameBinary(decoded->binary, kernel.binary);
  ASSERT_TRUE(decoded->vulkan.has_value());
  EXPECT_EQ(decoded->vulkan->abi, shader.abi);
  EXPECT_EQ(decoded->vulkan->workgroupSize, shader.workgroupSize);
  EXPECT_EQ(decoded->vulkan->spirvVersion, shader.spirvVersion);
  EXPECT_EQ(decoded->vulkan->capabilities, shader.capabilities);
  EXPECT_EQ(decoded->vulkan->extensions, shader.extensions);
  expectSameBinary(decoded->vulkan->binary, kernel.binary);
}

TEST(GpuKernelCodec, TextThatIsNoPayloadIsRefused) {
  gpu::GpuTarget target = targetFor("cuda:sm_80");
  std::string good = encodeGpuKernel(nvidiaKernel());
  auto fails = [&](const std::string &text, const std::string &why) {
    llvm::Expected<gpu::CompiledGpuKernel> decoded = decodeGpuKernel(text, target);
    ASSERT_FALSE(static_cast<bool>(decoded)) << why;
    EXPECT_NE(llvm::toString(decoded.takeError()), "") << why;
  };
  fails("", "empty");
  fails("not json", "not JSON");
  fails("[1, 2]", "not an object");
  fails(good.substr(0, good.size() / 2), "truncated");
  std::string otherFormat = good;
  otherFormat.replace(otherFormat.find("\"format\":1"), 10, "\"format\":2");
  fails(otherFormat, "another format");
  std::string noAssembly = good;
  noAssembly.replace(noAssembly.find("\"assembly\""), 10, "\"assembler\"");
  fails(noAssembly, "a field missing");
  std::string badBase64 = good;
  size_t binary = badBase64.find("\"binary\":\"") + 10;
  badBase64[binary] = '*';
  fails(badBase64, "binary not base64");
  std::string badMap = good;
  badMap.replace(badMap.find("\"swizzle_bytes\":128"), 19, "\"swizzle_bytes\":\"x\"");
  fails(badMap, "a tensor map field of the wrong type");
}

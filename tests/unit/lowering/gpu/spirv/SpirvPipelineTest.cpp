// The SPIR-V code generator: each test kernel compiles for Vulkan 1.2 and
// 1.3, passes spirv-val for its environment and has the documented ABI;
// unsupported types and ops fail with errors naming the op and the target.
#include "tests/unit/lowering/gpu/SpirvValidator.h"
#include "tests/unit/lowering/gpu/spirv/VulkanTestKernels.h"

#include "lowering/gpu/spirv/SpirvPipeline.h"

#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tessera;
using namespace tessera::test::vulkan;
using gpu::GpuTarget;
using gpu::vulkan::VulkanFeatures;
using gpu::vulkan::VulkanKernel;
using gpu::vulkan::VulkanKernelAbi;
using gpu::vulkan::VulkanKernelParam;

namespace {

GpuTarget targetFor(llvm::StringRef spec) {
  llvm::Expected<GpuTarget> target = GpuTarget::parse(spec);
  EXPECT_TRUE(bool(target)) << llvm::toString(target.takeError());
  return *target;
}

llvm::Expected<VulkanKernel> compile(const std::string &text, const GpuTarget &target,
                                     const VulkanFeatures &features = {}) {
  auto context = makeContext();
  auto module = parseKernel(*context, text);
  if (!module)
    return llvm::createStringError("the test kernel does not parse");
  return gpu::vulkan::compileForVulkan(*module, target, features);
}

struct KernelCase {
  const char *name;
  const char *text;
};

const KernelCase kKernels[] = {
    {"vector_add", kVectorAdd}, {"scalar_args", kScalarArgs}, {"block_sum", kBlockSum},
    {"half_scale", kHalfScale}, {"atomic_add", kAtomicAdd},   {"subgroup_scan", kSubgroupScan},
    {"grid_ids", kGridIds},
};

class SpirvKernelTest : public ::testing::TestWithParam<std::tuple<KernelCase, const char *>> {};

TEST_P(SpirvKernelTest, CompilesAndValidates) {
  auto [kernelCase, version] = GetParam();
  GpuTarget target = targetFor(std::string("vulkan:") + version + ":subgroup=8");
  llvm::Expected<VulkanKernel> kernel = compile(instantiate(kernelCase.text, 8), target);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->binary.kernelName, kernelCase.name);
  EXPECT_EQ(kernel->binary.blockThreads, 64u);
  EXPECT_EQ(kernel->workgroupSize, (std::array<unsigned, 3>{64, 1, 1}));
  EXPECT_EQ(kernel->spirvVersion, std::string(version) == "1.2" ? 0x00010500u : 0x00010600u);
  EXPECT_EQ(kernel->binary.binary.size() % 4, 0u);
  EXPECT_EQ(kernel->words().front(), 0x07230203u) << "SPIR-V magic number";
  EXPECT_NE(kernel->binary.assembly.find("spirv.EntryPoint \"GLCompute\" @" +
                                         std::string(kernelCase.name)),
            std::string::npos)
      << kernel->binary.assembly;
  std::string environment = std::string("vulkan") + version;
  if (!gpu::testing::spirvValidator())
    GTEST_SKIP() << "spirv-val is not on PATH (Debian: spirv-tools)";
  EXPECT_EQ(gpu::testing::validateSpirv(kernel->binary.binary, environment), "")
      << kernel->binary.assembly;
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, SpirvKernelTest,
    ::testing::Combine(::testing::ValuesIn(kKernels), ::testing::Values("1.2", "1.3")),
    [](const auto &info) {
      std::string version = std::get<1>(info.param);
      version.erase(version.find('.'), 1);
      return std::string(std::get<0>(info.param).name) + "_vulkan" + version;
    });

TEST(SpirvPipelineTest, ScalarsGoToPushConstantsAndBuffersToBindings) {
  llvm::Expected<VulkanKernel> kernel =
      compile(instantiate(kScalarArgs, 8), targetFor("vulkan:1.3:subgroup=8"));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const VulkanKernelAbi &abi = kernel->abi;
  EXPECT_EQ(abi.str(), "binding 0: f32[], push +0: f32, binding 1: f32[], push +4: i32, "
                       "push +8: i64, push +16: i32");
  EXPECT_EQ(abi.pushConstantBytes, 20u);
  EXPECT_EQ(abi.numStorageBuffers(), 2u);
  const std::string &text = kernel->binary.assembly;
  EXPECT_NE(text.find("@scalar_args_push_constants"), std::string::npos) << text;
  EXPECT_NE(text.find("!spirv.struct<(f32 [0], i32 [4], i64 [8], i32 [16])>, PushConstant>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bind(0, 1)"), std::string::npos) << text;
  EXPECT_EQ(text.find("bind(0, 2)"), std::string::npos) << "scalars take no binding:\n" << text;
  EXPECT_TRUE(llvm::is_contained(kernel->capabilities, "Int64"));
}

TEST(SpirvPipelineTest, SubgroupAndWorkgroupMemoryLowering) {
  llvm::Expected<VulkanKernel> kernel =
      compile(instantiate(kBlockSum, 8), targetFor("vulkan:1.3:subgroup=8"));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  const std::string &text = kernel->binary.assembly;
  EXPECT_NE(text.find("spirv.GroupNonUniformShuffleXor <Subgroup>"), std::string::npos) << text;
  EXPECT_NE(text.find("spirv.ControlBarrier <Workgroup>"), std::string::npos) << text;
  EXPECT_NE(text.find(", Workgroup>"), std::string::npos) << text;
  EXPECT_EQ(kernel->binary.usage.sharedMemoryBytes, 32);
  EXPECT_TRUE(llvm::is_contained(kernel->capabilities, "GroupNonUniformShuffle"));
}

TEST(SpirvPipelineTest, LeavesTheInputModuleUnchanged) {
  auto context = makeContext();
  auto module = parseKernel(*context, instantiate(kVectorAdd, 8));
  ASSERT_TRUE(module);
  std::string before;
  llvm::raw_string_ostream(before) << *module;
  llvm::Expected<VulkanKernel> kernel =
      gpu::vulkan::compileForVulkan(*module, targetFor("vulkan:1.3:subgroup=8"));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::string after;
  llvm::raw_string_ostream(after) << *module;
  EXPECT_EQ(before, after);
}

/// Compiles `text` expecting failure; returns the message.
std::string compileError(const std::string &text, llvm::StringRef spec,
                         const VulkanFeatures &features = {}) {
  llvm::Expected<VulkanKernel> kernel = compile(text, targetFor(spec), features);
  if (kernel)
    return "compiled";
  return llvm::toString(kernel.takeError());
}

std::string wrapKernel(llvm::StringRef arguments, llvm::StringRef body) {
  return (R"(module attributes {gpu.container_module} {
  gpu.module @bad {
    gpu.func @bad()" +
          arguments + R"() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
)" + body + R"(
      gpu.return
    }
  }
})")
      .str();
}

TEST(SpirvPipelineTest, F64WithoutTheFeatureNamesOpAndTarget) {
  VulkanFeatures noFloat64;
  ASSERT_FALSE(bool(noFloat64.disable("float64")));
  std::string message = compileError(
      wrapKernel("%x: memref<?xf32>", R"(
      %v = memref.load %x[%c0] : memref<?xf32>
      %d = arith.extf %v : f32 to f64
      %t = arith.truncf %d : f64 to f32
      memref.store %t, %x[%c0] : memref<?xf32>)"),
      "vulkan:1.3:subgroup=8", noFloat64);
  EXPECT_NE(message.find("'arith.extf' op"), std::string::npos) << message;
  EXPECT_NE(message.find("vulkan:1.3:subgroup=8"), std::string::npos) << message;
  EXPECT_NE(message.find("shaderFloat64"), std::string::npos) << message;
  EXPECT_TRUE(llvm::Regex(":[0-9]+:[0-9]+: error: 'arith.extf' op").match(message)) << message;
  EXPECT_NE(message.find("kernel 'bad'"), std::string::npos) << message;
}

TEST(SpirvPipelineTest, Bf16AndF8AreRefused) {
  std::string bf16 = compileError(wrapKernel("%x: memref<?xbf16>", ""), "vulkan:1.3");
  EXPECT_NE(bf16.find("bf16 has no SPIR-V lowering"), std::string::npos) << bf16;
  std::string f8 = compileError(wrapKernel("%x: memref<?xf32>", R"(
      %v = memref.load %x[%c0] : memref<?xf32>
      %q = arith.truncf %v : f32 to f8E4M3FN)"),
                                "vulkan:1.3");
  EXPECT_NE(f8.find("'arith.truncf' op"), std::string::npos) << f8;
  EXPECT_NE(f8.find("8-bit float"), std::string::npos) << f8;
}

TEST(SpirvPipelineTest, ShuffleWidthMustBeTheSubgroupSize) {
  std::string message = compileError(instantiate(kBlockSum, 8), "vulkan:1.3:subgroup=32");
  EXPECT_NE(message.find("'gpu.shuffle' op"), std::string::npos) << message;
  EXPECT_NE(message.find("subgroup size 32"), std::string::npos) << message;
}

TEST(SpirvPipelineTest, TooManyScalarsForPushConstants) {
  std::string arguments;
  for (int i = 0; i < 17; ++i)
    arguments += (i ? ", " : "") + ("%s" + std::to_string(i)) + ": i64";
  std::string message = compileError(wrapKernel(arguments, ""), "vulkan:1.3");
  EXPECT_NE(message.find("136 bytes of push constants"), std::string::npos) << message;
}

TEST(SpirvPipelineTest, UnsupportedAtomicKindAndNonVulkanTarget) {
  std::string message = compileError(wrapKernel("%x: memref<?xf32>", R"(
      %one = arith.constant 1.0 : f32
      %old = memref.atomic_rmw mulf %one, %x[%c0] : (f32, memref<?xf32>) -> f32)"),
                                     "vulkan:1.2");
  EXPECT_NE(message.find("atomic 'mulf' has no SPIR-V lowering"), std::string::npos) << message;
  EXPECT_NE(compileError(instantiate(kVectorAdd, 8), "cuda:sm_90a").find("needs a Vulkan target"),
            std::string::npos);
}

TEST(VulkanKernelAbiTest, Std430OffsetsForScalars) {
  llvm::Expected<VulkanKernelAbi> abi = VulkanKernelAbi::layout({{false, "f16", 2},
                                                                 {true, "f32", 4},
                                                                 {false, "i32", 4},
                                                                 {false, "i8", 1},
                                                                 {false, "i64", 8},
                                                                 {true, "i8", 1},
                                                                 {false, "f32", 4}});
  ASSERT_TRUE(bool(abi)) << llvm::toString(abi.takeError());
  EXPECT_EQ(abi->str(), "push +0: f16, binding 0: f32[], push +4: i32, push +8: i8, "
                        "push +16: i64, binding 1: i8[], push +24: f32");
  EXPECT_EQ(abi->pushConstantBytes, 28u);
  EXPECT_FALSE(bool(VulkanKernelAbi::layout({{false, "i128", 16}})));
}

TEST(VulkanFeaturesTest, NamesCapabilitiesAndChecks) {
  VulkanFeatures features;
  EXPECT_TRUE(llvm::is_contained(features.capabilities(), "Float64"));
  ASSERT_FALSE(bool(features.disable("float64")));
  EXPECT_FALSE(llvm::is_contained(features.capabilities(), "Float64"));
  EXPECT_EQ(features.disabledNames(), std::vector<std::string>{"float64"});
  llvm::Error unknown = features.disable("float128");
  EXPECT_NE(llvm::toString(std::move(unknown)).find("known: float16, float64"), std::string::npos);
  std::string missing =
      llvm::toString(features.checkCapabilities("k", {"Shader", "Float64"}));
  EXPECT_NE(missing.find("kernel 'k' needs the SPIR-V capability Float64"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("shaderFloat64"), std::string::npos) << missing;
  llvm::Error allowed = features.checkCapabilities("k", {"Shader", "Float16", "Int64"});
  EXPECT_FALSE(bool(allowed)) << llvm::toString(std::move(allowed));
}

} // namespace

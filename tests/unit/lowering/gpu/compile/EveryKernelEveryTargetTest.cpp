// Every kernel of the catalogue (GpuTestKernels.h: the examples, GEMMs in
// every input type, every TileKernels.h kernel) compiles for every GPU target
// through compileTileForGpu: a cubin that ptxas assembled, an HSACO that the
// AMDGPU assembler and linker produced, SPIR-V that spirv-val accepts for
// Vulkan 1.2 and 1.3 (with cooperative matrices where spirv-val knows them).
// The pairs in kExpectedFailures must instead fail with a clear
// error naming the op, its source location and the target; a pair that starts
// compiling, or fails differently, fails the test, so the list stays exact.
#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"
#include "tests/unit/lowering/gpu/compile/GpuTestKernels.h"

#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <tuple>

namespace tessera::gpu::testing {
namespace {

struct ExpectedFailure {
  const char *kernel;
  /// A target spec ("hip:gfx1100") or a vendor prefix ("vulkan", "cuda",
  /// "hip") or "" for every target.
  const char *targets;
  /// Part of the error, naming the op.
  const char *message;
};

const ExpectedFailure kExpectedFailures[] = {
    // Vulkan has no bf16 (SPV_KHR_bfloat16 is not supported by the SPIR-V
    // lowering) and no device printf (tile.assert needs it).
    {"gemm_bf16", "vulkan", "bf16 has no SPIR-V lowering for Vulkan"},
    {"tile_matmul_bf16", "vulkan", "bf16 has no SPIR-V lowering for Vulkan"},
    {"tile_assert", "vulkan", "'tile.assert' op printing and asserting on Vulkan"},
    // GPU layouts need power-of-two tiles; kPrint prints a [3] tile.
    {"tile_print", "", "has a shape that is not a power of two in every dimension"},
    // Only NVIDIA links libdevice; elsewhere its functions run as math ops,
    // and lgamma has none. No target links a library of the user's.
    {"tile_libdevice_without_math_op", "vulkan",
     "'tile.extern_elementwise' op calls '__nv_lgammaf' of library 'libdevice'"},
    {"tile_libdevice_without_math_op", "hip",
     "'tile.extern_elementwise' op calls '__nv_lgammaf' of library 'libdevice'"},
    {"tile_extern_other_library", "", "'tile.extern_elementwise' op calls 'my_erff' of library 'mylib'"},
    // Pointers are offsets into one kernel argument on GPUs.
    {"tile_pointer_round_trip", "", "'tile.ptr_to_int' op turning pointers into integers"},
};

const ExpectedFailure *expectedFailure(llvm::StringRef kernel, const GpuTarget &target) {
  for (const ExpectedFailure &failure : kExpectedFailures)
    if (kernel == failure.kernel && llvm::StringRef(target.str()).starts_with(failure.targets))
      return &failure;
  return nullptr;
}

using SweepParam = std::tuple<std::string, std::string>; // kernel case, target

class EveryKernelEveryTarget : public ::testing::TestWithParam<SweepParam> {};

TEST_P(EveryKernelEveryTarget, Compiles) {
  const auto &[name, spec] = GetParam();
  GpuTarget target = parseTarget(spec);
  llvm::Expected<CompiledGpuKernel> compiled = compileCatalogued(name, target);

  if (const ExpectedFailure *expected = expectedFailure(name, target)) {
    ASSERT_FALSE(compiled) << name << " now compiles for " << spec
                           << ": remove it from kExpectedFailures";
    std::string error = llvm::toString(compiled.takeError());
    EXPECT_NE(error.find(expected->message), std::string::npos) << error;
    EXPECT_NE(error.find(target.str()), std::string::npos) << error;
    // The op's source: a TileKernels.h constant or an EDSL source file.
    EXPECT_TRUE(llvm::Regex("(TileKernels\\.h:k[A-Za-z0-9]+|\\.cpp):[0-9]+:[0-9]+: error: ")
                    .match(error))
        << error;
    return;
  }

  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const KernelBinary &binary = compiled->binary;
  const std::string &kernel = kernelCase(name).kernel;
  EXPECT_EQ(binary.kernelName, kernel);
  EXPECT_EQ(binary.target, target);
  EXPECT_EQ(binary.blockThreads, 4 * target.warpSize);
  EXPECT_FALSE(binary.assembly.empty());
  switch (target.vendor) {
  case GpuVendor::Nvidia:
    EXPECT_TRUE(isElf(binary.binary)) << "not a cubin";
    EXPECT_NE(binary.assembly.find(".entry " + kernel), std::string::npos) << binary.assembly;
    EXPECT_GT(binary.usage.registers, 0) << binary.usage.report;
    // wgmma that ptxas had to serialize run at a fraction of their speed.
    EXPECT_EQ(binary.usage.serializedWgmma, "") << binary.usage.report;
    EXPECT_FALSE(compiled->vulkan);
    break;
  case GpuVendor::Amd:
    EXPECT_TRUE(isElf(binary.binary)) << "not a code object";
    EXPECT_NE(binary.assembly.find(kernel + ":"), std::string::npos) << binary.assembly;
    // Reported (-1 when not); a kernel whose work folded away uses none.
    EXPECT_GE(binary.usage.registers, 0) << binary.usage.report;
    EXPECT_GE(binary.usage.scalarRegisters, 0) << binary.usage.report;
    EXPECT_FALSE(compiled->vulkan);
    break;
  case GpuVendor::Vulkan:
    EXPECT_TRUE(isSpirv(binary.binary)) << "not SPIR-V";
    ASSERT_TRUE(compiled->vulkan.has_value());
    EXPECT_EQ(compiled->vulkan->binary.binary, binary.binary);
    // target.chip is "vulkan1.2" or "vulkan1.3", spirv-val's environment names.
    if (std::string validation = validateSpirv(binary.binary, target.chip);
        target.cooperativeMatrix && validatorLacksCooperativeMatrix(validation))
      GTEST_SKIP() << "compiled, not validated: this spirv-val predates SPV_KHR_cooperative_matrix "
                      "(set TESSERA_SPIRV_VAL to SPIRV-Tools v2023.4 or newer)";
    else
      EXPECT_EQ(validation, "") << binary.assembly;
    break;
  }
}

std::vector<SweepParam> sweep() {
  std::vector<SweepParam> params;
  for (const KernelCase &kernel : allKernels())
    for (const char *target : kSweepTargets)
      params.emplace_back(kernel.name, target);
  return params;
}

INSTANTIATE_TEST_SUITE_P(GpuTargets, EveryKernelEveryTarget, ::testing::ValuesIn(sweep()),
                         [](const ::testing::TestParamInfo<SweepParam> &info) {
                           return std::get<0>(info.param) + "_on_" +
                                  sanitize(std::get<1>(info.param));
                         });

/// Every entry of kExpectedFailures names a kernel and a target of the sweep.
TEST(ExpectedFailures, NameKernelsAndTargetsOfTheSweep) {
  for (const ExpectedFailure &failure : kExpectedFailures) {
    bool kernelKnown = false, targetKnown = false;
    for (const KernelCase &kernel : allKernels())
      kernelKnown |= kernel.name == failure.kernel;
    for (const char *target : kSweepTargets)
      targetKnown |= llvm::StringRef(target).starts_with(failure.targets);
    EXPECT_TRUE(kernelKnown) << failure.kernel;
    EXPECT_TRUE(targetKnown) << failure.targets;
  }
}

} // namespace
} // namespace tessera::gpu::testing

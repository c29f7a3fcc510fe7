// The AMD final steps compile hand-written kernels of the distributed GPU
// form to HSACO code objects for gfx90a, gfx942 and gfx1100; the code objects
// are checked in-process (ELF, symbols, metadata) and with llvm-readelf and
// llvm-objdump (metadata note, disassembly).
#include "AmdTestKernels.h"
#include "AmdTestUtils.h"

#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/amd/CodeObject.h"

#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

#include <functional>
#include <regex>

using namespace tessera::gpu;
using namespace tessera::gpu::amd;
using namespace tessera::gpu::amd::testing;

namespace {

struct KernelCase {
  const char *name;
  std::function<std::string(unsigned)> source;
  /// Regular expressions the disassembly must match, one per instruction
  /// family the kernel needs.
  std::vector<std::string> instructions;
};

const KernelCase kKernels[] = {
    {"vector_add", maskedVectorAdd, {"global_load_(dword|b32)", "global_store_(dword|b32)"}},
    {"lds_shuffle",
     workgroupMemoryShuffle,
     {"global_load_(dword|b32)", "ds_(write|store)_b32", "ds_(read|load)_b32", "s_barrier",
      "ds_swizzle_b32|ds_bpermute_b32|row_xmask|quad_perm", "ds_bpermute_b32", "global_store_(dword|b32)"}},
    {"math_functions", mathFunctions, {"v_exp_f32", "v_fma_f64", "global_store_(dword|b32)"}},
};

class AmdPipelineTest : public ::testing::TestWithParam<std::tuple<const char *, size_t>> {
protected:
  void SetUp() override {
    auto [chip, kernelIndex] = GetParam();
    llvm::Expected<GpuTarget> parsed = GpuTarget::parse(std::string("hip:") + chip);
    ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
    target = *parsed;
    kernel = &kKernels[kernelIndex];
    context = makeAmdContext();
    module = parseKernel(*context, kernel->source(target.warpSize));
    ASSERT_TRUE(module);
  }

  GpuTarget target;
  const KernelCase *kernel = nullptr;
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_P(AmdPipelineTest, CompilesToACodeObjectForTheChip) {
  llvm::Expected<KernelBinary> binary = compileForAmd(*module, target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->kernelName, kernel->name);
  EXPECT_EQ(binary->target, target);
  EXPECT_EQ(binary->blockThreads, 2 * target.warpSize);
  EXPECT_EQ(binary->dynamicSharedMemoryBytes, 0u);
  EXPECT_NE(binary->assembly.find(".amdgcn_target \"amdgcn-amd-amdhsa--" + target.chip),
            std::string::npos);
  EXPECT_NE(binary->assembly.find(".amdhsa_kernel " + std::string(kernel->name)),
            std::string::npos);

  llvm::Expected<CodeObject> object = readCodeObject(binary->binary);
  ASSERT_TRUE(static_cast<bool>(object)) << llvm::toString(object.takeError());
  EXPECT_EQ(object->chip, target.chip);
  EXPECT_EQ(object->targetId, "amdgcn-amd-amdhsa--" + target.chip);
  EXPECT_EQ(object->codeObjectVersion, 5);
  EXPECT_EQ(object->metadataVersion, 102);
  EXPECT_TRUE(object->undefinedSymbols.empty());
  auto defines = [&](const std::string &symbol) {
    return llvm::is_contained(object->definedSymbols, symbol);
  };
  EXPECT_TRUE(defines(kernel->name));
  EXPECT_TRUE(defines(std::string(kernel->name) + ".kd"));

  const KernelMetadata *metadata = object->findKernel(kernel->name);
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(metadata->symbol, std::string(kernel->name) + ".kd");
  EXPECT_EQ(metadata->wavefrontSize, int(target.warpSize));
  EXPECT_EQ(metadata->maxFlatWorkgroupSize, int(2 * target.warpSize));
  EXPECT_GT(metadata->vgprCount, 0);
  EXPECT_GT(metadata->sgprCount, 0);
  EXPECT_EQ(binary->usage.registers, metadata->vgprCount);
  EXPECT_EQ(binary->usage.scalarRegisters, metadata->sgprCount);
  EXPECT_EQ(binary->usage.spillStoreBytes, 0);
  EXPECT_NE(binary->usage.report.find("amdhsa.kernels"), std::string::npos);
  // Every memref<?xT> argument is one 8-byte global pointer.
  for (const KernelArgumentLayout &argument : metadata->arguments) {
    if (argument.valueKind == "global_buffer")
      EXPECT_EQ(argument.size, 8u);
  }
}

TEST_P(AmdPipelineTest, MetadataNoteStatesTheWaveSize) {
  llvm::Expected<KernelBinary> binary = compileForAmd(*module, target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  std::string notes = runLlvmTool("llvm-readelf", {"--notes"}, binary->binary);
  ASSERT_FALSE(llvm::StringRef(notes).starts_with("error:")) << notes;
  EXPECT_NE(notes.find("NT_AMDGPU_METADATA"), std::string::npos) << notes;
  EXPECT_NE(notes.find(".wavefront_size: " + std::to_string(target.warpSize)),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("amdhsa.target:   amdgcn-amd-amdhsa--" + target.chip), std::string::npos)
      << notes;
}

TEST_P(AmdPipelineTest, DisassemblyHasTheExpectedInstructions) {
  llvm::Expected<KernelBinary> binary = compileForAmd(*module, target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  std::string disassembly =
      runLlvmTool("llvm-objdump", {"-d", "--mcpu=" + target.chip}, binary->binary);
  ASSERT_FALSE(llvm::StringRef(disassembly).starts_with("error:")) << disassembly;
  EXPECT_NE(disassembly.find("<" + std::string(kernel->name) + ">:"), std::string::npos);
  for (const std::string &pattern : kernel->instructions)
    EXPECT_TRUE(std::regex_search(disassembly, std::regex(pattern)))
        << "no '" << pattern << "' in the " << target.chip << " code of " << kernel->name;
  // Device-library functions are inlined, not called.
  EXPECT_EQ(disassembly.find("s_swappc"), std::string::npos);
}

std::string caseName(const ::testing::TestParamInfo<AmdPipelineTest::ParamType> &info) {
  return std::string(std::get<0>(info.param)) + "_" + kKernels[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(Chips, AmdPipelineTest,
                         ::testing::Combine(::testing::Values("gfx90a", "gfx942", "gfx1100"),
                                            ::testing::Range<size_t>(0, std::size(kKernels))),
                         caseName);

} // namespace

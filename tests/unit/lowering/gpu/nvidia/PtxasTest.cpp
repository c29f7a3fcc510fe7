// The ptxas driver and the reader of its -v report. The reports below are
// verbatim output of ptxas 13.0 (CUDA 13.0.88) on kernels of these tests.
#include "lowering/gpu/nvidia/CudaToolkit.h"
#include "lowering/gpu/nvidia/Ptxas.h"

#include "tests/unit/lowering/gpu/nvidia/ScopedEnvironment.h"

#include <gtest/gtest.h>

using namespace tessera::gpu;
using tessera::gpu::testing::ScopedEnvironment;

namespace {

// vector_add for sm_80: no shared memory, no spills; cmem reported.
constexpr llvm::StringLiteral kVectorAddSm80 =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'vector_add' for 'sm_80'
ptxas info    : Function properties for vector_add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]
ptxas info    : Compile time = 20.851 ms
)";

// The same kernel for sm_90a: the register line has no cmem.
constexpr llvm::StringLiteral kVectorAddSm90a =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'vector_add' for 'sm_90a'
ptxas info    : Function properties for vector_add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 4.643 ms
)";

// A warp reduction through a workgroup buffer and a barrier, sm_80.
constexpr llvm::StringLiteral kSharedMemorySm80 =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'warp_reduce' for 'sm_80'
ptxas info    : Function properties for warp_reduce
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers, used 1 barriers, 8 bytes smem, 368 bytes cmem[0]
ptxas info    : Compile time = 12.883 ms
)";

// 48 live values under -maxrregcount=24, sm_80.
constexpr llvm::StringLiteral kSpillsSm80 =
    R"(ptxas info    : Overriding maximum register limit 256 for 'spill' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'spill' for 'sm_80'
ptxas info    : Function properties for spill
    304 bytes stack frame, 344 bytes spill stores, 344 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 304 bytes cumulative stack size, 368 bytes cmem[0]
ptxas info    : Compile time = 40.797 ms
)";

// The same under `.maxnreg 24`, sm_90a.
constexpr llvm::StringLiteral kSpillsSm90a =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'spill' for 'sm_90a'
ptxas info    : Function properties for spill
    312 bytes stack frame, 356 bytes spill stores, 356 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 312 bytes cumulative stack size
ptxas info    : Compile time = 33.832 ms
)";

// An entry calling a non-inlined device function: the helper's properties
// follow the entry's and must not be taken for them.
constexpr llvm::StringLiteral kEntryAndHelperSm90a =
    R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'main_kernel' for 'sm_90a'
ptxas info    : Function properties for main_kernel
    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 11 registers, used 1 barriers, 64 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 11.258 ms
ptxas info    : Function properties for helper
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
)";

// A pipelined GEMM whose epilogue reads the accumulator before the last
// wgmma.wait_group, sm_90a: ptxas serializes every wgmma and says so before
// it names the entry.
constexpr llvm::StringLiteral kSerializedWgmmaSm90a =
    R"(ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions reading accumulator registers of  a wgmma between start and end of the pipeline stage in the function 'matmul'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'matmul' for 'sm_90a'
ptxas info    : Function properties for matmul
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 124 registers, used 1 barriers
ptxas info    : Compile time = 74.187 ms
)";

void expectUsage(const ResourceUsage &usage, int registers, int shared, int spillStores,
                 int spillLoads, int stack) {
  EXPECT_EQ(usage.registers, registers);
  EXPECT_EQ(usage.sharedMemoryBytes, shared);
  EXPECT_EQ(usage.spillStoreBytes, spillStores);
  EXPECT_EQ(usage.spillLoadBytes, spillLoads);
  EXPECT_EQ(usage.stackFrameBytes, stack);
  EXPECT_EQ(usage.scalarRegisters, -1) << "an AMD notion";
}

TEST(PtxasReport, WithoutSpills) {
  expectUsage(parsePtxasReport(kVectorAddSm80, "vector_add"), 12, 0, 0, 0, 0);
  expectUsage(parsePtxasReport(kVectorAddSm90a, "vector_add"), 12, 0, 0, 0, 0);
}

TEST(PtxasReport, SharedMemory) {
  expectUsage(parsePtxasReport(kSharedMemorySm80, "warp_reduce"), 18, 8, 0, 0, 0);
}

TEST(PtxasReport, WithSpills) {
  expectUsage(parsePtxasReport(kSpillsSm80, "spill"), 24, 0, 344, 344, 304);
  expectUsage(parsePtxasReport(kSpillsSm90a, "spill"), 24, 0, 356, 356, 312);
}

TEST(PtxasReport, OtherFunctionsAreSkipped) {
  expectUsage(parsePtxasReport(kEntryAndHelperSm90a, "main_kernel"), 11, 1024, 0, 0, 64);
}

TEST(PtxasReport, KeepsTheReportVerbatim) {
  EXPECT_EQ(parsePtxasReport(kSpillsSm80, "spill").report, kSpillsSm80.str());
}

TEST(PtxasReport, AnotherKernelsReportLeavesEverythingUnknown) {
  expectUsage(parsePtxasReport(kVectorAddSm80, "other"), -1, -1, -1, -1, -1);
}

TEST(PtxasReport, SerializedWgmmaIsReportedWithItsReason) {
  ResourceUsage usage = parsePtxasReport(kSerializedWgmmaSm90a, "matmul");
  expectUsage(usage, 124, 0, 0, 0, 0);
  EXPECT_TRUE(llvm::StringRef(usage.serializedWgmma)
                  .starts_with("Potential Performance Loss: wgmma.mma_async instructions are "
                               "serialized due to non wgmma instructions reading accumulator "
                               "registers"))
      << usage.serializedWgmma;
  EXPECT_TRUE(parsePtxasReport(kSerializedWgmmaSm90a, "other").serializedWgmma.empty());
  EXPECT_TRUE(parsePtxasReport(kVectorAddSm90a, "vector_add").serializedWgmma.empty());
}

TEST(PtxasReport, OlderStaticPlusReservedSharedMemoryIsSummed) {
  // Older ptxas releases wrote shared memory as static + reserved bytes
  // ("Used 17 registers, 8+0 bytes smem"); this report is written in that form.
  constexpr llvm::StringLiteral report =
      R"(ptxas info    : Compiling entry function 'k' for 'sm_70'
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, 4096+16 bytes smem, 352 bytes cmem[0]
)";
  expectUsage(parsePtxasReport(report, "k"), 32, 4112, 0, 0, 0);
}

class PtxasRun : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::Expected<std::string> path = CudaToolkit::locate().ptxas();
    ASSERT_TRUE(bool(path)) << llvm::toString(path.takeError());
    ptxas = *path;
  }
  std::string ptxas;
};

TEST_F(PtxasRun, AssemblesAndReports) {
  constexpr llvm::StringLiteral ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry store_tid(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";
  llvm::Expected<PtxasOutput> output = assembleWithPtxas(ptxas, ptx, "store_tid", {"sm_90a"});
  ASSERT_TRUE(bool(output)) << llvm::toString(output.takeError());
  ASSERT_GT(output->cubin.size(), 4u);
  EXPECT_EQ(output->cubin[0], 0x7f);
  EXPECT_EQ(output->cubin[1], 'E');
  EXPECT_GT(output->usage.registers, 0);
  EXPECT_EQ(output->usage.spillStoreBytes, 0);
  EXPECT_NE(output->usage.report.find("Compiling entry function 'store_tid' for 'sm_90a'"),
            std::string::npos);
}

TEST_F(PtxasRun, FailureCarriesPtxasMessageAndKernelName) {
  constexpr llvm::StringLiteral ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry broken(.param .u64 out)
{
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.q;
  ret;
}
)";
  llvm::Expected<PtxasOutput> output = assembleWithPtxas(ptxas, ptx, "broken", {"sm_90a"});
  ASSERT_FALSE(bool(output));
  std::string error = llvm::toString(output.takeError());
  EXPECT_NE(error.find("ptxas -arch=sm_90a failed on kernel 'broken'"), std::string::npos) << error;
  EXPECT_NE(error.find("Unknown vector selector: 'q'"), std::string::npos) << error;
}

TEST_F(PtxasRun, ReportWithoutTheKernelIsAnError) {
  constexpr llvm::StringLiteral ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry present(.param .u64 out)
{
  ret;
}
)";
  llvm::Expected<PtxasOutput> output = assembleWithPtxas(ptxas, ptx, "absent", {"sm_90a"});
  ASSERT_FALSE(bool(output));
  std::string error = llvm::toString(output.takeError());
  EXPECT_NE(error.find("ptxas -v reported no register count for kernel 'absent'"),
            std::string::npos)
      << error;
}

TEST(CudaToolkitTest, RootFromEnvironmentInOrder) {
  ScopedEnvironment home("CUDA_HOME", "/opt/cuda-home");
  ScopedEnvironment path("CUDA_PATH", "/opt/cuda-path");
  ScopedEnvironment root("CUDA_ROOT", std::nullopt);
  CudaToolkit toolkit = CudaToolkit::locate();
  EXPECT_EQ(toolkit.root, "/opt/cuda-home");
  EXPECT_EQ(toolkit.rootOrigin, "$CUDA_HOME");
  {
    ScopedEnvironment noHome("CUDA_HOME", std::nullopt);
    EXPECT_EQ(CudaToolkit::locate().root, "/opt/cuda-path");
  }
  EXPECT_EQ(CudaToolkit::locate("/given").root, "/given");
}

TEST(CudaToolkitTest, DefaultRoot) {
  ScopedEnvironment home("CUDA_HOME", std::nullopt);
  ScopedEnvironment path("CUDA_PATH", std::nullopt);
  ScopedEnvironment root("CUDA_ROOT", std::nullopt);
  EXPECT_EQ(CudaToolkit::locate().root, "/usr/local/cuda");
}

TEST(CudaToolkitTest, MissingLibdeviceSaysWhereItLooked) {
  CudaToolkit toolkit = CudaToolkit::locate("/nonexistent/cuda");
  llvm::Expected<std::string> libdevice = toolkit.libdevice();
  ASSERT_FALSE(bool(libdevice));
  std::string error = llvm::toString(libdevice.takeError());
  EXPECT_NE(error.find("/nonexistent/cuda/nvvm/libdevice/libdevice.10.bc"), std::string::npos)
      << error;
  EXPECT_NE(error.find("CUDA_HOME"), std::string::npos) << error;
}

TEST(CudaToolkitTest, ExplicitPtxasMustBeExecutable) {
  ScopedEnvironment ptxas("TESSERA_PTXAS", "/nonexistent/ptxas");
  llvm::Expected<std::string> found = CudaToolkit::locate().ptxas();
  ASSERT_FALSE(bool(found));
  EXPECT_NE(llvm::toString(found.takeError()).find("$TESSERA_PTXAS is /nonexistent/ptxas"),
            std::string::npos);
}

} // namespace

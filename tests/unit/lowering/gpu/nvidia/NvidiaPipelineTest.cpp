// compileForNvidia on hand-written kernels of the distributed GPU form: the
// PTX has the instructions the kernel needs, ptxas assembles it for sm_80
// and sm_90a, and the resource report is read.
#include "lowering/gpu/nvidia/NvidiaPipeline.h"

#include "tests/unit/lowering/gpu/nvidia/NvidiaTestKernels.h"
#include "tests/unit/lowering/gpu/nvidia/ScopedEnvironment.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>

using namespace tessera::gpu;
namespace kernels = tessera::gpu::testing;
using tessera::gpu::testing::parseKernel;
using tessera::gpu::testing::ScopedEnvironment;

namespace {

llvm::Expected<KernelBinary> compile(llvm::StringRef text, llvm::StringRef spec,
                                     const NvidiaCompileOptions &options = {}) {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = parseKernel(context, text);
  if (!module)
    return llvm::createStringError("the test kernel does not parse");
  llvm::Expected<GpuTarget> target = GpuTarget::parse(spec);
  if (!target)
    return target.takeError();
  return compileForNvidia(*module, *target, options);
}

/// The message of a compile expected to fail ("" when it succeeded).
std::string compileError(llvm::StringRef text, llvm::StringRef spec,
                         const NvidiaCompileOptions &options = {}) {
  llvm::Expected<KernelBinary> binary = compile(text, spec, options);
  if (binary)
    return "";
  return llvm::toString(binary.takeError());
}

size_t countOf(llvm::StringRef text, llvm::StringRef needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != llvm::StringRef::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

bool isElf(const std::vector<uint8_t> &bytes) {
  return bytes.size() > 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
         bytes[3] == 'F';
}

/// A kernel of `blockThreads` threads whose `values` loaded values are all
/// live at once.
std::string manyLiveValuesKernel(int blockThreads = 64, int values = 48) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "module attributes {gpu.container_module} {\n  gpu.module @live {\n"
        "    gpu.func @live(%x: memref<?xf32>, %out: memref<?xf32>) kernel attributes "
        "{known_block_size = array<i32: "
     << blockThreads << ", 1, 1>, tessera.shared_memory_bytes = 0 : i32} {\n"
     << "      %tid = gpu.thread_id x\n";
  for (int i = 0; i < values; ++i)
    os << "      %c" << i << " = arith.constant " << i * blockThreads << " : index\n"
       << "      %i" << i << " = arith.addi %tid, %c" << i << " : index\n"
       << "      %v" << i << " = memref.load %x[%i" << i << "] : memref<?xf32>\n";
  for (int i = 0; i < values; ++i) {
    int j = (i * 7 + 3) % values;
    os << "      %p" << i << " = arith.mulf %v" << i << ", %v" << j << " : f32\n"
       << "      memref.store %p" << i << ", %out[%i" << j << "] : memref<?xf32>\n";
  }
  os << "      gpu.return\n    }\n  }\n}\n";
  return text;
}

/// A module with one kernel `name` of one warp, its arguments and its body
/// (without the return).
std::string warpKernel(llvm::StringRef name, llvm::StringRef arguments, llvm::StringRef body) {
  return ("module attributes {gpu.container_module} {\n  gpu.module @" + name +
          " {\n    gpu.func @" + name + "(" + arguments +
          ") kernel attributes {known_block_size = array<i32: 32, 1, 1>, "
          "tessera.shared_memory_bytes = 0 : i32} {" +
          body + "      gpu.return\n    }\n  }\n}\n")
      .str();
}

class NvidiaChipTest : public ::testing::TestWithParam<const char *> {
protected:
  std::string spec() const { return std::string("cuda:") + GetParam(); }
  std::string chip() const { return GetParam(); }
};

TEST_P(NvidiaChipTest, VectorAddBecomesAMaskedKernelOnBarePointers) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kVectorAdd, spec());
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->assembly;
  EXPECT_EQ(binary->kernelName, "vector_add");
  EXPECT_EQ(binary->target.chip, chip());
  EXPECT_NE(ptx.find(".target " + chip()), std::string::npos);
  EXPECT_NE(ptx.find(".visible .entry vector_add("), std::string::npos) << ptx;
  // Three pointers and the i32 bound, as the runtime passes them.
  EXPECT_EQ(countOf(ptx, ".param .u64 .ptr"), 3u) << ptx;
  EXPECT_NE(ptx.find(".param .u32 vector_add_param_3"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".maxntid 128, 1, 1"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("setp."), std::string::npos) << "the mask i < n";
  EXPECT_EQ(countOf(ptx, "ld.global"), 2u) << ptx;
  EXPECT_EQ(countOf(ptx, "st.global"), 1u) << ptx;

  EXPECT_TRUE(isElf(binary->binary)) << "ptxas writes an ELF cubin";
  EXPECT_EQ(binary->blockThreads, 128u);
  EXPECT_EQ(binary->dynamicSharedMemoryBytes, 0u);
  EXPECT_GT(binary->usage.registers, 0);
  EXPECT_EQ(binary->usage.sharedMemoryBytes, 0);
  EXPECT_EQ(binary->usage.spillStoreBytes, 0);
  EXPECT_EQ(binary->usage.spillLoadBytes, 0);
  EXPECT_EQ(binary->usage.stackFrameBytes, 0);
  EXPECT_NE(binary->usage.report.find("Compiling entry function 'vector_add' for '" + chip()),
            std::string::npos)
      << binary->usage.report;
}

TEST_P(NvidiaChipTest, BlockSumUsesShufflesBarrierAndWorkgroupMemory) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kBlockSum, spec());
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->assembly;
  EXPECT_EQ(countOf(ptx, "shfl.sync.bfly.b32"), 5u) << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".shared .align 4 .b8"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.shared"), std::string::npos) << ptx;
  EXPECT_GT(binary->usage.registers, 0);
  EXPECT_EQ(binary->usage.sharedMemoryBytes, 8) << "the two-float workgroup buffer";
  EXPECT_EQ(binary->blockThreads, 64u);
}

TEST_P(NvidiaChipTest, MathFunctionsComeFromLibdevice) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kMath, spec());
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->assembly;
  EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("__nv_"), std::string::npos) << "libdevice is linked and inlined:\n" << ptx;
  // libdevice's expf scales into the hardware's base-2 exponential.
  EXPECT_NE(ptx.find("ex2.approx"), std::string::npos) << ptx;
  EXPECT_GT(binary->usage.registers, 0);
}

TEST_P(NvidiaChipTest, MmaSyncBecomesATensorCoreInstruction) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kMmaSync, spec());
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  const std::string &ptx = binary->assembly;
  EXPECT_NE(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos)
      << ptx;
  EXPECT_EQ(binary->usage.sharedMemoryBytes, 512 + 256) << "the A and B tiles";
  EXPECT_GT(binary->usage.registers, 0);
  EXPECT_EQ(binary->blockThreads, 32u);
}

TEST_P(NvidiaChipTest, DynamicSharedMemoryIsALaunchFact) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kDynamicShared, spec());
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->dynamicSharedMemoryBytes, 65536u);
  EXPECT_EQ(binary->blockThreads, 256u);
  EXPECT_NE(binary->assembly.find(".extern .shared"), std::string::npos) << binary->assembly;
  EXPECT_NE(binary->assembly.find("bar.sync"), std::string::npos);
  EXPECT_EQ(binary->usage.sharedMemoryBytes, 0) << "none of it is static";
}

INSTANTIATE_TEST_SUITE_P(Chips, NvidiaChipTest, ::testing::Values("sm_80", "sm_90a"),
                         [](const auto &info) { return std::string(info.param); });

TEST(NvidiaPipeline, RegisterCapMakesPtxasSpill) {
  std::string kernel = manyLiveValuesKernel();
  llvm::Expected<KernelBinary> free = compile(kernel, "cuda:sm_90a");
  ASSERT_TRUE(bool(free)) << llvm::toString(free.takeError());
  EXPECT_EQ(free->usage.spillStoreBytes, 0);
  EXPECT_GT(free->usage.registers, 32);

  NvidiaCompileOptions capped;
  capped.maxRegisters = 24;
  llvm::Expected<KernelBinary> binary = compile(kernel, "cuda:sm_90a", capped);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_NE(binary->assembly.find(".maxnreg 24"), std::string::npos);
  EXPECT_LE(binary->usage.registers, 24);
  EXPECT_GT(binary->usage.spillStoreBytes, 0) << binary->usage.report;
  EXPECT_GT(binary->usage.spillLoadBytes, 0);
  EXPECT_GT(binary->usage.stackFrameBytes, 0);
}

TEST(NvidiaPipeline, ALargeBlockThatWouldSpillGetsItsWholeShareOfTheRegisterFile) {
  // 512 threads may use 128 registers each; 160 live values need more. ptxas
  // on its own spills down to 32 registers, as if four such blocks were to
  // share a multiprocessor; assembled again with `.minnctapersm 1` it takes
  // all 128.
  llvm::Expected<KernelBinary> binary =
      compile(manyLiveValuesKernel(/*blockThreads=*/512, /*values=*/160), "cuda:sm_90a");
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_NE(binary->assembly.find(".minnctapersm 1"), std::string::npos) << binary->assembly;
  EXPECT_EQ(binary->usage.registers, 128) << binary->usage.report;
}

TEST(NvidiaPipeline, ALargeBlockThatFitsKeepsRoomForASecondBlock) {
  llvm::Expected<KernelBinary> binary =
      compile(manyLiveValuesKernel(/*blockThreads=*/512, /*values=*/48), "cuda:sm_90a");
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->assembly.find(".minnctapersm"), std::string::npos) << binary->assembly;
  EXPECT_EQ(binary->usage.spillStoreBytes, 0) << binary->usage.report;
  EXPECT_LE(binary->usage.registers, 64) << binary->usage.report;
}

TEST(NvidiaPipeline, FpFusionDecidesWhetherAProductAndSumBecomeOneFma) {
  std::string axpy = warpKernel("axpy", "%x: memref<?xf32>, %out: memref<?xf32>, %a: f32", R"mlir(
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      %m = arith.mulf %v, %a : f32
      %s = arith.addf %m, %v : f32
      memref.store %s, %out[%tid] : memref<?xf32>
)mlir");
  llvm::Expected<KernelBinary> fused = compile(axpy, "cuda:sm_90a");
  ASSERT_TRUE(bool(fused)) << llvm::toString(fused.takeError());
  EXPECT_EQ(countOf(fused->assembly, "fma.rn.f32"), 1u) << fused->assembly;

  NvidiaCompileOptions separate;
  separate.fpFusion = false;
  llvm::Expected<KernelBinary> binary = compile(axpy, "cuda:sm_90a", separate);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(countOf(binary->assembly, "fma."), 0u) << binary->assembly;
  EXPECT_EQ(countOf(binary->assembly, "mul.rn.f32"), 1u);
  EXPECT_EQ(countOf(binary->assembly, "add.rn.f32"), 1u);
}

TEST(NvidiaPipeline, AnAddressFromAnI32OffsetIsOneMadWide) {
  // x + (tid * stride) * 4 bytes, as every copy of a pipelined loop computes
  // its address: one mad.wide.s32 (an ALU shift-and-add pair after ptxas),
  // not a mul.wide and an add (an IMAD.WIDE on the half-rate FMA pipe).
  std::string strided =
      warpKernel("strided", "%x: memref<?xf32>, %out: memref<?xf32>, %stride: i32", R"mlir(
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %offset = arith.muli %t, %stride : i32
      %i = arith.index_cast %offset : i32 to index
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %out[%tid] : memref<?xf32>
)mlir");
  llvm::Expected<KernelBinary> binary = compile(strided, "cuda:sm_90a");
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(countOf(binary->assembly, "mad.wide.s32"), 1u) << binary->assembly;
  EXPECT_EQ(countOf(binary->assembly, "mul.wide.s32"), 0u) << binary->assembly;
}

/// A kernel whose last argument is a tensor map of `recipe`, which it
/// prefetches.
std::string tensorMapKernel(llvm::StringRef recipe) {
  std::string text = warpKernel("tma", "%x: memref<?xbf16>, %rows: i32, %cols: i32, %ld: i64, "
                                       "%map: !llvm.ptr",
                                R"mlir(
      llvm.inline_asm has_side_effects "prefetch.tensormap [$0];", "l" %map : (!llvm.ptr) -> ()
)mlir");
  size_t at = text.find("tessera.shared_memory_bytes");
  return text.insert(at, ("tessera.tensor_maps = [" + recipe + "], ").str());
}

TEST(NvidiaPipeline, TensorMapsArePassedByValueAndRecordedForTheLaunch) {
  llvm::Expected<KernelBinary> binary = compile(
      tensorMapKernel("{base = 0 : i64, box = array<i64: 64, 128>, constant_shape = array<i64: "
                      "0, 0>, constant_strides = array<i64: 0>, element = bf16, padding = "
                      "\"nan\", shape = array<i64: 1, 2>, strides = array<i64: 3>, swizzle = "
                      "128 : i64}"),
      "cuda:sm_90a");
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_NE(binary->assembly.find(".param .align 64 .b8 tma_param_4[128]"), std::string::npos)
      << binary->assembly;
  EXPECT_NE(binary->assembly.find("cvta.param.u64"), std::string::npos)
      << "the map is read where the launch put it, not copied";
  ASSERT_EQ(binary->tensorMaps.size(), 1u);
  const TensorMapParam &map = binary->tensorMaps.front();
  EXPECT_EQ(map.base, 0u);
  EXPECT_EQ(map.shape, (std::vector<TensorMapValue>{{1, 0}, {2, 0}}));
  EXPECT_EQ(map.outerStrides, (std::vector<TensorMapValue>{{3, 0}}));
  EXPECT_EQ(map.element, "bf16");
  EXPECT_EQ(map.elementBytes, 2u);
  EXPECT_EQ(map.box, (std::vector<unsigned>{64, 128}));
  EXPECT_EQ(map.swizzleBytes, 128u);
  EXPECT_TRUE(map.nanPadding);
}

TEST(NvidiaPipeline, AMalformedTensorMapRecipeIsAnError) {
  std::string error =
      compileError(tensorMapKernel("{base = 0 : i64, box = array<i64: 64>, constant_shape = "
                                   "array<i64: 0, 0>, constant_strides = array<i64: 0>, element "
                                   "= bf16, padding = \"zero\", shape = array<i64: 1, 2>, "
                                   "strides = array<i64: 3>, swizzle = 128 : i64}"),
                   "cuda:sm_90a");
  EXPECT_NE(error.find("tessera.tensor_maps: entry 0 is not a tensor-map recipe"),
            std::string::npos)
      << error;
}

TEST(NvidiaPipeline, LeavesTheInputModuleAsItWas) {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = parseKernel(context, kernels::kVectorAdd);
  ASSERT_TRUE(module);
  auto print = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  };
  std::string before = print();
  llvm::Expected<KernelBinary> binary = compileForNvidia(*module, *GpuTarget::parse("sm_80"));
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(print(), before);
}

// "cuda:sm_80:cubin=sm_90a": sm_80's code (mma.sync), its PTX assembled by
// ptxas for sm_90a, so that an H100 runs what an A100 would.
TEST(NvidiaPipeline, OlderChipsCodeAssembledForANewerChip) {
  llvm::Expected<KernelBinary> binary = compile(kernels::kMmaSync, "cuda:sm_80:cubin=sm_90a");
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_EQ(binary->target.str(), "cuda:sm_80:cubin=sm_90a");
  EXPECT_NE(binary->assembly.find(".target sm_80"), std::string::npos);
  EXPECT_NE(binary->assembly.find("mma.sync.aligned.m16n8k16"), std::string::npos);
  EXPECT_NE(binary->usage.report.find("for 'sm_90a'"), std::string::npos) << binary->usage.report;
  EXPECT_TRUE(isElf(binary->binary));

  llvm::Expected<GpuTarget> same = GpuTarget::parse("cuda:sm_80:cubin=sm_80");
  ASSERT_TRUE(bool(same)) << llvm::toString(same.takeError());
  EXPECT_EQ(same->str(), "cuda:sm_80") << "no second chip where it is the first";
  for (auto [spec, why] :
       {std::pair{"cuda:sm_90:cubin=sm_80", "code for sm_90 cannot be assembled for sm_80"},
        {"cuda:sm_90a:cubin=sm_100", "code for sm_90a cannot be assembled for sm_100"},
        {"cuda:sm_80:cubin=sm_70", "unknown NVIDIA architecture 'sm_70' after cubin="},
        {"cuda:sm_80:ptx=sm_90", "unknown NVIDIA option 'ptx=sm_90'"}}) {
    llvm::Expected<GpuTarget> bad = GpuTarget::parse(spec);
    ASSERT_FALSE(bool(bad)) << spec;
    std::string error = llvm::toString(bad.takeError());
    EXPECT_NE(error.find(std::string("bad GPU target '") + spec + "': " + why), std::string::npos)
        << error;
  }
}

TEST(NvidiaPipeline, RefusesOtherVendors) {
  EXPECT_NE(compileError(kernels::kVectorAdd, "hip:gfx942").find("needs an NVIDIA target, got hip:gfx942"),
            std::string::npos);
}

TEST(NvidiaPipeline, NeedsTheBlockSize) {
  std::string kernel = kernels::kVectorAdd.str();
  llvm::StringRef attribute = "known_block_size = array<i32: 128, 1, 1>, ";
  kernel.erase(kernel.find(attribute), attribute.size());
  std::string error = compileError(kernel, "cuda:sm_90a");
  EXPECT_NE(error.find("kernel 'vector_add' for cuda:sm_90a"), std::string::npos) << error;
  EXPECT_NE(error.find("no known_block_size"), std::string::npos) << error;
}

TEST(NvidiaPipeline, RefusesMoreThan1024Threads) {
  std::string kernel = kernels::kVectorAdd.str();
  llvm::StringRef size = "array<i32: 128, 1, 1>";
  kernel.replace(kernel.find(size), size.size(), "array<i32: 2048, 1, 1>");
  std::string error = compileError(kernel, "cuda:sm_90a");
  EXPECT_NE(error.find("2048 threads per block exceed NVIDIA's limit of 1024"), std::string::npos)
      << error;
}

TEST(NvidiaPipeline, RefusesMoreSharedMemoryThanTheChipHas) {
  std::string kernel = kernels::kDynamicShared.str();
  llvm::StringRef bytes = "tessera.shared_memory_bytes = 65536";
  kernel.replace(kernel.find(bytes), bytes.size(), "tessera.shared_memory_bytes = 200000");
  EXPECT_TRUE(bool(compile(kernel, "cuda:sm_90a"))) << "227 KiB on sm_90a";
  std::string error = compileError(kernel, "cuda:sm_80");
  EXPECT_NE(error.find("needs 200000 bytes of shared memory; sm_80 gives a block at most 166912"),
            std::string::npos)
      << error;
}

TEST(NvidiaPipeline, TakesExactlyOneKernel) {
  std::string kernel = kernels::kVectorAdd.str();
  // A second gpu.module with its own kernel.
  std::string second = kernel.substr(kernel.find("  gpu.module"));
  second = second.substr(0, second.rfind("}"));
  llvm::StringRef name = "@vector_add";
  for (size_t at; (at = second.find(name)) != std::string::npos;)
    second.replace(at, name.size(), "@other");
  kernel.insert(kernel.rfind("}"), second);
  std::string error = compileError(kernel, "cuda:sm_90a");
  EXPECT_NE(error.find("one gpu.module holding one gpu.func kernel; the module has 2 gpu.module(s) "
                       "and 2 kernel(s)"),
            std::string::npos)
      << error;
}

TEST(NvidiaPipeline, NamesAnOpWithoutNvvmLoweringAndItsLocation) {
  std::string kernel = kernels::kVectorAdd.str();
  llvm::StringRef anchor = "      %tid = gpu.thread_id x\n";
  kernel.insert(kernel.find(anchor) + anchor.size(),
                "      %lane = rocdl.workitem.id.x : i32\n"
                "      %laneIndex = arith.index_cast %lane : i32 to index\n");
  llvm::StringRef use = "%i = arith.addi %base, %tid : index";
  kernel.replace(kernel.find(use), use.size(), "%i = arith.addi %base, %laneIndex : index");
  // An AMD op in a kernel compiled for NVIDIA.
  mlir::MLIRContext context;
  context.getOrLoadDialect<mlir::ROCDL::ROCDLDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = parseKernel(context, kernel);
  ASSERT_TRUE(module);
  llvm::Expected<KernelBinary> binary =
      compileForNvidia(*module, *GpuTarget::parse("cuda:sm_90a"));
  ASSERT_FALSE(bool(binary));
  std::string error = llvm::toString(binary.takeError());
  EXPECT_NE(error.find("kernel 'vector_add' for cuda:sm_90a: lowering to NVVM failed"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("kernel.mlir:8:15: error: 'rocdl.workitem.id.x' has no lowering to NVVM for "
                       "cuda:sm_90a"),
            std::string::npos)
      << error;
}

TEST(NvidiaPipeline, PointerArgumentsHaveNoExtent) {
  std::string kernel = kernels::kVectorAdd.str();
  llvm::StringRef anchor = "      %tid = gpu.thread_id x\n";
  kernel.insert(kernel.find(anchor) + anchor.size(),
                "      %c0 = arith.constant 0 : index\n"
                "      %extent = memref.dim %y, %c0 : memref<?xf32>\n");
  std::string error = compileError(kernel, "cuda:sm_90a");
  EXPECT_NE(error.find("kernel.mlir:9:17: error: 'memref.dim' needs more of pointer argument #1 "
                       "than its address, but the kernel does not know its extent"),
            std::string::npos)
      << error;
}

class NvidiaToolkitTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tessera-no-cuda", emptyRoot));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(emptyRoot); }
  llvm::SmallString<128> emptyRoot;
};

TEST_F(NvidiaToolkitTest, MathWithoutLibdeviceIsAClearError) {
  NvidiaCompileOptions options;
  options.cudaRoot = emptyRoot.str().str();
  std::string error = compileError(kernels::kMath, "cuda:sm_90a", options);
  EXPECT_NE(error.find("PTX generation failed"), std::string::npos) << error;
  EXPECT_NE(error.find("__nv_expf"), std::string::npos) << error;
  EXPECT_NE(error.find("__nv_erff"), std::string::npos) << error;
  EXPECT_NE(error.find("libdevice"), std::string::npos) << error;
  EXPECT_NE(error.find((emptyRoot + "/nvvm/libdevice/libdevice.10.bc").str()), std::string::npos)
      << error;
}

TEST_F(NvidiaToolkitTest, KernelsWithoutMathNeedNoLibdevice) {
  ScopedEnvironment ptxas("TESSERA_PTXAS", "/usr/local/cuda/bin/ptxas");
  if (!llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    GTEST_SKIP() << "no ptxas at /usr/local/cuda/bin to point TESSERA_PTXAS at";
  NvidiaCompileOptions options;
  options.cudaRoot = emptyRoot.str().str();
  llvm::Expected<KernelBinary> binary = compile(kernels::kBlockSum, "cuda:sm_90a", options);
  EXPECT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
}

TEST_F(NvidiaToolkitTest, WithoutPtxasTheDriverCompilesThePtx) {
  // A machine with a driver but no CUDA toolkit: no ptxas anywhere.
  ScopedEnvironment ptxas("TESSERA_PTXAS", std::nullopt);
  ScopedEnvironment path("PATH", emptyRoot.str().str());
  NvidiaCompileOptions options;
  options.cudaRoot = emptyRoot.str().str();
  llvm::Expected<KernelBinary> binary = compile(kernels::kBlockSum, "cuda:sm_90a", options);
  ASSERT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
  EXPECT_TRUE(binary->ptxForDriverJit);
  ASSERT_EQ(binary->binary.size(), binary->assembly.size() + 1);
  EXPECT_EQ(binary->binary.back(), 0) << "cuModuleLoadData reads PTX up to a NUL";
  EXPECT_TRUE(std::equal(binary->assembly.begin(), binary->assembly.end(),
                         binary->binary.begin()));
  EXPECT_NE(binary->assembly.find(".entry block_sum"), std::string::npos);
  EXPECT_GT(binary->blockThreads, 0u);
  EXPECT_EQ(binary->usage.registers, -1) << "unknown without ptxas";
  const std::string &report = binary->usage.report;
  EXPECT_NE(report.find("no ptxas, so the driver's JIT compiles this PTX when it is loaded (ptxas "
                        "(the CUDA assembler that turns PTX into a cubin) not found"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("TESSERA_PTXAS"), std::string::npos) << report;
}

TEST_F(NvidiaToolkitTest, APtxasTheUserNamesMustBeThere) {
  std::string missing = (emptyRoot + "/ptxas").str();
  ScopedEnvironment ptxas("TESSERA_PTXAS", missing);
  NvidiaCompileOptions options;
  options.cudaRoot = emptyRoot.str().str();
  std::string error = compileError(kernels::kBlockSum, "cuda:sm_90a", options);
  EXPECT_NE(error.find("kernel 'block_sum' for cuda:sm_90a: $TESSERA_PTXAS is " + missing),
            std::string::npos)
      << error;
}

} // namespace

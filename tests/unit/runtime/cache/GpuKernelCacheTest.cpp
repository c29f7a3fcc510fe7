// GPU kernels through the on-disk cache: a second process (a fresh
// KernelCache on the same directory) gets the same binary and launch facts
// without compiling; broken entries are removed and rebuilt; everything the
// binary depends on is in the key; failed compiles store nothing.
#include "runtime/cache/GpuKernelCache.h"

#include "tests/unit/runtime/cache/CacheTestUtils.h"

#include "ir/TileDialect.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>

using namespace tessera;
using namespace tessera::runtime;
using namespace tessera::runtime::cache_testing;

namespace {

class GpuKernelCacheTest : public ::testing::Test {
protected:
  GpuKernelCacheTest() {
    context.loadDialect<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::scf::SCFDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(test_kernels::kVectorAdd, &context,
                                                     "add.mlir");
    EXPECT_TRUE(module);
  }

  CachedGpuKernel compile(KernelCache &cache, const gpu::GpuTarget &target,
                          const gpu::GpuCompileOptions &options = {}) {
    llvm::Expected<CachedGpuKernel> compiled =
        compileTileForGpuCached(*module, "add", target, options, cache);
    EXPECT_TRUE(static_cast<bool>(compiled)) << llvm::toString(compiled.takeError());
    return compiled ? std::move(*compiled) : CachedGpuKernel();
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  TempDir dir;
};

class EveryVendor : public GpuKernelCacheTest,
                    public ::testing::WithParamInterface<const char *> {};

} // namespace

TEST_P(EveryVendor, ASecondProcessLoadsTheKernelFromDisk) {
  gpu::GpuTarget target = targetFor(GetParam());
  CachedGpuKernel first;
  {
    KernelCache cache(dir.str());
    first = compile(cache, target);
    EXPECT_EQ(first.origin, GpuKernelOrigin::Compiled);
    EXPECT_EQ(cache.stats().misses, 1u);
    EXPECT_EQ(cache.stats().stores, 1u);
  }
  ASSERT_EQ(filesIn(dir.str()).size(), 1u);
  KernelCache cache(dir.str());
  CachedGpuKernel second = compile(cache, target);
  EXPECT_EQ(second.origin, GpuKernelOrigin::DiskCache);
  EXPECT_EQ(cache.stats().diskHits, 1u);
  EXPECT_EQ(cache.stats().misses, 0u);
  const gpu::KernelBinary &want = first.kernel.binary;
  expectSameBinary(second.kernel.binary, want);
  EXPECT_EQ(second.kernel.dots, first.kernel.dots);
  EXPECT_EQ(second.kernel.vulkan.has_value(), first.kernel.vulkan.has_value());
  if (first.kernel.vulkan) {
    EXPECT_EQ(second.kernel.vulkan->abi, first.kernel.vulkan->abi);
    EXPECT_EQ(second.kernel.vulkan->binary.binary, want.binary);
  }
}

INSTANTIATE_TEST_SUITE_P(GpuKernelCache, EveryVendor,
                         ::testing::Values("cuda:sm_80", "cuda:sm_90a", "hip:gfx942",
                                           "vulkan:1.3:subgroup=8"));

TEST_F(GpuKernelCacheTest, BrokenEntriesAreRemovedAndRebuilt) {
  gpu::GpuTarget target = targetFor("cuda:sm_80");
  std::string key = gpuCacheKey(*module, "add", target, {});
  std::string entry;
  std::string whole;
  {
    KernelCache cache(dir.str());
    compile(cache, target);
    entry = cache.pathFor(key);
    auto bytes = llvm::MemoryBuffer::getFile(entry);
    ASSERT_TRUE(static_cast<bool>(bytes));
    whole = (*bytes)->getBuffer().str();
  }
  auto write = [&](llvm::StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(entry, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  };
  std::vector<std::pair<const char *, std::function<void()>>> breakages = {
      {"truncated", [&] { write(llvm::StringRef(whole).take_front(whole.size() / 2)); }},
      {"a payload that is no kernel, under a valid checksum",
       [&] {
         KernelCache writer(dir.str());
         ASSERT_FALSE(static_cast<bool>(writer.store(key, "{\"format\":1}")));
       }},
  };
  for (auto &[what, breakEntry] : breakages) {
    SCOPED_TRACE(what);
    breakEntry();
    KernelCache cache(dir.str());
    CachedGpuKernel rebuilt = compile(cache, target);
    EXPECT_EQ(rebuilt.origin, GpuKernelOrigin::Compiled);
    EXPECT_EQ(cache.stats().rejected, 1u);
    EXPECT_EQ(cache.stats().stores, 1u);
    KernelCache next(dir.str());
    EXPECT_EQ(compile(next, target).origin, GpuKernelOrigin::DiskCache);
  }
}

TEST_F(GpuKernelCacheTest, EverythingTheBinaryDependsOnIsInTheKey) {
  gpu::GpuTarget target = targetFor("cuda:sm_90a");
  std::string base = gpuCacheKey(*module, "add", target, {});
  EXPECT_EQ(gpuCacheKey(*module, "add", target, {}), base);
  EXPECT_NE(base.find("tessera-version=" + tesseraVersion().str()), std::string::npos);
  EXPECT_NE(base.find("llvm-version=" + llvmVersion().str()), std::string::npos);
  EXPECT_NE(base.find("bin/ptxas"), std::string::npos) << base;
  EXPECT_NE(base.find("libdevice"), std::string::npos) << base;

  using Change = std::function<void(gpu::GpuTarget &, gpu::GpuCompileOptions &)>;
  std::vector<std::pair<const char *, Change>> changes = {
      {"chip", [](auto &t, auto &) { t.chip = "sm_80"; }},
      {"cubin chip", [](auto &t, auto &) { t.cubinChip = "sm_90a"; }},
      {"warp size", [](auto &t, auto &) { t.warpSize = 64; }},
      {"shared memory", [](auto &t, auto &) { t.maxSharedMemoryBytes /= 2; }},
      {"cooperative matrix", [](auto &t, auto &) { t.cooperativeMatrix = true; }},
      {"num_warps", [](auto &, auto &o) { o.lowering.numWarps = 8; }},
      {"num_stages", [](auto &, auto &o) { o.lowering.numStages = 3; }},
      {"tma", [](auto &, auto &o) { o.lowering.tensorMaps = false; }},
      {"warp_specialize", [](auto &, auto &o) { o.lowering.warpSpecialize = true; }},
      {"read-back", [](auto &, auto &o) { o.lowering.readBackLoads = gpu::ReadBackLoads::Never; }},
      {"ptxas -O", [](auto &, auto &o) { o.nvidia.optLevel = 2; }},
      {"maxnreg", [](auto &, auto &o) { o.nvidia.maxRegisters = 128; }},
      {"fp fusion", [](auto &, auto &o) { o.nvidia.fpFusion = false; }},
      {"CUDA root", [](auto &, auto &o) { o.nvidia.cudaRoot = "/usr/local/cuda/"; }},
      {"AMD -O", [](auto &, auto &o) { o.amd.optLevel = 1; }},
      {"code object", [](auto &, auto &o) { o.amd.codeObjectVersion = 600; }},
      {"ROCm path", [](auto &, auto &o) { o.amd.rocmPath = "/opt/rocm"; }},
      {"Vulkan features", [](auto &, auto &o) { llvm::cantFail(o.vulkan.disable("int64")); }},
  };
  for (auto &[what, change] : changes) {
    gpu::GpuTarget changedTarget = target;
    gpu::GpuCompileOptions options;
    change(changedTarget, options);
    EXPECT_NE(gpuCacheKey(*module, "add", changedTarget, options), base) << what;
  }
  EXPECT_NE(gpuCacheKey(*module, "other", target, {}), base);
  std::string changedText =
      test_kernels::withReplaced(test_kernels::kVectorAdd, "arith.addf", "arith.subf");
  auto changed = mlir::parseSourceString<mlir::ModuleOp>(changedText, &context, "add.mlir");
  ASSERT_TRUE(changed);
  EXPECT_NE(gpuCacheKey(*changed, "add", target, {}), base);
  auto moved = mlir::parseSourceString<mlir::ModuleOp>(test_kernels::kVectorAdd, &context,
                                                       "elsewhere.mlir");
  EXPECT_NE(gpuCacheKey(*moved, "add", target, {}), base)
      << "locations are in the key";
}

TEST_F(GpuKernelCacheTest, FailedCompilesStoreNothing) {
  KernelCache cache(dir.str());
  llvm::Expected<CachedGpuKernel> missing =
      compileTileForGpuCached(*module, "nope", targetFor("cuda:sm_80"), {}, cache);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("nope"), std::string::npos);
  EXPECT_TRUE(filesIn(dir.str()).empty());
  EXPECT_EQ(cache.stats().misses, 1u);
}

TEST_F(GpuKernelCacheTest, AMissingToolIsInTheKeyAsAbsent) {
  gpu::GpuCompileOptions noToolkit;
  noToolkit.nvidia.cudaRoot = "/nonexistent/cuda";
  std::string key = gpuCacheKey(*module, "add", targetFor("cuda:sm_80"), noToolkit);
  EXPECT_NE(key.find("libdevice in /nonexistent/cuda absent"), std::string::npos) << key;
  EXPECT_NE(key, gpuCacheKey(*module, "add", targetFor("cuda:sm_80"), {}));
}

TEST_F(GpuKernelCacheTest, ADisabledCacheCompilesEveryTime) {
  gpu::GpuTarget target = targetFor("vulkan:1.3:subgroup=8");
  for (int round = 0; round < 2; ++round) {
    KernelCache cache(dir.str(), /*enabled=*/false);
    EXPECT_EQ(compile(cache, target).origin, GpuKernelOrigin::Compiled);
    EXPECT_EQ(cache.stats().misses, 1u);
  }
  EXPECT_TRUE(filesIn(dir.str()).empty());
}

TEST(GpuKernelCacheLocation, TheProcessCacheLivesBesideTheCpuOne) {
  EXPECT_EQ(llvm::StringRef(gpuKernelCache().directory()).rsplit('/').second, "gpu");
}

// What the kernel cache's tests share: a directory of their own, its files,
// GPU targets by name, compiled kernels compared field by field.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H
#define TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::runtime::cache_testing {

/// A fresh directory, removed with everything in it at the end of the test.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tessera-cache-test", path)); }
  ~TempDir() { (void)llvm::sys::fs::remove_directories(path); }
  std::string str() const { return std::string(path); }
};

/// The paths of the files in `dir` but its size record, `usage`.
inline std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (llvm::sys::path::filename(it->path()) != "usage") // the cache's size, not an entry
      files.push_back(it->path());
  return files;
}

/// The GPU target `spec` names (a default target, and a failed expectation,
/// where it names none).
inline gpu::GpuTarget targetFor(llvm::StringRef spec) {
  llvm::Expected<gpu::GpuTarget> target = gpu::GpuTarget::parse(spec);
  EXPECT_TRUE(static_cast<bool>(target)) << spec.str();
  if (!target) {
    llvm::consumeError(target.takeError());
    return gpu::GpuTarget();
  }
  return *target;
}

/// Every field of two kernel binaries is the same.
inline void expectSameBinary(const gpu::KernelBinary &got, const gpu::KernelBinary &want) {
  EXPECT_EQ(got.target.str(), want.target.str());
  EXPECT_EQ(got.kernelName, want.kernelName);
  EXPECT_EQ(got.binary, want.binary);
  EXPECT_EQ(got.ptxForDriverJit, want.ptxForDriverJit);
  EXPECT_EQ(got.assembly, want.assembly);
  EXPECT_EQ(got.blockThreads, want.blockThreads);
  EXPECT_EQ(got.dynamicSharedMemoryBytes, want.dynamicSharedMemoryBytes);
  ASSERT_EQ(got.tensorMaps.size(), want.tensorMaps.size());
  for (size_t i = 0; i < want.tensorMaps.size(); ++i) {
    const gpu::TensorMapParam &g = got.tensorMaps[i], &w = want.tensorMaps[i];
    EXPECT_EQ(g.base, w.base);
    EXPECT_EQ(g.shape, w.shape);
    EXPECT_EQ(g.outerStrides, w.outerStrides);
    EXPECT_EQ(g.element, w.element);
    EXPECT_EQ(g.elementBytes, w.elementBytes);
    EXPECT_EQ(g.box, w.box);
    EXPECT_EQ(g.swizzleBytes, w.swizzleBytes);
    EXPECT_EQ(g.nanPadding, w.nanPadding);
  }
  const gpu::ResourceUsage &g = got.usage, &w = want.usage;
  EXPECT_EQ(g.registers, w.registers);
  EXPECT_EQ(g.scalarRegisters, w.scalarRegisters);
  EXPECT_EQ(g.sharedMemoryBytes, w.sharedMemoryBytes);
  EXPECT_EQ(g.spillStoreBytes, w.spillStoreBytes);
  EXPECT_EQ(g.spillLoadBytes, w.spillLoadBytes);
  EXPECT_EQ(g.stackFrameBytes, w.stackFrameBytes);
  EXPECT_EQ(g.serializedWgmma, w.serializedWgmma);
  EXPECT_EQ(g.report, w.report);
}

} // namespace tessera::runtime::cache_testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H

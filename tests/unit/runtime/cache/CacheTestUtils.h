// What the kernel cache's tests share: a directory of their own, its files,
// GPU targets by name.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H
#define TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H

#include "lowering/gpu/GpuTarget.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

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

/// The paths of the files in `dir`.
inline std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
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

} // namespace tessera::runtime::cache_testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_CACHE_CACHETESTUTILS_H

// The staged "ROCm toolkit" directory: its layout, that staging is
// idempotent, and the error when the device libraries are missing.
#include "lowering/gpu/amd/RocmToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

using namespace tessera::gpu::amd;

namespace {

bool exists(llvm::StringRef dir, llvm::StringRef a, llvm::StringRef b, llvm::StringRef c) {
  llvm::SmallString<256> file(dir);
  llvm::sys::path::append(file, a, b, c);
  return llvm::sys::fs::exists(file);
}

TEST(RocmToolkitTest, StagesTheLayoutTheRocdlSerializerReads) {
  llvm::Expected<std::string> dir = stageRocmToolkit();
  ASSERT_TRUE(static_cast<bool>(dir)) << llvm::toString(dir.takeError());
  EXPECT_TRUE(exists(*dir, "amdgcn", "bitcode", "ocml.bc"));
  EXPECT_TRUE(exists(*dir, "amdgcn", "bitcode", "ockl.bc"));
  EXPECT_TRUE(exists(*dir, "llvm", "bin", "ld.lld"));
}

TEST(RocmToolkitTest, ConcurrentCallersGetTheSameDirectory) {
  std::vector<std::string> dirs(8);
  std::vector<std::thread> threads;
  for (std::string &dir : dirs)
    threads.emplace_back([&dir] {
      llvm::Expected<std::string> staged = stageRocmToolkit();
      dir = staged ? *staged : llvm::toString(staged.takeError());
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &dir : dirs)
    EXPECT_EQ(dir, dirs.front());
  EXPECT_TRUE(exists(dirs.front(), "amdgcn", "bitcode", "ocml.bc"));
}

TEST(RocmToolkitTest, MissingDeviceLibrariesNameThePackage) {
  RocmToolkitSources sources;
  sources.deviceLibraries = "/nonexistent/amdgcn";
  llvm::Expected<std::string> dir = stageRocmToolkit(sources);
  ASSERT_FALSE(static_cast<bool>(dir));
  std::string error = llvm::toString(dir.takeError());
  EXPECT_NE(error.find("/nonexistent/amdgcn/bitcode/ocml.bc is missing"), std::string::npos)
      << error;
  EXPECT_NE(error.find("rocm-device-libs"), std::string::npos) << error;
}

TEST(RocmToolkitTest, MissingLinkerNamesThePackage) {
  RocmToolkitSources sources;
  sources.llvmRoot = "/nonexistent/llvm";
  llvm::Expected<std::string> dir = stageRocmToolkit(sources);
  ASSERT_FALSE(static_cast<bool>(dir));
  std::string error = llvm::toString(dir.takeError());
  EXPECT_NE(error.find("/nonexistent/llvm/bin/ld.lld is missing: install lld-22"),
            std::string::npos)
      << error;
}

} // namespace

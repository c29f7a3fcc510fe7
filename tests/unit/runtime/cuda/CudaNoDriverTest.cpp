// The device API where no CUDA driver can be loaded (as on machines without
// an NVIDIA GPU): every entry point fails with the same clear reason. The
// process's driver library is pointed at a name that does not exist before
// anything opens it, so this holds on GPU machines too.
#include "runtime/cuda/CudaDevice.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tessera::runtime::cuda;

namespace {

class CudaNoDriver : public ::testing::Test {
protected:
  static void SetUpTestSuite() { setenv("TESSERA_LIBCUDA", "libtessera-absent-cuda.so.1", 1); }
  static constexpr llvm::StringLiteral kReason =
      "CUDA is not available: cannot load the driver library libtessera-absent-cuda.so.1: ";
};

TEST_F(CudaNoDriver, IsNotAvailableAndSaysWhy) {
  std::string reason;
  EXPECT_FALSE(CudaDevice::isAvailable(0, &reason));
  EXPECT_TRUE(llvm::StringRef(reason).starts_with(kReason)) << reason;
  EXPECT_FALSE(CudaDevice::isAvailable());
}

TEST_F(CudaNoDriver, OpenAndCountFailWithTheReason) {
  llvm::Expected<std::unique_ptr<CudaDevice>> device = CudaDevice::open(0);
  ASSERT_FALSE(bool(device));
  std::string error = llvm::toString(device.takeError());
  EXPECT_TRUE(llvm::StringRef(error).starts_with(kReason)) << error;

  llvm::Expected<int> count = CudaDevice::count();
  ASSERT_FALSE(bool(count));
  EXPECT_EQ(llvm::toString(count.takeError()), error);
}

} // namespace

// The CUDA driver wrapper without a GPU: libraries that are not a driver,
// and the declared driver ABI against cuda.h where the toolkit is installed.
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaDriver.h"
#include "tests/unit/lowering/gpu/nvidia/ScopedEnvironment.h"

#include <gtest/gtest.h>

#if TESSERA_HAVE_CUDA_H
#include <cuda.h>

#include <type_traits>
#endif

using namespace tessera::runtime::cuda;
using tessera::gpu::testing::ScopedEnvironment;
namespace gpu = tessera::gpu;

namespace {

#if TESSERA_HAVE_CUDA_H
// What is dlsym'ed must be what cuda.h declares under that symbol: the same
// number of parameters and the same sizes (enums and ints, opaque pointers).
template <typename Ours, typename Theirs> struct SameAbi : std::false_type {};
template <typename R1, typename... A1, typename R2, typename... A2>
  requires(sizeof...(A1) == sizeof...(A2))
struct SameAbi<R1 (*)(A1...), R2(A2...)>
    : std::bool_constant<sizeof(R1) == sizeof(R2) && ((sizeof(A1) == sizeof(A2)) && ...)> {};

#define EXPECT_SAME_ABI(member, symbol)                                                            \
  static_assert(SameAbi<decltype(driver::Functions::member), decltype(::symbol)>::value,           \
                #symbol " differs from driver::Functions::" #member)
EXPECT_SAME_ABI(init, cuInit);
EXPECT_SAME_ABI(driverGetVersion, cuDriverGetVersion);
EXPECT_SAME_ABI(getErrorName, cuGetErrorName);
EXPECT_SAME_ABI(getErrorString, cuGetErrorString);
EXPECT_SAME_ABI(deviceGetCount, cuDeviceGetCount);
EXPECT_SAME_ABI(deviceGet, cuDeviceGet);
EXPECT_SAME_ABI(deviceGetName, cuDeviceGetName);
EXPECT_SAME_ABI(deviceGetAttribute, cuDeviceGetAttribute);
EXPECT_SAME_ABI(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
EXPECT_SAME_ABI(devicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2);
EXPECT_SAME_ABI(ctxPushCurrent, cuCtxPushCurrent_v2);
EXPECT_SAME_ABI(ctxPopCurrent, cuCtxPopCurrent_v2);
EXPECT_SAME_ABI(ctxSynchronize, cuCtxSynchronize);
EXPECT_SAME_ABI(memAlloc, cuMemAlloc_v2);
EXPECT_SAME_ABI(memFree, cuMemFree_v2);
EXPECT_SAME_ABI(memcpyHtoD, cuMemcpyHtoD_v2);
EXPECT_SAME_ABI(memcpyDtoH, cuMemcpyDtoH_v2);
EXPECT_SAME_ABI(memsetD8, cuMemsetD8_v2);
EXPECT_SAME_ABI(moduleLoadData, cuModuleLoadData);
EXPECT_SAME_ABI(moduleUnload, cuModuleUnload);
EXPECT_SAME_ABI(moduleGetFunction, cuModuleGetFunction);
EXPECT_SAME_ABI(funcGetAttribute, cuFuncGetAttribute);
EXPECT_SAME_ABI(funcSetAttribute, cuFuncSetAttribute);
EXPECT_SAME_ABI(launchKernel, cuLaunchKernel);
EXPECT_SAME_ABI(memAllocHost, cuMemAllocHost_v2);
EXPECT_SAME_ABI(memFreeHost, cuMemFreeHost);
EXPECT_SAME_ABI(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2);
EXPECT_SAME_ABI(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2);
EXPECT_SAME_ABI(streamCreate, cuStreamCreate);
EXPECT_SAME_ABI(streamDestroy, cuStreamDestroy_v2);
EXPECT_SAME_ABI(streamSynchronize, cuStreamSynchronize);
EXPECT_SAME_ABI(eventCreate, cuEventCreate);
EXPECT_SAME_ABI(eventDestroy, cuEventDestroy_v2);
EXPECT_SAME_ABI(eventRecord, cuEventRecord);
EXPECT_SAME_ABI(eventSynchronize, cuEventSynchronize);
EXPECT_SAME_ABI(eventElapsedTime, cuEventElapsedTime); // _v2 where cuda.h maps it
EXPECT_SAME_ABI(funcGetParamInfo, cuFuncGetParamInfo);
EXPECT_SAME_ABI(tensorMapEncodeTiled, cuTensorMapEncodeTiled);
#undef EXPECT_SAME_ABI

static_assert(sizeof(driver::CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(driver::CUresult) == sizeof(::CUresult));
static_assert(sizeof(driver::CUdevice) == sizeof(::CUdevice));
static_assert(driver::CUDA_SUCCESS == ::CUDA_SUCCESS);
static_assert(driver::CUDA_ERROR_INVALID_VALUE == ::CUDA_ERROR_INVALID_VALUE);
static_assert(driver::CUDA_ERROR_NO_DEVICE == ::CUDA_ERROR_NO_DEVICE);
static_assert(driver::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X == ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
static_assert(driver::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y == ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
static_assert(driver::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z == ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
static_assert(driver::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
              ::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(driver::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(driver::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(driver::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
              ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(driver::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
              ::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(driver::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == ::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(driver::CU_FUNC_ATTRIBUTE_NUM_REGS == ::CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(driver::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
              ::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(driver::CU_STREAM_NON_BLOCKING == ::CU_STREAM_NON_BLOCKING);
static_assert(driver::CU_EVENT_DEFAULT == ::CU_EVENT_DEFAULT);
#endif

TEST(CudaDriver, MissingLibraryIsAClearError) {
  llvm::Expected<std::unique_ptr<CudaDriver>> driver = CudaDriver::open("libtessera-no-cuda.so.1");
  ASSERT_FALSE(bool(driver));
  std::string error = llvm::toString(driver.takeError());
  EXPECT_NE(error.find("CUDA is not available: cannot load the driver library "
                       "libtessera-no-cuda.so.1: "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << "dlerror's reason: " << error;
}

TEST(CudaDriver, ALibraryThatIsNoDriverIsNamedWithWhatItLacks) {
  llvm::Expected<std::unique_ptr<CudaDriver>> driver = CudaDriver::open("libm.so.6");
  ASSERT_FALSE(bool(driver));
  std::string error = llvm::toString(driver.takeError());
  EXPECT_NE(error.find("libm.so.6 is not a usable CUDA driver library; it lacks cuInit, "
                       "cuDriverGetVersion"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("cuFuncGetParamInfo"), std::string::npos) << "optional: " << error;
}

TEST(CudaDeviceInfo, ChipToCompileFor) {
  CudaDeviceInfo info;
  info.computeCapability = 80;
  EXPECT_EQ(info.chip(), "sm_80");
  info.computeCapability = 89;
  EXPECT_EQ(info.chip(), "sm_89");
  info.computeCapability = 90;
  EXPECT_EQ(info.chip(), "sm_90a") << "the H100/H200 target with wgmma";
}

// $TESSERA_CUDA_TARGET runs an older chip's code (sm_80's mma.sync) on the
// device, its PTX assembled for the device's chip; never a newer chip's, nor
// sm_90a's wgmma anywhere but on 9.0.
TEST(CudaDeviceInfo, CompileTargetMayBeAnOlderChipAssembledForThisOne) {
  CudaDeviceInfo h100;
  h100.name = "NVIDIA H100";
  h100.computeCapability = 90;
  {
    ScopedEnvironment unset("TESSERA_CUDA_TARGET", std::nullopt);
    llvm::Expected<gpu::GpuTarget> own = h100.compileTarget();
    ASSERT_TRUE(bool(own)) << llvm::toString(own.takeError());
    EXPECT_EQ(own->str(), "cuda:sm_90a");
  }
  for (const char *older : {"sm_80", "cuda:sm_80", " sm_80 "}) {
    ScopedEnvironment set("TESSERA_CUDA_TARGET", std::string(older));
    llvm::Expected<gpu::GpuTarget> ampere = h100.compileTarget();
    ASSERT_TRUE(bool(ampere)) << older << ": " << llvm::toString(ampere.takeError());
    EXPECT_EQ(ampere->str(), "cuda:sm_80:cubin=sm_90a");
    EXPECT_TRUE(ampere->hasMmaSync());
    EXPECT_FALSE(ampere->hasWgmma());
    EXPECT_EQ(ampere->assembledChip(), "sm_90a");
  }
  CudaDeviceInfo a100;
  a100.name = "NVIDIA A100";
  a100.computeCapability = 80;
  for (const char *newer : {"sm_90a", "sm_89", "sm_42"}) {
    ScopedEnvironment set("TESSERA_CUDA_TARGET", std::string(newer));
    llvm::Expected<gpu::GpuTarget> refused = a100.compileTarget();
    ASSERT_FALSE(bool(refused)) << newer;
    std::string error = llvm::toString(refused.takeError());
    EXPECT_NE(error.find(std::string("TESSERA_CUDA_TARGET=") + newer + " on NVIDIA A100 (sm_80)"),
              std::string::npos)
        << error;
  }
}

TEST(CudaBuffer, EmptyBufferRefusesCopies) {
  CudaBuffer buffer;
  EXPECT_FALSE(bool(buffer));
  float value = 0;
  llvm::Error err = buffer.copyFromHost(&value, sizeof(value));
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)), "copyFromHost on an empty CudaBuffer");
}

} // namespace

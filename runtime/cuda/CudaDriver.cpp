#include "runtime/cuda/CudaDriver.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>

using namespace tessera::runtime::cuda;
using namespace tessera::runtime::cuda::driver;

llvm::Expected<std::unique_ptr<CudaDriver>> CudaDriver::open(llvm::StringRef library) {
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = library.str();
  driver->handle_ = dlopen(driver->library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver->handle_) {
    const char *why = dlerror();
    return llvm::createStringError("CUDA is not available: cannot load the driver library " +
                                   library + ": " + (why ? why : "unknown dlopen error"));
  }

  Functions &fn = driver->functions_;
  llvm::SmallVector<llvm::StringRef> missing;
  auto bind = [&](const char *symbol, auto &slot, bool required = true) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(driver->handle_, symbol));
    if (!slot && required)
      missing.push_back(symbol);
  };
  // The _v2 symbols are the ones cuda.h has mapped the plain names to since
  // CUDA 3.2 / 4.0 / 11.0; the unsuffixed ones keep older, narrower ABIs.
  bind("cuInit", fn.init);
  bind("cuDriverGetVersion", fn.driverGetVersion);
  bind("cuGetErrorName", fn.getErrorName);
  bind("cuGetErrorString", fn.getErrorString);
  bind("cuDeviceGetCount", fn.deviceGetCount);
  bind("cuDeviceGet", fn.deviceGet);
  bind("cuDeviceGetName", fn.deviceGetName);
  bind("cuDeviceGetAttribute", fn.deviceGetAttribute);
  bind("cuDevicePrimaryCtxRetain", fn.devicePrimaryCtxRetain);
  bind("cuDevicePrimaryCtxRelease_v2", fn.devicePrimaryCtxRelease);
  bind("cuCtxPushCurrent_v2", fn.ctxPushCurrent);
  bind("cuCtxPopCurrent_v2", fn.ctxPopCurrent);
  bind("cuMemAlloc_v2", fn.memAlloc);
  bind("cuMemFree_v2", fn.memFree);
  bind("cuMemcpyHtoD_v2", fn.memcpyHtoD);
  bind("cuMemcpyDtoH_v2", fn.memcpyDtoH);
  bind("cuMemsetD8_v2", fn.memsetD8);
  bind("cuModuleLoadData", fn.moduleLoadData);
  bind("cuModuleUnload", fn.moduleUnload);
  bind("cuModuleGetFunction", fn.moduleGetFunction);
  bind("cuFuncGetAttribute", fn.funcGetAttribute);
  bind("cuFuncSetAttribute", fn.funcSetAttribute);
  bind("cuLaunchKernel", fn.launchKernel);
  bind("cuMemAllocHost_v2", fn.memAllocHost);
  bind("cuMemFreeHost", fn.memFreeHost);
  bind("cuMemcpyHtoDAsync_v2", fn.memcpyHtoDAsync);
  bind("cuMemcpyDtoHAsync_v2", fn.memcpyDtoHAsync);
  bind("cuStreamCreate", fn.streamCreate);
  bind("cuStreamDestroy_v2", fn.streamDestroy);
  bind("cuStreamSynchronize", fn.streamSynchronize);
  bind("cuEventCreate", fn.eventCreate);
  bind("cuEventDestroy_v2", fn.eventDestroy);
  bind("cuEventRecord", fn.eventRecord);
  bind("cuEventSynchronize", fn.eventSynchronize);
  // cuda.h maps cuEventElapsedTime to _v2 from CUDA 12.8 on; older drivers
  // have only the first, of the same ABI.
  bind("cuEventElapsedTime_v2", fn.eventElapsedTime, /*required=*/false);
  if (!fn.eventElapsedTime)
    bind("cuEventElapsedTime", fn.eventElapsedTime);
  bind("cuCtxSynchronize", fn.ctxSynchronize);
  bind("cuFuncGetParamInfo", fn.funcGetParamInfo, /*required=*/false);
  bind("cuTensorMapEncodeTiled", fn.tensorMapEncodeTiled, /*required=*/false);
  if (!missing.empty())
    return llvm::createStringError("CUDA is not available: " + library +
                                   " is not a usable CUDA driver library; it lacks " +
                                   llvm::join(missing, ", "));

  if (CUresult result = fn.init(0); result != CUDA_SUCCESS)
    return llvm::createStringError("CUDA is not available: " + library + " loaded, but cuInit failed: " +
                                   driver->describe(result));
  if (llvm::Error err = driver->check(fn.driverGetVersion(&driver->version_), "cuDriverGetVersion",
                                      "CUDA driver " + library))
    return std::move(err);
  return driver;
}

llvm::Expected<const CudaDriver &> CudaDriver::get() {
  // Never closed: devices kept in static objects may still call the driver
  // while the process exits, as the CUDA runtime itself never unloads it.
  static CudaDriver *shared = nullptr;
  static std::string failure;
  static std::once_flag opened;
  std::call_once(opened, [] {
    const char *library = std::getenv("TESSERA_LIBCUDA");
    llvm::Expected<std::unique_ptr<CudaDriver>> driver =
        open(library && *library ? library : "libcuda.so.1");
    if (driver)
      shared = driver->release();
    else
      failure = llvm::toString(driver.takeError());
  });
  if (!shared)
    return llvm::createStringError(failure);
  return *shared;
}

CudaDriver::~CudaDriver() {
  if (handle_)
    dlclose(handle_);
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (functions_.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "unknown CUDA error " + std::to_string(result);
  std::string description = name;
  if (functions_.getErrorString(result, &text) == CUDA_SUCCESS && text)
    description += std::string(" (") + text + ")";
  return description;
}

llvm::Error CudaDriver::check(CUresult result, llvm::StringRef call,
                              const llvm::Twine &context) const {
  if (result == CUDA_SUCCESS)
    return llvm::Error::success();
  return llvm::createStringError(context + ": " + call + " failed: " + describe(result));
}

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaState.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>

using namespace tessera::runtime::cuda;
using namespace tessera::runtime::cuda::driver;
using tessera::runtime::cuda::detail::DeviceState;

//===----------------------------------------------------------------------===//
// DeviceState
//===----------------------------------------------------------------------===//

llvm::Error DeviceState::inContext(const llvm::Twine &what,
                                   llvm::function_ref<llvm::Error()> body) const {
  const Functions &api = driver.api();
  if (llvm::Error err = driver.check(api.ctxPushCurrent(context), "cuCtxPushCurrent", what))
    return err;
  llvm::Error result = body();
  CUcontext popped = nullptr;
  return llvm::joinErrors(std::move(result),
                          driver.check(api.ctxPopCurrent(&popped), "cuCtxPopCurrent", what));
}

std::string DeviceState::describe() const {
  return llvm::formatv("CUDA device {0} ({1}, {2})", info.ordinal, info.name, info.chip()).str();
}

DeviceState::~DeviceState() {
  // Failures here (a context already broken by a faulting kernel) leave
  // nothing to recover: the driver frees everything with the context.
  if (!context)
    return; // open() failed before retaining the primary context.
  const Functions &api = driver.api();
  if (api.ctxPushCurrent(context) == CUDA_SUCCESS) {
    for (auto &entry : kernels)
      api.moduleUnload(entry.second->module);
    CUcontext popped = nullptr;
    api.ctxPopCurrent(&popped);
  }
  api.devicePrimaryCtxRelease(device);
}

//===----------------------------------------------------------------------===//
// CudaDeviceInfo
//===----------------------------------------------------------------------===//

std::string CudaDeviceInfo::chip() const {
  // sm_90a, not sm_90: the architecture-specific variant has wgmma and runs
  // on exactly the 9.0 devices that report this capability.
  if (computeCapability == 90)
    return "sm_90a";
  return "sm_" + std::to_string(computeCapability);
}

llvm::Expected<tessera::gpu::GpuTarget> CudaDeviceInfo::compileTarget() const {
  const char *chosen = std::getenv("TESSERA_CUDA_TARGET");
  if (!chosen || !*chosen)
    return tessera::gpu::GpuTarget::parse("cuda:" + chip());
  llvm::StringRef older = llvm::StringRef(chosen).trim();
  older.consume_front("cuda:");
  llvm::Expected<tessera::gpu::GpuTarget> target =
      tessera::gpu::GpuTarget::parse(("cuda:" + older + ":cubin=" + chip()).str());
  if (!target)
    return llvm::createStringError(llvm::formatv("TESSERA_CUDA_TARGET={0} on {1} ({2}): {3}",
                                                 chosen, name, chip(),
                                                 llvm::toString(target.takeError()))
                                       .str());
  return target;
}

//===----------------------------------------------------------------------===//
// CudaDevice
//===----------------------------------------------------------------------===//

llvm::Expected<int> CudaDevice::count() {
  llvm::Expected<const CudaDriver &> driver = CudaDriver::get();
  if (!driver)
    return driver.takeError();
  int devices = 0;
  if (llvm::Error err = driver->check(driver->api().deviceGetCount(&devices), "cuDeviceGetCount",
                                      "counting CUDA devices"))
    return std::move(err);
  return devices;
}

bool CudaDevice::isAvailable(int ordinal, std::string *reason) {
  llvm::Expected<int> devices = count();
  std::string why;
  if (!devices)
    why = llvm::toString(devices.takeError());
  else if (ordinal < 0 || ordinal >= *devices)
    why = llvm::formatv("CUDA device {0} does not exist (this machine has {1})", ordinal, *devices)
              .str();
  if (reason)
    *reason = why;
  return why.empty();
}

llvm::Expected<std::unique_ptr<CudaDevice>> CudaDevice::open(int ordinal) {
  std::string why;
  if (!isAvailable(ordinal, &why))
    return llvm::createStringError(why);
  const CudaDriver &driver = *CudaDriver::get();
  const Functions &api = driver.api();
  auto state = std::make_shared<DeviceState>(driver);
  std::string where = "opening CUDA device " + std::to_string(ordinal);
  if (llvm::Error err = driver.check(api.deviceGet(&state->device, ordinal), "cuDeviceGet", where))
    return std::move(err);

  CudaDeviceInfo &info = state->info;
  info.ordinal = ordinal;
  info.driverVersion = driver.version();
  char name[256] = {};
  if (llvm::Error err = driver.check(api.deviceGetName(name, sizeof(name) - 1, state->device),
                                     "cuDeviceGetName", where))
    return std::move(err);
  info.name = name;
  auto attribute = [&](int attribute, unsigned &value) -> llvm::Error {
    int raw = 0;
    if (llvm::Error err = driver.check(api.deviceGetAttribute(&raw, attribute, state->device),
                                       "cuDeviceGetAttribute", where))
      return err;
    value = unsigned(raw);
    return llvm::Error::success();
  };
  unsigned major = 0, minor = 0;
  for (auto [id, slot] : {std::pair{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major},
                          {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor},
                          {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors},
                          {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                           &info.maxSharedMemoryPerBlock},
                          {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &info.maxGrid[0]},
                          {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &info.maxGrid[1]},
                          {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &info.maxGrid[2]}})
    if (llvm::Error err = attribute(id, *slot))
      return std::move(err);
  info.computeCapability = 10 * major + minor;

  if (llvm::Error err = driver.check(api.devicePrimaryCtxRetain(&state->context, state->device),
                                     "cuDevicePrimaryCtxRetain", where))
    return std::move(err);
  return std::unique_ptr<CudaDevice>(new CudaDevice(std::move(state)));
}

CudaDevice::~CudaDevice() = default;

const CudaDeviceInfo &CudaDevice::info() const { return state_->info; }

llvm::Error CudaDevice::synchronize() {
  const CudaDriver &driver = state_->driver;
  std::string where = "synchronizing " + state_->describe();
  return state_->inContext(where, [&] {
    return driver.check(driver.api().ctxSynchronize(), "cuCtxSynchronize", where);
  });
}

size_t CudaDevice::numLoadedModules() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->kernels.size();
}

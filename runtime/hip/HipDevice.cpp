#include "runtime/hip/HipDevice.h"
#include "runtime/hip/HipApi.h"
#include "runtime/hip/HipArguments.h"

#include "lowering/gpu/amd/CodeObject.h"

#include "llvm/Support/xxhash.h"

#include <cstring>
#include <limits>

namespace tessera::runtime::hip {

//===----------------------------------------------------------------------===//
// HipDevice
//===----------------------------------------------------------------------===//

bool HipDevice::isAvailable(std::string *whyNot) {
  llvm::Expected<std::unique_ptr<HipDevice>> device = open(0);
  if (device)
    return true;
  std::string reason = llvm::toString(device.takeError());
  if (whyNot)
    *whyNot = std::move(reason);
  return false;
}

llvm::Expected<std::unique_ptr<HipDevice>> HipDevice::open(int ordinal) {
  llvm::Expected<const HipApi &> api = HipApi::get();
  if (!api)
    return api.takeError();
  int count = 0;
  HipError counted = api->getDeviceCount(&count);
  if (counted == kHipErrorNoDevice || (counted == kHipSuccess && count == 0))
    return llvm::createStringError("the HIP runtime loads but finds no AMD GPU");
  if (llvm::Error error = api->check(counted, "hipGetDeviceCount", "the HIP runtime"))
    return std::move(error);
  if (ordinal < 0 || ordinal >= count)
    return llvm::createStringError("there is no HIP device " + llvm::Twine(ordinal) + " (" +
                                   llvm::Twine(count) + " present)");

  std::unique_ptr<HipDevice> device(new HipDevice(*api, ordinal));
  if (llvm::Error error = device->activate())
    return std::move(error);
  auto properties = std::make_unique<HipDeviceProperties>();
  std::memset(properties.get(), 0, sizeof(HipDeviceProperties));
  if (llvm::Error error = api->check(api->getDeviceProperties(properties.get(), ordinal),
                                     "hipGetDeviceProperties",
                                     "HIP device " + llvm::Twine(ordinal)))
    return std::move(error);
  device->name_ = llvm::StringRef(properties->name, strnlen(properties->name, 256)).str();
  device->architecture_ =
      llvm::StringRef(properties->gcnArchName, strnlen(properties->gcnArchName, 256)).str();
  // "gfx942:sramecc+:xnack-": the chip, then the target features.
  llvm::StringRef chip = llvm::StringRef(device->architecture_).split(':').first;
  llvm::Expected<gpu::GpuTarget> target = gpu::GpuTarget::parse(("hip:" + chip).str());
  if (!target)
    return llvm::createStringError("HIP device " + llvm::Twine(ordinal) + " (" + device->name_ +
                                   ", " + device->architecture_ +
                                   ") is not a chip Tessera compiles for: " +
                                   llvm::toString(target.takeError()));
  device->target_ = *target;
  return device;
}

HipDevice::~HipDevice() {
  llvm::consumeError(activate());
  for (auto &[hash, module] : modules_)
    (void)api_.moduleUnload(static_cast<HipModule>(module));
}

llvm::Error HipDevice::activate() const {
  return api_.check(api_.setDevice(ordinal_), "hipSetDevice",
                    "HIP device " + llvm::Twine(ordinal_));
}

size_t HipDevice::loadedModules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size();
}

llvm::Expected<HipKernel> HipDevice::load(const gpu::KernelBinary &binary,
                                          const KernelSignature &signature) {
  llvm::StringRef kernelName = binary.kernelName;
  auto kernelError = [&](const llvm::Twine &why) {
    return llvm::createStringError("kernel '" + kernelName + "': " + why);
  };
  if (binary.target.vendor != gpu::GpuVendor::Amd || binary.target.chip != target_.chip)
    return kernelError("compiled for " + binary.target.str() + ", but HIP device " +
                       llvm::Twine(ordinal_) + " is " + architecture_);
  llvm::Expected<gpu::amd::CodeObject> object = gpu::amd::readCodeObject(binary.binary);
  if (!object)
    return kernelError(llvm::toString(object.takeError()));
  const gpu::amd::KernelMetadata *metadata = object->findKernel(kernelName);
  if (!metadata)
    return kernelError("the code object does not define it");
  if (llvm::Error error = checkArgumentLayout(kernelName, signature, metadata->arguments))
    return std::move(error);
  if (llvm::Error error = activate())
    return std::move(error);

  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(binary.binary);
  std::pair<uint64_t, uint64_t> key{hash.high64, hash.low64};
  HipModule module = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = modules_.find(key);
    if (it != modules_.end()) {
      module = static_cast<HipModule>(it->second);
    } else {
      if (llvm::Error error = api_.check(api_.moduleLoadData(&module, binary.binary.data()),
                                         "hipModuleLoadData", "kernel '" + kernelName + "'"))
        return std::move(error);
      modules_.emplace(key, module);
    }
  }
  HipFunction function = nullptr;
  if (llvm::Error error =
          api_.check(api_.moduleGetFunction(&function, module, binary.kernelName.c_str()),
                     "hipModuleGetFunction", "kernel '" + kernelName + "'"))
    return std::move(error);

  HipKernel kernel;
  kernel.name_ = binary.kernelName;
  kernel.signature_ = signature;
  kernel.blockThreads_ = binary.blockThreads;
  kernel.dynamicSharedMemoryBytes_ = binary.dynamicSharedMemoryBytes;
  kernel.function_ = function;
  kernel.device_ = this;
  return kernel;
}

llvm::Error HipDevice::launch(const HipKernel &kernel, Grid grid, llvm::ArrayRef<Argument> args) {
  if (kernel.device_ != this)
    return llvm::createStringError("kernel '" + kernel.name() +
                                   "' was loaded on another HIP device");
  llvm::Expected<std::vector<uint64_t>> slots =
      packArguments(kernel.name(), kernel.signature(), args);
  if (!slots)
    return slots.takeError();
  if (grid.size() == 0)
    return llvm::Error::success();
  // HSA dispatches count work-items in 32 bits per dimension.
  if (uint64_t(grid.x) * kernel.blockThreads() > std::numeric_limits<uint32_t>::max())
    return llvm::createStringError("kernel '" + kernel.name() + "': a grid of " +
                                   llvm::Twine(grid.x) + " programs of " +
                                   llvm::Twine(kernel.blockThreads()) +
                                   " threads exceeds 2^32 work-items along x");
  std::vector<void *> params;
  params.reserve(slots->size());
  for (uint64_t &slot : *slots)
    params.push_back(&slot);
  if (llvm::Error error = activate())
    return error;
  return api_.check(api_.moduleLaunchKernel(static_cast<HipFunction>(kernel.function_), grid.x,
                                            grid.y, grid.z, kernel.blockThreads(), 1, 1,
                                            kernel.dynamicSharedMemoryBytes(),
                                            /*stream=*/nullptr, params.data(),
                                            /*extra=*/nullptr),
                    "hipModuleLaunchKernel", "kernel '" + kernel.name() + "'");
}

llvm::Error HipDevice::synchronize() {
  if (llvm::Error error = activate())
    return error;
  return api_.check(api_.deviceSynchronize(), "hipDeviceSynchronize",
                    "HIP device " + llvm::Twine(ordinal_));
}

//===----------------------------------------------------------------------===//
// HipBuffer
//===----------------------------------------------------------------------===//

llvm::Expected<HipBuffer> HipBuffer::allocate(HipDevice &device, size_t bytes) {
  if (llvm::Error error = device.activate())
    return std::move(error);
  void *data = nullptr;
  if (bytes > 0)
    if (llvm::Error error = device.api_.check(device.api_.malloc(&data, bytes), "hipMalloc",
                                              "allocating " + llvm::Twine(bytes) + " bytes"))
      return std::move(error);
  return HipBuffer(&device, data, bytes);
}

HipBuffer::HipBuffer(HipBuffer &&other) noexcept
    : device_(other.device_), data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

HipBuffer &HipBuffer::operator=(HipBuffer &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

HipBuffer::~HipBuffer() { release(); }

void HipBuffer::release() {
  if (!data_)
    return;
  llvm::consumeError(device_->activate());
  (void)device_->api_.free(data_);
  data_ = nullptr;
}

llvm::Error HipBuffer::checkRange(llvm::StringRef what, size_t bytes, size_t offset) const {
  if (offset > size_ || bytes > size_ - offset)
    return llvm::createStringError(what + " of " + llvm::Twine(bytes) + " bytes at offset " +
                                   llvm::Twine(offset) + " leaves the " + llvm::Twine(size_) +
                                   "-byte HIP buffer");
  return device_ ? device_->activate() : llvm::Error::success();
}

llvm::Error HipBuffer::copyFromHost(const void *source, size_t bytes, size_t offset) {
  if (llvm::Error error = checkRange("a copy to the device", bytes, offset))
    return error;
  if (bytes == 0)
    return llvm::Error::success();
  return device_->api_.check(device_->api_.memcpy(static_cast<char *>(data_) + offset, source,
                                                  bytes, HipMemcpyKind::HostToDevice),
                             "hipMemcpy", "copying to the device");
}

llvm::Error HipBuffer::copyToHost(void *destination, size_t bytes, size_t offset) const {
  if (llvm::Error error = checkRange("a copy to the host", bytes, offset))
    return error;
  if (bytes == 0)
    return llvm::Error::success();
  return device_->api_.check(device_->api_.memcpy(destination,
                                                  static_cast<const char *>(data_) + offset,
                                                  bytes, HipMemcpyKind::DeviceToHost),
                             "hipMemcpy", "copying to the host");
}

llvm::Error HipBuffer::fill(uint8_t byte) {
  if (size_ == 0)
    return llvm::Error::success();
  if (llvm::Error error = device_->activate())
    return error;
  return device_->api_.check(device_->api_.memset(data_, byte, size_), "hipMemset",
                             "filling a HIP buffer");
}

} // namespace tessera::runtime::hip

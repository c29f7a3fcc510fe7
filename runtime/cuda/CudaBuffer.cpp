#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaState.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace tessera::runtime::cuda;
using namespace tessera::runtime::cuda::driver;

llvm::Expected<CudaBuffer> CudaDevice::allocate(size_t bytes) {
  const CudaDriver &driver = state_->driver;
  std::string where = llvm::formatv("allocating {0} bytes on {1}", bytes, state_->describe()).str();
  CUdeviceptr pointer = 0;
  // cuMemAlloc refuses 0 bytes; an empty buffer still gets an address.
  size_t allocated = std::max<size_t>(bytes, 1);
  if (llvm::Error err = state_->inContext(where, [&]() -> llvm::Error {
        const Functions &api = driver.api();
        if (llvm::Error err = driver.check(api.memAlloc(&pointer, allocated), "cuMemAlloc", where))
          return err;
        if (llvm::Error err = driver.check(api.memsetD8(pointer, 0, allocated), "cuMemsetD8", where)) {
          api.memFree(pointer);
          return err;
        }
        return llvm::Error::success();
      }))
    return std::move(err);
  return CudaBuffer(state_, pointer, bytes);
}

CudaBuffer::CudaBuffer(CudaBuffer &&other) noexcept
    : device_(std::move(other.device_)), pointer_(other.pointer_), size_(other.size_) {
  other.pointer_ = 0;
  other.size_ = 0;
}

CudaBuffer &CudaBuffer::operator=(CudaBuffer &&other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    pointer_ = other.pointer_;
    size_ = other.size_;
    other.pointer_ = 0;
    other.size_ = 0;
  }
  return *this;
}

CudaBuffer::~CudaBuffer() { release(); }

void CudaBuffer::release() {
  if (!device_)
    return;
  // A failed free (the context broken by a faulting kernel) cannot be
  // reported from a destructor; the driver reclaims the memory with the context.
  llvm::consumeError(device_->inContext("freeing a CUDA buffer", [&] {
    device_->driver.api().memFree(pointer_);
    return llvm::Error::success();
  }));
  device_.reset();
  pointer_ = 0;
  size_ = 0;
}

llvm::Error CudaBuffer::checkRange(llvm::StringRef what, size_t bytes, size_t offset) const {
  if (!device_)
    return llvm::createStringError(what + " on an empty CudaBuffer");
  if (offset > size_ || bytes > size_ - offset)
    return llvm::createStringError(
        llvm::formatv("{0} of {1} bytes at offset {2} overruns the {3}-byte CUDA buffer", what,
                      bytes, offset, size_)
            .str());
  return llvm::Error::success();
}

llvm::Error CudaBuffer::copyFromHost(const void *src, size_t bytes, size_t offset) {
  if (llvm::Error err = checkRange("copyFromHost", bytes, offset))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  const CudaDriver &driver = device_->driver;
  std::string where = "copying to " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().memcpyHtoD(pointer_ + offset, src, bytes), "cuMemcpyHtoD",
                        where);
  });
}

llvm::Error CudaBuffer::copyToHost(void *dst, size_t bytes, size_t offset) const {
  if (llvm::Error err = checkRange("copyToHost", bytes, offset))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  const CudaDriver &driver = device_->driver;
  std::string where = "copying from " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().memcpyDtoH(dst, pointer_ + offset, bytes), "cuMemcpyDtoH",
                        where);
  });
}

llvm::Error CudaBuffer::fill(uint8_t value) {
  if (llvm::Error err = checkRange("fill", size_, 0))
    return err;
  const CudaDriver &driver = device_->driver;
  std::string where = "filling a buffer on " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().memsetD8(pointer_, value, std::max<size_t>(size_, 1)),
                        "cuMemsetD8", where);
  });
}

llvm::Error CudaBuffer::copyFromHostAsync(const void *src, size_t bytes, void *stream,
                                          size_t offset) {
  if (llvm::Error err = checkRange("copyFromHostAsync", bytes, offset))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  const CudaDriver &driver = device_->driver;
  std::string where = "queueing a copy to " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().memcpyHtoDAsync(pointer_ + offset, src, bytes,
                                                     static_cast<CUstream>(stream)),
                        "cuMemcpyHtoDAsync", where);
  });
}

llvm::Error CudaBuffer::copyToHostAsync(void *dst, size_t bytes, void *stream,
                                        size_t offset) const {
  if (llvm::Error err = checkRange("copyToHostAsync", bytes, offset))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  const CudaDriver &driver = device_->driver;
  std::string where = "queueing a copy from " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().memcpyDtoHAsync(dst, pointer_ + offset, bytes,
                                                     static_cast<CUstream>(stream)),
                        "cuMemcpyDtoHAsync", where);
  });
}

llvm::Expected<CudaHostBuffer> CudaDevice::allocateHost(size_t bytes) {
  const CudaDriver &driver = state_->driver;
  std::string where =
      llvm::formatv("allocating {0} bytes of page-locked host memory for {1}", bytes,
                    state_->describe())
          .str();
  void *data = nullptr;
  size_t allocated = std::max<size_t>(bytes, 1);
  if (llvm::Error err = state_->inContext(where, [&] {
        return driver.check(driver.api().memAllocHost(&data, allocated), "cuMemAllocHost",
                            where);
      }))
    return std::move(err);
  std::memset(data, 0, allocated);
  return CudaHostBuffer(state_, data, bytes);
}

void CudaHostBuffer::destroy(detail::DeviceState &device, void *data) {
  llvm::consumeError(device.inContext("freeing page-locked host memory", [&] {
    device.driver.api().memFreeHost(data);
    return llvm::Error::success();
  }));
}

// CudaStream and CudaEvent: the driver's streams and events, created in and
// used within the device's primary context.
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaState.h"

using namespace tessera::runtime::cuda;
using namespace tessera::runtime::cuda::driver;

namespace {

CUstream asStream(void *stream) { return static_cast<CUstream>(stream); }
CUevent asEvent(void *event) { return static_cast<CUevent>(event); }

} // namespace

llvm::Expected<CudaStream> CudaDevice::createStream() {
  const CudaDriver &driver = state_->driver;
  std::string where = "creating a stream on " + state_->describe();
  CUstream stream = nullptr;
  if (llvm::Error err = state_->inContext(where, [&] {
        return driver.check(driver.api().streamCreate(&stream, CU_STREAM_NON_BLOCKING),
                            "cuStreamCreate", where);
      }))
    return std::move(err);
  return CudaStream(state_, stream);
}

llvm::Expected<CudaEvent> CudaDevice::createEvent() {
  const CudaDriver &driver = state_->driver;
  std::string where = "creating an event on " + state_->describe();
  CUevent event = nullptr;
  if (llvm::Error err = state_->inContext(where, [&] {
        return driver.check(driver.api().eventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate",
                            where);
      }))
    return std::move(err);
  return CudaEvent(state_, event);
}

// A destructor cannot report a broken context: the failures are dropped.
void CudaStream::destroy(detail::DeviceState &device, void *stream) {
  llvm::consumeError(device.inContext("destroying a CUDA stream", [&] {
    device.driver.api().streamDestroy(asStream(stream));
    return llvm::Error::success();
  }));
}

llvm::Error CudaStream::synchronize() const {
  if (!device_)
    return llvm::createStringError("synchronize on an empty CudaStream");
  const CudaDriver &driver = device_->driver;
  std::string where = "waiting for a stream of " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().streamSynchronize(asStream(object_)), "cuStreamSynchronize",
                        where);
  });
}

void CudaEvent::destroy(detail::DeviceState &device, void *event) {
  llvm::consumeError(device.inContext("destroying a CUDA event", [&] {
    device.driver.api().eventDestroy(asEvent(event));
    return llvm::Error::success();
  }));
}

llvm::Error CudaEvent::record(void *stream) {
  if (!device_)
    return llvm::createStringError("record on an empty CudaEvent");
  const CudaDriver &driver = device_->driver;
  std::string where = "recording an event on " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().eventRecord(asEvent(object_), asStream(stream)),
                        "cuEventRecord", where);
  });
}

llvm::Error CudaEvent::synchronize() const {
  if (!device_)
    return llvm::createStringError("synchronize on an empty CudaEvent");
  const CudaDriver &driver = device_->driver;
  std::string where = "waiting for an event of " + device_->describe();
  return device_->inContext(where, [&] {
    return driver.check(driver.api().eventSynchronize(asEvent(object_)), "cuEventSynchronize",
                        where);
  });
}

llvm::Expected<float> CudaEvent::elapsedMilliseconds(const CudaEvent &start,
                                                     const CudaEvent &end) {
  if (!start.device_ || !end.device_)
    return llvm::createStringError("elapsedMilliseconds of an empty CudaEvent");
  if (start.device_ != end.device_)
    return llvm::createStringError("elapsedMilliseconds of events of two devices (" +
                                   start.device_->describe() + ", " +
                                   end.device_->describe() + ")");
  const CudaDriver &driver = start.device_->driver;
  std::string where = "timing events of " + start.device_->describe();
  float milliseconds = 0;
  if (llvm::Error err = start.device_->inContext(where, [&] {
        return driver.check(driver.api().eventElapsedTime(&milliseconds, asEvent(start.object_),
                                                          asEvent(end.object_)),
                            "cuEventElapsedTime", where);
      }))
    return std::move(err);
  return milliseconds;
}

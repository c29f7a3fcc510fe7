// The CUDA device of the suite: device 0 of the driver, where there is one.
#include "GpuTestDeviceKinds.h"

#include "runtime/cuda/CudaDevice.h"

#include <memory>
#include <vector>

namespace tessera::gpu_testing {
namespace {

using runtime::cuda::CudaBuffer;
using runtime::cuda::CudaDevice;

class CudaTestDevice final : public GpuTestDevice {
public:
  CudaTestDevice(std::unique_ptr<CudaDevice> device, gpu::GpuTarget target)
      : GpuTestDevice(DeviceKind::Cuda, target, device->info().name + " (" + target.str() + ")"),
        device_(std::move(device)) {}

  llvm::Error run(const gpu::CompiledGpuKernel &kernel, const runtime::KernelSignature &signature,
                  llvm::ArrayRef<interp::KernelArgument> args, interp::GridSize grid) override {
    llvm::Expected<runtime::cuda::CudaKernel> loaded = device_->load(kernel.binary, signature);
    if (!loaded)
      return loaded.takeError();
    std::vector<CudaBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<runtime::Argument> launchArgs;
    for (const interp::KernelArgument &arg : args) {
      if (arg.kind != interp::KernelArgument::Kind::Buffer) {
        launchArgs.push_back(scalarArgument(arg));
        continue;
      }
      llvm::Expected<CudaBuffer> buffer = device_->allocate(arg.bytes);
      if (!buffer)
        return buffer.takeError();
      if (llvm::Error err = buffer->copyFromHost(arg.data, arg.bytes))
        return err;
      buffers.push_back(std::move(*buffer));
      launchArgs.push_back(buffers.back());
    }
    runtime::cuda::LaunchOptions options;
    options.synchronize = true;
    if (llvm::Error err = device_->launch(*loaded, {grid.x, grid.y, grid.z}, launchArgs, options))
      return err;
    size_t next = 0;
    for (const interp::KernelArgument &arg : args)
      if (arg.kind == interp::KernelArgument::Kind::Buffer)
        if (llvm::Error err = buffers[next++].copyToHost(arg.data, arg.bytes))
          return err;
    return llvm::Error::success();
  }

private:
  std::unique_ptr<CudaDevice> device_;
};

} // namespace

DeviceSlot openCudaTestDevice() {
  DeviceSlot slot;
  std::string why;
  if (!CudaDevice::isAvailable(0, &why)) {
    slot.absent = "no CUDA device: " + why;
    return slot;
  }
  llvm::Expected<std::unique_ptr<CudaDevice>> device = CudaDevice::open(0);
  if (!device) {
    slot.broken = llvm::toString(device.takeError());
    return slot;
  }
  llvm::Expected<gpu::GpuTarget> target = (*device)->info().compileTarget();
  if (!target) {
    slot.broken = llvm::toString(target.takeError());
    return slot;
  }
  slot.device = new CudaTestDevice(std::move(*device), *target);
  return slot;
}

} // namespace tessera::gpu_testing

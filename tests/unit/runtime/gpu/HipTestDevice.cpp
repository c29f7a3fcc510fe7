// The HIP device of the suite: device 0 of the HIP runtime, where there is one.
#include "GpuTestDeviceKinds.h"

#include "runtime/hip/HipDevice.h"

#include <memory>
#include <vector>

namespace tessera::gpu_testing {
namespace {

using runtime::hip::HipBuffer;
using runtime::hip::HipDevice;

class HipTestDevice final : public GpuTestDevice {
public:
  explicit HipTestDevice(std::unique_ptr<HipDevice> device)
      : GpuTestDevice(DeviceKind::Hip, device->target(),
                      device->name().str() + " (" + device->target().str() + ")"),
        device_(std::move(device)) {}

  llvm::Error run(const gpu::CompiledGpuKernel &kernel, const runtime::KernelSignature &signature,
                  llvm::ArrayRef<interp::KernelArgument> args, interp::GridSize grid) override {
    llvm::Expected<runtime::hip::HipKernel> loaded = device_->load(kernel.binary, signature);
    if (!loaded)
      return loaded.takeError();
    std::vector<HipBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<runtime::Argument> launchArgs;
    for (const interp::KernelArgument &arg : args) {
      if (arg.kind != interp::KernelArgument::Kind::Buffer) {
        launchArgs.push_back(scalarArgument(arg));
        continue;
      }
      llvm::Expected<HipBuffer> buffer = HipBuffer::allocate(*device_, arg.bytes);
      if (!buffer)
        return buffer.takeError();
      if (llvm::Error err = buffer->copyFromHost(arg.data, arg.bytes))
        return err;
      buffers.push_back(std::move(*buffer));
      launchArgs.push_back(buffers.back());
    }
    if (llvm::Error err = device_->launch(*loaded, {grid.x, grid.y, grid.z}, launchArgs))
      return err;
    if (llvm::Error err = device_->synchronize())
      return err;
    size_t next = 0;
    for (const interp::KernelArgument &arg : args)
      if (arg.kind == interp::KernelArgument::Kind::Buffer)
        if (llvm::Error err = buffers[next++].copyToHost(arg.data, arg.bytes))
          return err;
    return llvm::Error::success();
  }

private:
  std::unique_ptr<HipDevice> device_;
};

} // namespace

DeviceSlot openHipTestDevice() {
  DeviceSlot slot;
  std::string why;
  if (!HipDevice::isAvailable(&why)) {
    slot.absent = "no HIP device: " + why;
    return slot;
  }
  llvm::Expected<std::unique_ptr<HipDevice>> device = HipDevice::open(0);
  if (!device) {
    slot.broken = llvm::toString(device.takeError());
    return slot;
  }
  slot.device = new HipTestDevice(std::move(*device));
  return slot;
}

} // namespace tessera::gpu_testing

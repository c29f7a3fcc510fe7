// The Vulkan device of the suite (lavapipe in CI, or the machine's GPU).
#include "GpuTestDeviceKinds.h"

#ifdef TESSERA_HAVE_VULKAN_RUNTIME
#include "runtime/vulkan/VulkanDevice.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace tessera::gpu_testing {
namespace {

using runtime::vulkan::VulkanArgument;
using runtime::vulkan::VulkanBuffer;
using runtime::vulkan::VulkanDevice;

class VulkanTestDevice final : public GpuTestDevice {
public:
  explicit VulkanTestDevice(std::unique_ptr<VulkanDevice> device)
      : GpuTestDevice(DeviceKind::Vulkan, device->target(),
                      device->info().name + " (" + device->target().str() + ")"),
        device_(std::move(device)) {}

  gpu::GpuCompileOptions compileOptions(unsigned numWarps) const override {
    gpu::GpuCompileOptions options = GpuTestDevice::compileOptions(numWarps);
    options.vulkan = device_->info().features;
    return options;
  }

  llvm::Error run(const gpu::CompiledGpuKernel &kernel, const runtime::KernelSignature &,
                  llvm::ArrayRef<interp::KernelArgument> args, interp::GridSize grid) override {
    if (!kernel.vulkan)
      return llvm::createStringError("kernel '" + kernel.binary.kernelName +
                                     "' was not compiled for Vulkan (no binding layout)");
    // VulkanArgument points at its buffer: the vector must not reallocate.
    std::vector<VulkanBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<VulkanArgument> launchArgs;
    for (const interp::KernelArgument &arg : args) {
      if (arg.kind != interp::KernelArgument::Kind::Buffer) {
        launchArgs.emplace_back(scalarArgument(arg));
        continue;
      }
      // Vulkan has no empty buffers; a 0-element array still binds one.
      llvm::Expected<VulkanBuffer> buffer = device_->allocate(std::max<uint64_t>(arg.bytes, 4));
      if (!buffer)
        return buffer.takeError();
      if (llvm::Error err = buffer->copyFromHost(arg.data, arg.bytes))
        return err;
      buffers.push_back(std::move(*buffer));
      launchArgs.emplace_back(buffers.back());
    }
    if (llvm::Error err = device_->launch(*kernel.vulkan, {grid.x, grid.y, grid.z}, launchArgs))
      return err;
    size_t next = 0;
    for (const interp::KernelArgument &arg : args)
      if (arg.kind == interp::KernelArgument::Kind::Buffer)
        if (llvm::Error err = buffers[next++].copyToHost(arg.data, arg.bytes))
          return err;
    return llvm::Error::success();
  }

private:
  std::unique_ptr<VulkanDevice> device_;
};

} // namespace

DeviceSlot openVulkanTestDevice() {
  DeviceSlot slot;
  llvm::Expected<std::unique_ptr<VulkanDevice>> device = VulkanDevice::open();
  if (!device) {
    std::string why = llvm::toString(device.takeError());
    (llvm::StringRef(why).starts_with("Vulkan is not available") ? slot.absent : slot.broken) = why;
    return slot;
  }
  slot.device = new VulkanTestDevice(std::move(*device));
  return slot;
}

} // namespace tessera::gpu_testing

#else

namespace tessera::gpu_testing {

DeviceSlot openVulkanTestDevice() {
  DeviceSlot slot;
  slot.absent = "this build has no Vulkan runtime (the Vulkan headers were not found; Debian: "
                "libvulkan-dev)";
  return slot;
}

} // namespace tessera::gpu_testing

#endif

#include "GpuTestDevice.h"
#include "GpuTestDeviceKinds.h"

namespace tessera::gpu_testing {

const char *toString(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Vulkan:
    return "Vulkan";
  case DeviceKind::Cuda:
    return "Cuda";
  case DeviceKind::Hip:
    return "Hip";
  }
  return "?";
}

gpu::GpuCompileOptions GpuTestDevice::compileOptions(unsigned numWarps) const {
  gpu::GpuCompileOptions options;
  options.lowering.numWarps = numWarps;
  return options;
}

const DeviceSlot &sharedDevice(DeviceKind kind) {
  // Each opened on first use and never closed: tests of every suite share
  // it, and the drivers tear down at exit themselves.
  switch (kind) {
  case DeviceKind::Vulkan: {
    static DeviceSlot vulkan = openVulkanTestDevice();
    return vulkan;
  }
  case DeviceKind::Cuda: {
    static DeviceSlot cuda = openCudaTestDevice();
    return cuda;
  }
  case DeviceKind::Hip:
    break;
  }
  static DeviceSlot hip = openHipTestDevice();
  return hip;
}

runtime::Argument scalarArgument(const interp::KernelArgument &arg) {
  if (arg.kind == interp::KernelArgument::Kind::Float)
    return runtime::Argument(arg.floatValue);
  return runtime::Argument(arg.intValue);
}

} // namespace tessera::gpu_testing

// The GPUs the end-to-end suite runs on, behind one interface: the target a
// device compiles for, and one call that runs a compiled kernel on host
// buffers (copy in, launch, wait, copy out). Vulkan (lavapipe in CI), CUDA
// and HIP devices are opened once per process; where one is missing the
// reason is kept so that its tests skip saying why.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICE_H
#define TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICE_H

#include "lowering/gpu/Compile.h"
#include "runtime/Runtime.h"
#include "runtime/interpreter/Interpreter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu_testing {

enum class DeviceKind { Vulkan, Cuda, Hip };

/// "Vulkan", "Cuda", "Hip": test-name friendly.
const char *toString(DeviceKind kind);

class GpuTestDevice {
public:
  virtual ~GpuTestDevice() = default;

  DeviceKind kind() const { return kind_; }
  /// The target compiled for: the device's own (chip, subgroup size, shared memory).
  const gpu::GpuTarget &target() const { return target_; }
  /// The device's name and target, for test output.
  const std::string &description() const { return description_; }
  /// Options that compile for this device with `numWarps` warps per program
  /// (on Vulkan, with the shader features the device has).
  virtual gpu::GpuCompileOptions compileOptions(unsigned numWarps) const;

  /// Copies every buffer of `args` to device memory, runs `kernel` over
  /// `grid`, waits for it and copies the buffers back into `args`' memory.
  /// Scalars are checked against `signature` as every launch does.
  virtual llvm::Error run(const gpu::CompiledGpuKernel &kernel,
                          const runtime::KernelSignature &signature,
                          llvm::ArrayRef<interp::KernelArgument> args, interp::GridSize grid) = 0;

protected:
  GpuTestDevice(DeviceKind kind, gpu::GpuTarget target, std::string description)
      : kind_(kind), target_(std::move(target)), description_(std::move(description)) {}

private:
  DeviceKind kind_;
  gpu::GpuTarget target_;
  std::string description_;
};

/// The device of `kind` shared by all tests, opened on first use.
struct DeviceSlot {
  GpuTestDevice *device = nullptr;
  /// Why there is no device: the runtime or the hardware is absent (skip).
  std::string absent;
  /// The runtime and a device exist but opening it failed (a test failure).
  std::string broken;
};
const DeviceSlot &sharedDevice(DeviceKind kind);

/// The runtime::Argument a launch passes for an interpreter scalar argument.
runtime::Argument scalarArgument(const interp::KernelArgument &arg);

} // namespace tessera::gpu_testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUTESTDEVICE_H

// The state behind CudaDevice, CudaBuffer and CudaKernel handles (private to
// runtime/cuda).
#ifndef TESSERA_RUNTIME_CUDA_CUDASTATE_H
#define TESSERA_RUNTIME_CUDA_CUDASTATE_H

#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/CudaTensorMaps.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::runtime::cuda::detail {

struct DeviceState;

/// A module loaded from one cubin and its entry point. Owned by the device's
/// module cache; unloaded with the device.
struct LoadedKernel {
  const DeviceState *device = nullptr;
  std::string name;
  driver::CUmodule module = nullptr;
  driver::CUfunction function = nullptr;
  unsigned blockThreads = 0;
  unsigned dynamicSharedMemoryBytes = 0;
  int registers = -1;
  /// Parameters after the signature's, encoded for each launch.
  std::vector<gpu::TensorMapParam> tensorMaps;
  /// The last launch's encodings of them.
  mutable TensorMapCache tensorMapCache;
};

struct DeviceState {
  DeviceState(const CudaDriver &driver) : driver(driver) {}
  ~DeviceState();
  DeviceState(const DeviceState &) = delete;
  DeviceState &operator=(const DeviceState &) = delete;

  /// Runs `body` with the device's primary context current on this thread,
  /// then restores the caller's context. `what` prefixes errors of the
  /// context switch.
  llvm::Error inContext(const llvm::Twine &what, llvm::function_ref<llvm::Error()> body) const;

  /// "CUDA device 0 (NVIDIA H100 80GB HBM3, sm_90a)".
  std::string describe() const;

  const CudaDriver &driver;
  driver::CUdevice device = 0;
  driver::CUcontext context = nullptr;
  CudaDeviceInfo info;

  mutable std::mutex mutex;
  /// Keyed by the cubin's 128-bit hash and the entry name.
  llvm::StringMap<std::shared_ptr<LoadedKernel>> kernels;
};

} // namespace tessera::runtime::cuda::detail

#endif // TESSERA_RUNTIME_CUDA_CUDASTATE_H

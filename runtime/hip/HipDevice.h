// Running compiled kernels on an AMD GPU through the HIP runtime, loaded with
// dlopen: the build needs no ROCm, and without a device isAvailable() says
// why. docs/gpu-amd.md describes it.
//
//   std::string whyNot;
//   if (!HipDevice::isAvailable(&whyNot)) ...
//   auto device = HipDevice::open();                       // device 0
//   auto binary = gpu::amd::compileForAmd(module, (*device)->target());
//   auto kernel = (*device)->load(*binary, signature);
//   auto x = HipBuffer::allocate(**device, n * sizeof(float));
//   (*device)->launch(*kernel, {blocks}, {*x, *y, *out, n});
#ifndef TESSERA_RUNTIME_HIP_HIPDEVICE_H
#define TESSERA_RUNTIME_HIP_HIPDEVICE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"
#include "runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tessera::runtime::hip {

struct HipApi;
class HipDevice;

/// A kernel loaded on a device. Cheap to copy; valid while its device lives.
class HipKernel {
public:
  llvm::StringRef name() const { return name_; }
  const KernelSignature &signature() const { return signature_; }
  unsigned blockThreads() const { return blockThreads_; }
  unsigned dynamicSharedMemoryBytes() const { return dynamicSharedMemoryBytes_; }

private:
  friend class HipDevice;
  std::string name_;
  KernelSignature signature_;
  unsigned blockThreads_ = 0;
  unsigned dynamicSharedMemoryBytes_ = 0;
  void *function_ = nullptr;
  const HipDevice *device_ = nullptr;
};

/// Device memory (hipMalloc). Move-only; freed with the buffer. Converts to
/// a launch Argument holding its device address.
class HipBuffer {
public:
  static llvm::Expected<HipBuffer> allocate(HipDevice &device, size_t bytes);

  HipBuffer() = default;
  HipBuffer(HipBuffer &&other) noexcept;
  HipBuffer &operator=(HipBuffer &&other) noexcept;
  HipBuffer(const HipBuffer &) = delete;
  HipBuffer &operator=(const HipBuffer &) = delete;
  ~HipBuffer();

  void *data() const { return data_; }
  size_t size() const { return size_; }
  operator Argument() const { return Argument(data_); }

  llvm::Error copyFromHost(const void *source, size_t bytes, size_t offset = 0);
  llvm::Error copyToHost(void *destination, size_t bytes, size_t offset = 0) const;
  llvm::Error fill(uint8_t byte);

private:
  HipBuffer(HipDevice *device, void *data, size_t size)
      : device_(device), data_(data), size_(size) {}
  llvm::Error checkRange(llvm::StringRef what, size_t bytes, size_t offset) const;
  void release();

  HipDevice *device_ = nullptr;
  void *data_ = nullptr;
  size_t size_ = 0;
};

/// One HIP device. Thread-safe; launches go to the device's null stream in
/// order, and the copies of HipBuffer wait for them.
class HipDevice {
public:
  /// Whether the HIP runtime loads and has a device whose architecture
  /// Tessera compiles for; if not and `whyNot` is given, the reason.
  static bool isAvailable(std::string *whyNot = nullptr);
  /// Device `ordinal`. Fails when the runtime is missing, the ordinal does
  /// not exist, or its architecture is not one GpuTarget knows.
  static llvm::Expected<std::unique_ptr<HipDevice>> open(int ordinal = 0);

  ~HipDevice();
  HipDevice(const HipDevice &) = delete;
  HipDevice &operator=(const HipDevice &) = delete;

  int ordinal() const { return ordinal_; }
  /// The marketing name ("AMD Instinct MI300X").
  llvm::StringRef name() const { return name_; }
  /// gcnArchName with its feature flags ("gfx942:sramecc+:xnack-").
  llvm::StringRef architecture() const { return architecture_; }
  /// What to compile for this device ("hip:gfx942").
  const gpu::GpuTarget &target() const { return target_; }

  /// Loads `binary` (an HSACO for this device's chip) and finds its kernel.
  /// A binary already loaded (same bytes) reuses its module. The signature
  /// is checked against the code object's argument metadata.
  llvm::Expected<HipKernel> load(const gpu::KernelBinary &binary,
                                 const KernelSignature &signature);
  /// Launches `kernel` with one workgroup of kernel.blockThreads() threads
  /// per program of `grid` and its dynamic LDS. Arguments are checked
  /// against the signature first. An empty grid launches nothing.
  llvm::Error launch(const HipKernel &kernel, Grid grid, llvm::ArrayRef<Argument> args);
  /// Waits for the launches; reports a failure of any of them.
  llvm::Error synchronize();

  /// Modules loaded so far (distinct code objects).
  size_t loadedModules() const;

private:
  friend class HipBuffer;
  HipDevice(const HipApi &api, int ordinal) : api_(api), ordinal_(ordinal) {}
  llvm::Error activate() const;

  const HipApi &api_;
  int ordinal_;
  std::string name_;
  std::string architecture_;
  gpu::GpuTarget target_;
  mutable std::mutex mutex_;
  /// Keyed by a 128-bit hash of the code object.
  std::map<std::pair<uint64_t, uint64_t>, void *> modules_;
};

} // namespace tessera::runtime::hip

#endif // TESSERA_RUNTIME_HIP_HIPDEVICE_H

// An NVIDIA GPU as a Tessera device, through the CUDA driver API (loaded
// with dlopen: the build needs no CUDA). docs/gpu-nvidia.md describes it.
//
//   std::string why;
//   if (!CudaDevice::isAvailable(0, &why)) ...                 // no driver or no GPU
//   auto device = CudaDevice::open(0);
//   auto target = (*device)->info().compileTarget();
//   auto binary = gpu::compileForNvidia(module, *target);     // lowering/gpu/nvidia
//   auto kernel = (*device)->load(*binary, signature);       // KernelSignature
//   auto x = (*device)->allocate(n * sizeof(float));
//   x->copyFromHost(host.data(), n * sizeof(float));
//   (*device)->launch(*kernel, {blocks}, {*x, *y, *out, n}, {.synchronize = true});
//
// Errors are llvm::Error whose messages name the kernel (for loads and
// launches) and carry the CUDA error's name and text. Calls make the
// device's primary context current for their duration and restore the
// caller's, so a device shares its context with the CUDA runtime (PyTorch).
// A device's methods may be called from several threads.
#ifndef TESSERA_RUNTIME_CUDA_CUDADEVICE_H
#define TESSERA_RUNTIME_CUDA_CUDADEVICE_H

#include "lowering/gpu/KernelBinary.h"
#include "runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace tessera::runtime::cuda {

namespace detail {
struct DeviceState;
struct LoadedKernel;
} // namespace detail

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  /// 10 * major + minor: 80, 86, 89, 90.
  unsigned computeCapability = 0;
  unsigned multiprocessors = 0;
  /// Shared memory one block may opt in to.
  unsigned maxSharedMemoryPerBlock = 0;
  unsigned maxGrid[3] = {0, 0, 0};
  /// cuDriverGetVersion (13000 for CUDA 13.0).
  int driverVersion = 0;

  /// The chip to compile for: "sm_90a" (wgmma) for 9.0, "sm_<cc>" for the
  /// others ("sm_80", "sm_89", "sm_100", "sm_120", ...; GpuTarget::parse
  /// names the ones Tessera compiles for).
  std::string chip() const;
  /// What kernels for this device are compiled for: `cuda:<chip()>`, or the
  /// older chip that $TESSERA_CUDA_TARGET names ("sm_80": mma.sync where an
  /// H100 would get wgmma), its PTX assembled for chip(), so that one device
  /// runs another's code. The error names the variable.
  llvm::Expected<gpu::GpuTarget> compileTarget() const;
};

struct LaunchOptions {
  /// A CUstream or cudaStream_t (such as PyTorch's
  /// torch.cuda.current_stream().cuda_stream); null: the legacy default stream.
  void *stream = nullptr;
  /// Wait for the kernel, so that faults during its execution are reported
  /// by this launch.
  bool synchronize = false;
};

/// Device memory. Zero-filled when allocated; freed with the buffer. Keeps
/// its device's context alive. Converts to a pointer Argument of a launch.
class CudaBuffer {
public:
  CudaBuffer() = default;
  CudaBuffer(CudaBuffer &&other) noexcept;
  CudaBuffer &operator=(CudaBuffer &&other) noexcept;
  CudaBuffer(const CudaBuffer &) = delete;
  CudaBuffer &operator=(const CudaBuffer &) = delete;
  ~CudaBuffer();

  explicit operator bool() const { return device_ != nullptr; }
  size_t size() const { return size_; }
  /// The CUdeviceptr.
  uint64_t devicePointer() const { return pointer_; }
  operator Argument() const {
    return Argument(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer_)));
  }

  /// Copies `bytes` bytes from `src` to offset `offset` of the buffer.
  llvm::Error copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  /// Copies `bytes` bytes from offset `offset` of the buffer to `dst`.
  llvm::Error copyToHost(void *dst, size_t bytes, size_t offset = 0) const;
  /// Sets every byte of the buffer to `value`.
  llvm::Error fill(uint8_t value);
  /// The copies queued on `stream` (a CudaStream's handle(), or any CUstream;
  /// null: the legacy default stream) instead of waited for: `src` or `dst`
  /// must stay valid until the stream has run them. Only from and to
  /// page-locked memory (CudaDevice::allocateHost) do they overlap kernels;
  /// from ordinary memory the driver stages them.
  llvm::Error copyFromHostAsync(const void *src, size_t bytes, void *stream, size_t offset = 0);
  llvm::Error copyToHostAsync(void *dst, size_t bytes, void *stream, size_t offset = 0) const;

private:
  friend class CudaDevice;
  CudaBuffer(std::shared_ptr<detail::DeviceState> device, uint64_t pointer, size_t size)
      : device_(std::move(device)), pointer_(pointer), size_(size) {}
  llvm::Error checkRange(llvm::StringRef what, size_t bytes, size_t offset) const;
  void release();

  std::shared_ptr<detail::DeviceState> device_;
  uint64_t pointer_ = 0;
  size_t size_ = 0;
};

/// A kernel loaded on a device. Cheap to copy; valid while its device lives.
class CudaKernel {
public:
  CudaKernel() = default;
  explicit operator bool() const { return impl_ != nullptr; }

  llvm::StringRef name() const;
  const KernelSignature &signature() const { return *signature_; }
  unsigned blockThreads() const;
  unsigned dynamicSharedMemoryBytes() const;
  /// Registers per thread, as the driver reports them.
  int registers() const;

private:
  friend class CudaDevice;
  CudaKernel(std::shared_ptr<const detail::LoadedKernel> impl,
             std::shared_ptr<const KernelSignature> signature)
      : impl_(std::move(impl)), signature_(std::move(signature)) {}
  std::shared_ptr<const detail::LoadedKernel> impl_;
  std::shared_ptr<const KernelSignature> signature_;
};

namespace detail {

/// What CudaHostBuffer, CudaStream and CudaEvent share: one driver object of
/// a device, moved but never copied, handed to `Owner::destroy` when its
/// handle goes. The handle keeps the device alive.
template <class Owner> class DeviceObject {
public:
  DeviceObject(const DeviceObject &) = delete;
  DeviceObject &operator=(const DeviceObject &) = delete;
  explicit operator bool() const { return device_ != nullptr; }

protected:
  DeviceObject() = default;
  DeviceObject(std::shared_ptr<DeviceState> device, void *object)
      : device_(std::move(device)), object_(object) {}
  DeviceObject(DeviceObject &&other) noexcept
      : device_(std::move(other.device_)), object_(std::exchange(other.object_, nullptr)) {}
  DeviceObject &operator=(DeviceObject &&other) noexcept {
    if (this != &other) {
      release();
      device_ = std::move(other.device_);
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  ~DeviceObject() { release(); }

  std::shared_ptr<DeviceState> device_;
  void *object_ = nullptr;

private:
  void release() {
    if (!device_)
      return;
    Owner::destroy(*device_, object_);
    device_.reset();
    object_ = nullptr;
  }
};

} // namespace detail

/// Page-locked host memory of the device's context: copies queued on a
/// stream from and to it run asynchronously to the host and overlap kernels
/// (from ordinary memory the driver stages them). Freed with the handle.
class CudaHostBuffer : public detail::DeviceObject<CudaHostBuffer> {
public:
  CudaHostBuffer() = default;
  void *data() const { return object_; }
  size_t size() const { return device_ ? size_ : 0; }

private:
  friend class CudaDevice;
  friend class detail::DeviceObject<CudaHostBuffer>;
  CudaHostBuffer(std::shared_ptr<detail::DeviceState> device, void *data, size_t size)
      : DeviceObject(std::move(device), data), size_(size) {}
  static void destroy(detail::DeviceState &device, void *data);
  size_t size_ = 0;
};

/// A stream of the device: the launches and copies queued on it run in
/// order, and may overlap those of other streams. It does not wait for the
/// legacy default stream (CU_STREAM_NON_BLOCKING). Destroyed with the handle;
/// the driver still finishes the work already queued on it.
class CudaStream : public detail::DeviceObject<CudaStream> {
public:
  CudaStream() = default;
  /// The CUstream, for LaunchOptions::stream and the asynchronous copies.
  void *handle() const { return object_; }
  /// Waits for the work queued on the stream.
  llvm::Error synchronize() const;

private:
  friend class CudaDevice;
  friend class detail::DeviceObject<CudaStream>;
  CudaStream(std::shared_ptr<detail::DeviceState> device, void *stream)
      : DeviceObject(std::move(device), stream) {}
  static void destroy(detail::DeviceState &device, void *stream);
};

/// A point in a stream's work: recorded, waited for, and timed against
/// another (the way to time kernels on the GPU itself).
class CudaEvent : public detail::DeviceObject<CudaEvent> {
public:
  CudaEvent() = default;
  /// Marks the point in `stream`'s work (a CUstream; null: the legacy
  /// default stream) that the event completes at.
  llvm::Error record(void *stream = nullptr);
  /// Waits for the work before the recorded point.
  llvm::Error synchronize() const;
  /// Milliseconds from `start` to `end`, both recorded on the same device
  /// and complete (about 0.5 us resolution).
  static llvm::Expected<float> elapsedMilliseconds(const CudaEvent &start, const CudaEvent &end);

private:
  friend class CudaDevice;
  friend class detail::DeviceObject<CudaEvent>;
  CudaEvent(std::shared_ptr<detail::DeviceState> device, void *event)
      : DeviceObject(std::move(device), event) {}
  static void destroy(detail::DeviceState &device, void *event);
};

class CudaDevice {
public:
  /// Whether device `ordinal` can be opened; when not, `reason` (if given)
  /// says why: no driver library, cuInit failing, no such device.
  static bool isAvailable(int ordinal = 0, std::string *reason = nullptr);
  /// The number of CUDA devices; an error when the driver cannot be used.
  static llvm::Expected<int> count();
  /// Opens device `ordinal` and retains its primary context.
  static llvm::Expected<std::unique_ptr<CudaDevice>> open(int ordinal = 0);

  ~CudaDevice();
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  const CudaDeviceInfo &info() const;

  /// `bytes` bytes of zero-filled device memory.
  llvm::Expected<CudaBuffer> allocate(size_t bytes);
  /// `bytes` bytes of zero-filled page-locked host memory.
  llvm::Expected<CudaHostBuffer> allocateHost(size_t bytes);

  /// Loads `binary` (a cubin from compileForNvidia) and looks up its entry,
  /// or finds them in the device's module cache, keyed by a hash of the
  /// cubin and the entry name. Checks that the device can run it (threads
  /// per block for its registers, shared memory; opts in to dynamic shared
  /// memory above 48 KiB) and, where the driver can tell (CUDA 12.4+), that
  /// the kernel's parameters match `signature`.
  llvm::Expected<CudaKernel> load(const gpu::KernelBinary &binary, KernelSignature signature);

  /// Launches `kernel` with grid.x * grid.y * grid.z blocks of
  /// blockThreads() threads and its dynamic shared memory. The arguments are
  /// checked against the signature first, as on the CPU (packArgument):
  /// pointers (a CudaBuffer, or a device address) as CUdeviceptr, scalars by
  /// their width, i1 passed as i32. An empty grid launches nothing.
  llvm::Error launch(const CudaKernel &kernel, Grid grid, llvm::ArrayRef<Argument> args,
                     const LaunchOptions &options = {});
  /// load() then launch().
  llvm::Error launch(const gpu::KernelBinary &binary, const KernelSignature &signature, Grid grid,
                     llvm::ArrayRef<Argument> args, const LaunchOptions &options = {});

  /// Waits for all work on the device's context.
  llvm::Error synchronize();

  /// A new stream of this device.
  llvm::Expected<CudaStream> createStream();
  /// A new event of this device, not yet recorded.
  llvm::Expected<CudaEvent> createEvent();

  /// Modules in the cache.
  size_t numLoadedModules() const;

private:
  explicit CudaDevice(std::shared_ptr<detail::DeviceState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::DeviceState> state_;
};

} // namespace tessera::runtime::cuda

#endif // TESSERA_RUNTIME_CUDA_CUDADEVICE_H

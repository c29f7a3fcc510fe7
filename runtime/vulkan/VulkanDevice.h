// Vulkan compute as a Tessera device: pick a physical device, report what it
// offers (as a GpuTarget and the features the SPIR-V compiler reads), hold
// buffers, and launch SPIR-V kernels compiled by lowering/gpu/spirv over a
// grid of workgroups. docs/gpu-vulkan.md describes it.
//
//   auto device = VulkanDevice::open();                 // $TESSERA_VULKAN_DEVICE
//   auto kernel = gpu::vulkan::compileForVulkan(module, (*device)->target(),
//                                               (*device)->info().features);
//   auto x = (*device)->allocate(n * sizeof(float));
//   x->copyFromHost(host.data(), n * sizeof(float));
//   (*device)->launch(*kernel, {blocks}, {*x, *y, *out, n});
//
// Errors are llvm::Error whose messages name the kernel and, for a failed
// Vulkan call, the VkResult. A device's methods may be called from several
// threads; submissions to its queue run one at a time.
#ifndef TESSERA_RUNTIME_VULKAN_VULKANDEVICE_H
#define TESSERA_RUNTIME_VULKAN_VULKANDEVICE_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/spirv/VulkanFeatures.h"
#include "lowering/gpu/spirv/VulkanKernel.h"
#include "runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::runtime::vulkan {

namespace detail {
struct DeviceState;
struct BufferState;
} // namespace detail

/// What a physical device offers, as far as Tessera uses it.
struct VulkanDeviceInfo {
  /// Position in vkEnumeratePhysicalDevices' list.
  unsigned index = 0;
  std::string name;
  /// "discrete GPU", "integrated GPU", "virtual GPU", "CPU" or "other".
  std::string type;
  /// The device's Vulkan version (VK_MAKE_API_VERSION encoding).
  uint32_t apiVersion = 0;
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  /// driverName and driverInfo.
  std::string driver;
  unsigned subgroupSize = 0;
  /// Range the subgroup size can be pinned to (subgroupSizeControl).
  unsigned minSubgroupSize = 0;
  unsigned maxSubgroupSize = 0;
  bool subgroupSizeControl = false;
  unsigned maxSharedMemoryBytes = 0;
  std::array<uint32_t, 3> maxWorkgroupSize = {0, 0, 0};
  unsigned maxWorkgroupInvocations = 0;
  std::array<uint32_t, 3> maxWorkgroupCount = {0, 0, 0};
  unsigned maxPushConstantBytes = 0;
  uint64_t maxStorageBufferRange = 0;
  unsigned maxStorageBuffersPerStage = 0;
  bool bufferDeviceAddress = false;
  /// VK_KHR_cooperative_matrix lists 16x16x16 f16 x f16 -> f32 at subgroup
  /// scope, the one shape the compiler's cooperative-matrix dot uses
  /// (lowering/gpu/tensorcore/CooperativeMatrix.h).
  bool cooperativeMatrix16x16x16 = false;
  /// Buffers live in memory the host maps directly (integrated GPUs, CPU
  /// devices); otherwise copies go through staging buffers.
  bool hostMappedBuffers = false;
  /// The shader features, which the device enables when it opens.
  gpu::vulkan::VulkanFeatures features;

  /// "1.3.230".
  std::string apiVersionString() const;
  /// A readable multi-line summary.
  std::string str() const;
};

struct VulkanDeviceOptions {
  /// Which physical device: an index into the list, or a case-insensitive
  /// substring of its name. Empty: $TESSERA_VULKAN_DEVICE when set, else the
  /// first discrete GPU, else the first integrated GPU, else any other
  /// (virtual GPU, then a CPU device such as lavapipe).
  std::string select;
  /// Copy through staging buffers even where buffer memory is host-mapped
  /// (exercises the path discrete GPUs take).
  bool forceStaging = false;
};

/// Device memory holding one storage buffer. Zero-initialized. Move-only;
/// keeps its device's state alive.
class VulkanBuffer {
public:
  VulkanBuffer();
  VulkanBuffer(VulkanBuffer &&) noexcept;
  VulkanBuffer &operator=(VulkanBuffer &&) noexcept;
  VulkanBuffer(const VulkanBuffer &) = delete;
  VulkanBuffer &operator=(const VulkanBuffer &) = delete;
  ~VulkanBuffer();

  explicit operator bool() const { return state_ != nullptr; }
  size_t size() const;
  /// Copies `bytes` bytes from `src` to offset `offset` of the buffer.
  llvm::Error copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  /// Copies `bytes` bytes from offset `offset` of the buffer to `dst`.
  llvm::Error copyToHost(void *dst, size_t bytes, size_t offset = 0) const;

private:
  friend class VulkanDevice;
  explicit VulkanBuffer(std::unique_ptr<detail::BufferState> state);
  std::unique_ptr<detail::BufferState> state_;
};

/// One launch argument: a buffer for a pointer parameter, or a scalar with
/// runtime::Argument's rules (integers to integer parameters whose width
/// holds them, floats to float parameters, Argument::bits for raw bits).
class VulkanArgument {
public:
  VulkanArgument(const VulkanBuffer &buffer) : buffer_(&buffer), scalar_(nullptr) {}
  VulkanArgument(const Argument &scalar) : scalar_(scalar) {}
  template <typename T>
    requires std::is_arithmetic_v<T>
  VulkanArgument(T value) : scalar_(value) {}

  const VulkanBuffer *buffer() const { return buffer_; }
  const Argument &scalar() const { return scalar_; }

private:
  const VulkanBuffer *buffer_ = nullptr;
  Argument scalar_;
};

class VulkanDevice {
public:
  /// Opens a device. Fails with "Vulkan is not available: ..." where there
  /// is no loader, and lists the devices when the selection matches none.
  static llvm::Expected<std::unique_ptr<VulkanDevice>> open(VulkanDeviceOptions options = {});
  /// The physical devices with Vulkan 1.2 or newer.
  static llvm::Expected<std::vector<VulkanDeviceInfo>> enumerate();

  ~VulkanDevice();
  VulkanDevice(const VulkanDevice &) = delete;
  VulkanDevice &operator=(const VulkanDevice &) = delete;

  const VulkanDeviceInfo &info() const;
  /// The target to compile for: vulkan1.3 (or 1.2), subgroup size, shared
  /// memory and cooperative matrices of this device.
  gpu::GpuTarget target() const;

  /// A zero-filled buffer of `bytes` bytes (at most maxStorageBufferRange).
  llvm::Expected<VulkanBuffer> allocate(size_t bytes);

  /// Runs `kernel` with grid.x * grid.y * grid.z workgroups of its
  /// workgroup size and waits for it. Checks first that the device can run
  /// it (SPIR-V version, capabilities, subgroup size, limits), the grid
  /// against maxComputeWorkGroupCount, and the arguments against its ABI.
  /// An empty grid runs nothing.
  llvm::Error launch(const gpu::vulkan::VulkanKernel &kernel, Grid grid,
                     llvm::ArrayRef<VulkanArgument> args);

  /// Compute pipelines created so far (one per SPIR-V binary and entry point).
  size_t numCachedPipelines() const;

private:
  explicit VulkanDevice(std::shared_ptr<detail::DeviceState> state);
  std::shared_ptr<detail::DeviceState> state_;
};

} // namespace tessera::runtime::vulkan

#endif // TESSERA_RUNTIME_VULKAN_VULKANDEVICE_H

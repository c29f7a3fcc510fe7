// The state behind VulkanDevice and VulkanBuffer, shared by the files of
// runtime/vulkan (not part of the public API).
#ifndef TESSERA_RUNTIME_VULKAN_VULKANSTATE_H
#define TESSERA_RUNTIME_VULKAN_VULKANSTATE_H

#include "runtime/vulkan/VulkanDevice.h"
#include "runtime/vulkan/VulkanLoader.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <tuple>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera::runtime::vulkan::detail {

/// A VkBuffer with its own memory; `mapped` is set for host-visible memory.
struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *mapped = nullptr;
  VkDeviceSize size = 0;
};

/// A compute pipeline and the objects it was made from.
struct ComputePipeline {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

struct DeviceState {
  VulkanFunctions vk;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  VulkanDeviceInfo info;
  /// Buffers are device-local and copies go through staging buffers.
  bool staging = false;
  /// The subgroup size can be pinned per pipeline (Vulkan 1.3 subgroupSizeControl).
  bool canRequireSubgroupSize = false;
  /// Pipelines can ask for full subgroups (Vulkan 1.3 computeFullSubgroups).
  bool canRequireFullSubgroups = false;

  /// Guards everything below: one command buffer, one fence, the cache.
  std::mutex mutex;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  /// Keyed by (hash of the SPIR-V, entry point, required subgroup size, the
  /// SPIR-V itself): the hash orders lookups, the words rule out collisions.
  std::map<std::tuple<uint64_t, std::string, unsigned, std::vector<uint8_t>>, ComputePipeline>
      pipelines;

  DeviceState() = default;
  DeviceState(const DeviceState &) = delete;
  DeviceState &operator=(const DeviceState &) = delete;
  ~DeviceState();

  /// Records commands into the device's command buffer, submits them and
  /// waits for the fence. The caller holds `mutex`. Errors start with `what`.
  llvm::Error submitAndWait(const llvm::Twine &what,
                            llvm::function_ref<void(VkCommandBuffer)> record);

  /// A buffer of `bytes` bytes in memory with `properties` (mapped when
  /// host-visible); `usage` as VkBufferCreateInfo takes it.
  llvm::Expected<RawBuffer> createBuffer(VkDeviceSize bytes, VkBufferUsageFlags usage,
                                         VkMemoryPropertyFlags properties);
  void destroyBuffer(RawBuffer &buffer);
};

struct BufferState {
  std::shared_ptr<DeviceState> device;
  RawBuffer raw;
  /// The size asked for (the VkBuffer is at least 4 bytes: Vulkan has no
  /// empty buffers).
  size_t size = 0;

  ~BufferState();
};

} // namespace tessera::runtime::vulkan::detail

#endif // TESSERA_RUNTIME_VULKAN_VULKANSTATE_H

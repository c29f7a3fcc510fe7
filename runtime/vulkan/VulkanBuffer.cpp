// Device memory: buffers mapped directly where the device shares memory with
// the host, device-local buffers filled and read through staging buffers
// elsewhere; and the one-shot command submission both paths and launches use.
#include "runtime/vulkan/VulkanState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace tessera::runtime::vulkan;
using tessera::runtime::vulkan::detail::BufferState;
using tessera::runtime::vulkan::detail::DeviceState;
using tessera::runtime::vulkan::detail::RawBuffer;

namespace {

constexpr VkBufferUsageFlags kStorageUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkMemoryPropertyFlags kHostMemory =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

/// Makes earlier shader and transfer writes visible to what follows, and
/// what follows visible to the host once the fence is waited on.
void barrier(const VulkanFunctions &vk, VkCommandBuffer commands, VkPipelineStageFlags srcStages,
             VkAccessFlags srcAccess, VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
  VkMemoryBarrier memory{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  memory.srcAccessMask = srcAccess;
  memory.dstAccessMask = dstAccess;
  vk.vkCmdPipelineBarrier(commands, srcStages, dstStages, 0, 1, &memory, 0, nullptr, 0, nullptr);
}

constexpr VkPipelineStageFlags kDeviceWriters =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kDeviceWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

llvm::Error checkRange(const BufferState &buffer, size_t bytes, size_t offset, const char *what) {
  if (offset > buffer.size || bytes > buffer.size - offset)
    return llvm::createStringError(llvm::formatv(
        "{0} of {1} bytes at offset {2} is outside the {3}-byte Vulkan buffer", what, bytes,
        offset, buffer.size));
  return llvm::Error::success();
}

} // namespace

llvm::Error DeviceState::submitAndWait(const llvm::Twine &what,
                                       llvm::function_ref<void(VkCommandBuffer)> record) {
  if (VkResult result = vk.vkResetCommandBuffer(commandBuffer, 0))
    return vulkanError(what + ": vkResetCommandBuffer", result);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult result = vk.vkBeginCommandBuffer(commandBuffer, &begin))
    return vulkanError(what + ": vkBeginCommandBuffer", result);
  // Submission order spans submissions on one queue, so this barrier orders
  // this batch after every earlier launch and copy.
  barrier(vk, commandBuffer, kDeviceWriters, kDeviceWrites, kDeviceWriters,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_TRANSFER_WRITE_BIT);
  record(commandBuffer);
  barrier(vk, commandBuffer, kDeviceWriters, kDeviceWrites, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  if (VkResult result = vk.vkEndCommandBuffer(commandBuffer))
    return vulkanError(what + ": vkEndCommandBuffer", result);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commandBuffer;
  if (VkResult result = vk.vkQueueSubmit(queue, 1, &submit, fence))
    return vulkanError(what + ": vkQueueSubmit", result);
  VkResult waited = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
  vk.vkResetFences(device, 1, &fence);
  if (waited != VK_SUCCESS)
    return vulkanError(what + ": vkWaitForFences", waited);
  return llvm::Error::success();
}

llvm::Expected<RawBuffer> DeviceState::createBuffer(VkDeviceSize bytes, VkBufferUsageFlags usage,
                                                    VkMemoryPropertyFlags properties) {
  RawBuffer raw;
  raw.size = bytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult result = vk.vkCreateBuffer(device, &info, nullptr, &raw.buffer))
    return vulkanError(llvm::formatv("vkCreateBuffer of {0} bytes", bytes).str(), result);
  VkMemoryRequirements requirements;
  vk.vkGetBufferMemoryRequirements(device, raw.buffer, &requirements);
  std::optional<uint32_t> typeIndex;
  for (uint32_t i = 0; i < memory.memoryTypeCount && !typeIndex; ++i)
    if ((requirements.memoryTypeBits & (1u << i)) &&
        (memory.memoryTypes[i].propertyFlags & properties) == properties)
      typeIndex = i;
  if (!typeIndex) {
    destroyBuffer(raw);
    return llvm::createStringError(llvm::formatv(
        "Vulkan device '{0}' has no memory type with properties {1:x} for a buffer",
        this->info.name, properties));
  }
  VkMemoryAllocateInfo allocation{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocation.allocationSize = requirements.size;
  allocation.memoryTypeIndex = *typeIndex;
  if (VkResult result = vk.vkAllocateMemory(device, &allocation, nullptr, &raw.memory)) {
    destroyBuffer(raw);
    return vulkanError(llvm::formatv("vkAllocateMemory of {0} bytes", requirements.size).str(),
                       result);
  }
  if (VkResult result = vk.vkBindBufferMemory(device, raw.buffer, raw.memory, 0)) {
    destroyBuffer(raw);
    return vulkanError("vkBindBufferMemory", result);
  }
  if (properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    if (VkResult result = vk.vkMapMemory(device, raw.memory, 0, VK_WHOLE_SIZE, 0, &raw.mapped)) {
      destroyBuffer(raw);
      return vulkanError("vkMapMemory", result);
    }
  }
  return raw;
}

void DeviceState::destroyBuffer(RawBuffer &raw) {
  if (raw.mapped)
    vk.vkUnmapMemory(device, raw.memory);
  if (raw.buffer)
    vk.vkDestroyBuffer(device, raw.buffer, nullptr);
  if (raw.memory)
    vk.vkFreeMemory(device, raw.memory, nullptr);
  raw = RawBuffer();
}

BufferState::~BufferState() {
  if (device)
    device->destroyBuffer(raw);
}

VulkanBuffer::VulkanBuffer() = default;
VulkanBuffer::VulkanBuffer(std::unique_ptr<BufferState> state) : state_(std::move(state)) {}
VulkanBuffer::VulkanBuffer(VulkanBuffer &&) noexcept = default;
VulkanBuffer &VulkanBuffer::operator=(VulkanBuffer &&) noexcept = default;
VulkanBuffer::~VulkanBuffer() = default;

size_t VulkanBuffer::size() const { return state_ ? state_->size : 0; }

llvm::Expected<VulkanBuffer> VulkanDevice::allocate(size_t bytes) {
  DeviceState &device = *state_;
  if (bytes > device.info.maxStorageBufferRange)
    return llvm::createStringError(llvm::formatv(
        "a Vulkan buffer of {0} bytes exceeds the {1}-byte maxStorageBufferRange of '{2}'", bytes,
        device.info.maxStorageBufferRange, device.info.name));
  VkDeviceSize vkBytes = std::max<VkDeviceSize>(bytes, 4);
  VkMemoryPropertyFlags memory = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  if (!device.staging)
    memory |= kHostMemory;
  llvm::Expected<RawBuffer> raw = device.createBuffer(vkBytes, kStorageUsage, memory);
  if (!raw)
    return raw.takeError();
  auto state = std::make_unique<BufferState>();
  state->device = state_;
  state->raw = *raw;
  state->size = bytes;
  if (raw->mapped) {
    std::memset(raw->mapped, 0, vkBytes);
  } else {
    std::lock_guard<std::mutex> lock(device.mutex);
    VkBuffer buffer = raw->buffer;
    if (llvm::Error err = device.submitAndWait("clearing a new Vulkan buffer", [&](VkCommandBuffer c) {
          device.vk.vkCmdFillBuffer(c, buffer, 0, VK_WHOLE_SIZE, 0);
        }))
      return std::move(err);
  }
  return VulkanBuffer(std::move(state));
}

llvm::Error VulkanBuffer::copyFromHost(const void *src, size_t bytes, size_t offset) {
  if (!state_)
    return llvm::createStringError("copy into an empty VulkanBuffer handle");
  if (llvm::Error err = checkRange(*state_, bytes, offset, "a copy to the device"))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  DeviceState &device = *state_->device;
  std::lock_guard<std::mutex> lock(device.mutex);
  if (state_->raw.mapped) {
    std::memcpy(static_cast<char *>(state_->raw.mapped) + offset, src, bytes);
    return llvm::Error::success();
  }
  llvm::Expected<RawBuffer> staging =
      device.createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kHostMemory);
  if (!staging)
    return staging.takeError();
  std::memcpy(staging->mapped, src, bytes);
  VkBufferCopy region{0, offset, bytes};
  llvm::Error err = device.submitAndWait("copy to a Vulkan buffer", [&](VkCommandBuffer c) {
    device.vk.vkCmdCopyBuffer(c, staging->buffer, state_->raw.buffer, 1, &region);
  });
  device.destroyBuffer(*staging);
  return err;
}

llvm::Error VulkanBuffer::copyToHost(void *dst, size_t bytes, size_t offset) const {
  if (!state_)
    return llvm::createStringError("copy from an empty VulkanBuffer handle");
  if (llvm::Error err = checkRange(*state_, bytes, offset, "a copy to the host"))
    return err;
  if (bytes == 0)
    return llvm::Error::success();
  DeviceState &device = *state_->device;
  std::lock_guard<std::mutex> lock(device.mutex);
  if (state_->raw.mapped) {
    std::memcpy(dst, static_cast<const char *>(state_->raw.mapped) + offset, bytes);
    return llvm::Error::success();
  }
  llvm::Expected<RawBuffer> staging =
      device.createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, kHostMemory);
  if (!staging)
    return staging.takeError();
  VkBufferCopy region{offset, 0, bytes};
  llvm::Error err = device.submitAndWait("copy from a Vulkan buffer", [&](VkCommandBuffer c) {
    device.vk.vkCmdCopyBuffer(c, state_->raw.buffer, staging->buffer, 1, &region);
  });
  if (!err)
    std::memcpy(dst, staging->mapped, bytes);
  device.destroyBuffer(*staging);
  return err;
}

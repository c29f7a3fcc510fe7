// The Vulkan entry points Tessera calls, loaded at run time: libvulkan.so.1
// is opened with dlopen and every function comes from vkGetInstanceProcAddr /
// vkGetDeviceProcAddr. A build or a machine without Vulkan still loads the
// runtime library; opening a device then fails with a clear message.
#ifndef TESSERA_RUNTIME_VULKAN_VULKANLOADER_H
#define TESSERA_RUNTIME_VULKAN_VULKANLOADER_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace tessera::runtime::vulkan {

#define TESSERA_VULKAN_GLOBAL_FUNCTIONS(X)                                                         \
  X(vkCreateInstance)                                                                              \
  X(vkEnumerateInstanceVersion)                                                                    \
  X(vkEnumerateInstanceExtensionProperties)

#define TESSERA_VULKAN_INSTANCE_FUNCTIONS(X)                                                       \
  X(vkDestroyInstance)                                                                             \
  X(vkEnumeratePhysicalDevices)                                                                    \
  X(vkGetPhysicalDeviceProperties)                                                                 \
  X(vkGetPhysicalDeviceProperties2)                                                                \
  X(vkGetPhysicalDeviceFeatures2)                                                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                                           \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                                      \
  X(vkEnumerateDeviceExtensionProperties)                                                          \
  X(vkCreateDevice)                                                                                \
  X(vkGetDeviceProcAddr)

#define TESSERA_VULKAN_DEVICE_FUNCTIONS(X)                                                         \
  X(vkDestroyDevice)                                                                               \
  X(vkGetDeviceQueue)                                                                              \
  X(vkCreateBuffer)                                                                                \
  X(vkDestroyBuffer)                                                                               \
  X(vkGetBufferMemoryRequirements)                                                                 \
  X(vkAllocateMemory)                                                                              \
  X(vkFreeMemory)                                                                                  \
  X(vkBindBufferMemory)                                                                            \
  X(vkMapMemory)                                                                                   \
  X(vkUnmapMemory)                                                                                 \
  X(vkCreateShaderModule)                                                                          \
  X(vkDestroyShaderModule)                                                                         \
  X(vkCreateDescriptorSetLayout)                                                                   \
  X(vkDestroyDescriptorSetLayout)                                                                  \
  X(vkCreatePipelineLayout)                                                                        \
  X(vkDestroyPipelineLayout)                                                                       \
  X(vkCreateComputePipelines)                                                                      \
  X(vkDestroyPipeline)                                                                             \
  X(vkCreateDescriptorPool)                                                                        \
  X(vkDestroyDescriptorPool)                                                                       \
  X(vkAllocateDescriptorSets)                                                                      \
  X(vkUpdateDescriptorSets)                                                                        \
  X(vkCreateCommandPool)                                                                           \
  X(vkDestroyCommandPool)                                                                          \
  X(vkAllocateCommandBuffers)                                                                      \
  X(vkResetCommandBuffer)                                                                          \
  X(vkBeginCommandBuffer)                                                                          \
  X(vkEndCommandBuffer)                                                                            \
  X(vkCmdBindPipeline)                                                                             \
  X(vkCmdBindDescriptorSets)                                                                       \
  X(vkCmdPushConstants)                                                                            \
  X(vkCmdDispatch)                                                                                 \
  X(vkCmdPipelineBarrier)                                                                          \
  X(vkCmdCopyBuffer)                                                                               \
  X(vkCmdFillBuffer)                                                                               \
  X(vkCreateFence)                                                                                 \
  X(vkDestroyFence)                                                                                \
  X(vkResetFences)                                                                                 \
  X(vkWaitForFences)                                                                               \
  X(vkQueueSubmit)

/// Function pointers of one instance and (after loadDevice) one device.
struct VulkanFunctions {
#define TESSERA_VULKAN_DECLARE(name) PFN_##name name = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  TESSERA_VULKAN_GLOBAL_FUNCTIONS(TESSERA_VULKAN_DECLARE)
  TESSERA_VULKAN_INSTANCE_FUNCTIONS(TESSERA_VULKAN_DECLARE)
  TESSERA_VULKAN_DEVICE_FUNCTIONS(TESSERA_VULKAN_DECLARE)
#undef TESSERA_VULKAN_DECLARE

  /// Opens the Vulkan loader (once per process) and fetches the global
  /// functions. Fails with "Vulkan is not available: ..." when there is none.
  static llvm::Expected<VulkanFunctions> loadGlobal();
  /// Fetches the instance-level functions of `instance`.
  llvm::Error loadInstance(VkInstance instance);
  /// Fetches the device-level functions of `device`.
  llvm::Error loadDevice(VkDevice device);
};

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or "VkResult -13" for codes it does not know.
std::string resultName(VkResult result);

/// An error "<what>: <VkResult name>".
llvm::Error vulkanError(const llvm::Twine &what, VkResult result);

} // namespace tessera::runtime::vulkan

#endif // TESSERA_RUNTIME_VULKAN_VULKANLOADER_H

#include "runtime/vulkan/VulkanLoader.h"

#include <dlfcn.h>
#include <string>

using namespace tessera::runtime::vulkan;

namespace {

struct LoaderLibrary {
  void *handle = nullptr;
  std::string error;
};

/// The loader stays open for the life of the process: function pointers
/// handed out may be used until exit.
const LoaderLibrary &loaderLibrary() {
  static const LoaderLibrary library = [] {
    LoaderLibrary result;
    result.handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!result.handle) {
      const char *why = dlerror();
      result.error = why ? why : "dlopen failed";
    }
    return result;
  }();
  return library;
}

} // namespace

llvm::Expected<VulkanFunctions> VulkanFunctions::loadGlobal() {
  const LoaderLibrary &library = loaderLibrary();
  if (!library.handle)
    return llvm::createStringError("Vulkan is not available: cannot load libvulkan.so.1 (" +
                                   library.error +
                                   "); install a Vulkan loader and driver (Debian: libvulkan1 "
                                   "and mesa-vulkan-drivers for the CPU device lavapipe)");
  VulkanFunctions functions;
  functions.vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library.handle, "vkGetInstanceProcAddr"));
  if (!functions.vkGetInstanceProcAddr)
    return llvm::createStringError(
        "Vulkan is not available: libvulkan.so.1 has no vkGetInstanceProcAddr");
#define TESSERA_VULKAN_LOAD(name)                                                                  \
  functions.name = reinterpret_cast<PFN_##name>(functions.vkGetInstanceProcAddr(nullptr, #name));  \
  if (!functions.name)                                                                             \
    return llvm::createStringError("Vulkan is not available: the loader lacks " #name              \
                                   " (Vulkan 1.2 or newer is needed)");
  TESSERA_VULKAN_GLOBAL_FUNCTIONS(TESSERA_VULKAN_LOAD)
#undef TESSERA_VULKAN_LOAD
  return functions;
}

llvm::Error VulkanFunctions::loadInstance(VkInstance instance) {
#define TESSERA_VULKAN_LOAD(name)                                                                  \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));                     \
  if (!name)                                                                                       \
    return llvm::createStringError("the Vulkan instance lacks " #name);
  TESSERA_VULKAN_INSTANCE_FUNCTIONS(TESSERA_VULKAN_LOAD)
#undef TESSERA_VULKAN_LOAD
  return llvm::Error::success();
}

llvm::Error VulkanFunctions::loadDevice(VkDevice device) {
#define TESSERA_VULKAN_LOAD(name)                                                                  \
  name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));                         \
  if (!name)                                                                                       \
    return llvm::createStringError("the Vulkan device lacks " #name);
  TESSERA_VULKAN_DEVICE_FUNCTIONS(TESSERA_VULKAN_LOAD)
#undef TESSERA_VULKAN_LOAD
  return llvm::Error::success();
}

std::string tessera::runtime::vulkan::resultName(VkResult result) {
  switch (result) {
#define TESSERA_VULKAN_RESULT(name)                                                                \
  case name:                                                                                       \
    return #name;
    TESSERA_VULKAN_RESULT(VK_SUCCESS)
    TESSERA_VULKAN_RESULT(VK_NOT_READY)
    TESSERA_VULKAN_RESULT(VK_TIMEOUT)
    TESSERA_VULKAN_RESULT(VK_INCOMPLETE)
    TESSERA_VULKAN_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSERA_VULKAN_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSERA_VULKAN_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TESSERA_VULKAN_RESULT(VK_ERROR_DEVICE_LOST)
    TESSERA_VULKAN_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TESSERA_VULKAN_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TESSERA_VULKAN_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSERA_VULKAN_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSERA_VULKAN_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSERA_VULKAN_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TESSERA_VULKAN_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TESSERA_VULKAN_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TESSERA_VULKAN_RESULT(VK_ERROR_UNKNOWN)
    TESSERA_VULKAN_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TESSERA_VULKAN_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    TESSERA_VULKAN_RESULT(VK_ERROR_FRAGMENTATION)
    TESSERA_VULKAN_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    TESSERA_VULKAN_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    TESSERA_VULKAN_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef TESSERA_VULKAN_RESULT
  default:
    return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

llvm::Error tessera::runtime::vulkan::vulkanError(const llvm::Twine &what, VkResult result) {
  return llvm::createStringError(what + ": " + resultName(result));
}

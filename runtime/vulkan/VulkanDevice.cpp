// Opening a Vulkan device: instance, physical-device selection and
// properties, logical device with the shader features the compiler may use.
#include "runtime/vulkan/VulkanState.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>

using namespace tessera::runtime::vulkan;
using tessera::runtime::vulkan::detail::DeviceState;

namespace {

#ifdef VK_KHR_cooperative_matrix
using CooperativeMatrixFeatures = VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
constexpr VkStructureType kCooperativeMatrixFeaturesType =
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
#else
// Headers before 1.3.255 lack VK_KHR_cooperative_matrix; its feature
// structure as the Vulkan registry defines it.
struct CooperativeMatrixFeatures {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
};
constexpr VkStructureType kCooperativeMatrixFeaturesType = VkStructureType(1000506000);
#endif
constexpr const char *kCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";

// One shape a device offers, as the Vulkan registry defines
// VkCooperativeMatrixPropertiesKHR (spelled out: headers before 1.3.255 lack
// it), and the registry's values of the enums it uses.
struct CooperativeMatrixShape {
  VkStructureType sType;
  void *pNext;
  uint32_t m, n, k;
  int32_t aType, bType, cType, resultType;
  VkBool32 saturatingAccumulation;
  int32_t scope;
};
constexpr VkStructureType kCooperativeMatrixShapeType = VkStructureType(1000506001);
constexpr int32_t kComponentFloat16 = 0, kComponentFloat32 = 1, kScopeSubgroup = 3;
using ListCooperativeMatrixShapes = VkResult(VKAPI_PTR *)(VkPhysicalDevice, uint32_t *,
                                                          CooperativeMatrixShape *);

/// The instance and the functions loaded for it; destroys the instance unless
/// released into a DeviceState.
struct Instance {
  VulkanFunctions vk;
  VkInstance handle = VK_NULL_HANDLE;
  uint32_t apiVersion = VK_API_VERSION_1_2;

  Instance() = default;
  Instance(Instance &&other) noexcept : vk(other.vk), handle(other.handle), apiVersion(other.apiVersion) {
    other.handle = VK_NULL_HANDLE;
  }
  ~Instance() {
    if (handle)
      vk.vkDestroyInstance(handle, nullptr);
  }
};

llvm::Expected<Instance> createInstance() {
  llvm::Expected<VulkanFunctions> functions = VulkanFunctions::loadGlobal();
  if (!functions)
    return functions.takeError();
  Instance instance;
  instance.vk = *functions;
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  instance.vk.vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_2)
    return llvm::createStringError(llvm::formatv(
        "Vulkan is not available: the loader offers Vulkan {0}.{1}, Tessera needs 1.2",
        VK_API_VERSION_MAJOR(loaderVersion), VK_API_VERSION_MINOR(loaderVersion)));
  instance.apiVersion = loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;

  // MoltenVK-style drivers are listed only when the application opts in.
  uint32_t count = 0;
  instance.vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> available(count);
  instance.vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, available.data());
  std::vector<const char *> extensions;
  VkInstanceCreateFlags flags = 0;
  for (const VkExtensionProperties &extension : available) {
    if (std::strcmp(extension.extensionName, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) == 0) {
      extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
      flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tessera";
  app.pEngineName = "tessera";
  app.apiVersion = instance.apiVersion;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult result = instance.vk.vkCreateInstance(&info, nullptr, &instance.handle))
    return vulkanError("Vulkan is not available: vkCreateInstance failed", result);
  if (llvm::Error err = instance.vk.loadInstance(instance.handle))
    return std::move(err);
  return std::move(instance);
}

std::vector<VkPhysicalDevice> physicalDevices(const Instance &instance) {
  uint32_t count = 0;
  instance.vk.vkEnumeratePhysicalDevices(instance.handle, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  instance.vk.vkEnumeratePhysicalDevices(instance.handle, &count, devices.data());
  devices.resize(count);
  return devices;
}

bool hasExtension(const VulkanFunctions &vk, VkPhysicalDevice device, const char *name) {
  uint32_t count = 0;
  vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  return llvm::any_of(extensions, [&](const VkExtensionProperties &extension) {
    return std::strcmp(extension.extensionName, name) == 0;
  });
}

const char *deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "CPU";
  default:
    return "other";
  }
}

/// The feature structures Tessera queries and enables, chained for
/// vkGetPhysicalDeviceFeatures2 / VkDeviceCreateInfo::pNext.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceSubgroupSizeControlFeatures subgroupSize{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  CooperativeMatrixFeatures cooperativeMatrix{kCooperativeMatrixFeaturesType};
  bool hasSubgroupSizeControl = false;
  bool hasAtomicFloat = false;
  bool hasCooperativeMatrix = false;

  FeatureChain(const FeatureChain &) = delete;
  FeatureChain &operator=(const FeatureChain &) = delete;
  FeatureChain(bool subgroupSizeControl, bool atomicFloat, bool cooperativeMatrix)
      : hasSubgroupSizeControl(subgroupSizeControl), hasAtomicFloat(atomicFloat),
        hasCooperativeMatrix(cooperativeMatrix) {
    void **next = &core.pNext;
    auto link = [&next](auto &structure) {
      *next = &structure;
      next = &structure.pNext;
    };
    link(v11);
    link(v12);
    if (hasSubgroupSizeControl)
      link(subgroupSize);
    if (hasAtomicFloat)
      link(this->atomicFloat);
    if (hasCooperativeMatrix)
      link(this->cooperativeMatrix);
  }
};

/// Whether the device lists the cooperative-matrix shape the compiler uses.
bool listsCompilerCooperativeMatrix(const Instance &instance, VkPhysicalDevice device) {
  auto list = reinterpret_cast<ListCooperativeMatrixShapes>(instance.vk.vkGetInstanceProcAddr(
      instance.handle, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  uint32_t count = 0;
  if (!list || list(device, &count, nullptr) != VK_SUCCESS)
    return false;
  std::vector<CooperativeMatrixShape> shapes(count, {kCooperativeMatrixShapeType});
  if (list(device, &count, shapes.data()) != VK_SUCCESS)
    return false;
  return llvm::any_of(shapes, [](const CooperativeMatrixShape &shape) {
    return shape.m == 16 && shape.n == 16 && shape.k == 16 && shape.aType == kComponentFloat16 &&
           shape.bType == kComponentFloat16 && shape.cType == kComponentFloat32 &&
           shape.resultType == kComponentFloat32 && !shape.saturatingAccumulation &&
           shape.scope == kScopeSubgroup;
  });
}

/// What one physical device is and offers.
struct Candidate {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  bool computeFullSubgroups = false;
  VulkanDeviceInfo info;
};

Candidate describe(const Instance &instance, VkPhysicalDevice device, unsigned index) {
  const VulkanFunctions &vk = instance.vk;
  Candidate candidate;
  candidate.handle = device;
  VkPhysicalDeviceProperties basic;
  vk.vkGetPhysicalDeviceProperties(device, &basic);
  bool v13 = basic.apiVersion >= VK_API_VERSION_1_3 && instance.apiVersion >= VK_API_VERSION_1_3;

  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceVulkan11Properties v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  properties.pNext = &v11;
  v11.pNext = &v12;
  if (v13)
    v12.pNext = &sizeControl;
  vk.vkGetPhysicalDeviceProperties2(device, &properties);

  FeatureChain features(v13, hasExtension(vk, device, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME),
                        hasExtension(vk, device, kCooperativeMatrixExtension));
  vk.vkGetPhysicalDeviceFeatures2(device, &features.core);

  const VkPhysicalDeviceLimits &limits = basic.limits;
  VulkanDeviceInfo &info = candidate.info;
  candidate.type = basic.deviceType;
  info.index = index;
  info.name = basic.deviceName;
  info.type = deviceTypeName(basic.deviceType);
  info.apiVersion = basic.apiVersion;
  info.vendorId = basic.vendorID;
  info.deviceId = basic.deviceID;
  info.driver = std::string(v12.driverName) + " " + v12.driverInfo;
  info.subgroupSize = v11.subgroupSize;
  info.minSubgroupSize = v13 ? sizeControl.minSubgroupSize : v11.subgroupSize;
  info.maxSubgroupSize = v13 ? sizeControl.maxSubgroupSize : v11.subgroupSize;
  info.subgroupSizeControl = v13 && features.subgroupSize.subgroupSizeControl &&
                             (sizeControl.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
  candidate.computeFullSubgroups = v13 && features.subgroupSize.computeFullSubgroups;
  info.maxSharedMemoryBytes = limits.maxComputeSharedMemorySize;
  for (unsigned i = 0; i < 3; ++i) {
    info.maxWorkgroupSize[i] = limits.maxComputeWorkGroupSize[i];
    info.maxWorkgroupCount[i] = limits.maxComputeWorkGroupCount[i];
  }
  info.maxWorkgroupInvocations = limits.maxComputeWorkGroupInvocations;
  info.maxPushConstantBytes = limits.maxPushConstantsSize;
  info.maxStorageBufferRange = limits.maxStorageBufferRange;
  info.maxStorageBuffersPerStage = limits.maxPerStageDescriptorStorageBuffers;
  info.bufferDeviceAddress = features.v12.bufferDeviceAddress;

  bool computeSubgroups = v11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT;
  VkSubgroupFeatureFlags operations = computeSubgroups ? v11.subgroupSupportedOperations : 0;
  tessera::gpu::vulkan::VulkanFeatures &f = info.features;
  f.float16 = features.v12.shaderFloat16;
  f.float64 = features.core.features.shaderFloat64;
  f.int8 = features.v12.shaderInt8;
  f.int16 = features.core.features.shaderInt16;
  f.int64 = features.core.features.shaderInt64;
  f.storageBuffer8BitAccess = features.v12.storageBuffer8BitAccess;
  f.storageBuffer16BitAccess = features.v11.storageBuffer16BitAccess;
  f.storagePushConstant8 = features.v12.storagePushConstant8;
  f.storagePushConstant16 = features.v11.storagePushConstant16;
  f.subgroupShuffle = operations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  f.subgroupShuffleRelative = operations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
  f.subgroupArithmetic = operations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  f.bufferFloat32AtomicAdd = features.hasAtomicFloat && features.atomicFloat.shaderBufferFloat32AtomicAdd;
  f.sharedFloat32AtomicAdd = features.hasAtomicFloat && features.atomicFloat.shaderSharedFloat32AtomicAdd;
  f.bufferInt64Atomics = features.v12.shaderBufferInt64Atomics;
  f.sharedInt64Atomics = features.v12.shaderSharedInt64Atomics;
  f.cooperativeMatrix =
      features.hasCooperativeMatrix && features.cooperativeMatrix.cooperativeMatrix;
  info.cooperativeMatrix16x16x16 =
      f.cooperativeMatrix && listsCompilerCooperativeMatrix(instance, device);
  return candidate;
}

std::vector<Candidate> describeAll(const Instance &instance) {
  std::vector<Candidate> candidates;
  std::vector<VkPhysicalDevice> devices = physicalDevices(instance);
  for (unsigned i = 0; i < devices.size(); ++i) {
    Candidate candidate = describe(instance, devices[i], i);
    if (candidate.info.apiVersion >= VK_API_VERSION_1_2)
      candidates.push_back(std::move(candidate));
  }
  return candidates;
}

std::string listDevices(const std::vector<Candidate> &candidates) {
  std::string text;
  for (const Candidate &candidate : candidates)
    text += llvm::formatv("\n  {0}: {1} ({2}, Vulkan {3})", candidate.info.index,
                          candidate.info.name, candidate.info.type,
                          candidate.info.apiVersionString());
  return text.empty() ? std::string(" none") : text;
}

llvm::Expected<Candidate> select(const std::vector<Candidate> &candidates, std::string selection) {
  if (candidates.empty())
    return llvm::createStringError(
        "Vulkan is not available: no physical device with Vulkan 1.2 or newer");
  if (selection.empty())
    if (const char *env = std::getenv("TESSERA_VULKAN_DEVICE"))
      selection = env;
  if (!selection.empty()) {
    unsigned index = 0;
    bool byIndex = !llvm::StringRef(selection).getAsInteger(10, index);
    for (const Candidate &candidate : candidates)
      if (byIndex ? candidate.info.index == index
                  : llvm::StringRef(candidate.info.name).contains_insensitive(selection))
        return candidate;
    return llvm::createStringError("no Vulkan device matches '" + selection +
                                   "' (an index or part of a name); devices:" +
                                   listDevices(candidates));
  }
  for (VkPhysicalDeviceType preferred :
       {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
        VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU})
    for (const Candidate &candidate : candidates)
      if (candidate.type == preferred)
        return candidate;
  return candidates.front();
}

/// Creates the logical device with one compute queue and every feature of
/// `info.features` turned on.
llvm::Error createDevice(DeviceState &state, const Candidate &candidate, bool fullSubgroups) {
  const VulkanFunctions &vk = state.vk;
  uint32_t familyCount = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(candidate.handle, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(candidate.handle, &familyCount, families.data());
  auto compute = llvm::find_if(families, [](const VkQueueFamilyProperties &family) {
    return family.queueFlags & VK_QUEUE_COMPUTE_BIT;
  });
  if (compute == families.end())
    return llvm::createStringError("Vulkan device '" + candidate.info.name +
                                   "' has no compute queue");
  state.queueFamily = uint32_t(compute - families.begin());

  const tessera::gpu::vulkan::VulkanFeatures &f = candidate.info.features;
  bool v13 = candidate.info.apiVersion >= VK_API_VERSION_1_3;
  FeatureChain enable(v13 && candidate.info.subgroupSizeControl,
                      f.bufferFloat32AtomicAdd || f.sharedFloat32AtomicAdd, f.cooperativeMatrix);
  enable.core.features.shaderFloat64 = f.float64;
  enable.core.features.shaderInt16 = f.int16;
  enable.core.features.shaderInt64 = f.int64;
  enable.v11.storageBuffer16BitAccess = f.storageBuffer16BitAccess;
  enable.v11.storagePushConstant16 = f.storagePushConstant16;
  enable.v12.shaderFloat16 = f.float16;
  enable.v12.shaderInt8 = f.int8;
  enable.v12.storageBuffer8BitAccess = f.storageBuffer8BitAccess;
  enable.v12.storagePushConstant8 = f.storagePushConstant8;
  enable.v12.shaderBufferInt64Atomics = f.bufferInt64Atomics;
  enable.v12.shaderSharedInt64Atomics = f.sharedInt64Atomics;
  enable.subgroupSize.subgroupSizeControl = enable.hasSubgroupSizeControl;
  enable.subgroupSize.computeFullSubgroups = candidate.info.subgroupSizeControl && fullSubgroups;
  enable.atomicFloat.shaderBufferFloat32AtomicAdd = f.bufferFloat32AtomicAdd;
  enable.atomicFloat.shaderSharedFloat32AtomicAdd = f.sharedFloat32AtomicAdd;
  enable.cooperativeMatrix.cooperativeMatrix = f.cooperativeMatrix;
  std::vector<const char *> extensions;
  if (enable.hasAtomicFloat)
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (enable.hasCooperativeMatrix)
    extensions.push_back(kCooperativeMatrixExtension);

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = state.queueFamily;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enable.core;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult result = vk.vkCreateDevice(candidate.handle, &info, nullptr, &state.device))
    return vulkanError("vkCreateDevice for '" + candidate.info.name + "'", result);
  if (llvm::Error err = state.vk.loadDevice(state.device))
    return err;
  state.vk.vkGetDeviceQueue(state.device, state.queueFamily, 0, &state.queue);
  state.canRequireSubgroupSize = enable.hasSubgroupSizeControl;
  state.canRequireFullSubgroups = enable.subgroupSize.computeFullSubgroups;
  return llvm::Error::success();
}

llvm::Error createCommandObjects(DeviceState &state) {
  const VulkanFunctions &vk = state.vk;
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = state.queueFamily;
  if (VkResult result = vk.vkCreateCommandPool(state.device, &pool, nullptr, &state.commandPool))
    return vulkanError("vkCreateCommandPool", result);
  VkCommandBufferAllocateInfo buffer{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  buffer.commandPool = state.commandPool;
  buffer.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  buffer.commandBufferCount = 1;
  if (VkResult result = vk.vkAllocateCommandBuffers(state.device, &buffer, &state.commandBuffer))
    return vulkanError("vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (VkResult result = vk.vkCreateFence(state.device, &fence, nullptr, &state.fence))
    return vulkanError("vkCreateFence", result);
  return llvm::Error::success();
}

/// Buffers are mapped directly where the device shares memory with the host
/// (not a discrete GPU, and a device-local type is host-visible and
/// coherent); elsewhere device-local memory with staging copies is faster.
bool hostMappable(const VkPhysicalDeviceMemoryProperties &memory, VkPhysicalDeviceType type) {
  if (type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
    return false;
  constexpr VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((memory.memoryTypes[i].propertyFlags & wanted) == wanted)
      return true;
  return false;
}

} // namespace

std::string VulkanDeviceInfo::apiVersionString() const {
  return llvm::formatv("{0}.{1}.{2}", VK_API_VERSION_MAJOR(apiVersion),
                       VK_API_VERSION_MINOR(apiVersion), VK_API_VERSION_PATCH(apiVersion));
}

std::string VulkanDeviceInfo::str() const {
  return llvm::formatv(
      "{0} ({1}, Vulkan {2}, driver {3})\n"
      "  subgroup size {4} (range {5}..{6}{7}), shared memory {8} bytes, workgroup size <= "
      "{9}x{10}x{11} ({12} invocations), grid <= {13}x{14}x{15}\n"
      "  push constants {16} bytes, storage buffers <= {17} bytes ({18} per stage), buffers {19}, "
      "bufferDeviceAddress {20}, cooperative matrix 16x16x16 f16->f32 {22}\n"
      "  features: {21}",
      name, type, apiVersionString(), driver, subgroupSize, minSubgroupSize, maxSubgroupSize,
      subgroupSizeControl ? ", controllable" : "", maxSharedMemoryBytes, maxWorkgroupSize[0],
      maxWorkgroupSize[1], maxWorkgroupSize[2], maxWorkgroupInvocations, maxWorkgroupCount[0],
      maxWorkgroupCount[1], maxWorkgroupCount[2], maxPushConstantBytes, maxStorageBufferRange,
      maxStorageBuffersPerStage, hostMappedBuffers ? "host-mapped" : "device-local + staging",
      bufferDeviceAddress ? "yes" : "no", features.str(), cooperativeMatrix16x16x16 ? "yes" : "no");
}

DeviceState::~DeviceState() {
  if (device) {
    for (auto &[key, pipeline] : pipelines) {
      vk.vkDestroyPipeline(device, pipeline.pipeline, nullptr);
      vk.vkDestroyPipelineLayout(device, pipeline.layout, nullptr);
      vk.vkDestroyDescriptorSetLayout(device, pipeline.setLayout, nullptr);
      vk.vkDestroyShaderModule(device, pipeline.shader, nullptr);
    }
    if (fence)
      vk.vkDestroyFence(device, fence, nullptr);
    if (commandPool)
      vk.vkDestroyCommandPool(device, commandPool, nullptr);
    vk.vkDestroyDevice(device, nullptr);
  }
  if (instance)
    vk.vkDestroyInstance(instance, nullptr);
}

llvm::Expected<std::vector<VulkanDeviceInfo>> VulkanDevice::enumerate() {
  llvm::Expected<Instance> instance = createInstance();
  if (!instance)
    return instance.takeError();
  std::vector<VulkanDeviceInfo> infos;
  for (Candidate &candidate : describeAll(*instance))
    infos.push_back(std::move(candidate.info));
  return infos;
}

llvm::Expected<std::unique_ptr<VulkanDevice>> VulkanDevice::open(VulkanDeviceOptions options) {
  llvm::Expected<Instance> instance = createInstance();
  if (!instance)
    return instance.takeError();
  llvm::Expected<Candidate> candidate = select(describeAll(*instance), options.select);
  if (!candidate)
    return candidate.takeError();

  auto state = std::make_shared<DeviceState>();
  state->vk = instance->vk;
  state->instance = instance->handle;
  instance->handle = VK_NULL_HANDLE; // Owned by the state from here on.
  state->physicalDevice = candidate->handle;
  state->info = candidate->info;
  state->vk.vkGetPhysicalDeviceMemoryProperties(state->physicalDevice, &state->memory);
  state->staging = options.forceStaging || !hostMappable(state->memory, candidate->type);
  state->info.hostMappedBuffers = !state->staging;
  if (llvm::Error err = createDevice(*state, *candidate, candidate->computeFullSubgroups))
    return std::move(err);
  if (llvm::Error err = createCommandObjects(*state))
    return std::move(err);
  return std::unique_ptr<VulkanDevice>(new VulkanDevice(std::move(state)));
}

VulkanDevice::VulkanDevice(std::shared_ptr<DeviceState> state) : state_(std::move(state)) {}
VulkanDevice::~VulkanDevice() = default;

const VulkanDeviceInfo &VulkanDevice::info() const { return state_->info; }

tessera::gpu::GpuTarget VulkanDevice::target() const {
  gpu::GpuTarget target;
  target.vendor = gpu::GpuVendor::Vulkan;
  target.chip = state_->info.apiVersion >= VK_API_VERSION_1_3 ? "vulkan1.3" : "vulkan1.2";
  target.warpSize = state_->info.subgroupSize;
  target.maxSharedMemoryBytes = state_->info.maxSharedMemoryBytes;
  target.cooperativeMatrix = state_->info.cooperativeMatrix16x16x16;
  return target;
}

size_t VulkanDevice::numCachedPipelines() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->pipelines.size();
}

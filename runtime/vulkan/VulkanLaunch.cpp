// Launching a SPIR-V kernel: checks against the device, the pipeline cache,
// storage-buffer descriptors and push constants per the kernel's ABI
// (lowering/gpu/spirv/VulkanKernel.h), one dispatch waited on with a fence.
#include "runtime/vulkan/VulkanState.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <optional>

using namespace tessera::runtime::vulkan;
using tessera::gpu::vulkan::VulkanKernel;
using tessera::gpu::vulkan::VulkanKernelParam;
using tessera::runtime::vulkan::detail::ComputePipeline;
using tessera::runtime::vulkan::detail::DeviceState;

namespace {

llvm::Error kernelError(llvm::StringRef kernel, const llvm::Twine &why) {
  return llvm::createStringError("kernel '" + kernel + "': " + why);
}

std::string versionString(uint32_t spirvVersion) {
  return llvm::formatv("{0}.{1}", spirvVersion >> 16, (spirvVersion >> 8) & 0xff);
}

/// Whether the kernel's code depends on the subgroup size it was compiled
/// for (subgroup shuffles and reductions do; plain per-thread code does not).
bool usesSubgroupOperations(const VulkanKernel &kernel) {
  return llvm::any_of(kernel.capabilities, [](const std::string &capability) {
    return llvm::StringRef(capability).starts_with("GroupNonUniform") &&
           capability != "GroupNonUniform";
  });
}

/// Checks that the device can run the kernel; sets `requiredSubgroupSize`
/// when the pipeline must pin the subgroup size (0: the device's default).
llvm::Error checkKernel(const DeviceState &device, const VulkanKernel &kernel,
                        unsigned &requiredSubgroupSize) {
  const VulkanDeviceInfo &info = device.info;
  llvm::StringRef name = kernel.binary.kernelName;
  const tessera::gpu::GpuTarget &target = kernel.binary.target;
  if (target.vendor != tessera::gpu::GpuVendor::Vulkan)
    return kernelError(name, "was compiled for " + target.str() + ", not for Vulkan");
  if (kernel.binary.binary.empty() || kernel.binary.binary.size() % 4 != 0)
    return kernelError(name, "has no SPIR-V binary");
  uint32_t deviceSpirv = info.apiVersion >= VK_API_VERSION_1_3 ? 0x00010600 : 0x00010500;
  if (kernel.spirvVersion > deviceSpirv)
    return kernelError(name, "is SPIR-V " + versionString(kernel.spirvVersion) + " (" +
                                 target.str() + "), but '" + info.name + "' (Vulkan " +
                                 info.apiVersionString() + ") takes SPIR-V up to " +
                                 versionString(deviceSpirv) + "; compile for the device's target");
  if (llvm::Error err = info.features.checkCapabilities(name, kernel.capabilities))
    return err;

  // Code that shuffles across lanes needs the subgroup size it was compiled
  // for. SPIR-V 1.6 lets a driver pick any size in its range unless the
  // pipeline pins one, so pin it wherever the device allows.
  requiredSubgroupSize = 0;
  if (usesSubgroupOperations(kernel)) {
    bool settable = device.canRequireSubgroupSize && target.warpSize >= info.minSubgroupSize &&
                    target.warpSize <= info.maxSubgroupSize;
    if (settable)
      requiredSubgroupSize = target.warpSize;
    else if (target.warpSize != info.subgroupSize)
      return kernelError(name, llvm::formatv("was compiled for subgroups of {0}, but '{1}' runs "
                                             "subgroups of {2} (settable: {3}..{4})",
                                             target.warpSize, info.name, info.subgroupSize,
                                             info.minSubgroupSize, info.maxSubgroupSize)
                                   .str());
  }

  const std::array<unsigned, 3> &size = kernel.workgroupSize;
  if (size[0] > info.maxWorkgroupSize[0] || size[1] > info.maxWorkgroupSize[1] ||
      size[2] > info.maxWorkgroupSize[2] ||
      uint64_t(size[0]) * size[1] * size[2] > info.maxWorkgroupInvocations)
    return kernelError(name, llvm::formatv("its workgroup {0}x{1}x{2} exceeds the device's limits "
                                           "({3}x{4}x{5}, {6} invocations)",
                                           size[0], size[1], size[2], info.maxWorkgroupSize[0],
                                           info.maxWorkgroupSize[1], info.maxWorkgroupSize[2],
                                           info.maxWorkgroupInvocations)
                                 .str());
  if (kernel.binary.usage.sharedMemoryBytes > int(info.maxSharedMemoryBytes))
    return kernelError(name, llvm::formatv("uses {0} bytes of shared memory; the device has {1}",
                                           kernel.binary.usage.sharedMemoryBytes,
                                           info.maxSharedMemoryBytes)
                                 .str());
  if (kernel.abi.pushConstantBytes > info.maxPushConstantBytes)
    return kernelError(name, llvm::formatv("passes {0} bytes of push constants; the device takes {1}",
                                           kernel.abi.pushConstantBytes, info.maxPushConstantBytes)
                                 .str());
  if (kernel.abi.numStorageBuffers() > info.maxStorageBuffersPerStage)
    return kernelError(name, llvm::formatv("binds {0} storage buffers; the device takes {1}",
                                           kernel.abi.numStorageBuffers(),
                                           info.maxStorageBuffersPerStage)
                                 .str());
  return llvm::Error::success();
}

/// Writes one scalar argument into the push-constant block, checked and
/// converted by runtime::packArgument as every device does.
llvm::Error packScalar(llvm::StringRef kernel, size_t index, const VulkanKernelParam &param,
                       const tessera::runtime::Argument &arg, uint8_t *block) {
  using tessera::runtime::ArgKind;
  std::optional<ArgKind> kind = llvm::StringSwitch<std::optional<ArgKind>>(param.type)
                                    .Case("i8", ArgKind::I8)
                                    .Case("i16", ArgKind::I16)
                                    .Case("i32", ArgKind::I32)
                                    .Case("i64", ArgKind::I64)
                                    .Case("f16", ArgKind::F16)
                                    .Case("f32", ArgKind::F32)
                                    .Case("f64", ArgKind::F64)
                                    .Default(std::nullopt);
  if (!kind)
    return kernelError(kernel, "argument " + llvm::Twine(index) + " has the type " + param.type +
                                   ", which the runtime cannot pass");
  tessera::runtime::KernelSignature::Param signature;
  signature.kind = *kind;
  uint64_t bits = 0;
  if (llvm::Error err = tessera::runtime::packArgument(kernel, index, signature, arg, bits))
    return err;
  for (unsigned byte = 0; byte < param.bytes; ++byte)
    block[param.offset + byte] = uint8_t(bits >> (8 * byte));
  return llvm::Error::success();
}

void destroyPipeline(const DeviceState &device, ComputePipeline &pipeline) {
  const VulkanFunctions &vk = device.vk;
  if (pipeline.pipeline)
    vk.vkDestroyPipeline(device.device, pipeline.pipeline, nullptr);
  if (pipeline.layout)
    vk.vkDestroyPipelineLayout(device.device, pipeline.layout, nullptr);
  if (pipeline.setLayout)
    vk.vkDestroyDescriptorSetLayout(device.device, pipeline.setLayout, nullptr);
  if (pipeline.shader)
    vk.vkDestroyShaderModule(device.device, pipeline.shader, nullptr);
}

llvm::Expected<ComputePipeline> createPipeline(const DeviceState &device, const VulkanKernel &kernel,
                                               unsigned requiredSubgroupSize) {
  const VulkanFunctions &vk = device.vk;
  llvm::StringRef name = kernel.binary.kernelName;
  ComputePipeline pipeline;
  auto fail = [&](const char *call, VkResult result) {
    destroyPipeline(device, pipeline);
    return vulkanError("kernel '" + name + "': " + call, result);
  };

  VkShaderModuleCreateInfo shader{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  shader.codeSize = kernel.binary.binary.size();
  shader.pCode = kernel.words().data();
  if (VkResult result = vk.vkCreateShaderModule(device.device, &shader, nullptr, &pipeline.shader))
    return fail("vkCreateShaderModule", result);

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const VulkanKernelParam &param : kernel.abi.params)
    if (param.isBuffer())
      bindings.push_back({param.binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                          VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo setLayout{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setLayout.bindingCount = uint32_t(bindings.size());
  setLayout.pBindings = bindings.data();
  if (VkResult result =
          vk.vkCreateDescriptorSetLayout(device.device, &setLayout, nullptr, &pipeline.setLayout))
    return fail("vkCreateDescriptorSetLayout", result);

  VkPushConstantRange pushConstants{VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.abi.pushConstantBytes};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &pipeline.setLayout;
  layout.pushConstantRangeCount = kernel.abi.pushConstantBytes ? 1 : 0;
  layout.pPushConstantRanges = &pushConstants;
  if (VkResult result = vk.vkCreatePipelineLayout(device.device, &layout, nullptr, &pipeline.layout))
    return fail("vkCreatePipelineLayout", result);

  std::string entry = name.str();
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  subgroupSize.requiredSubgroupSize = requiredSubgroupSize;
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.pNext = requiredSubgroupSize ? &subgroupSize : nullptr;
  // No partially filled subgroups: every lane a shuffle reads from exists.
  if (requiredSubgroupSize && device.canRequireFullSubgroups &&
      kernel.workgroupSize[0] % requiredSubgroupSize == 0)
    info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = pipeline.shader;
  info.stage.pName = entry.c_str();
  info.layout = pipeline.layout;
  if (VkResult result = vk.vkCreateComputePipelines(device.device, VK_NULL_HANDLE, 1, &info,
                                                    nullptr, &pipeline.pipeline))
    return fail("vkCreateComputePipelines", result);
  return pipeline;
}

/// The cached pipeline of the kernel, created on first use. The caller holds
/// the device's mutex.
llvm::Expected<const ComputePipeline *> pipelineFor(DeviceState &device, const VulkanKernel &kernel,
                                                    unsigned requiredSubgroupSize) {
  auto key = std::make_tuple(llvm::xxh3_64bits(kernel.binary.binary), kernel.binary.kernelName,
                             requiredSubgroupSize, kernel.binary.binary);
  auto found = device.pipelines.find(key);
  if (found != device.pipelines.end())
    return &found->second;
  llvm::Expected<ComputePipeline> created = createPipeline(device, kernel, requiredSubgroupSize);
  if (!created)
    return created.takeError();
  return &device.pipelines.emplace(key, *created).first->second;
}

} // namespace

llvm::Error VulkanDevice::launch(const VulkanKernel &kernel, Grid grid,
                                 llvm::ArrayRef<VulkanArgument> args) {
  DeviceState &device = *state_;
  llvm::StringRef name = kernel.binary.kernelName;
  unsigned requiredSubgroupSize = 0;
  if (llvm::Error err = checkKernel(device, kernel, requiredSubgroupSize))
    return err;

  const std::vector<VulkanKernelParam> &params = kernel.abi.params;
  if (args.size() != params.size())
    return kernelError(name, llvm::formatv("takes {0} arguments ({1}), got {2}", params.size(),
                                           kernel.abi.str(), args.size())
                                 .str());
  std::vector<uint8_t> pushConstants(kernel.abi.pushConstantBytes, 0);
  std::vector<VkDescriptorBufferInfo> buffers(kernel.abi.numStorageBuffers());
  for (size_t i = 0; i < params.size(); ++i) {
    const VulkanKernelParam &param = params[i];
    const VulkanBuffer *buffer = args[i].buffer();
    if (param.isBuffer()) {
      if (!buffer || !*buffer)
        return kernelError(name, "argument " + llvm::Twine(i) + " is a buffer of " + param.type +
                                     ", got " +
                                     (buffer ? std::string("an empty VulkanBuffer")
                                             : args[i].scalar().describe()));
      if (buffer->state_->device != state_)
        return kernelError(name, "argument " + llvm::Twine(i) +
                                     " is a buffer of another Vulkan device");
      buffers[param.binding] = {buffer->state_->raw.buffer, 0, VK_WHOLE_SIZE};
      continue;
    }
    if (buffer)
      return kernelError(name, "argument " + llvm::Twine(i) + " is a scalar " + param.type +
                                   ", got a buffer");
    if (llvm::Error err = packScalar(name, i, param, args[i].scalar(), pushConstants.data()))
      return err;
  }

  const std::array<uint32_t, 3> &maxCount = device.info.maxWorkgroupCount;
  if (grid.x > maxCount[0] || grid.y > maxCount[1] || grid.z > maxCount[2])
    return kernelError(name, llvm::formatv("grid ({0}, {1}, {2}) exceeds the device's "
                                           "maxComputeWorkGroupCount ({3}, {4}, {5})",
                                           grid.x, grid.y, grid.z, maxCount[0], maxCount[1],
                                           maxCount[2])
                                 .str());
  if (grid.size() == 0)
    return llvm::Error::success();

  std::lock_guard<std::mutex> lock(device.mutex);
  llvm::Expected<const ComputePipeline *> pipeline =
      pipelineFor(device, kernel, requiredSubgroupSize);
  if (!pipeline)
    return pipeline.takeError();
  const VulkanFunctions &vk = device.vk;

  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (!buffers.empty()) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(buffers.size())};
    VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = 1;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &size;
    if (VkResult result = vk.vkCreateDescriptorPool(device.device, &poolInfo, nullptr, &pool))
      return vulkanError("kernel '" + name + "': vkCreateDescriptorPool", result);
    VkDescriptorSetAllocateInfo allocate{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    allocate.descriptorPool = pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &(*pipeline)->setLayout;
    if (VkResult result = vk.vkAllocateDescriptorSets(device.device, &allocate, &set)) {
      vk.vkDestroyDescriptorPool(device.device, pool, nullptr);
      return vulkanError("kernel '" + name + "': vkAllocateDescriptorSets", result);
    }
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (uint32_t binding = 0; binding < buffers.size(); ++binding) {
      VkWriteDescriptorSet &write = writes[binding];
      write = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = set;
      write.dstBinding = binding;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &buffers[binding];
    }
    vk.vkUpdateDescriptorSets(device.device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  }

  llvm::Error err = device.submitAndWait("kernel '" + name + "'", [&](VkCommandBuffer commands) {
    vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, (*pipeline)->pipeline);
    if (set)
      vk.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, (*pipeline)->layout, 0,
                                 1, &set, 0, nullptr);
    if (!pushConstants.empty())
      vk.vkCmdPushConstants(commands, (*pipeline)->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            uint32_t(pushConstants.size()), pushConstants.data());
    vk.vkCmdDispatch(commands, grid.x, grid.y, grid.z);
  });
  if (pool)
    vk.vkDestroyDescriptorPool(device.device, pool, nullptr);
  return err;
}

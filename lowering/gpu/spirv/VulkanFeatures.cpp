#include "lowering/gpu/spirv/VulkanFeatures.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using tessera::gpu::vulkan::VulkanFeatures;

namespace {

struct FeatureName {
  llvm::StringLiteral name;
  bool VulkanFeatures::*flag;
};

constexpr FeatureName kFeatureNames[] = {
    {"float16", &VulkanFeatures::float16},
    {"float64", &VulkanFeatures::float64},
    {"int8", &VulkanFeatures::int8},
    {"int16", &VulkanFeatures::int16},
    {"int64", &VulkanFeatures::int64},
    {"storage-buffer-8bit", &VulkanFeatures::storageBuffer8BitAccess},
    {"storage-buffer-16bit", &VulkanFeatures::storageBuffer16BitAccess},
    {"push-constant-8bit", &VulkanFeatures::storagePushConstant8},
    {"push-constant-16bit", &VulkanFeatures::storagePushConstant16},
    {"subgroup-shuffle", &VulkanFeatures::subgroupShuffle},
    {"subgroup-shuffle-relative", &VulkanFeatures::subgroupShuffleRelative},
    {"subgroup-arithmetic", &VulkanFeatures::subgroupArithmetic},
    {"buffer-float32-atomic-add", &VulkanFeatures::bufferFloat32AtomicAdd},
    {"shared-float32-atomic-add", &VulkanFeatures::sharedFloat32AtomicAdd},
    {"buffer-int64-atomics", &VulkanFeatures::bufferInt64Atomics},
    {"shared-int64-atomics", &VulkanFeatures::sharedInt64Atomics},
    {"cooperative-matrix", &VulkanFeatures::cooperativeMatrix},
};

/// A SPIR-V capability, the Vulkan feature that allows it, and whether a set
/// of features does.
struct CapabilityRule {
  llvm::StringLiteral capability;
  llvm::StringLiteral vulkanFeature;
  bool (*allowed)(const VulkanFeatures &);
};

const CapabilityRule kCapabilityRules[] = {
    {"Shader", "Vulkan 1.0", [](const VulkanFeatures &) { return true; }},
    {"Matrix", "Vulkan 1.0", [](const VulkanFeatures &) { return true; }},
    {"GroupNonUniform", "Vulkan 1.1 subgroups", [](const VulkanFeatures &) { return true; }},
    {"Float16", "shaderFloat16", [](const VulkanFeatures &f) { return f.float16; }},
    {"Float64", "shaderFloat64", [](const VulkanFeatures &f) { return f.float64; }},
    {"Int8", "shaderInt8", [](const VulkanFeatures &f) { return f.int8; }},
    {"Int16", "shaderInt16", [](const VulkanFeatures &f) { return f.int16; }},
    {"Int64", "shaderInt64", [](const VulkanFeatures &f) { return f.int64; }},
    {"StorageBuffer8BitAccess", "storageBuffer8BitAccess",
     [](const VulkanFeatures &f) { return f.storageBuffer8BitAccess; }},
    {"StorageBuffer16BitAccess", "storageBuffer16BitAccess",
     [](const VulkanFeatures &f) { return f.storageBuffer16BitAccess; }},
    {"StoragePushConstant8", "storagePushConstant8",
     [](const VulkanFeatures &f) { return f.storagePushConstant8; }},
    {"StoragePushConstant16", "storagePushConstant16",
     [](const VulkanFeatures &f) { return f.storagePushConstant16; }},
    {"GroupNonUniformShuffle", "subgroup shuffle operations",
     [](const VulkanFeatures &f) { return f.subgroupShuffle; }},
    {"GroupNonUniformShuffleRelative", "subgroup relative shuffle operations",
     [](const VulkanFeatures &f) { return f.subgroupShuffleRelative; }},
    {"GroupNonUniformArithmetic", "subgroup arithmetic operations",
     [](const VulkanFeatures &f) { return f.subgroupArithmetic; }},
    {"AtomicFloat32AddEXT", "shaderBufferFloat32AtomicAdd or shaderSharedFloat32AtomicAdd",
     [](const VulkanFeatures &f) { return f.bufferFloat32AtomicAdd || f.sharedFloat32AtomicAdd; }},
    {"Int64Atomics", "shaderBufferInt64Atomics or shaderSharedInt64Atomics",
     [](const VulkanFeatures &f) { return f.bufferInt64Atomics || f.sharedInt64Atomics; }},
    {"CooperativeMatrixKHR", "cooperativeMatrix (VK_KHR_cooperative_matrix)",
     [](const VulkanFeatures &f) { return f.cooperativeMatrix; }},
};

} // namespace

std::vector<llvm::StringRef> VulkanFeatures::names() {
  std::vector<llvm::StringRef> result;
  for (const FeatureName &feature : kFeatureNames)
    result.push_back(feature.name);
  return result;
}

llvm::Error VulkanFeatures::disable(llvm::StringRef name) {
  for (const FeatureName &feature : kFeatureNames) {
    if (feature.name == name.trim()) {
      this->*feature.flag = false;
      return llvm::Error::success();
    }
  }
  return llvm::createStringError("unknown Vulkan feature '" + name + "' (known: " +
                                 llvm::join(names(), ", ") + ")");
}

std::string VulkanFeatures::str() const {
  llvm::SmallVector<llvm::StringRef> enabled;
  for (const FeatureName &feature : kFeatureNames)
    if (this->*feature.flag)
      enabled.push_back(feature.name);
  return llvm::join(enabled, ",");
}

std::vector<std::string> VulkanFeatures::disabledNames() const {
  std::vector<std::string> disabled;
  for (const FeatureName &feature : kFeatureNames)
    if (!(this->*feature.flag))
      disabled.push_back(feature.name.str());
  return disabled;
}

std::vector<std::string> VulkanFeatures::capabilities() const {
  std::vector<std::string> result;
  for (const CapabilityRule &rule : kCapabilityRules)
    if (rule.allowed(*this))
      result.push_back(rule.capability.str());
  return result;
}

std::vector<std::string> VulkanFeatures::extensions() const {
  std::vector<std::string> result = {"SPV_KHR_storage_buffer_storage_class"};
  if (storageBuffer8BitAccess || storagePushConstant8)
    result.push_back("SPV_KHR_8bit_storage");
  if (storageBuffer16BitAccess || storagePushConstant16)
    result.push_back("SPV_KHR_16bit_storage");
  if (bufferFloat32AtomicAdd || sharedFloat32AtomicAdd)
    result.push_back("SPV_EXT_shader_atomic_float_add");
  if (cooperativeMatrix)
    result.push_back("SPV_KHR_cooperative_matrix");
  return result;
}

llvm::Error VulkanFeatures::checkCapabilities(llvm::StringRef kernel,
                                              llvm::ArrayRef<std::string> capabilities) const {
  for (const std::string &capability : capabilities) {
    const CapabilityRule *rule = llvm::find_if(
        kCapabilityRules, [&](const CapabilityRule &r) { return r.capability == capability; });
    if (rule == std::end(kCapabilityRules))
      return llvm::createStringError("kernel '" + kernel + "' declares the SPIR-V capability " +
                                     capability + ", which Tessera's Vulkan runtime cannot "
                                     "check against the device");
    if (!rule->allowed(*this))
      return llvm::createStringError("kernel '" + kernel + "' needs the SPIR-V capability " +
                                     capability + ", which needs the Vulkan feature " +
                                     rule->vulkanFeature + " that the device lacks");
  }
  return llvm::Error::success();
}

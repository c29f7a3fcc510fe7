// The optional Vulkan shader features that decide which SPIR-V capabilities a
// kernel may use. The compiler builds its SPIR-V target environment from them;
// the runtime fills them from the device it opened and checks each kernel's
// capabilities against them before creating a pipeline.
#ifndef TESSERA_LOWERING_GPU_SPIRV_VULKANFEATURES_H
#define TESSERA_LOWERING_GPU_SPIRV_VULKANFEATURES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tessera::gpu::vulkan {

/// Each flag is the Vulkan feature (or subgroup operation bit) of the same
/// meaning; the comment names it. The defaults are what a current desktop GPU
/// offers, which is what an offline compile (no device at hand) assumes.
struct VulkanFeatures {
  bool float16 = true;                  ///< shaderFloat16
  bool float64 = true;                  ///< shaderFloat64
  bool int8 = true;                     ///< shaderInt8
  bool int16 = true;                    ///< shaderInt16
  bool int64 = true;                    ///< shaderInt64
  bool storageBuffer8BitAccess = true;  ///< storageBuffer8BitAccess
  bool storageBuffer16BitAccess = true; ///< storageBuffer16BitAccess
  bool storagePushConstant8 = true;     ///< storagePushConstant8
  bool storagePushConstant16 = true;    ///< storagePushConstant16
  bool subgroupShuffle = true;          ///< VK_SUBGROUP_FEATURE_SHUFFLE_BIT
  bool subgroupShuffleRelative = true;  ///< VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT
  bool subgroupArithmetic = true;       ///< VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
  bool bufferFloat32AtomicAdd = true;   ///< shaderBufferFloat32AtomicAdd
  bool sharedFloat32AtomicAdd = true;   ///< shaderSharedFloat32AtomicAdd
  bool bufferInt64Atomics = true;       ///< shaderBufferInt64Atomics
  bool sharedInt64Atomics = true;       ///< shaderSharedInt64Atomics
  /// VK_KHR_cooperative_matrix; used only where the GpuTarget says :coopmat.
  bool cooperativeMatrix = true;

  /// The short names used by the `without=` pass option and in messages:
  /// "float16", "float64", "int8", "int16", "int64", "storage-buffer-8bit",
  /// "storage-buffer-16bit", "push-constant-8bit", "push-constant-16bit",
  /// "subgroup-shuffle", "subgroup-shuffle-relative", "subgroup-arithmetic",
  /// "buffer-float32-atomic-add", "shared-float32-atomic-add",
  /// "buffer-int64-atomics", "shared-int64-atomics", "cooperative-matrix".
  static std::vector<llvm::StringRef> names();
  /// Turns off the feature called `name`; the error lists the known names.
  llvm::Error disable(llvm::StringRef name);
  /// The names of the features that are on, comma-separated.
  std::string str() const;
  /// The names of the features that are off.
  std::vector<std::string> disabledNames() const;

  /// The SPIR-V capabilities these features allow (names as in the SPIR-V
  /// grammar: "Shader", "Float16", "GroupNonUniformShuffle", ...).
  std::vector<std::string> capabilities() const;
  /// The SPIR-V extensions these features allow.
  std::vector<std::string> extensions() const;

  /// Checks that every capability a kernel declares is one these features
  /// allow; the error names the kernel, the capability and the Vulkan
  /// feature it needs.
  llvm::Error checkCapabilities(llvm::StringRef kernel,
                                llvm::ArrayRef<std::string> capabilities) const;

  bool operator==(const VulkanFeatures &) const = default;
};

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_VULKANFEATURES_H

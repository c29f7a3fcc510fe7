// A kernel compiled for Vulkan: the SPIR-V binary (KernelBinary) and the
// interface a launch must bind (VulkanKernelAbi). Plain data, no MLIR, so the
// runtime can include it.
//
// The ABI (docs/gpu-vulkan.md): the entry point is named after the kernel and
// runs in the GLCompute execution model with LocalSize = known_block_size.
//   - Each pointer argument (memref<?xT>) is a storage buffer in descriptor
//     set 0; bindings 0, 1, 2, ... go to the pointer arguments in argument
//     order (scalars take no binding). The buffer's block holds one runtime
//     array of T (std430: element stride = sizeof(T)).
//   - The scalar arguments live in one push-constant block, in argument
//     order, each at the next offset aligned to its own size (std430 for
//     scalars: i8 1, i16/f16 2, i32/f32 4, i64/f64 8). The block's size is
//     the end of the last scalar rounded up to 4 bytes.
#ifndef TESSERA_LOWERING_GPU_SPIRV_VULKANKERNEL_H
#define TESSERA_LOWERING_GPU_SPIRV_VULKANKERNEL_H

#include "lowering/gpu/KernelBinary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu::vulkan {

/// How one kernel argument reaches the shader.
struct VulkanKernelParam {
  enum class Kind : uint8_t { StorageBuffer, PushConstant };
  Kind kind = Kind::StorageBuffer;
  /// The buffer's element type or the scalar's type: "f32", "i32", "f16", ...
  std::string type;
  /// Bytes of one buffer element, or of the scalar.
  unsigned bytes = 0;
  /// StorageBuffer: the binding in descriptor set 0.
  unsigned binding = 0;
  /// PushConstant: the byte offset in the push-constant block.
  unsigned offset = 0;

  bool isBuffer() const { return kind == Kind::StorageBuffer; }
  bool operator==(const VulkanKernelParam &) const = default;
};

/// One argument as the ABI sees it, before a binding or an offset is given.
struct VulkanArgumentShape {
  bool isBuffer = false;
  std::string type;
  unsigned bytes = 0;
};

struct VulkanKernelAbi {
  /// In kernel argument order.
  std::vector<VulkanKernelParam> params;
  /// Size of the push-constant block; 0 when the kernel has no scalars.
  unsigned pushConstantBytes = 0;

  unsigned numStorageBuffers() const;
  /// "binding 0: f32[], binding 1: f32[], push +0: i32, push +4: f32".
  std::string str() const;
  bool operator==(const VulkanKernelAbi &) const = default;

  /// Lays out arguments by the rule in this file's header comment. Scalars
  /// must be 1, 2, 4 or 8 bytes.
  static llvm::Expected<VulkanKernelAbi> layout(llvm::ArrayRef<VulkanArgumentShape> arguments);
};

/// Push constants every Vulkan device offers (maxPushConstantsSize >= 128).
inline constexpr unsigned kGuaranteedPushConstantBytes = 128;

struct VulkanKernel {
  /// target: the Vulkan target compiled for. kernelName: the entry point.
  /// binary: the SPIR-V words, little-endian. assembly: the spirv.module as
  /// MLIR prints it. blockThreads: the workgroup size's product.
  /// usage.sharedMemoryBytes: the Workgroup variables' total size.
  KernelBinary binary;
  VulkanKernelAbi abi;
  /// LocalSize of the entry point.
  std::array<unsigned, 3> workgroupSize = {1, 1, 1};
  /// SPIR-V version word: 0x00010500 for 1.5, 0x00010600 for 1.6.
  uint32_t spirvVersion = 0;
  /// The module's declared capabilities and extensions (its VCE triple).
  std::vector<std::string> capabilities;
  std::vector<std::string> extensions;

  llvm::ArrayRef<uint32_t> words() const {
    return {reinterpret_cast<const uint32_t *>(binary.binary.data()), binary.binary.size() / 4};
  }
};

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_VULKANKERNEL_H

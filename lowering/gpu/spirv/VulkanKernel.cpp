#include "lowering/gpu/spirv/VulkanKernel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace tessera::gpu::vulkan;

unsigned VulkanKernelAbi::numStorageBuffers() const {
  return llvm::count_if(params, [](const VulkanKernelParam &p) { return p.isBuffer(); });
}

std::string VulkanKernelAbi::str() const {
  std::string text;
  for (const VulkanKernelParam &param : params) {
    if (!text.empty())
      text += ", ";
    if (param.isBuffer())
      text += "binding " + std::to_string(param.binding) + ": " + param.type + "[]";
    else
      text += "push +" + std::to_string(param.offset) + ": " + param.type;
  }
  return text;
}

llvm::Expected<VulkanKernelAbi>
VulkanKernelAbi::layout(llvm::ArrayRef<VulkanArgumentShape> arguments) {
  VulkanKernelAbi abi;
  unsigned nextBinding = 0;
  unsigned nextOffset = 0;
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    VulkanKernelParam param;
    param.type = argument.type;
    param.bytes = argument.bytes;
    if (argument.isBuffer) {
      param.kind = VulkanKernelParam::Kind::StorageBuffer;
      param.binding = nextBinding++;
    } else {
      if (!llvm::is_contained({1u, 2u, 4u, 8u}, argument.bytes))
        return llvm::createStringError("argument " + std::to_string(index) + " (" +
                                       argument.type + ") is " +
                                       std::to_string(argument.bytes) +
                                       " bytes; push constants hold 1, 2, 4 or 8-byte scalars");
      param.kind = VulkanKernelParam::Kind::PushConstant;
      param.offset = llvm::alignTo(nextOffset, argument.bytes);
      nextOffset = param.offset + argument.bytes;
    }
    abi.params.push_back(std::move(param));
  }
  abi.pushConstantBytes = llvm::alignTo(nextOffset, 4);
  return abi;
}

// tessera-spirv-kernel-abi: storage-buffer bindings for the pointer
// arguments, one push-constant block for the scalars (lowering/gpu/spirv/
// VulkanKernel.h states the layout; VulkanKernelAbi::layout computes it, for
// this pass and for the runtime's copy of the ABI alike).
#include "lowering/gpu/spirv/Passes.h"
#include "lowering/gpu/spirv/VulkanKernel.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

#include "llvm/ADT/BitVector.h"

namespace tessera::gpu::vulkan {
#define GEN_PASS_DEF_TESSERASPIRVKERNELABI
#include "lowering/gpu/spirv/Passes.h.inc"
} // namespace tessera::gpu::vulkan

using namespace mlir;
using tessera::gpu::vulkan::VulkanArgumentShape;
using tessera::gpu::vulkan::VulkanKernelAbi;

namespace {

std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return name;
}

/// The shape of a converted argument: a pointer to a storage-buffer block
/// holding a runtime array, or a scalar.
FailureOr<VulkanArgumentShape> shapeOf(spirv::FuncOp func, unsigned index) {
  Type type = func.getArgumentTypes()[index];
  if (auto pointer = dyn_cast<spirv::PointerType>(type)) {
    auto block = dyn_cast<spirv::StructType>(pointer.getPointeeType());
    auto array = block && block.getNumElements() == 1
                     ? dyn_cast<spirv::RuntimeArrayType>(block.getElementType(0))
                     : spirv::RuntimeArrayType();
    if (pointer.getStorageClass() != spirv::StorageClass::StorageBuffer || !array ||
        !array.getElementType().isIntOrFloat())
      return func.emitOpError() << "argument " << index << " of type " << type
                                << " is not a storage buffer of scalars";
    Type element = array.getElementType();
    return VulkanArgumentShape{true, typeName(element),
                               unsigned(element.getIntOrFloatBitWidth() / 8)};
  }
  if (!type.isIntOrFloat())
    return func.emitOpError() << "argument " << index << " of type " << type
                              << " is neither a buffer nor a scalar";
  return VulkanArgumentShape{false, typeName(type), unsigned(type.getIntOrFloatBitWidth() / 8)};
}

LogicalResult applyAbi(spirv::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  SmallVector<VulkanArgumentShape> shapes;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    FailureOr<VulkanArgumentShape> shape = shapeOf(func, i);
    if (failed(shape))
      return failure();
    shapes.push_back(*shape);
  }
  llvm::Expected<VulkanKernelAbi> abi = VulkanKernelAbi::layout(shapes);
  if (!abi)
    return func.emitOpError() << llvm::toString(abi.takeError());
  if (abi->pushConstantBytes > tessera::gpu::vulkan::kGuaranteedPushConstantBytes)
    return func.emitOpError() << "its scalar arguments take " << abi->pushConstantBytes
                              << " bytes of push constants; Vulkan guarantees only "
                              << tessera::gpu::vulkan::kGuaranteedPushConstantBytes;

  SmallVector<Type> memberTypes;
  SmallVector<spirv::StructType::OffsetInfo> offsets;
  for (auto [index, param] : llvm::enumerate(abi->params)) {
    if (param.isBuffer()) {
      func.setArgAttr(index, spirv::getInterfaceVarABIAttrName(),
                      spirv::getInterfaceVarABIAttr(/*descriptorSet=*/0, param.binding,
                                                    std::nullopt, ctx));
      continue;
    }
    memberTypes.push_back(func.getArgumentTypes()[index]);
    offsets.push_back(param.offset);
  }
  if (memberTypes.empty())
    return success();

  OpBuilder builder(func);
  auto blockType = spirv::PointerType::get(spirv::StructType::get(memberTypes, offsets),
                                           spirv::StorageClass::PushConstant);
  auto block = spirv::GlobalVariableOp::create(builder, func.getLoc(), blockType,
                                               (func.getName() + "_push_constants").str());
  builder.setInsertionPointToStart(&func.getBody().front());
  Value blockAddress = spirv::AddressOfOp::create(builder, func.getLoc(), block);
  llvm::BitVector scalars(func.getNumArguments());
  unsigned member = 0;
  for (auto [index, param] : llvm::enumerate(abi->params)) {
    if (param.isBuffer())
      continue;
    BlockArgument argument = func.getArgument(index);
    Value memberIndex = spirv::ConstantOp::create(builder, func.getLoc(), builder.getI32Type(),
                                                  builder.getI32IntegerAttr(member++));
    Value address = spirv::AccessChainOp::create(builder, argument.getLoc(), blockAddress,
                                                 ValueRange{memberIndex});
    Value value = spirv::LoadOp::create(builder, argument.getLoc(), address);
    argument.replaceAllUsesWith(value);
    scalars.set(index);
  }
  if (failed(func.eraseArguments(scalars)))
    return func.emitOpError() << "cannot remove its scalar arguments";
  return success();
}

struct KernelAbiPass : tessera::gpu::vulkan::impl::TesseraSpirvKernelAbiBase<KernelAbiPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<spirv::FuncOp>())
      if (func->hasAttr(spirv::getEntryPointABIAttrName()) && failed(applyAbi(func)))
        return signalPassFailure();
  }
};

} // namespace

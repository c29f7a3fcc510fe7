// tessera-amd-bare-pointer-args: one bare pointer per memref<?xT> kernel
// argument, with the memref descriptor rebuilt inside the kernel.
#include "lowering/gpu/amd/Passes.h"

#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace tessera::gpu::amd {
#define GEN_PASS_DEF_AMDBAREPOINTERARGS
#include "lowering/gpu/amd/Passes.h.inc"
} // namespace tessera::gpu::amd

using namespace mlir;

namespace tessera::gpu::amd {
namespace {

/// `memref<?xT>` with the identity layout in the default memory space.
bool isPointerMemRef(MemRefType type) {
  if (type.getRank() != 1 || !type.isDynamicDim(0) || !type.getLayout().isIdentity())
    return false;
  Attribute space = type.getMemorySpace();
  auto integerSpace = dyn_cast_or_null<IntegerAttr>(space);
  return !space || (integerSpace && integerSpace.getInt() == 0);
}

/// Ops that address the memref through its aligned pointer and an index and
/// never read its extent.
bool usesOnlyThePointer(Operation *user) {
  return isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
             vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp, vector::MaskedStoreOp,
             vector::GatherOp, vector::ScatterOp,
             memref::ExtractAlignedPointerAsIndexOp>(user);
}

class AmdBarePointerArgsPass : public impl::AmdBarePointerArgsBase<AmdBarePointerArgsPass> {
public:
  using AmdBarePointerArgsBase::AmdBarePointerArgsBase;

  void runOnOperation() override {
    LowerToLLVMOptions options(&getContext());
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(&getContext(), options);
    for (auto kernel : getOperation().getOps<mlir::gpu::GPUFuncOp>()) {
      if (kernel.isKernel() && failed(rewriteKernel(kernel, converter)))
        return signalPassFailure();
    }
  }

private:
  LogicalResult rewriteKernel(mlir::gpu::GPUFuncOp kernel, const LLVMTypeConverter &converter) {
    FunctionType type = kernel.getFunctionType();
    SmallVector<Type> inputs(type.getInputs());
    OpBuilder builder = OpBuilder::atBlockBegin(&kernel.front());
    auto pointerType = LLVM::LLVMPointerType::get(&getContext());
    for (unsigned index = 0; index < inputs.size(); ++index) {
      auto memrefType = dyn_cast<MemRefType>(inputs[index]);
      if (!memrefType || (memrefType.hasStaticShape() && memrefType.getLayout().isIdentity()))
        continue;
      BlockArgument argument = kernel.getArgument(index);
      if (!isPointerMemRef(memrefType))
        return kernel.emitError() << "argument #" << index << " of kernel '" << kernel.getName()
                                  << "' has type " << memrefType
                                  << "; the distributed GPU form passes pointers as memref<?xT>";
      for (Operation *user : argument.getUsers()) {
        if (!usesOnlyThePointer(user))
          return user->emitOpError()
                 << "uses argument #" << index << " of kernel '" << kernel.getName()
                 << "' in a way that needs its extent, which the bare-pointer kernel ABI does "
                    "not pass (only loads, stores and atomics may use a pointer argument)";
      }

      Location loc = argument.getLoc();
      argument.setType(pointerType);
      auto descriptor =
          MemRefDescriptor::poison(builder, loc, converter.convertType(memrefType));
      descriptor.setAllocatedPtr(builder, loc, argument);
      descriptor.setAlignedPtr(builder, loc, argument);
      descriptor.setConstantOffset(builder, loc, 0);
      descriptor.setConstantStride(builder, loc, 0, 1);
      // The extent stays poison: no permitted user reads it.
      auto memref = UnrealizedConversionCastOp::create(builder, loc, memrefType,
                                                       ValueRange{descriptor});
      argument.replaceUsesWithIf(memref.getResult(0), [&](OpOperand &use) {
        return usesOnlyThePointer(use.getOwner());
      });
      inputs[index] = pointerType;
    }
    kernel.setFunctionTypeAttr(
        TypeAttr::get(FunctionType::get(&getContext(), inputs, type.getResults())));
    return success();
  }
};

} // namespace
} // namespace tessera::gpu::amd

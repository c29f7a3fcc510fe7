// tessera-gpu-bare-pointer-args: kernel arguments `memref<?xT>` become
// `!llvm.ptr`, with the memref rebuilt from a descriptor inside the kernel
// (NVIDIA and AMD alike).
#include "lowering/gpu/Passes.h"
#include "lowering/gpu/ir/TileGpuDialect.h"

#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERAGPUBAREPOINTERARGS
#include "lowering/gpu/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

/// A pointer argument of the distributed form: 1-D, dynamic, contiguous,
/// default memory space.
bool isPointerArgument(MemRefType type) {
  return type.getRank() == 1 && type.isDynamicDim(0) && type.getLayout().isIdentity() &&
         !type.getMemorySpace();
}

/// Static-shape memrefs are passed as bare pointers by the GPU-to-NVVM
/// conversion itself; anything else has no bare-pointer form.
bool hasBarePointerForm(MemRefType type) {
  return isPointerArgument(type) || (type.hasStaticShape() && type.getLayout().isIdentity());
}

/// Ops that compute addresses from the aligned pointer, offset 0 and stride
/// 1 only, and so never read the undefined size.
bool addressesThroughThePointer(Operation *user) {
  return isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
             vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp, vector::MaskedStoreOp,
             vector::GatherOp, vector::ScatterOp, nvgpu::DeviceAsyncCopyOp,
             memref::ExtractAlignedPointerAsIndexOp>(user);
}

/// A memref of `type` addressing memory from `pointer`: a descriptor whose
/// allocated and aligned pointers are `pointer`, offset 0 and stride 1, its
/// size left undefined.
Value memrefAt(OpBuilder &builder, Location loc, MemRefType type, Value pointer,
               const LLVMTypeConverter &converter) {
  auto descriptor = MemRefDescriptor::poison(builder, loc, converter.convertType(type));
  descriptor.setAllocatedPtr(builder, loc, pointer);
  descriptor.setAlignedPtr(builder, loc, pointer);
  descriptor.setConstantOffset(builder, loc, 0);
  descriptor.setConstantStride(builder, loc, 0, 1);
  return UnrealizedConversionCastOp::create(builder, loc, TypeRange{type},
                                            ValueRange{Value(descriptor)})
      .getResult(0);
}

/// Each tgpu.reinterpret_pointer becomes a memref of its element type at its
/// source's aligned pointer.
void rewriteReinterpretations(mlir::gpu::GPUFuncOp kernel, const LLVMTypeConverter &converter) {
  SmallVector<tessera::gpu::ReinterpretPointerOp> views;
  kernel.walk([&](tessera::gpu::ReinterpretPointerOp view) { views.push_back(view); });
  auto pointerType = LLVM::LLVMPointerType::get(kernel.getContext());
  for (tessera::gpu::ReinterpretPointerOp view : views) {
    OpBuilder builder(view);
    Location loc = view.getLoc();
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view.getSource());
    Value integer = arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address);
    Value pointer = LLVM::IntToPtrOp::create(builder, loc, pointerType, integer);
    view.replaceAllUsesWith(
        memrefAt(builder, loc, cast<MemRefType>(view.getType()), pointer, converter));
    view.erase();
  }
}

LogicalResult rewriteKernel(mlir::gpu::GPUFuncOp kernel, const LLVMTypeConverter &converter) {
  rewriteReinterpretations(kernel, converter);
  Block &entry = kernel.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  auto pointerType = LLVM::LLVMPointerType::get(kernel.getContext());
  SmallVector<Type> argumentTypes(kernel.getArgumentTypes());

  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      continue;
    BlockArgument argument = entry.getArgument(index);
    if (!hasBarePointerForm(memref))
      return kernel.emitError() << "kernel argument #" << index << " has type " << memref
                                << ", which has no bare-pointer form; GPU kernels take pointers as "
                                   "memref<?xT> (1-D, contiguous, default memory space)";
    if (!isPointerArgument(memref))
      continue;
    for (Operation *user : argument.getUsers())
      if (!addressesThroughThePointer(user))
        return user->emitError()
               << "'" << user->getName() << "' needs more of pointer argument #" << index
               << " than its address, but the kernel does not know its extent; only loads, "
                  "stores and atomics may use a pointer argument";

    // The descriptor itself uses the argument: redirect only the uses the
    // kernel had before.
    SmallVector<OpOperand *> kernelUses;
    for (OpOperand &use : argument.getUses())
      kernelUses.push_back(&use);

    argument.setType(pointerType);
    Value rebuilt = memrefAt(builder, argument.getLoc(), memref, argument, converter);
    for (OpOperand *use : kernelUses)
      use->set(rebuilt);
    argumentTypes[index] = pointerType;
  }
  kernel.setFunctionType(
      FunctionType::get(kernel.getContext(), argumentTypes, kernel.getResultTypes()));
  return success();
}

struct BarePointerArgs
    : tessera::gpu::impl::TesseraGpuBarePointerArgsBase<BarePointerArgs> {
  void runOnOperation() override {
    mlir::gpu::GPUModuleOp module = getOperation();
    LowerToLLVMOptions options(&getContext(), DataLayout::closest(module));
    LLVMTypeConverter converter(&getContext(), options);
    for (auto kernel : module.getOps<mlir::gpu::GPUFuncOp>()) {
      if (!kernel.isKernel() || kernel.isExternal())
        continue;
      if (failed(rewriteKernel(kernel, converter)))
        return signalPassFailure();
    }
  }
};

} // namespace

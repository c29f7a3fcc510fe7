// tile-gpu-assign-layouts: gives every tile of a kernel a #tgpu.layout
// (docs/gpu-backends.md, "Layouts"). The layouts are chosen by
// LayoutPropagation.h and applied by Rematerialize.h; this file checks what
// the GPU backends can distribute, and marks the kernel.
#include "lowering/gpu/distribute/Passes.h"

#include "lowering/gpu/distribute/LayoutPropagation.h"
#include "lowering/gpu/distribute/Rematerialize.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
using namespace tessera::gpu;
namespace tile = tessera::tile;

namespace {

/// The one kernel of `module`. Device functions must have been inlined; the
/// ones no call is left to are dropped.
FailureOr<tile::FuncOp> findKernel(ModuleOp module, const GpuTarget &target) {
  WalkResult calls = module.walk([&](tile::CallOp call) {
    call.emitError() << "'tile.call' of @" << call.getCallee()
                     << " is left: device functions must be inlined (-inline) before "
                        "tile-gpu-assign-layouts for target "
                     << target.str();
    return WalkResult::interrupt();
  });
  if (calls.wasInterrupted())
    return failure();
  tile::FuncOp kernel;
  for (tile::FuncOp func : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
    if (!func.isKernel()) {
      func.erase();
      continue;
    }
    if (kernel) {
      func.emitError() << "a second kernel: tile-gpu-assign-layouts compiles one kernel per "
                          "module, the first is @"
                       << kernel.getSymName();
      return failure();
    }
    kernel = func;
  }
  if (!kernel || kernel.isExternal())
    return module.emitError() << "no kernel with a body to assign layouts to (a public "
                                 "'tile.func' without results)";
  return kernel;
}

bool isPowerOfTwoShape(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t extent) { return llvm::isPowerOf2_64(extent); });
}

/// Tiles are distributed as linear layouts: every extent a power of two.
LogicalResult checkTileShapes(tile::FuncOp kernel, const GpuTarget &target) {
  auto check = [&](Type type, Operation *at) -> LogicalResult {
    if (auto desc = dyn_cast<tile::TensorDescType>(type))
      type = desc.getBlockType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (tensor.getRank() == 0 || !isPowerOfTwoShape(tensor.getShape()))
      return at->emitError() << "tile " << type
                             << " has a shape that is not a power of two in every dimension; "
                                "GPU target "
                             << target.str() << " distributes only such tiles";
    return success();
  };
  WalkResult result = kernel.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (failed(check(type, op)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(check(type, op)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Tensor descriptors carry the layout of the blocks they move in their
/// block type, which their loads' and stores' tiles must match.
void assignDescriptorLayouts(tile::FuncOp kernel, const LayoutAnchors &anchors) {
  auto retype = [&](Value value) {
    auto desc = dyn_cast<tile::TensorDescType>(value.getType());
    if (!desc)
      return;
    RankedTensorType block = desc.getBlockType();
    value.setType(tile::TensorDescType::get(value.getContext(),
                                            withLayout(block, anchors.descriptorBlock(block))));
  };
  kernel.walk([&](Operation *op) {
    for (Value result : op->getResults())
      retype(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
  });
  kernel.setFunctionType(FunctionType::get(
      kernel.getContext(), kernel.getBody().front().getArgumentTypes(), {}));
}

/// Every tile of the kernel has a layout now; a tile without one is a bug of
/// this pass, reported rather than left to the distribution.
LogicalResult checkEveryTileHasALayout(tile::FuncOp kernel) {
  auto missing = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !isa_and_nonnull<LayoutAttr>(tensor.getEncoding());
  };
  WalkResult result = kernel.walk([&](Operation *op) {
    bool blockArgMissing = llvm::any_of(op->getRegions(), [&](Region &region) {
      return llvm::any_of(region.getArgumentTypes(), missing);
    });
    if (llvm::any_of(op->getResultTypes(), missing) || blockArgMissing) {
      op->emitError() << "internal error: tile-gpu-assign-layouts left a tile without a layout";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct AssignLayouts : tessera::gpu::impl::TileGpuAssignLayoutsBase<AssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<GpuTarget> gpu = GpuTarget::parse(target);
    if (!gpu) {
      module.emitError() << "tile-gpu-assign-layouts needs target=<spec>: "
                         << llvm::toString(gpu.takeError());
      return signalPassFailure();
    }
    if (!llvm::isPowerOf2_32(numWarps)) {
      module.emitError() << "num-warps=" << numWarps.getValue() << " is not a power of two";
      return signalPassFailure();
    }
    FailureOr<tile::FuncOp> kernel = findKernel(module, *gpu);
    if (failed(kernel) || failed(checkTileShapes(*kernel, *gpu)))
      return signalPassFailure();

    LayoutAnchors anchors(*gpu, numWarps);
    OnDemandTiles onDemand;
    FailureOr<LayoutAssignment> assignment = propagateLayouts(*kernel, anchors, onDemand);
    if (failed(assignment))
      return signalPassFailure();
    applyLayouts(*kernel, *assignment, onDemand);
    assignDescriptorLayouts(*kernel, anchors);
    if (failed(checkEveryTileHasALayout(*kernel)))
      return signalPassFailure();

    Builder builder(&getContext());
    (*kernel)->setAttr(TileGpuDialect::kNumWarpsAttr, builder.getI32IntegerAttr(numWarps));
    (*kernel)->setAttr(TileGpuDialect::kTargetAttr, builder.getStringAttr(gpu->str()));
  }
};

} // namespace

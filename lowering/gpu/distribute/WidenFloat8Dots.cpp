// tile-gpu-widen-float8-dots: the fp8 dots that no matrix instruction of the
// target takes as they are become f16 dots (lowering/gpu/distribute/Passes.td).
#include "lowering/gpu/distribute/Passes.h"

#include "ir/transforms/DotWidening.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/tensorcore/TensorCore.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUWIDENFLOAT8DOTS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

struct WidenFloat8Dots : tessera::gpu::impl::TileGpuWidenFloat8DotsBase<WidenFloat8Dots> {
  using TileGpuWidenFloat8DotsBase::TileGpuWidenFloat8DotsBase;

  void runOnOperation() override {
    llvm::Expected<tessera::gpu::GpuTarget> gpu = tessera::gpu::GpuTarget::parse(target);
    if (!gpu) {
      getOperation().emitError() << "tile-gpu-widen-float8-dots needs target=<spec>: "
                                 << llvm::toString(gpu.takeError());
      return signalPassFailure();
    }
    // The same selection as the layouts' (LayoutAnchors::dotResult), so that
    // a dot left in fp8 gets an fp8 instruction.
    SmallVector<tile::DotOp> widened;
    getOperation().walk([&](tile::DotOp dot) {
      if (tile::hasFloat8Operands(dot) &&
          !tessera::gpu::selectTensorCoreDot(*gpu, tessera::gpu::dotProblemOf(dot), numWarps))
        widened.push_back(dot);
    });
    IRRewriter rewriter(&getContext());
    for (tile::DotOp dot : widened)
      tile::widenDotOperands(rewriter, dot, rewriter.getF16Type());
  }
};

} // namespace

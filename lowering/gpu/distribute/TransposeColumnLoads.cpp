// tile-gpu-transpose-column-loads: a dot's B loaded from memory that holds
// its columns contiguous (docs/gpu-backends.md, "Software pipelining") is
// loaded as the transpose of a row-contiguous tile, which the layouts and the
// software pipeline already read in vectors and cp.async runs.
#include "lowering/gpu/distribute/Passes.h"

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUTRANSPOSECOLUMNLOADS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

constexpr int32_t kSwapTwoDims[] = {1, 0};

/// `value` ([R, C]) as [C, R].
tile::TransOp transposed(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto swapped = RankedTensorType::get({type.getShape()[1], type.getShape()[0]},
                                       type.getElementType(), type.getEncoding());
  return tile::TransOp::create(builder, loc, swapped, value, kSwapTwoDims);
}

/// Whether `load` reads the B operand of a dot from memory that is
/// contiguous down its columns only.
bool readsColumnsOfB(tile::LoadOp load, tile::ContiguityAnalysis &contiguity) {
  auto type = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!type || type.getRank() != 2 || !load.getResult().hasOneUse())
    return false;
  auto dot = dyn_cast<tile::DotOp>(*load.getResult().getUsers().begin());
  if (!dot || dot.getB() != load.getResult() || dot.getA() == dot.getB())
    return false;
  return !contiguity.isContiguous(load.getPtr()) &&
         contiguity.strideAlong(load.getPtr(), 0) == std::optional<int64_t>(1);
}

struct TransposeColumnLoads
    : tessera::gpu::impl::TileGpuTransposeColumnLoadsBase<TransposeColumnLoads> {
  void runOnOperation() override {
    tile::ContiguityAnalysis contiguity(tile::LoopCarriedStrides::Inductive);
    SmallVector<tile::LoadOp> loads;
    getOperation().walk([&](tile::LoadOp load) {
      if (readsColumnsOfB(load, contiguity))
        loads.push_back(load);
    });
    SmallVector<Operation *> transposes;
    for (tile::LoadOp load : loads) {
      OpBuilder builder(load);
      Location loc = load.getLoc();
      auto operand = [&](Value value) -> Value {
        if (!value)
          return value;
        transposes.push_back(transposed(builder, loc, value));
        return transposes.back()->getResult(0);
      };
      Value pointers = operand(load.getPtr()), mask = operand(load.getMask()),
            other = operand(load.getOther());
      auto rows = tile::LoadOp::create(builder, loc, pointers, mask, other, load.getCacheAttr(),
                                       load.getEvictAttr(), load.getIsVolatileAttr());
      load.replaceAllUsesWith(transposed(builder, loc, rows.getResult()).getResult());
      load.erase();
    }
    // trans' own folds and canonicalizations make transposed splats and
    // constants splats and constants again (the software pipeline zero-fills
    // a load whose `other` it sees is +0) and cancel a trans of a trans.
    RewritePatternSet patterns(&getContext());
    tile::TransOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyOpPatternsGreedily(transposes, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

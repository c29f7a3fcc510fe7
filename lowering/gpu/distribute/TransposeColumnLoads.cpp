// tile-gpu-transpose-column-loads: a dot's B loaded from memory that holds
// its columns contiguous (docs/gpu-backends.md, "Software pipelining") is
// loaded as the transpose of a row-contiguous tile, which the layouts and the
// software pipeline already read in vectors and cp.async runs.
#include "lowering/gpu/distribute/Passes.h"

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"

#include "mlir/IR/Matchers.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUTRANSPOSECOLUMNLOADS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

constexpr int32_t kSwapTwoDims[] = {1, 0};

/// `value` ([R, C]) as [C, R]: splats and splat constants are made again in
/// that shape, anything else goes through tile.trans.
Value transposed(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto swapped = RankedTensorType::get({type.getShape()[1], type.getShape()[0]},
                                       type.getElementType(), type.getEncoding());
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    return tile::SplatOp::create(builder, loc, swapped, splat.getSrc());
  SplatElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant)))
    return arith::ConstantOp::create(builder, loc, swapped, constant.reshape(swapped));
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
    for (tile::LoadOp load : loads) {
      OpBuilder builder(load);
      Location loc = load.getLoc();
      Value mask = load.getMask() ? transposed(builder, loc, load.getMask()) : Value();
      Value other = load.getOther() ? transposed(builder, loc, load.getOther()) : Value();
      auto rows = tile::LoadOp::create(builder, loc, transposed(builder, loc, load.getPtr()), mask,
                                       other, load.getCacheAttr(), load.getEvictAttr(),
                                       load.getIsVolatileAttr());
      load.replaceAllUsesWith(transposed(builder, loc, rows.getResult()));
      load.erase();
    }
  }
};

} // namespace

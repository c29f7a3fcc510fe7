#include "lowering/cpu/Contiguity.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
namespace tile = tessera::tile;

namespace tessera::cpu {

std::optional<int64_t> ContiguityAnalysis::constantValue(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  DenseIntElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APInt>().getSExtValue();
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    return constantValue(splat.getSrc());
  if (auto cast = value.getDefiningOp<arith::ExtSIOp>())
    return constantValue(cast.getIn());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock() && func.getArgAttr(arg.getArgNumber(), "tile.equal_to_1"))
      return 1;
  }
  return std::nullopt;
}

bool ContiguityAnalysis::isContiguous(Value ptrTile) {
  auto type = dyn_cast<RankedTensorType>(ptrTile.getType());
  if (!type || !isa<tile::PointerType>(type.getElementType()) || type.getRank() == 0)
    return false;
  if (type.getShape().back() < 2)
    return false;
  std::optional<int64_t> stride = lastDimStride(ptrTile);
  return stride && *stride == 1;
}

std::optional<int64_t> ContiguityAnalysis::lastDimStride(Value value) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  cache[value] = std::nullopt; // cycles (loop-carried values) stay unknown
  std::optional<int64_t> result = compute(value);
  cache[value] = result;
  return result;
}

std::optional<int64_t> ContiguityAnalysis::compute(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return 0; // a scalar is the same for every element
  if (type.getRank() == 0 || type.getShape().back() == 1)
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<tile::MakeRangeOp>(def))
    return 1;
  if (isa<tile::SplatOp>(def))
    return 0;
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)))
    return dense.isSplat() ? std::optional<int64_t>(0) : std::nullopt;
  if (auto bcast = dyn_cast<tile::BroadcastOp>(def)) {
    auto srcType = cast<RankedTensorType>(bcast.getSrc().getType());
    if (srcType.getShape().back() == 1)
      return 0;
    return lastDimStride(bcast.getSrc());
  }
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def))
    return lastDimStride(expand.getSrc()); // a new last dim has size 1 (handled above)
  if (auto addptr = dyn_cast<tile::AddPtrOp>(def)) {
    auto p = lastDimStride(addptr.getPtr()), o = lastDimStride(addptr.getOffset());
    if (p && o)
      return *p + *o;
    return std::nullopt;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto l = lastDimStride(add.getLhs()), r = lastDimStride(add.getRhs());
    if (l && r)
      return *l + *r;
    return std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(def)) {
    auto l = lastDimStride(sub.getLhs()), r = lastDimStride(sub.getRhs());
    if (l && r)
      return *l - *r;
    return std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    auto l = lastDimStride(mul.getLhs()), r = lastDimStride(mul.getRhs());
    if (!l || !r)
      return std::nullopt;
    if (*l == 0 && *r == 0)
      return 0;
    if (*r == 0)
      if (auto c = constantValue(mul.getRhs()))
        return *l * *c;
    if (*l == 0)
      if (auto c = constantValue(mul.getLhs()))
        return *r * *c;
    return std::nullopt;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return lastDimStride(def->getOperand(0));
  return std::nullopt;
}

} // namespace tessera::cpu

#include "ir/analysis/Contiguity.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace tessera::tile {

std::optional<int64_t> ContiguityAnalysis::constantValue(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  DenseIntElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APInt>().getSExtValue();
  if (auto splat = value.getDefiningOp<SplatOp>())
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
  if (!type || !isa<PointerType>(type.getElementType()) || type.getRank() == 0)
    return false;
  if (type.getShape().back() < 2)
    return false;
  std::optional<int64_t> stride = lastDimStride(ptrTile);
  return stride && *stride == 1;
}

std::optional<int64_t> ContiguityAnalysis::lastDimStride(Value value) {
  for (;;) {
    assumptionFailed = false;
    std::optional<int64_t> stride = strideOf(value);
    if (!assumptionFailed)
      return stride;
    cache.clear();
  }
}

std::optional<int64_t> ContiguityAnalysis::strideOf(Value value) {
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
    return loopCarriedStride(value);
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return loops == LoopCarriedStrides::Inductive
               ? strideOf(loop.getRegionIterArgs()[cast<OpResult>(value).getResultNumber()])
               : std::nullopt;
  if (auto range = dyn_cast<MakeRangeOp>(def))
    return 1;
  if (isa<SplatOp>(def))
    return 0;
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)))
    return dense.isSplat() ? std::optional<int64_t>(0) : std::nullopt;
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    auto srcType = cast<RankedTensorType>(bcast.getSrc().getType());
    if (srcType.getShape().back() == 1)
      return 0;
    return strideOf(bcast.getSrc());
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def))
    return strideOf(expand.getSrc()); // a new last dim has size 1 (handled above)
  if (auto addptr = dyn_cast<AddPtrOp>(def)) {
    auto p = strideOf(addptr.getPtr()), o = strideOf(addptr.getOffset());
    if (p && o)
      return *p + *o;
    return std::nullopt;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto l = strideOf(add.getLhs()), r = strideOf(add.getRhs());
    if (l && r)
      return *l + *r;
    return std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(def)) {
    auto l = strideOf(sub.getLhs()), r = strideOf(sub.getRhs());
    if (l && r)
      return *l - *r;
    return std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    auto l = strideOf(mul.getLhs()), r = strideOf(mul.getRhs());
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
    return strideOf(def->getOperand(0));
  return std::nullopt;
}

std::optional<int64_t> ContiguityAnalysis::loopCarriedStride(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (loops != LoopCarriedStrides::Inductive || !arg || refuted.contains(value))
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
    return std::nullopt;
  unsigned index = arg.getArgNumber() - 1;
  std::optional<int64_t> initial = strideOf(loop.getInitArgs()[index]);
  if (!initial)
    return std::nullopt;
  cache[value] = initial; // the induction hypothesis
  if (strideOf(loop.getBody()->getTerminator()->getOperand(index)) == initial)
    return initial;
  refuted.insert(value);
  assumptionFailed = true;
  return std::nullopt;
}

} // namespace tessera::tile

#include "lowering/gpu/distribute/Rematerialize.h"

#include "lowering/gpu/ir/TileGpuDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

class Materializer {
public:
  explicit Materializer(OnDemandTiles &onDemand) : onDemand(onDemand) {}

  /// `value` in `layout`.
  Value materialize(Value value, const LinearLayout &layout);

private:
  Value convert(Value value, RankedTensorType type);
  Value rebuild(Value value, const LinearLayout &layout, RankedTensorType type);
  /// The layout the tile operand of on-demand `op` needs for its result to
  /// be in `layout`.
  LinearLayout operandLayout(Operation *op, const LinearLayout &layout);

  OnDemandTiles &onDemand;
  DenseMap<std::pair<Value, Type>, Value> made;
};

Value Materializer::materialize(Value value, const LinearLayout &layout) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return value;
  RankedTensorType wanted = withLayout(type, layout);
  if (value.getType() == wanted)
    return value;
  auto key = std::make_pair(value, Type(wanted));
  if (Value existing = made.lookup(key))
    return existing;
  Value result =
      onDemand.isOnDemand(value) ? rebuild(value, layout, wanted) : convert(value, wanted);
  made[key] = result;
  return result;
}

Value Materializer::convert(Value value, RankedTensorType type) {
  OpBuilder builder(value.getContext());
  builder.setInsertionPointAfterValue(value);
  return ConvertLayoutOp::create(builder, value.getLoc(), type, value);
}

LinearLayout Materializer::operandLayout(Operation *op, const LinearLayout &layout) {
  auto source = cast<RankedTensorType>(op->getOperand(0).getType());
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
    return layout.reduced(expand.getAxis()); // the inverse on a unit dimension
  if (isa<tile::ReshapeOp>(op))
    return layout.reshaped(source.getShape());
  if (auto trans = dyn_cast<tile::TransOp>(op))
    return layout.untransposed(trans.getOrder());
  if (isa<tile::BroadcastOp>(op))
    return layout.broadcastSource(source.getShape());
  return layout; // elementwise
}

Value Materializer::rebuild(Value value, const LinearLayout &layout, RankedTensorType type) {
  Operation *op = value.getDefiningOp();
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return arith::ConstantOp::create(builder, op->getLoc(), type,
                                     cast<DenseElementsAttr>(constant.getValue()).reshape(type));
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isa<RankedTensorType>(operand.getType())
                           ? materialize(operand, operandLayout(op, layout))
                           : operand);
  Operation *clone = builder.clone(*op);
  clone->setOperands(operands);
  for (Value result : clone->getResults())
    if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
      result.setType(withLayout(tensor, layout));
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

/// Replaces conversions to the type they start from and chains of
/// conversions, then erases every unused side-effect-free op that makes
/// tiles: the originals of rebuilt tiles and conversions nobody reads.
void foldConversionsAndErase(tile::FuncOp kernel) {
  kernel.walk([](ConvertLayoutOp op) {
    while (auto producer = op.getSrc().getDefiningOp<ConvertLayoutOp>())
      op.getSrcMutable().assign(producer.getSrc());
    if (op.getSrc().getType() == op.getType())
      op.replaceAllUsesWith(op.getSrc());
  });
  for (bool erased = true; erased;) {
    erased = false;
    SmallVector<Operation *> dead;
    kernel.walk([&](Operation *op) {
      bool makesTiles = llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
      if (makesTiles && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    erased = !dead.empty();
  }
}

} // namespace

void applyLayouts(tile::FuncOp kernel, const LayoutAssignment &assignment,
                  OnDemandTiles &onDemand) {
  for (auto &[fixedValue, layout] : assignment.fixed) {
    Value value = fixedValue;
    value.setType(withLayout(cast<RankedTensorType>(value.getType()), layout));
  }
  // In program order, so that the rebuilt ops and conversions come out in a
  // stable order.
  SmallVector<std::pair<OpOperand *, LinearLayout>> demands;
  kernel.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto it = assignment.demands.find(&operand);
      if (it != assignment.demands.end())
        demands.emplace_back(&operand, it->second);
    }
  });
  Materializer materializer(onDemand);
  for (auto &[operand, layout] : demands)
    operand->set(materializer.materialize(operand->get(), layout));
  foldConversionsAndErase(kernel);
}

} // namespace tessera::gpu

// expand_dims, reshape, trans, broadcast, join, split and cat move no data
// between threads: their operand and result layouts (chosen together by
// tile-gpu-assign-layouts) let each result register copy one operand register
// of the same thread. Which one is computed at compile time from the
// layouts; layouts that do not allow it are reported.
#include "lowering/gpu/distribute/KernelLowering.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// Maps the result registers of `op` (result number `resultIndex`) to
/// operand registers and records them; `map` takes result coordinates to
/// (operand number, operand coordinates).
LogicalResult rename(KernelLowering &k, Operation *op, unsigned resultIndex, CoordinateMap map) {
  Value result = op->getResult(resultIndex);
  FailureOr<LinearLayout> resultLayout = k.layout(op, result);
  if (failed(resultLayout))
    return failure();
  SmallVector<LinearLayout> operandLayouts;
  for (Value operand : op->getOperands()) {
    FailureOr<LinearLayout> layout = k.layout(op, operand);
    if (failed(layout))
      return failure();
    operandLayouts.push_back(*layout);
  }
  std::optional<SmallVector<RegisterSource>> sources =
      registerRenaming(*resultLayout, operandLayouts, map);
  if (!sources) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "cannot be lowered without moving data between threads: result "
                                 "layout "
                              << resultLayout->str() << " does not match the operand layout";
    for (const LinearLayout &layout : operandLayouts)
      diag << " " << layout.str();
    diag << " (tile-gpu-assign-layouts must give them matching layouts)";
    return diag;
  }
  Registers regs;
  for (const RegisterSource &source : *sources)
    regs.push_back(k.registers(op->getOperand(source.operand))[source.reg]);

  Value base;
  if (isPointerLike(result.getType())) {
    base = k.pointerBase(op->getOperand(0));
    for (Value operand : op->getOperands())
      if (k.pointerBase(operand) != base)
        return k.unsupported(op, "combining pointers into different kernel arguments");
  }
  k.map(result, std::move(regs), base);
  return success();
}

ArrayRef<int64_t> shapeOf(Value tile) { return cast<RankedTensorType>(tile.getType()).getShape(); }

} // namespace

LogicalResult lowerShapeOp(KernelLowering &k, Operation *op, OpBuilder &) {
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    unsigned axis = expand.getAxis();
    return rename(k, op, 0, [&](const Basis &coords) {
      Basis source(coords);
      source.erase(source.begin() + axis);
      return std::pair(0u, source);
    });
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op)) {
    ArrayRef<int64_t> from = shapeOf(reshape.getSrc()), to = shapeOf(reshape.getResult());
    return rename(k, op, 0, [&](const Basis &coords) {
      return std::pair(0u, rowMajorCoordinates(from, rowMajorIndex(to, coords)));
    });
  }
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    ArrayRef<int32_t> order = trans.getOrder();
    return rename(k, op, 0, [&](const Basis &coords) {
      Basis source(coords.size(), 0);
      for (auto [dim, from] : llvm::enumerate(order))
        source[from] = coords[dim];
      return std::pair(0u, source);
    });
  }
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    ArrayRef<int64_t> from = shapeOf(broadcast.getSrc());
    return rename(k, op, 0, [&](const Basis &coords) {
      Basis source(coords);
      for (auto [dim, extent] : llvm::enumerate(from))
        if (extent == 1)
          source[dim] = 0;
      return std::pair(0u, source);
    });
  }
  if (isa<tile::JoinOp>(op)) {
    return rename(k, op, 0, [&](const Basis &coords) {
      Basis source(coords.begin(), coords.end() - 1);
      return std::pair(static_cast<unsigned>(coords.back()), source);
    });
  }
  if (isa<tile::SplitOp>(op)) {
    for (unsigned half = 0; half < 2; ++half)
      if (failed(rename(k, op, half, [&](const Basis &coords) {
            Basis source(coords);
            source.push_back(half);
            return std::pair(0u, source);
          })))
        return failure();
    return success();
  }
  auto cat = cast<tile::CatOp>(op);
  unsigned axis = cat.getAxis();
  int64_t half = shapeOf(cat.getLhs())[axis];
  return rename(k, op, 0, [&](const Basis &coords) {
    Basis source(coords);
    source[axis] = coords[axis] % half;
    return std::pair(static_cast<unsigned>(coords[axis] / half), source);
  });
}

} // namespace tessera::gpu

// scf.for, scf.if and scf.while are rebuilt with every tile operand, result
// and block argument flattened into its registers. Scalars are the same in
// every thread, so the control flow stays uniform and the barriers inside it
// are reached by all threads. A pointer carried through a loop or out of a
// branch keeps its base argument: only the offsets travel.
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// Values flowing back into `bases` (loop-carried pointers) must keep them.
LogicalResult checkSameBases(KernelLowering &k, Operation *op, ValueRange values,
                             ArrayRef<Value> bases) {
  for (auto [value, base] : llvm::zip(values, bases))
    if (k.pointerBase(value) != base)
      return k.unsupported(op, "a pointer that points into another kernel argument on another path");
  return success();
}

LogicalResult lowerFor(KernelLowering &k, scf::ForOp op, OpBuilder &builder) {
  FailureOr<bool> pipelined = lowerPipelinedFor(k, op, builder);
  if (failed(pipelined))
    return failure();
  if (*pipelined)
    return success();
  if (failed(k.flatTypes(op, op.getResultTypes())))
    return failure();
  SmallVector<Value> bases = k.pointerBases(op.getInitArgs());
  LogicalResult bodyResult = success();
  auto loop = scf::ForOp::create(
      builder, op.getLoc(), k.registers(op.getLowerBound()).front(),
      k.registers(op.getUpperBound()).front(), k.registers(op.getStep()).front(),
      k.flatRegisters(op.getInitArgs()),
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        k.map(op.getInductionVar(), {iv});
        k.mapFlat(op.getRegionIterArgs(), args, bases);
        Block &original = *op.getBody();
        if (failed(k.lowerBlock(original, body)) ||
            failed(checkSameBases(k, op, original.getTerminator()->getOperands(), bases))) {
          bodyResult = failure();
          return;
        }
        scf::YieldOp::create(body, loc, k.flatRegisters(original.getTerminator()->getOperands()));
      });
  if (failed(bodyResult))
    return failure();
  k.mapFlat(op.getResults(), loop.getResults(), bases);
  return success();
}

LogicalResult lowerIf(KernelLowering &k, scf::IfOp op, OpBuilder &builder) {
  FailureOr<SmallVector<Type>> types = k.flatTypes(op, op.getResultTypes());
  if (failed(types))
    return failure();
  bool hasElse = !op.getElseRegion().empty();
  auto ifOp = scf::IfOp::create(builder, op.getLoc(), *types,
                                k.registers(op.getCondition()).front(), hasElse);
  SmallVector<Value> bases;
  for (auto [from, to] : {std::pair(&op.getThenRegion(), &ifOp.getThenRegion()),
                          std::pair(&op.getElseRegion(), &ifOp.getElseRegion())}) {
    if (from->empty())
      continue;
    Block &block = to->front();
    if (!block.empty())
      block.getTerminator()->erase();
    OpBuilder body = OpBuilder::atBlockEnd(&block);
    Block &original = from->front();
    if (failed(k.lowerBlock(original, body)))
      return failure();
    ValueRange yielded = original.getTerminator()->getOperands();
    if (bases.empty())
      bases = k.pointerBases(yielded);
    else if (failed(checkSameBases(k, op, yielded, bases)))
      return failure();
    scf::YieldOp::create(body, op.getLoc(), k.flatRegisters(yielded));
  }
  if (bases.empty())
    bases.assign(op.getNumResults(), Value());
  k.mapFlat(op.getResults(), ifOp.getResults(), bases);
  return success();
}

LogicalResult lowerWhile(KernelLowering &k, scf::WhileOp op, OpBuilder &builder) {
  FailureOr<SmallVector<Type>> resultTypes = k.flatTypes(op, op.getResultTypes());
  if (failed(resultTypes))
    return failure();
  SmallVector<Value> initBases = k.pointerBases(op.getInits());
  SmallVector<Value> resultBases;
  LogicalResult regionsResult = success();
  auto loop = scf::WhileOp::create(
      builder, op.getLoc(), *resultTypes, k.flatRegisters(op.getInits()),
      [&](OpBuilder &before, Location loc, ValueRange args) {
        k.mapFlat(op.getBeforeArguments(), args, initBases);
        auto condition = cast<scf::ConditionOp>(op.getBeforeBody()->getTerminator());
        if (failed(k.lowerBlock(*op.getBeforeBody(), before))) {
          regionsResult = failure();
          return;
        }
        resultBases = k.pointerBases(condition.getArgs());
        scf::ConditionOp::create(before, loc, k.registers(condition.getCondition()).front(),
                                 k.flatRegisters(condition.getArgs()));
      },
      [&](OpBuilder &after, Location loc, ValueRange args) {
        if (failed(regionsResult))
          return;
        k.mapFlat(op.getAfterArguments(), args, resultBases);
        Block &original = *op.getAfterBody();
        if (failed(k.lowerBlock(original, after)) ||
            failed(checkSameBases(k, op, original.getTerminator()->getOperands(), initBases))) {
          regionsResult = failure();
          return;
        }
        scf::YieldOp::create(after, loc, k.flatRegisters(original.getTerminator()->getOperands()));
      });
  if (failed(regionsResult))
    return failure();
  k.mapFlat(op.getResults(), loop.getResults(), resultBases);
  return success();
}

} // namespace

LogicalResult lowerControlFlow(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(k, forOp, builder);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(k, ifOp, builder);
  return lowerWhile(k, cast<scf::WhileOp>(op), builder);
}

} // namespace tessera::gpu

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

/// The register types of values of `types`, in order.
FailureOr<SmallVector<Type>> flatTypes(KernelLowering &k, Operation *op, TypeRange types) {
  SmallVector<Type> flat;
  for (Type type : types) {
    if (isa<tile::TensorDescType>(type))
      return k.unsupported(op, "a tensor descriptor carried through control flow");
    FailureOr<unsigned> count = k.numRegisters(op, type);
    if (failed(count))
      return failure();
    flat.append(*count, KernelLowering::registerType(type));
  }
  return flat;
}

SmallVector<Value> flatten(KernelLowering &k, ValueRange values) {
  SmallVector<Value> flat;
  for (Value value : values)
    llvm::append_range(flat, k.registers(value));
  return flat;
}

SmallVector<Value> basesOf(KernelLowering &k, ValueRange values) {
  return llvm::map_to_vector(values, [&](Value value) { return k.pointerBase(value); });
}

/// Maps each of `originals` to its slice of `flat`, with pointer bases.
void mapSlices(KernelLowering &k, ValueRange originals, ValueRange flat, ArrayRef<Value> bases) {
  unsigned next = 0;
  for (auto [original, base] : llvm::zip(originals, bases)) {
    unsigned count = isa<RankedTensorType>(original.getType())
                         ? layoutOf(original.getType())->numRegisters()
                         : 1;
    Registers regs(flat.begin() + next, flat.begin() + next + count);
    next += count;
    k.map(original, std::move(regs), base);
  }
}

/// Values flowing back into `bases` (loop-carried pointers) must keep them.
LogicalResult checkSameBases(KernelLowering &k, Operation *op, ValueRange values,
                             ArrayRef<Value> bases) {
  for (auto [value, base] : llvm::zip(values, bases))
    if (k.pointerBase(value) != base)
      return k.unsupported(op, "a pointer that points into another kernel argument on another path");
  return success();
}

LogicalResult lowerFor(KernelLowering &k, scf::ForOp op, OpBuilder &builder) {
  if (failed(flatTypes(k, op, op.getResultTypes())))
    return failure();
  SmallVector<Value> bases = basesOf(k, op.getInitArgs());
  LogicalResult bodyResult = success();
  auto loop = scf::ForOp::create(
      builder, op.getLoc(), k.registers(op.getLowerBound()).front(),
      k.registers(op.getUpperBound()).front(), k.registers(op.getStep()).front(),
      flatten(k, op.getInitArgs()),
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        k.map(op.getInductionVar(), {iv});
        mapSlices(k, op.getRegionIterArgs(), args, bases);
        Block &original = *op.getBody();
        if (failed(k.lowerBlock(original, body)) ||
            failed(checkSameBases(k, op, original.getTerminator()->getOperands(), bases))) {
          bodyResult = failure();
          return;
        }
        scf::YieldOp::create(body, loc, flatten(k, original.getTerminator()->getOperands()));
      });
  if (failed(bodyResult))
    return failure();
  mapSlices(k, op.getResults(), loop.getResults(), bases);
  return success();
}

LogicalResult lowerIf(KernelLowering &k, scf::IfOp op, OpBuilder &builder) {
  FailureOr<SmallVector<Type>> types = flatTypes(k, op, op.getResultTypes());
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
      bases = basesOf(k, yielded);
    else if (failed(checkSameBases(k, op, yielded, bases)))
      return failure();
    scf::YieldOp::create(body, op.getLoc(), flatten(k, yielded));
  }
  if (bases.empty())
    bases.assign(op.getNumResults(), Value());
  mapSlices(k, op.getResults(), ifOp.getResults(), bases);
  return success();
}

LogicalResult lowerWhile(KernelLowering &k, scf::WhileOp op, OpBuilder &builder) {
  FailureOr<SmallVector<Type>> resultTypes = flatTypes(k, op, op.getResultTypes());
  if (failed(resultTypes))
    return failure();
  SmallVector<Value> initBases = basesOf(k, op.getInits());
  SmallVector<Value> resultBases;
  LogicalResult regionsResult = success();
  auto loop = scf::WhileOp::create(
      builder, op.getLoc(), *resultTypes, flatten(k, op.getInits()),
      [&](OpBuilder &before, Location loc, ValueRange args) {
        mapSlices(k, op.getBeforeArguments(), args, initBases);
        auto condition = cast<scf::ConditionOp>(op.getBeforeBody()->getTerminator());
        if (failed(k.lowerBlock(*op.getBeforeBody(), before))) {
          regionsResult = failure();
          return;
        }
        resultBases = basesOf(k, condition.getArgs());
        scf::ConditionOp::create(before, loc, k.registers(condition.getCondition()).front(),
                                 flatten(k, condition.getArgs()));
      },
      [&](OpBuilder &after, Location loc, ValueRange args) {
        if (failed(regionsResult))
          return;
        mapSlices(k, op.getAfterArguments(), args, resultBases);
        Block &original = *op.getAfterBody();
        if (failed(k.lowerBlock(original, after)) ||
            failed(checkSameBases(k, op, original.getTerminator()->getOperands(), initBases))) {
          regionsResult = failure();
          return;
        }
        scf::YieldOp::create(after, loc, flatten(k, original.getTerminator()->getOperands()));
      });
  if (failed(regionsResult))
    return failure();
  mapSlices(k, op.getResults(), loop.getResults(), resultBases);
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

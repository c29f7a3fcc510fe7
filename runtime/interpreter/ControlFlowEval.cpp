// Structured control flow (scf.for, scf.if, scf.while) and calls of device
// functions. Terminators are not run as ops: runRegion hands back their operands.
#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace tessera::interp {
namespace {

SmallVector<RuntimeValue> valuesOf(Executor &exec, ValueRange values) {
  SmallVector<RuntimeValue> result;
  for (Value value : values) {
    if (isa<tile::TensorDescType>(value.getType()))
      result.push_back(exec.descriptor(value));
    else
      result.push_back(exec.tile(value));
  }
  return result;
}

void bindAll(Executor &exec, ValueRange values, ArrayRef<RuntimeValue> runtime) {
  for (auto [value, rt] : llvm::zip_equal(values, runtime))
    exec.bind(value, rt);
}

llvm::Error runFor(Executor &exec, scf::ForOp op) {
  unsigned width = intWidth(op.getLowerBound().getType());
  int64_t lower = signExtend(exec.tile(op.getLowerBound()).at(0).bits, width);
  int64_t upper = signExtend(exec.tile(op.getUpperBound()).at(0).bits, width);
  int64_t step = signExtend(exec.tile(op.getStep()).at(0).bits, width);
  if (step <= 0)
    return exec.fail(op, "scf.for step must be positive, got " + llvm::Twine(step));
  bool isUnsigned = op.getUnsignedCmp();
  SmallVector<RuntimeValue> carried = valuesOf(exec, op.getInitArgs());
  for (int64_t iv = lower;
       isUnsigned ? static_cast<uint64_t>(iv) < static_cast<uint64_t>(upper) : iv < upper;
       iv += step) {
    SmallVector<RuntimeValue> args;
    args.push_back(Tile::scalar(op.getInductionVar().getType(), makeInt(iv, width)));
    args.append(carried.begin(), carried.end());
    auto yielded = exec.runRegion(op.getRegion(), args);
    if (!yielded)
      return yielded.takeError();
    carried = std::move(*yielded);
  }
  bindAll(exec, op.getResults(), carried);
  return llvm::Error::success();
}

llvm::Error runIf(Executor &exec, scf::IfOp op) {
  bool taken = exec.tile(op.getCondition()).at(0).bits != 0;
  Region &region = taken ? op.getThenRegion() : op.getElseRegion();
  if (region.empty())
    return llvm::Error::success();
  auto yielded = exec.runRegion(region, {});
  if (!yielded)
    return yielded.takeError();
  bindAll(exec, op.getResults(), *yielded);
  return llvm::Error::success();
}

llvm::Error runWhile(Executor &exec, scf::WhileOp op) {
  SmallVector<RuntimeValue> carried = valuesOf(exec, op.getInits());
  while (true) {
    auto before = exec.runRegion(op.getBefore(), carried);
    if (!before)
      return before.takeError();
    // scf.condition's operands: the condition, then the values passed on.
    bool proceed = std::get<Tile>(before->front()).at(0).bits != 0;
    SmallVector<RuntimeValue> forwarded(std::next(before->begin()), before->end());
    if (!proceed) {
      bindAll(exec, op.getResults(), forwarded);
      return llvm::Error::success();
    }
    auto after = exec.runRegion(op.getAfter(), forwarded);
    if (!after)
      return after.takeError();
    carried = std::move(*after);
  }
}

llvm::Error runCall(Executor &exec, tile::CallOp op) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<tile::FuncOp>(op, op.getCalleeAttr());
  if (!callee || callee.isExternal())
    return exec.fail(op, "callee @" + op.getCallee() + " has no body to interpret");
  auto results = exec.call(callee, valuesOf(exec, op.getOperands()));
  if (!results)
    return results.takeError();
  bindAll(exec, op.getResults(), *results);
  return llvm::Error::success();
}

} // namespace

void registerControlFlowHandlers(HandlerTable &table) {
  table.add<scf::ForOp>(runFor);
  table.add<scf::IfOp>(runIf);
  table.add<scf::WhileOp>(runWhile);
  table.add<tile::CallOp>(runCall);
}

} // namespace tessera::interp

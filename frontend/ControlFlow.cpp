// KernelBuilder: structured control flow (scf.for, scf.if, scf.while).
//
// Region bodies are built by user callbacks that may throw. They never run
// inside an MLIR body-builder callback (MLIR is built without exceptions, so
// unwinding through it would skip its cleanups): each op is created with empty
// regions first, then filled here, with insertion guards restoring the
// builder while an error unwinds.
#include "frontend/KernelBuilder.h"
#include "frontend/Typing.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::frontend {

static std::string typeList(TypeRange types) {
  std::string text = "(";
  for (auto [index, type] : llvm::enumerate(types))
    text += (index ? ", " : "") + KernelBuilder::str(type);
  return text + ")";
}

// Checks that a region yields values of the types it carries.
static void checkCarried(const KernelBuilder &kb, const char *what, TypeRange expected,
                         ArrayRef<Value> yielded, const SourceLocation &loc) {
  if (yielded.size() != expected.size())
    kb.fail(loc, std::string(what) + " body yields " + std::to_string(yielded.size()) +
                     " value(s) for " + std::to_string(expected.size()) + " carried value(s)");
  for (auto [index, pair] : llvm::enumerate(llvm::zip(expected, yielded))) {
    auto [type, value] = pair;
    if (value.getType() != type)
      kb.fail(loc, std::string(what) + ": carried value #" + std::to_string(index) +
                       " enters as " + KernelBuilder::str(type) + " but the body yields " +
                       KernelBuilder::str(value.getType()));
  }
}

static SmallVector<Value> valuesOf(ValueRange range) { return {range.begin(), range.end()}; }

static SmallVector<Type> typesOf(ArrayRef<Value> values) {
  SmallVector<Type> types;
  for (Value value : values)
    types.push_back(value.getType());
  return types;
}

std::vector<Value> KernelBuilder::forLoop(Value lo, Value hi, Value step, ArrayRef<Value> inits,
                                          const LoopBody &body, const SourceLocation &loc,
                                          LoopHints hints) {
  Type ivType = builder_.getI32Type();
  for (Value bound : {lo, hi, step}) {
    if (isa<RankedTensorType>(bound.getType()) || !typing::isInteger(bound.getType()) ||
        typing::isBool(bound.getType()))
      fail(loc, "for loop bounds must be scalar integers, got " + str(bound.getType()));
    ivType = typing::promote(ivType, bound.getType());
  }
  // scf.for takes the integer bounds directly (as Triton's loops do), so the
  // induction variable needs no index conversions.
  auto forOp = scf::ForOp::create(builder_, at(loc), cast(lo, ivType, loc), cast(hi, ivType, loc),
                                  cast(step, ivType, loc), inits);
  if (hints.flatten)
    forOp->setAttr(tile::TileDialect::kFlattenAttr, builder_.getUnitAttr());
  if (hints.warpSpecialize)
    forOp->setAttr(tile::TileDialect::kWarpSpecializeAttr, builder_.getUnitAttr());
  if (hints.numStages)
    forOp->setAttr(tile::TileDialect::kNumStagesAttr, builder_.getI32IntegerAttr(hints.numStages));
  Block *block = forOp.getBody();
  if (block->mightHaveTerminator())
    block->getTerminator()->erase();
  OpBuilder::InsertionGuard guard(builder_);
  builder_.setInsertionPointToEnd(block);
  std::vector<Value> yielded = body(forOp.getInductionVar(), valuesOf(forOp.getRegionIterArgs()));
  checkCarried(*this, "for loop", forOp.getResultTypes(), yielded, loc);
  scf::YieldOp::create(builder_, at(loc), yielded);
  return {forOp.getResults().begin(), forOp.getResults().end()};
}

std::vector<Value> KernelBuilder::ifThenElse(Value cond, const Branch &thenBranch,
                                             const Branch &elseBranch, const SourceLocation &loc) {
  if (cond.getType() != builder_.getI1Type())
    fail(loc, "if needs a scalar boolean condition, got " + str(cond.getType()) +
                  (isa<RankedTensorType>(cond.getType()) ? "; choose between tiles with where()" : ""));
  Location where = at(loc);
  // The result types are known only once the branches are built: build them
  // in a result-less scf.if, then move them into one with results.
  auto draft = scf::IfOp::create(builder_, where, TypeRange{}, cond, /*withElseRegion=*/true);
  auto fill = [&](Block *block, const Branch &branch) {
    if (block->mightHaveTerminator())
      block->getTerminator()->erase();
    OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToEnd(block);
    return branch ? branch() : std::vector<Value>{};
  };
  std::vector<Value> thenValues = fill(draft.thenBlock(), thenBranch);
  std::vector<Value> elseValues = fill(draft.elseBlock(), elseBranch);
  if (!elseBranch && !thenValues.empty())
    fail(loc, "an if without else cannot yield values");
  SmallVector<Type> types = typesOf(thenValues);
  if (types != typesOf(elseValues))
    fail(loc, "if/else branches yield different types: then yields " + typeList(types) +
                  ", else yields " + typeList(typesOf(elseValues)));
  {
    OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToEnd(draft.thenBlock());
    scf::YieldOp::create(builder_, where, thenValues);
    builder_.setInsertionPointToEnd(draft.elseBlock());
    scf::YieldOp::create(builder_, where, elseValues);
  }
  auto ifOp = scf::IfOp::create(builder_, where, types, cond, /*addThenBlock=*/false,
                                /*addElseBlock=*/false);
  ifOp.getThenRegion().takeBody(draft.getThenRegion());
  if (elseBranch)
    ifOp.getElseRegion().takeBody(draft.getElseRegion());
  draft.erase();
  return {ifOp.getResults().begin(), ifOp.getResults().end()};
}

std::vector<Value> KernelBuilder::whileLoop(ArrayRef<Value> inits, const Region &cond,
                                            const Region &body, const SourceLocation &loc) {
  Location where = at(loc);
  SmallVector<Type> types = typesOf(inits);
  SmallVector<Location> locs(types.size(), where);
  auto whileOp = scf::WhileOp::create(builder_, where, types, inits);
  OpBuilder::InsertionGuard guard(builder_);

  Block *before = builder_.createBlock(&whileOp.getBefore(), {}, types, locs);
  std::vector<Value> condValues = cond(valuesOf(before->getArguments()));
  if (condValues.size() != 1 || condValues[0].getType() != builder_.getI1Type())
    fail(loc, "while condition must give one scalar boolean, got " +
                  typeList(typesOf(condValues)));
  scf::ConditionOp::create(builder_, where, condValues[0], before->getArguments());

  Block *after = builder_.createBlock(&whileOp.getAfter(), {}, types, locs);
  std::vector<Value> yielded = body(valuesOf(after->getArguments()));
  checkCarried(*this, "while loop", types, yielded, loc);
  scf::YieldOp::create(builder_, where, yielded);
  return {whileOp.getResults().begin(), whileOp.getResults().end()};
}

} // namespace tessera::frontend

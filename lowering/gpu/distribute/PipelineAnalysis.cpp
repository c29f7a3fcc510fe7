#include "lowering/gpu/distribute/PipelinedLoop.h"

#include "lowering/gpu/distribute/LoadsReadBack.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace tessera::gpu::pipelining {

namespace {

/// `op` as a staged load: one whose elements outside fill with zeros (what
/// cp.async writes there), or with `nanPaddedDescriptors` (TMA's NaN fill at
/// hand) a descriptor load padded with NaN.
std::optional<StagedLoad> stagedLoadOf(Operation *op, bool nanPaddedDescriptors) {
  if (!isa<tile::LoadOp, tile::DescriptorLoadOp>(op))
    return std::nullopt;
  if (!fillsWithZero(op) && !(nanPaddedDescriptors && isa<tile::DescriptorLoadOp>(op)))
    return std::nullopt;
  Value result = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  // Elements go to shared memory as they are (no i1 or pointer widening).
  if (!type || type.getRank() != 2 || !type.getElementType().isIntOrFloat() ||
      sharedElementType(type.getElementType()) != type.getElementType() || !result.hasOneUse())
    return std::nullopt;
  Operation *user = *result.getUsers().begin();
  auto trans = dyn_cast<tile::TransOp>(user);
  if (trans) {
    if (trans.getOrder() != ArrayRef<int32_t>{1, 0} || !trans.getResult().hasOneUse() ||
        trans->getBlock() != op->getBlock())
      return std::nullopt;
    result = trans.getResult();
    user = *result.getUsers().begin();
  }
  auto dot = dyn_cast<tile::DotOp>(user);
  if (!dot || dot->getBlock() != op->getBlock() || dot.getA() == dot.getB())
    return std::nullopt;
  if (dot.getA() == result)
    return StagedLoad{op, trans, dot, DotOperand::A};
  if (dot.getB() == result)
    return StagedLoad{op, trans, dot, DotOperand::B};
  return std::nullopt;
}

} // namespace

std::optional<PipelineAnalysis> analyzePipeline(scf::ForOp loop, bool dotless,
                                                bool nanPaddedDescriptors,
                                                function_ref<bool(Operation *)> readsBack) {
  if (loop.getUnsignedCmp())
    return std::nullopt;
  Block *body = loop.getBody();
  PipelineAnalysis analysis;
  llvm::DenseSet<Operation *> stagedOps;
  for (Operation &op : body->without_terminator())
    if (std::optional<StagedLoad> staged = stagedLoadOf(&op, nanPaddedDescriptors)) {
      analysis.loads.push_back(*staged);
      stagedOps.insert(&op);
      if (staged->trans)
        stagedOps.insert(staged->trans);
    }
  if (analysis.loads.empty() && !dotless)
    return std::nullopt;
  // A load whose value only goes to the next iteration was issued ahead by
  // tile-gpu-prefetch-loads already: copied ahead again it gains nothing.
  auto onlyCarried = [](tile::LoadOp load) {
    return llvm::all_of(load->getUsers(), [](Operation *user) { return isa<scf::YieldOp>(user); });
  };
  if (readsBack)
    for (tile::LoadOp load : loadsReadBack(body))
      if (!stagedOps.contains(load) && readsBack(load) && !onlyCarried(load)) {
        StagedLoad staged;
        staged.load = load;
        staged.readBack = true;
        analysis.loads.push_back(staged);
        stagedOps.insert(load);
      }
  if (analysis.loads.empty())
    return std::nullopt;

  // Walks backwards from `worklist` through the body: every iteration
  // argument reached goes into `iterArgs` (and its yielded value is walked),
  // every op of the loop reached goes to `visit`, which may refuse it.
  auto walkBack = [&](SmallVector<Value> worklist, llvm::SmallDenseSet<unsigned> &iterArgs,
                      llvm::function_ref<LogicalResult(Operation *, SmallVector<Value> &)> visit) {
    llvm::DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second || value == loop.getInductionVar())
        continue;
      auto arg = dyn_cast<BlockArgument>(value);
      if (arg && arg.getOwner() == body) {
        iterArgs.insert(arg.getArgNumber() - 1);
        worklist.push_back(body->getTerminator()->getOperand(arg.getArgNumber() - 1));
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (def && loop->isProperAncestor(def) && failed(visit(def, worklist)))
        return failure();
    }
    return success();
  };

  // The address slice: backwards from the staged loads' operands (a
  // descriptor made in the body is made again for the later iteration).
  SmallVector<Value> loadOperands;
  for (const StagedLoad &staged : analysis.loads)
    llvm::append_range(loadOperands, staged.load->getOperands());
  llvm::SmallDenseSet<unsigned> recurrence;
  llvm::DenseSet<Operation *> slice;
  LogicalResult sliced =
      walkBack(loadOperands, recurrence, [&](Operation *def, SmallVector<Value> &worklist) {
        if (def->getBlock() != body || stagedOps.contains(def) ||
            !tile::hasNoEffectsButPromises(def))
          return failure();
        analysis.speculatableAddresses &= isSpeculatable(def);
        slice.insert(def);
        llvm::append_range(worklist, def->getOperands());
        // A branch that computes addresses (a persistent loop moving to its
        // next tile) reads what its regions use too.
        llvm::SetVector<Value> captured;
        getUsedValuesDefinedAbove(def->getRegions(), captured);
        llvm::append_range(worklist, captured);
        return success();
      });
  if (failed(sliced))
    return std::nullopt;
  for (Operation &op : body->without_terminator())
    if (slice.contains(&op))
      analysis.addressOps.insert(&op);
  analysis.recurrence.assign(recurrence.begin(), recurrence.end());
  llvm::sort(analysis.recurrence);

  // What the current iteration needs: ops with effects (other than the
  // staged loads) and the loop's used results, backwards.
  auto need = [&](Operation *op, SmallVector<Value> &worklist) {
    if (op->getBlock() != body || stagedOps.contains(op) || !analysis.liveOps.insert(op).second)
      return success();
    llvm::append_range(worklist, op->getOperands());
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    llvm::append_range(worklist, captured);
    return success();
  };
  SmallVector<Value> roots;
  for (Operation &op : body->without_terminator())
    if (!stagedOps.contains(&op) && !isMemoryEffectFree(&op))
      (void)need(&op, roots);
  for (OpResult result : loop->getResults())
    if (!result.use_empty())
      roots.push_back(body->getArgument(result.getResultNumber() + 1));
  llvm::SmallDenseSet<unsigned> carried;
  (void)walkBack(roots, carried, need);
  analysis.carried.assign(carried.begin(), carried.end());
  llvm::sort(analysis.carried);
  return analysis;
}

} // namespace tessera::gpu::pipelining

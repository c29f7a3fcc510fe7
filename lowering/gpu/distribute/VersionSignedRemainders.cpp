// tile-gpu-version-signed-remainders: the rest of a block after the scalars
// that decide the sign of its signed remainders' dividends, in two versions,
// so that the version every ordinary launch runs copies its runs unchecked
// (docs/gpu-backends.md, "Remainders of a dividend of unknown sign").
#include "lowering/gpu/distribute/Passes.h"

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TILEGPUVERSIONSIGNEDREMAINDERS
#include "lowering/gpu/distribute/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// Whether the analysis holds `remainder`'s runs consecutive only where
/// their endpoints are, along any dimension.
bool hasCheckedRuns(arith::RemSIOp remainder, tile::ContiguityAnalysis &contiguity) {
  auto type = dyn_cast<RankedTensorType>(remainder.getType());
  if (!type)
    return false;
  for (unsigned dim = 0; dim < type.getRank(); ++dim)
    if (contiguity.piecesAlong(remainder.getResult(), dim).checkEndpoints)
      return true;
  return false;
}

/// The signed remainders with checked runs that `pointer` is computed from,
/// through the values loops and branches carry.
void collectCheckedRemainders(Value pointer, tile::ContiguityAnalysis &contiguity,
                              llvm::SetVector<Operation *> &found) {
  SmallVector<Value> work{pointer};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!isa<RankedTensorType>(value.getType()) || !seen.insert(value).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (loop && arg.getArgNumber() > 0) {
        unsigned index = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[index]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(index));
      }
      continue;
    }
    Operation *def = value.getDefiningOp();
    unsigned result = cast<OpResult>(value).getResultNumber();
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      work.push_back(loop.getRegionIterArgs()[result]);
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      work.push_back(branch.thenYield().getOperand(result));
      if (branch.elseBlock())
        work.push_back(branch.elseYield().getOperand(result));
      continue;
    }
    if (auto remainder = dyn_cast<arith::RemSIOp>(def);
        remainder && hasCheckedRuns(remainder, contiguity))
      found.insert(remainder);
    llvm::append_range(work, def->getOperands());
  }
}

/// Adds to `leaves` the integer scalars whose being non-negative makes
/// `value` non-negative by the analysis's rules (through splats, broadcasts,
/// sums and products); false where a part of it is neither proved
/// non-negative nor such a scalar.
bool collectSignLeaves(Value value, tile::ContiguityAnalysis &contiguity,
                       llvm::SetVector<Value> &leaves) {
  if (contiguity.piecesOf(value).nonNegative)
    return true;
  if (!isa<ShapedType>(value.getType())) {
    if (!value.getType().isSignlessIntOrIndex())
      return false;
    leaves.insert(value);
    return true;
  }
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp>(def))
    return collectSignLeaves(def->getOperand(0), contiguity, leaves) &&
           collectSignLeaves(def->getOperand(1), contiguity, leaves);
  if (isa_and_nonnull<tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp, arith::ExtSIOp>(def))
    return collectSignLeaves(def->getOperand(0), contiguity, leaves);
  return false;
}

/// A block whose ops from `first` to its terminator run in two versions,
/// the first where every leaf is non-negative.
struct Versioning {
  Operation *first = nullptr;
  llvm::SetVector<Value> leaves;
};

/// Whether each thread of the kernel for `target` accesses `pointer`'s
/// elements in runs of more than one (by the layout it was given).
bool accessedInRuns(Value pointer, const tessera::gpu::GpuTarget &target) {
  std::optional<tessera::gpu::LinearLayout> layout = tessera::gpu::layoutOf(pointer.getType());
  Type element = getElementTypeOrSelf(tile::getPointeeType(pointer.getType()));
  return layout && tessera::gpu::vectorAccessWidth(target, *layout, element) > 1;
}

/// Whether `op` is `first` or after it in `first`'s block, or nested in
/// such an op.
bool atOrAfter(Operation *first, Operation &op) {
  Operation *inBlock = first->getBlock()->findAncestorOpInBlock(op);
  return inBlock && (inBlock == first || first->isBeforeInBlock(inBlock));
}

/// The versioning that removes the run checks of `kernel`'s accesses
/// inside loops, if there is one.
std::optional<Versioning> planVersioning(tile::FuncOp kernel,
                                         const tessera::gpu::GpuTarget &target,
                                         tile::ContiguityAnalysis &contiguity) {
  llvm::SetVector<Operation *> remainders;
  SmallVector<Operation *> accesses;
  kernel.walk([&](Operation *op) {
    Value pointer;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      pointer = load.getPtr();
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      pointer = store.getPtr();
    if (pointer && isa<RankedTensorType>(pointer.getType()) &&
        op->getParentOfType<scf::ForOp>() && accessedInRuns(pointer, target) &&
        contiguity.contiguousRuns(pointer).checkEndpoints) {
      accesses.push_back(op);
      collectCheckedRemainders(pointer, contiguity, remainders);
    }
  });
  if (remainders.empty())
    return std::nullopt;
  Block *block = remainders.front()->getBlock();
  Versioning versioning;
  for (Operation *remainder : remainders)
    if (remainder->getBlock() != block ||
        !collectSignLeaves(remainder->getOperand(0), contiguity, versioning.leaves))
      return std::nullopt;
  // After every leaf this block defines; the remainders must come later.
  Operation *lastLeaf = nullptr;
  for (Value leaf : versioning.leaves) {
    Operation *def = leaf.getDefiningOp();
    Operation *inBlock = def ? block->findAncestorOpInBlock(*def) : nullptr;
    if (inBlock && (!lastLeaf || lastLeaf->isBeforeInBlock(inBlock)))
      lastLeaf = inBlock;
  }
  versioning.first = lastLeaf ? lastLeaf->getNextNode() : &block->front();
  auto inVersions = [&](Operation *op) { return atOrAfter(versioning.first, *op); };
  // A remainder computed once per tile of a flattened loop, under an `if`
  // whose results the loop carries, is versioned in vain: the loop's
  // accesses read both branches' offsets.
  if (!llvm::all_of(remainders, inVersions) || !llvm::any_of(accesses, inVersions))
    return std::nullopt;
  return versioning;
}

void version(const Versioning &versioning) {
  Operation *first = versioning.first;
  Block *block = first->getBlock();
  Operation *terminator = block->getTerminator();
  SmallVector<Operation *> ops;
  for (Operation *op = first; op != terminator; op = op->getNextNode())
    ops.push_back(op);
  // The terminator's operands the versions compute: the `if` yields them.
  SmallVector<Value> carried;
  for (Value operand : terminator->getOperands())
    if (Operation *def = operand.getDefiningOp(); def && atOrAfter(first, *def))
      carried.push_back(operand);

  OpBuilder builder(first);
  Location loc = first->getLoc();
  SmallVector<Value> zeros;
  Value allNonNegative;
  for (Value leaf : versioning.leaves) {
    zeros.push_back(
        arith::ConstantOp::create(builder, loc, builder.getZeroAttr(leaf.getType())));
    Value nonNegative =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, leaf, zeros.back());
    allNonNegative = allNonNegative
                         ? arith::AndIOp::create(builder, loc, allNonNegative, nonNegative)
                         : nonNegative;
  }
  auto branch = scf::IfOp::create(builder, loc, ValueRange(carried).getTypes(), allNonNegative,
                                  /*addThenBlock=*/true, /*addElseBlock=*/true);

  Block *orElse = branch.elseBlock();
  for (Operation *op : ops)
    op->moveBefore(orElse, orElse->end());
  builder.setInsertionPointToEnd(orElse);
  scf::YieldOp::create(builder, loc, carried);

  builder.setInsertionPointToEnd(branch.thenBlock());
  IRMapping mapping;
  for (auto [leaf, zero] : llvm::zip(versioning.leaves, zeros))
    mapping.map(leaf, arith::MaxSIOp::create(builder, loc, leaf, zero).getResult());
  for (Operation *op : ops)
    builder.clone(*op, mapping);
  SmallVector<Value> thenCarried;
  for (Value value : carried)
    thenCarried.push_back(mapping.lookup(value));
  scf::YieldOp::create(builder, loc, thenCarried);

  for (auto [value, result] : llvm::zip(carried, branch.getResults()))
    terminator->replaceUsesOfWith(value, result);
}

struct VersionSignedRemainders
    : tessera::gpu::impl::TileGpuVersionSignedRemaindersBase<VersionSignedRemainders> {
  void runOnOperation() override {
    // Planned on the unchanged module: the analysis caches what it has seen.
    tile::ContiguityAnalysis contiguity(tile::LoopCarriedStrides::Inductive);
    SmallVector<Versioning> versionings;
    for (auto kernel : getOperation().getOps<tile::FuncOp>()) {
      if (!kernel.isKernel())
        continue;
      FailureOr<tessera::gpu::GpuTarget> target = tessera::gpu::kernelTarget(kernel);
      if (failed(target))
        return signalPassFailure();
      if (std::optional<Versioning> versioning = planVersioning(kernel, *target, contiguity))
        versionings.push_back(std::move(*versioning));
    }
    for (const Versioning &versioning : versionings)
      version(versioning);
  }
};

} // namespace

#include "lowering/gpu/distribute/LayoutPropagation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// Rounds of the fixed-point iteration over loop-carried layouts. Two
/// suffice unless a loop body's yielded layout depends on its carried layout
/// in a cycle; then the last round's choice stands and yields are converted.
constexpr unsigned kMaxRounds = 8;

RankedTensorType tileType(Value value) { return dyn_cast<RankedTensorType>(value.getType()); }

bool isShapeView(Operation *op) {
  return isa<tile::ExpandDimsOp, tile::ReshapeOp, tile::TransOp, tile::BroadcastOp>(op);
}

/// Values that share one layout across a control-flow edge: the members get
/// it, the sources are demanded in it. The layout is the first of
/// `preference` that is fixed, so what a loop body yields wins over the
/// initial value (converting once before the loop beats converting every
/// iteration).
struct CarriedGroup {
  SmallVector<Value> members;
  SmallVector<OpOperand *> sources;
  SmallVector<Value> preference;
};

class Propagation {
public:
  Propagation(LayoutAnchors &anchors, OnDemandTiles &onDemand)
      : anchors(anchors), onDemand(onDemand) {}

  FailureOr<LayoutAssignment> run(tile::FuncOp kernel);

private:
  void collectGroups(tile::FuncOp kernel);
  void addGroup(Operation *owner, CarriedGroup group);
  LogicalResult visitBlock(Block &block);
  LogicalResult visit(Operation *op);
  LogicalResult visitRegionOp(Operation *op);
  void seedGroups(Operation *owner);

  std::optional<LinearLayout> layoutOf(Value value) const;
  void fix(Value value, const LinearLayout &layout) { assignment.fixed[value] = layout; }
  void demand(OpOperand &operand, const LinearLayout &layout);
  /// A tile that is neither on demand nor placed yet (it waits for a
  /// loop-carried layout of this round).
  bool isPending(Value value);
  /// The layout of the first operand with a fixed layout.
  std::optional<LinearLayout> firstFixed(ValueRange values) const;
  LinearLayout ownOrFallback(Value value);
  /// Demands every tile operand of `op` in `layout`.
  void demandAll(Operation *op, const LinearLayout &layout);
  /// The layout the uses of `value` ask for where it differs from the one it
  /// has (where a conversion would go), mapped back through the ops that
  /// derive their layout from it (elementwise ops, shape views).
  std::optional<LinearLayout> wantedByUses(Value value, unsigned depth = 0) const;
  /// Hints for the next round from this one's conversions; true when some
  /// hint changed.
  bool hintFromUses();
  InFlightDiagnostic unsupported(Operation *op, StringRef why);

  LayoutAnchors &anchors;
  OnDemandTiles &onDemand;
  SmallVector<CarriedGroup> groups;
  DenseMap<Operation *, SmallVector<unsigned>> groupsOf;
  DenseMap<Value, unsigned> groupOfMember;
  /// The layout each group got in the previous round.
  DenseMap<unsigned, LinearLayout> hints;
  /// Groups that nothing placed in the first round (no member or source had
  /// a layout of its own): they take what their uses convert them to.
  llvm::DenseSet<unsigned> freeGroups;
  /// Elementwise results whose operands all lacked a layout (all rebuilt on
  /// demand: the offsets made from a loop-carried tile, broadcast) fall back
  /// to the default layout, or to what their uses asked for in an earlier
  /// round.
  DenseMap<Value, LinearLayout> fallbackHints;
  llvm::SetVector<Value> fellBack;
  LayoutAssignment assignment;
};

std::optional<LinearLayout> Propagation::layoutOf(Value value) const {
  auto it = assignment.fixed.find(value);
  if (it == assignment.fixed.end())
    return std::nullopt;
  return it->second;
}

bool Propagation::isPending(Value value) {
  return tileType(value) && !onDemand.isOnDemand(value) && !layoutOf(value);
}

void Propagation::demand(OpOperand &operand, const LinearLayout &layout) {
  Value value = operand.get();
  if (!tileType(value))
    return;
  assignment.demands[&operand] = layout;
  // A loop-carried tile not placed yet takes the first layout asked of it.
  auto group = groupOfMember.find(value);
  if (group != groupOfMember.end() && !layoutOf(value))
    for (Value member : groups[group->second].members)
      fix(member, layout);
}

void Propagation::demandAll(Operation *op, const LinearLayout &layout) {
  for (OpOperand &operand : op->getOpOperands())
    demand(operand, layout);
}

std::optional<LinearLayout> Propagation::firstFixed(ValueRange values) const {
  for (Value value : values)
    if (std::optional<LinearLayout> layout = layoutOf(value))
      return layout;
  return std::nullopt;
}

LinearLayout Propagation::ownOrFallback(Value value) {
  if (std::optional<LinearLayout> layout = layoutOf(value))
    return *layout;
  return anchors.fallback(tileType(value));
}

InFlightDiagnostic Propagation::unsupported(Operation *op, StringRef why) {
  return op->emitError() << "'" << op->getName() << "' " << why
                         << " is not supported by the GPU layout assignment for target "
                         << anchors.getTarget().str();
}

void Propagation::addGroup(Operation *owner, CarriedGroup group) {
  if (!tileType(group.members.front()))
    return;
  unsigned index = groups.size();
  for (Value member : group.members)
    groupOfMember[member] = index;
  groupsOf[owner].push_back(index);
  groups.push_back(std::move(group));
}

void Propagation::collectGroups(tile::FuncOp kernel) {
  kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (unsigned i = 0; i < loop.getNumResults(); ++i) {
        Value arg = loop.getRegionIterArgs()[i], result = loop.getResult(i);
        addGroup(op, {{arg, result},
                      {&loop.getInitArgsMutable()[i], &yield->getOpOperand(i)},
                      {yield.getOperand(i), arg, result, loop.getInitArgs()[i]}});
      }
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getNumResults() == 0)
        return;
      scf::YieldOp thenYield = branch.thenYield(), elseYield = branch.elseYield();
      for (unsigned i = 0; i < branch.getNumResults(); ++i)
        addGroup(op, {{branch.getResult(i)},
                      {&thenYield->getOpOperand(i), &elseYield->getOpOperand(i)},
                      {thenYield.getOperand(i), elseYield.getOperand(i), branch.getResult(i)}});
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      scf::ConditionOp condition = loop.getConditionOp();
      scf::YieldOp yield = loop.getYieldOp();
      for (unsigned i = 0; i < loop.getBeforeArguments().size(); ++i) {
        Value arg = loop.getBeforeArguments()[i];
        addGroup(op, {{arg},
                      {&loop->getOpOperand(i), &yield->getOpOperand(i)},
                      {yield.getOperand(i), arg, loop.getInits()[i]}});
      }
      for (unsigned i = 0; i < loop.getAfterArguments().size(); ++i) {
        Value arg = loop.getAfterArguments()[i], result = loop.getResult(i);
        addGroup(op, {{arg, result},
                      {&condition.getArgsMutable()[i]},
                      {condition.getArgs()[i], arg, result}});
      }
    }
  });
}

void Propagation::seedGroups(Operation *owner) {
  for (unsigned index : groupsOf.lookup(owner)) {
    CarriedGroup &group = groups[index];
    if (layoutOf(group.members.front()))
      continue;
    if (std::optional<LinearLayout> layout = firstFixed(group.preference))
      for (Value member : group.members)
        fix(member, *layout);
  }
}

LogicalResult Propagation::visitRegionOp(Operation *op) {
  if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
    return unsupported(op, "with regions");
  seedGroups(op);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (failed(visitBlock(block)))
        return failure();
  seedGroups(op);
  return success();
}

LogicalResult Propagation::visitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(visit(&op)))
      return failure();
  return success();
}

LogicalResult Propagation::visit(Operation *op) {
  bool touchesTiles = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>) ||
                      llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
  if (isa<scf::YieldOp, scf::ConditionOp>(op))
    return success(); // demanded with their groups once the round is over
  if (isa<tile::ReduceOp, tile::ScanOp>(op) || op->getNumRegions() == 0) {
    if (!touchesTiles)
      return success();
  } else {
    return visitRegionOp(op);
  }
  if (llvm::all_of(op->getResults(), [&](Value v) { return onDemand.isOnDemand(v); }) &&
      op->getNumResults() > 0)
    return success(); // rebuilt, with its operands, in each layout a user asks for

  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    LinearLayout layout =
        anchors.operandLoad(load, anchors.memoryAccess(load.getPtr(), /*vectorize=*/true));
    // Pointers carried around a loop and transposed for the load (see
    // tile-gpu-transpose-column-loads) are carried in the transposed layout,
    // so that the transpose moves no data.
    if (auto trans = load.getPtr().getDefiningOp<tile::TransOp>();
        trans && groupOfMember.count(trans.getSrc()) && !layoutOf(trans.getSrc()))
      demand(trans.getSrcMutable(), layout.untransposed(trans.getOrder()));
    demandAll(op, layout);
    fix(load.getResult(), layout);
    return success();
  }
  if (auto store = dyn_cast<tile::StoreOp>(op)) {
    std::optional<LinearLayout> value = layoutOf(store.getValue());
    demandAll(op, value && anchors.storesAsItIs(store.getPtr(), *value)
                      ? *value
                      : anchors.memoryAccess(store.getPtr(), /*vectorize=*/true));
    return success();
  }
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)) {
    LinearLayout layout = anchors.memoryAccess(op->getOperand(0), /*vectorize=*/false);
    demandAll(op, layout);
    fix(op->getResult(0), layout);
    return success();
  }
  if (auto load = dyn_cast<tile::DescriptorLoadOp>(op)) {
    fix(load.getResult(), anchors.descriptorBlock(load.getType()));
    return success();
  }
  if (auto store = dyn_cast<tile::DescriptorStoreOp>(op)) {
    demand(store.getValueMutable(), anchors.descriptorBlock(store.getDesc().getType().getBlockType()));
    return success();
  }
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    FailureOr<LinearLayout> layout = anchors.dotResult(dot);
    if (failed(layout))
      return failure();
    // The operands go through shared memory whatever their layout.
    demand(dot.getAMutable(), ownOrFallback(dot.getA()));
    demand(dot.getBMutable(), ownOrFallback(dot.getB()));
    demand(dot.getAccMutable(), *layout);
    fix(dot.getResult(), *layout);
    return success();
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    if (llvm::any_of(reduce.getSrcs(), [&](Value v) { return isPending(v); }))
      return success();
    LinearLayout layout = firstFixed(reduce.getSrcs()).value_or(
        anchors.fallback(tileType(reduce.getSrcs().front())));
    demandAll(op, layout);
    for (Value result : reduce.getResults())
      if (tileType(result))
        fix(result, layout.reduced(reduce.getAxis()));
    return success();
  }
  if (auto scan = dyn_cast<tile::ScanOp>(op)) {
    if (llvm::any_of(scan.getSrcs(), [&](Value v) { return isPending(v); }))
      return success();
    LinearLayout layout =
        firstFixed(scan.getSrcs()).value_or(anchors.fallback(tileType(scan.getSrcs().front())));
    demandAll(op, layout);
    for (Value result : scan.getResults())
      fix(result, layout);
    return success();
  }
  if (auto gather = dyn_cast<tile::GatherOp>(op)) {
    if (isPending(gather.getSrc()) || isPending(gather.getIndices()))
      return success();
    // The source goes through shared memory whatever its layout; the result
    // takes the indices'.
    LinearLayout layout = ownOrFallback(gather.getIndices());
    demand(gather.getSrcMutable(), ownOrFallback(gather.getSrc()));
    demand(gather.getIndicesMutable(), layout);
    fix(gather.getResult(), layout);
    return success();
  }
  if (auto histogram = dyn_cast<tile::HistogramOp>(op)) {
    SmallVector<Value, 2> tiles{histogram.getSrc()};
    if (histogram.getMask())
      tiles.push_back(histogram.getMask());
    if (llvm::any_of(tiles, [&](Value v) { return isPending(v); }))
      return success();
    demandAll(op, firstFixed(tiles).value_or(anchors.fallback(tileType(histogram.getSrc()))));
    fix(histogram.getResult(), anchors.fallback(histogram.getType()));
    return success();
  }
  if (isa<tile::PrintOp, tile::AssertOp, tile::AssumeOp>(op)) {
    for (OpOperand &operand : op->getOpOperands())
      if (tileType(operand.get()) && !isPending(operand.get()))
        demand(operand, ownOrFallback(operand.get()));
    return success();
  }

  // Ops that follow their operand's layout.
  if (isElementwise(op) || isa<tile::JoinOp, tile::CatOp, tile::SplitOp>(op) || isShapeView(op)) {
    SmallVector<Value> tiles;
    for (Value operand : op->getOperands())
      if (tileType(operand))
        tiles.push_back(operand);
    std::optional<LinearLayout> layout = firstFixed(tiles);
    if (!layout && llvm::any_of(tiles, [&](Value v) { return isPending(v); }))
      return success(); // placed in a later round
    if (!layout && op->getNumResults() == 1 && isElementwise(op)) {
      fellBack.insert(op->getResult(0));
      auto hint = fallbackHints.find(op->getResult(0));
      if (hint != fallbackHints.end())
        layout = hint->second;
    }
    if (!layout)
      layout = anchors.fallback(tileType(tiles.front()));
    if (auto split = dyn_cast<tile::SplitOp>(op)) {
      // The pair must sit in one thread's registers; else fetch it so.
      std::optional<LinearLayout> halves = layout->splitHalves();
      if (!halves) {
        halves = layout->reduced(layout->rank() - 1);
        layout = halves->joined();
      }
      demandAll(op, *layout);
      fix(split.getLhs(), *halves);
      fix(split.getRhs(), *halves);
      return success();
    }
    demandAll(op, *layout);
    LinearLayout result = *layout;
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
      result = layout->expandDims(expand.getAxis());
    else if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
      result = layout->reshaped(reshape.getType().getShape());
    else if (auto trans = dyn_cast<tile::TransOp>(op))
      result = layout->transposed(trans.getOrder());
    else if (isa<tile::JoinOp>(op))
      result = layout->joined();
    else if (auto cat = dyn_cast<tile::CatOp>(op))
      result = layout->concatenated(cat.getAxis());
    for (Value value : op->getResults())
      if (tileType(value))
        fix(value, result);
    return success();
  }
  return unsupported(op, "on tiles");
}

std::optional<LinearLayout> Propagation::wantedByUses(Value value, unsigned depth) const {
  constexpr unsigned kMaxDepth = 16;
  if (depth > kMaxDepth)
    return std::nullopt;
  std::optional<LinearLayout> own = layoutOf(value);
  for (OpOperand &use : value.getUses()) {
    auto demanded = assignment.demands.find(&use);
    if (demanded != assignment.demands.end() && (!own || demanded->second != *own))
      return demanded->second;
    Operation *user = use.getOwner();
    if (user->getNumResults() != 1 || !tileType(user->getResult(0)) ||
        !(isElementwise(user) || isShapeView(user)))
      continue;
    // Only where the user's layout follows this value's.
    std::optional<LinearLayout> result = layoutOf(user->getResult(0));
    if (result && own && !isShapeView(user) && *result != *own)
      continue;
    std::optional<LinearLayout> wanted = wantedByUses(user->getResult(0), depth + 1);
    if (!wanted)
      continue;
    ArrayRef<int64_t> shape = tileType(value).getShape();
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(user))
      return wanted->reduced(expand.getAxis());
    if (isa<tile::BroadcastOp>(user))
      return wanted->broadcastSource(shape);
    if (isa<tile::ReshapeOp>(user))
      return wanted->reshaped(shape);
    if (auto trans = dyn_cast<tile::TransOp>(user))
      return wanted->untransposed(trans.getOrder());
    return wanted;
  }
  return std::nullopt;
}

bool Propagation::hintFromUses() {
  bool changed = false;
  for (Value value : fellBack) {
    std::optional<LinearLayout> wanted = wantedByUses(value);
    auto hint = fallbackHints.find(value);
    if (wanted && (hint == fallbackHints.end() || hint->second != *wanted)) {
      fallbackHints[value] = *wanted;
      changed = true;
    }
  }
  return changed;
}

FailureOr<LayoutAssignment> Propagation::run(tile::FuncOp kernel) {
  collectGroups(kernel);
  for (unsigned round = 0;; ++round) {
    assignment = LayoutAssignment();
    fellBack.clear();
    for (auto &[index, layout] : hints)
      for (Value member : groups[index].members)
        fix(member, layout);
    if (failed(visitBlock(kernel.getBody().front())))
      return failure();
    bool changed = round + 1 < kMaxRounds && hintFromUses();
    for (auto [index, group] : llvm::enumerate(groups)) {
      // A carried tile that nothing places (the offsets a persistent GEMM
      // carries to its next tile) takes the layout its uses convert it to:
      // its loads'. Others keep what the body yields.
      std::optional<LinearLayout> placed = firstFixed(group.preference);
      if (round == 0 && !placed)
        freeGroups.insert(index);
      std::optional<LinearLayout> wanted;
      if (freeGroups.contains(index))
        for (Value member : group.members)
          if (!wanted)
            wanted = wantedByUses(member);
      LinearLayout chosen =
          wanted.value_or(placed.value_or(anchors.fallback(tileType(group.members.front()))));
      auto hint = hints.find(index);
      if (hint == hints.end() || hint->second != chosen) {
        changed = true;
        // The groups of this round keep the layout the round used, so that
        // the assignment stays consistent if the rounds run out.
        if (round + 1 < kMaxRounds)
          hints[index] = chosen;
      }
    }
    if (!changed || round + 1 == kMaxRounds)
      break;
  }
  for (auto [index, group] : llvm::enumerate(groups)) {
    LinearLayout layout = *layoutOf(group.members.front());
    for (OpOperand *source : group.sources)
      demand(*source, layout);
  }
  return std::move(assignment);
}

} // namespace

bool isElementwise(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() == 0)
    return false;
  bool elementwiseOp =
      isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<tile::ClampOp, tile::PreciseSqrtOp, tile::PreciseDivFOp, tile::ExternElementwiseOp,
          tile::InlineAsmElementwiseOp, tile::AddPtrOp, tile::BitcastOp, tile::IntToPtrOp,
          tile::PtrToIntOp, tile::HintOp>(op);
  if (!elementwiseOp || isa<arith::ConstantOp>(op))
    return false;
  std::optional<ArrayRef<int64_t>> shape;
  for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    if (shape && *shape != tensor.getShape())
      return false;
    shape = tensor.getShape();
  }
  return shape.has_value();
}

bool OnDemandTiles::isCheap(Value value) {
  if (!tileType(value))
    return false;
  if (auto it = cheap.find(value); it != cheap.end())
    return it->second;
  bool result = false;
  if (Operation *def = value.getDefiningOp()) {
    if (isa<tile::MakeRangeOp, tile::SplatOp>(def))
      result = true;
    else if (auto constant = dyn_cast<arith::ConstantOp>(def))
      result = isa<DenseElementsAttr>(constant.getValue());
    else if ((isElementwise(def) && isPure(def)) || isShapeView(def) || isBroadcastOnlyLoad(def))
      result = llvm::all_of(def->getOperands(), [&](Value operand) {
        return !tileType(operand) || isCheap(operand);
      });
  }
  cheap[value] = result;
  return result;
}

bool OnDemandTiles::isBroadcastOnlyLoad(Operation *op) {
  auto load = dyn_cast<tile::LoadOp>(op);
  return load && !load.getIsVolatile() && feedsOnlyBroadcasts(load.getResult());
}

bool OnDemandTiles::feedsOnlyBroadcasts(Value value) {
  if (auto it = broadcastOnly.find(value); it != broadcastOnly.end())
    return it->second;
  broadcastOnly[value] = false; // a use cycle (through a loop) is not broadcast-only
  bool result = !value.use_empty() && llvm::all_of(value.getUsers(), [&](Operation *user) {
    if (isa<tile::BroadcastOp>(user))
      return true;
    if (!((isElementwise(user) && isPure(user)) || isShapeView(user)) ||
        user->getNumResults() == 0)
      return false;
    return llvm::all_of(user->getResults(),
                        [&](Value result) { return tileType(result) && feedsOnlyBroadcasts(result); });
  });
  broadcastOnly[value] = result;
  return result;
}

bool OnDemandTiles::isOnDemand(Value value) {
  if (isCheap(value))
    return true;
  if (auto it = onDemand.find(value); it != onDemand.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool result = def && (isa<tile::BroadcastOp>(def) ||
                        (isShapeView(def) && isOnDemand(def->getOperand(0))));
  onDemand[value] = result;
  return result;
}

FailureOr<LayoutAssignment> propagateLayouts(tile::FuncOp kernel, LayoutAnchors &anchors,
                                             OnDemandTiles &onDemand) {
  return Propagation(anchors, onDemand).run(kernel);
}

} // namespace tessera::gpu

// Software pipelining of loops whose loads feed tile.dot.
//
// With S = num-stages >= 2, a load in an scf.for body whose only user is an
// operand of a rank-2 tile.dot in the same body is "staged": it is not read
// into registers, but copied straight into a ring of S stages of shared
// memory, each laid out as the dot reads its operand (DotPlan). The copies
// for iteration t + S - 1 are issued in iteration t, so S - 1 iterations of
// loads are in flight while the dot of iteration t reads its stage:
//
//   prologue: copy iterations 0 .. S-2 into stages 0 .. S-2
//   for t:    wait for the copies of t; fence for wgmma; barrier
//             copy iteration t + S - 1 into stage (t + S - 1) % S
//             the body, its dots reading stage t % S
//   epilogue: wait for every copy; barrier
//
// One barrier per iteration orders both hazards: the copies of t are visible
// to every thread before its dot, and the dot of t - 1 has read stage
// (t - 1) % S = (t + S - 1) % S before anyone overwrites it.
//
// An asynchronous dot (wgmma) that is the loop's only dot, reads only staged
// operands and feeds only itself through its accumulator is left running
// into the next iteration (TensorCoreDot::emitOverlapped). Each dot waits
// for the previous one, so at iteration t's barrier the dot of t - 2 has
// finished everywhere but the dot of t - 1 may still read its stage: the
// ring gets one more stage and the copies issued in iteration t go to stage
// (t - 2) mod the ring size. They are issued right after the dot of t,
// before its wait: between the barrier and the dot, their address
// arithmetic (a persistent GEMM recomputes it from the tile's rows) would
// leave the tensor cores only the dot of t - 1 to work on. Where that stage
// does not fit in shared memory, the copies move after the dot, which has
// then waited for the dot of t - 1, behind a second barrier, into the stage
// t - 1 read (as Triton orders them): the ring of S stages still has S - 1
// iterations of copies in flight, for one barrier more. The loop waits for
// the last dot after its last iteration.
//
// To copy ahead, the loads' operands are computed S - 1 iterations early:
// the ops of the body that compute them (without memory effects other than
// promises; branches of such ops too) are lowered a second time with the
// induction variable and the iteration arguments they read (the "address
// recurrence", e.g. pointers advanced every iteration) of the later
// iteration, which the loop carries.
// Iteration arguments only the staged loads needed are not carried in their
// current form at all. Where one of those ops may not run speculatively (a
// division by a value that is not a constant), the later iteration's
// addresses are computed with its copies, only where that iteration exists.
//
// A loop over several output tiles (a persistent GEMM, its K loop flattened
// into it) restarts its accumulator after each tile's epilogue, which reads
// the dot under `if last` (AccumulatorReset): the restart happens in that
// branch, not as a select of every accumulator register in every iteration,
// and a wgmma is still left running, waited for only in that branch.
//
// On sm_80 and later a run of a row that is aligned and wholly in or out of
// its mask is one cp.async of 4, 8 or 16 bytes (zero-filled when out);
// every other element, and every copy on other targets, is an ordinary load
// and shared-memory store; without cp.async the ring has 2 stages at most.
// Where the contiguity analysis proves every run aligned and its mask
// constant over it (RunAccess::provedWhole()), each run is one cp.async with
// no run-time check and no element fallback. A run of a zero-padded
// descriptor block with an innermost stride of 1 only needs to be aligned:
// its elements inside the shape come first, and one cp.async takes them and
// zero-fills the rest (its source size), as TMA would; where the alignment
// is proved (a 16-byte aligned base and outer strides, block offsets
// multiples of the run), that is all its copy costs.
// Loads beyond the last iteration are not issued.
//
// With k.tensorMaps (sm_90a), a staged block of a descriptor made of kernel
// arguments and constants (a host descriptor) that TMA can write in wgmma's
// layout (TensorMaps.h) is copied by cp.async.bulk.tensor, one per panel,
// the panels spread over the warps, completing on the stage's mbarrier; every
// thread waits on it (its phase carried by the loop) where cp.async's copies
// are waited for with wait_group. The same barrier per iteration orders the
// overwrite of a stage after the dots that read it. NaN-padded descriptor
// blocks are staged only then (TMA fills NaN, cp.async zeros).
//
// A loop without a dot that asks for S stages itself (Triton's
// `tl.range(..., num_stages=S)`: a persistent row kernel) is pipelined for
// its loads read back alone. Each thread reads back only the slots it copied
// into, so the ring needs no barrier, and no stage stays busy through the
// body: S - 1 stages, each read into registers at the top of its iteration
// and at once refilled with the copies of the iteration S - 1 later.
//
//   for t:    wait for the copies of t; read stage t % (S-1) into registers
//             copy iteration t + S - 1 into stage t % (S-1)
//             the body
//
// Which loads are staged or read back, and the ops their addresses need:
// PipelineAnalysis.cpp. How a load goes into a stage and back: StageCopies.h.
#include "lowering/gpu/distribute/PipelinedLoop.h"

#include "lowering/gpu/distribute/LoadsReadBack.h"
#include "lowering/gpu/distribute/StageCopies.h"
#include "lowering/gpu/distribute/TensorMapStores.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessera::gpu::pipelining {

/// The registers of several values, one after the other.
SmallVector<Value> flatten(ArrayRef<Registers> values) {
  SmallVector<Value> flat;
  for (const Registers &regs : values)
    llvm::append_range(flat, regs);
  return flat;
}

/// `flat` cut into values of as many registers as those of `like`.
SmallVector<Registers> regroup(ValueRange flat, ArrayRef<Registers> like) {
  SmallVector<Registers> values;
  size_t first = 0;
  for (const Registers &regs : like) {
    values.emplace_back(flat.begin() + first, flat.begin() + first + regs.size());
    first += regs.size();
  }
  return values;
}

/// An scf.if with results of `types` whose blocks are empty, to be filled
/// and terminated by the caller.
static scf::IfOp emptyIf(OpBuilder &builder, Location loc, TypeRange types, Value condition) {
  auto branch = scf::IfOp::create(builder, loc, types, condition, /*withElseRegion=*/true);
  for (Block *block : {branch.thenBlock(), branch.elseBlock()})
    if (!block->empty())
      block->getTerminator()->erase();
  return branch;
}

/// The element type of a load's tile.
static Type loadedElement(Operation *load) {
  return cast<RankedTensorType>(load->getResult(0).getType()).getElementType();
}

/// Whether `loop` (its nested regions included) has a tile.dot.
static bool containsDot(scf::ForOp loop) {
  return loop->walk([](tile::DotOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

Value PipelinedLoop::nextStage(OpBuilder &builder, Value stage) {
  Value next = arith::AddIOp::create(builder, loc, stage, i32Constant(builder, loc, 1));
  if (llvm::isPowerOf2_32(stages))
    return arith::AndIOp::create(builder, loc, next, i32Constant(builder, loc, stages - 1));
  Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, next,
                                      i32Constant(builder, loc, stages));
  return arith::SelectOp::create(builder, loc, wraps, i32Constant(builder, loc, 0), next);
}

Value PipelinedLoop::stageStart(OpBuilder &builder, const Ring &ring, Value stage) {
  Value start =
      arith::MulIOp::create(builder, loc, stage, i32Constant(builder, loc, ring.stageElements));
  return arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), start);
}

Value PipelinedLoop::previousStage(OpBuilder &builder, Value stage) {
  Value first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, stage,
                                      i32Constant(builder, loc, 0));
  return arith::SelectOp::create(
      builder, loc, first, i32Constant(builder, loc, stages - 1),
      arith::SubIOp::create(builder, loc, stage, i32Constant(builder, loc, 1)));
}

Value PipelinedLoop::flipAtWrap(OpBuilder &builder, Value phase, Value next) {
  Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, next,
                                      i32Constant(builder, loc, 0));
  return arith::XOrIOp::create(builder, loc, phase,
                               arith::ExtUIOp::create(builder, loc, builder.getI32Type(), wraps));
}

FailureOr<SmallVector<Registers>> PipelinedLoop::addressesFor(OpBuilder &builder, Value iv,
                                                              ArrayRef<Registers> state) {
  k.map(loop.getInductionVar(), {iv});
  for (auto [arg, regs] : llvm::zip(analysis.recurrence, state))
    k.map(loop.getRegionIterArg(arg), regs, bases[arg]);
  for (Operation *op : analysis.addressOps)
    if (failed(k.lowerOp(op, builder)))
      return failure();
  SmallVector<Registers> next;
  Operation *yield = loop.getBody()->getTerminator();
  for (unsigned arg : analysis.recurrence) {
    Value value = yield->getOperand(arg);
    if (k.pointerBase(value) != bases[arg])
      return k.unsupported(loop, "a pointer that points into another kernel argument on "
                                 "another path");
    next.push_back(k.registers(value));
  }
  return next;
}

Value PipelinedLoop::isIteration(OpBuilder &builder, Value iv, int64_t stepsAhead) {
  // In 64 bits, so that an i32 loop near its end does not wrap around.
  Type wide = builder.getI64Type();
  auto widen = [&](Value v) -> Value {
    if (v.getType().isIndex())
      return arith::IndexCastOp::create(builder, loc, wide, v);
    if (v.getType().getIntOrFloatBitWidth() < 64)
      return arith::ExtSIOp::create(builder, loc, wide, v);
    return v;
  };
  Value ahead = arith::AddIOp::create(
      builder, loc, widen(iv),
      arith::MulIOp::create(builder, loc, widen(step),
                            arith::ConstantIntOp::create(builder, loc, wide, stepsAhead)));
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, ahead, widen(upperBound));
}

SmallVector<Value> PipelinedLoop::valuesRelowered() {
  SmallVector<Value> values{loop.getInductionVar()};
  llvm::append_range(values, loop.getRegionIterArgs());
  for (Operation *op : analysis.addressOps)
    op->walk([&](Operation *nested) {
      llvm::append_range(values, nested->getResults());
      for (Region &region : nested->getRegions())
        for (Block &block : region)
          llvm::append_range(values, block.getArguments());
    });
  return values;
}

void PipelinedLoop::copyWithTensorMaps(OpBuilder &builder, Value stage, Value soleIssuer) {
  int64_t tensorCopyBytes = 0;
  for (const Ring &ring : rings)
    if (ring.tensorCopy)
      tensorCopyBytes += ring.tensorCopy->bytes();
  if (tensorCopyBytes == 0)
    return;
  Value barrier = barriers->address(builder, loc, stage);
  StageBarriers::expectBytes(builder, loc, barrier, tensorCopyBytes,
                             soleIssuer ? soleIssuer : isWarp(k, builder, loc, 0));
  Issuers issuers{0, soleIssuer};
  for (Ring &ring : rings)
    if (ring.tensorCopy) {
      SmallVector<Value> offsets;
      for (Value offset : ring.tensorCopy->load.getOffsets())
        offsets.push_back(k.registers(offset).front());
      issuers.firstWarp = issueTensorCopy(k, builder, loc, *ring.tensorCopy, offsets,
                                          {ring.buffer, stageStart(builder, ring, stage)},
                                          barrier, issuers);
    }
}

LogicalResult PipelinedLoop::copyStagedLoads(OpBuilder &builder, Value stage) {
  copyWithTensorMaps(builder, stage, Value());
  for (auto [staged, ring] : llvm::zip(analysis.loads, rings)) {
    if (ring.tensorCopy)
      continue;
    FailureOr<LoadAccesses> load = loadAccessesOf(k, staged.load, builder);
    if (failed(load))
      return failure();
    if (staged.readBack) {
      copyToReadBackStage(k, builder, staged.load->getLoc(), *load, ring.source.layout,
                          {ring.buffer, stageStart(builder, ring, stage)}, threads(), async);
      continue;
    }
    // cp.async fills zeros: a NaN-padded block TMA does not copy goes in
    // through ordinary loads and shared stores.
    copyToStage(k, builder, staged.load->getLoc(), *load, ring.plan, staged.slot, ring.source,
                {ring.buffer, stageStart(builder, ring, stage)},
                async && fillsWithZero(staged.load), ring.runPlaces);
  }
  return success();
}

FailureOr<SmallVector<Registers>> PipelinedLoop::copyAhead(OpBuilder &builder, Value iv,
                                                           ArrayRef<Registers> state, Value stage,
                                                           Value valid) {
  FailureOr<SmallVector<Registers>> next;
  if (analysis.speculatableAddresses) {
    next = addressesFor(builder, iv, state);
    if (failed(next))
      return failure();
    LogicalResult copied = success();
    scf::IfOp::create(builder, loc, valid, [&](OpBuilder &then, Location loc) {
      copied = copyStagedLoads(then, stage);
      scf::YieldOp::create(then, loc);
    });
    if (failed(copied))
      return failure();
  } else {
    // The addresses of an iteration past the end may divide by zero: they
    // are computed only where the iteration exists, which keeps the state.
    SmallVector<Value> flatState = flatten(state);
    scf::IfOp guarded = emptyIf(builder, loc, ValueRange(flatState).getTypes(), valid);
    OpBuilder then = OpBuilder::atBlockBegin(guarded.thenBlock());
    next = addressesFor(then, iv, state);
    if (failed(next) || failed(copyStagedLoads(then, stage)))
      return failure();
    scf::YieldOp::create(then, loc, flatten(*next));
    OpBuilder orElse = OpBuilder::atBlockBegin(guarded.elseBlock());
    scf::YieldOp::create(orElse, loc, flatState);
    next = regroup(guarded.getResults(), state);
  }
  if (cpAsyncGroups)
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
  return next;
}

BlockArgument PipelinedLoop::carriedAccumulator(tile::DotOp dot) {
  unsigned dots = 0;
  loop.getBody()->walk([&](tile::DotOp) { ++dots; });
  auto acc = dyn_cast<BlockArgument>(dot.getAcc());
  if (dots != 1 || !acc || acc.getOwner() != loop.getBody() || !acc.hasOneUse())
    return {};
  return acc;
}

bool PipelinedLoop::yieldedOnlyTo(Value value, BlockArgument acc) {
  if (!value.hasOneUse())
    return false;
  OpOperand &use = *value.getUses().begin();
  return use.getOwner() == loop.getBody()->getTerminator() &&
         use.getOperandNumber() + 1 == acc.getArgNumber();
}

std::optional<PipelinedLoop::AccumulatorReset> PipelinedLoop::accumulatorReset() {
  tile::DotOp dot = analysis.loads.front().dot;
  if (!dot)
    return std::nullopt;
  BlockArgument acc = carriedAccumulator(dot);
  if (!acc || !rings.front().plan.instruction)
    return std::nullopt;
  AccumulatorReset found{dot, {}, {}};
  for (Operation *user : dot.getResult().getUsers()) {
    auto select = dyn_cast<arith::SelectOp>(user);
    if (select && !found.select && select.getFalseValue() == dot.getResult() &&
        select.getTrueValue() != dot.getResult() &&
        select.getCondition().getType().isInteger(1)) {
      found.select = select;
      continue;
    }
    auto epilogue = dyn_cast_or_null<scf::IfOp>(loop.getBody()->findAncestorOpInBlock(*user));
    if (!epilogue || epilogue == user || (found.epilogue && found.epilogue != epilogue) ||
        !epilogue.getThenRegion().isAncestor(user->getParentRegion()))
      return std::nullopt;
    found.epilogue = epilogue;
  }
  if (!found.select || !yieldedOnlyTo(found.select.getResult(), acc) ||
      !loop.isDefinedOutsideOfLoop(found.select.getTrueValue()))
    return std::nullopt;
  if (found.epilogue && (found.epilogue.getCondition() != found.select.getCondition() ||
                         found.epilogue.getNumResults() != 0))
    return std::nullopt;
  return found;
}

tile::DotOp PipelinedLoop::overlappableDot() {
  tile::DotOp dot = analysis.loads.front().dot;
  if (!dot)
    return {};
  bool stagedA = false, stagedB = false;
  for (auto [staged, ring] : llvm::zip(analysis.loads, rings)) {
    // Read back before the body's ops, a ring is free once the barrier of
    // the next iteration is passed, as a stage of a dot that is not left
    // running is.
    if (staged.readBack)
      continue;
    if (staged.dot != dot || !ring.plan.instruction || !ring.plan.instruction->isAsynchronous())
      return {};
    (staged.slot == DotOperand::A ? stagedA : stagedB) = true;
  }
  if (!async || !stagedA || !stagedB)
    return {};
  if (reset)
    return dot;
  BlockArgument acc = carriedAccumulator(dot);
  return acc && yieldedOnlyTo(dot.getResult(), acc) ? dot : tile::DotOp();
}

LogicalResult PipelinedLoop::lowerReset(OpBuilder &builder) {
  Value result = reset->dot.getResult();
  Registers running = k.registers(result);
  Registers fresh = k.registers(reset->select.getTrueValue());
  scf::IfOp branch = emptyIf(builder, loc, ValueRange(running).getTypes(),
                            k.registers(reset->select.getCondition()).front());

  OpBuilder then = OpBuilder::atBlockBegin(branch.thenBlock());
  const TensorCoreDot &instruction = *rings.front().plan.instruction;
  SmallVector<Value> finished = instruction.emitWaitForAll(then, loc, running);
  k.map(result, Registers(finished.begin(), finished.end()));
  if (reset->epilogue && failed(k.lowerBlock(*reset->epilogue.thenBlock(), then)))
    return failure();
  scf::YieldOp::create(then, loc, instruction.emitRestart(then, loc, fresh));

  k.map(result, running);
  OpBuilder orElse = OpBuilder::atBlockBegin(branch.elseBlock());
  if (reset->epilogue && reset->epilogue.elseBlock() &&
      failed(k.lowerBlock(*reset->epilogue.elseBlock(), orElse)))
    return failure();
  scf::YieldOp::create(orElse, loc, ValueRange(running));
  k.map(reset->select.getResult(),
        Registers(branch.getResults().begin(), branch.getResults().end()));
  return success();
}

FailureOr<PipelinedLoop::RingBytes> PipelinedLoop::planRings() {
  RingBytes bytes;
  // Buffers a dot allocates beside its operands (a cooperative matrix's
  // accumulator) share the budget with the rings.
  int64_t dotScratchBytes = 0;
  llvm::SmallPtrSet<Operation *, 2> dotsSeen;
  for (const StagedLoad &staged : analysis.loads) {
    if (staged.readBack) {
      FailureOr<LinearLayout> layout = k.layout(staged.load, staged.load->getResult(0));
      if (failed(layout))
        return failure();
      Ring ring;
      ring.source = {*layout, false};
      Type element = loadedElement(staged.load);
      int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
      ReadBackPlacement placement(*layout, element, threads());
      ring.stageElements =
          llvm::alignTo(placement.stageElements() * elementBytes, kReadBackAlignment) /
          elementBytes;
      int64_t before = bytes.stage;
      bytes.stage =
          llvm::alignTo(bytes.stage, kReadBackAlignment) + ring.stageElements * elementBytes;
      bytes.readBackStage += bytes.stage - before;
      rings.push_back(std::move(ring));
      continue;
    }
    FailureOr<DotPlan> plan = planDot(k, staged.dot);
    if (failed(plan))
      return failure();
    Ring ring;
    Type element = plan->element(staged.slot);
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    int64_t alignment = plan->sharedAlignment();
    ring.stageElements =
        llvm::alignTo(plan->sharedElements(staged.slot) * elementBytes, alignment) / elementBytes;
    bytes.stage = llvm::alignTo(bytes.stage, alignment) + ring.stageElements * elementBytes;
    tile::DotOp dot = staged.dot;
    if (plan->instruction && dotsSeen.insert(dot).second)
      dotScratchBytes += plan->instruction->accumulatorScratchElements() *
                         dot.getType().getElementType().getIntOrFloatBitWidth() / 8;
    ring.plan = std::move(*plan);
    ring.source = ring.plan.source(staged.slot);
    if (staged.transposed()) {
      FailureOr<LinearLayout> loaded = k.layout(staged.load, staged.load->getResult(0));
      if (failed(loaded))
        return failure();
      ring.source = {*loaded, true};
    }
    rings.push_back(std::move(ring));
  }
  // A dot of the body stores an operand no ring holds (a widened load's, a
  // computed tile's) into a buffer of its own in each iteration, but for A
  // that the instruction takes in registers.
  int64_t operandBytes = 0;
  WalkResult planned = loop.getBody()->walk([&](tile::DotOp dot) {
    FailureOr<DotPlan> plan = planDot(k, dot);
    if (failed(plan))
      return WalkResult::interrupt();
    int64_t dotBytes = 0;
    for (DotOperand slot : {DotOperand::A, DotOperand::B}) {
      bool staged = llvm::any_of(analysis.loads, [&](const StagedLoad &load) {
        return !load.readBack && load.dot == dot && load.slot == slot;
      });
      if (staged || (slot == DotOperand::A && plan->aInRegisterForm()))
        continue;
      int64_t elementBytes = sharedElementType(plan->element(slot)).getIntOrFloatBitWidth() / 8;
      dotBytes = llvm::alignTo(dotBytes, plan->sharedAlignment()) +
                 plan->sharedElements(slot) * elementBytes;
    }
    operandBytes = std::max(operandBytes, dotBytes);
    return WalkResult::advance();
  });
  if (planned.wasInterrupted())
    return failure();
  // The body's own users of shared memory (a persistent GEMM's epilogue
  // converting its accumulator) work beside the rings.
  bytes.body = dotScratchBytes + operandBytes;
  bytes.besidesTensorStores = bytes.body;
  WalkResult walked = loop.getBody()->walk([&](ConvertLayoutOp convert) {
    FailureOr<int64_t> conversion = leastConversionBytes(k, convert);
    if (failed(conversion))
      return WalkResult::interrupt();
    bytes.body = std::max(bytes.body, *conversion);
    if (!tensorStoreOf(k, convert))
      bytes.besidesTensorStores = std::max(bytes.besidesTensorStores, *conversion);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  return bytes;
}

FailureOr<int64_t> PipelinedLoop::planInvariantOperands() {
  // An operand is hoisted where it is one dot's alone: the staged operands
  // are keyed by value, and another dot may want it placed otherwise.
  llvm::DenseMap<Value, unsigned> dotUses;
  loop.getBody()->walk([&](tile::DotOp dot) {
    ++dotUses[dot.getA()];
    ++dotUses[dot.getB()];
  });
  int64_t bytes = 0;
  WalkResult planned = loop.getBody()->walk([&](tile::DotOp dot) {
    if (dot.getType().getRank() != 2)
      return WalkResult::advance();
    for (DotOperand slot : {DotOperand::A, DotOperand::B}) {
      Value operand = slot == DotOperand::A ? dot.getA() : dot.getB();
      bool ringed = llvm::any_of(analysis.loads, [&](const StagedLoad &staged) {
        return !staged.readBack && staged.dot == dot && staged.slot == slot;
      });
      if (ringed || !loop.isDefinedOutsideOfLoop(operand) || dotUses[operand] != 1 ||
          k.staged(operand))
        continue;
      FailureOr<DotPlan> plan = planDot(k, dot);
      if (failed(plan))
        return WalkResult::interrupt();
      int64_t elementBytes = sharedElementType(plan->element(slot)).getIntOrFloatBitWidth() / 8;
      bytes = llvm::alignTo(bytes, plan->sharedAlignment()) +
              plan->sharedElements(slot) * elementBytes;
      invariants.push_back({dot, slot, std::move(*plan)});
    }
    return WalkResult::advance();
  });
  if (planned.wasInterrupted())
    return failure();
  return bytes;
}

LogicalResult PipelinedLoop::stageInvariantOperands(OpBuilder &builder) {
  if (invariants.empty())
    return success();
  SmallVector<SharedOperand> buffers;
  bool fence = false;
  for (const InvariantOperand &invariant : invariants) {
    const DotPlan &plan = invariant.plan;
    FailureOr<Value> buffer =
        k.shared.reserve(loop, sharedElementType(plan.element(invariant.slot)),
                         plan.sharedElements(invariant.slot), plan.sharedAlignment());
    if (failed(buffer))
      return failure();
    SharedOperand where{*buffer, indexConstant(builder, loc, 0), /*ready=*/true};
    storeUnbatchedOperand(k, builder, loc, plan, invariant.slot,
                          k.registers(invariant.operand()), where);
    fence |= plan.instruction && plan.instruction->readsThroughAsyncProxy();
    buffers.push_back(where);
  }
  if (fence)
    emitAsyncProxyFence(builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
  for (auto [invariant, where] : llvm::zip(invariants, buffers))
    k.stage(invariant.operand(), where);
  return success();
}

LogicalResult PipelinedLoop::reserveRings() {
  for (auto [staged, ring] : llvm::zip(analysis.loads, rings)) {
    Type element = staged.readBack ? loadedElement(staged.load) : ring.plan.element(staged.slot);
    FailureOr<Value> buffer =
        k.shared.reserve(loop, element, stages * ring.stageElements,
                         staged.readBack ? kReadBackAlignment : ring.plan.sharedAlignment());
    if (failed(buffer))
      return failure();
    ring.buffer = *buffer;
    if (!staged.readBack)
      ring.tensorCopy =
          tensorCopyFor(k, staged.load, staged.transposed(), ring.plan, staged.slot);
    cpAsyncGroups |= async && !ring.tensorCopy && fillsWithZero(staged.load);
  }
  return success();
}

llvm::SetVector<Value> PipelinedLoop::tensorMapsCopied() const {
  llvm::SetVector<Value> maps;
  for (const Ring &ring : rings)
    if (ring.tensorCopy)
      maps.insert(ring.tensorCopy->map);
  return maps;
}

void PipelinedLoop::report(bool producer) const {
  std::string text;
  llvm::raw_string_ostream out(text);
  out << stages << " stages (num_stages " << requestedStages << ")";
  if (producer) {
    out << ", copied by TMA from a producer warpgroup";
    k.loopPipelines[loop] = text;
    return;
  }
  size_t tma = llvm::count_if(rings, [](const Ring &ring) { return ring.tensorCopy; });
  std::string copies = async ? "cp.async" : "loads and shared stores";
  if (tma == rings.size())
    copies = "TMA";
  else if (tma)
    copies = "TMA and " + copies;
  out << ", copies " << ahead << (ahead == 1 ? " iteration" : " iterations") << " ahead by "
      << copies;
  if (size_t readBack = llvm::count_if(analysis.loads,
                                       [](const StagedLoad &staged) { return staged.readBack; }))
    out << " (" << readBack << (readBack == 1 ? " load" : " loads")
        << " read back into registers)";
  if (copiesAfterDot)
    out << ", after the dot";
  k.loopPipelines[loop] = text;
}

bool PipelinedLoop::readBackCostsStages(const RingBytes &bytes, int64_t barrierBytes) const {
  int64_t limit = k.target.maxSharedMemoryBytes;
  return !readsBackOnly() && bytes.readBackStage && !bytes.fit(stages, barrierBytes, limit) &&
         bytes.withoutReadBack().fit(stages, barrierBytes, limit);
}

bool PipelinedLoop::fitStages(const RingBytes &bytes, unsigned least, int64_t barrierBytes) {
  auto fits = [&] { return bytes.fit(stages, barrierBytes, k.target.maxSharedMemoryBytes); };
  while (stages > least && !fits())
    --stages;
  if (fits())
    return true;
  std::string beside =
      bytes.body ? llvm::formatv(" beside the loop body's {0} bytes", bytes.body).str() : "";
  k.loopPipelines[loop] = llvm::formatv("not pipelined: {0} stages of {1} bytes{2} exceed the "
                                        "{3} bytes of shared memory of {4}",
                                        stages, bytes.stage + barrierBytes, beside,
                                        k.target.maxSharedMemoryBytes, k.target.str())
                              .str();
  return false;
}

void PipelinedLoop::readBounds() {
  bases = k.pointerBases(loop.getInitArgs());
  lowerBound = k.registers(loop.getLowerBound()).front();
  upperBound = k.registers(loop.getUpperBound()).front();
  step = k.registers(loop.getStep()).front();
  for (unsigned arg : analysis.carried) {
    carriedInits.push_back(loop.getInitArgs()[arg]);
    carriedArgs.push_back(loop.getRegionIterArg(arg));
    carriedYields.push_back(loop.getBody()->getTerminator()->getOperand(arg));
    carriedResults.push_back(loop.getResult(arg));
    carriedBases.push_back(bases[arg]);
  }
}

LogicalResult PipelinedLoop::lowerIteration(OpBuilder &body, Value iv, ValueRange carried,
                                            Value readStage,
                                            function_ref<void(OpBuilder &)> afterDot,
                                            function_ref<LogicalResult(OpBuilder &)> afterReads) {
  k.map(loop.getInductionVar(), {iv});
  k.mapFlat(carriedArgs, carried, carriedBases);
  for (auto [staged, ring] : llvm::zip(analysis.loads, rings)) {
    SharedOperand stage{ring.buffer, stageStart(body, ring, readStage), /*ready=*/true};
    if (staged.readBack)
      k.map(staged.load->getResult(0),
            readBackFromStage(k, body, staged.load->getLoc(), ring.source.layout,
                              loadedElement(staged.load), stage, threads()));
    else
      k.stage(staged.operand(), stage);
  }
  if (afterReads && failed(afterReads(body)))
    return failure();
  Operation *resetAt = nullptr;
  if (reset)
    resetAt = reset->epilogue ? reset->epilogue.getOperation() : reset->select;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!analysis.liveOps.contains(&op) || (reset && &op == reset->select && resetAt != &op))
      continue;
    if (failed(&op == resetAt ? lowerReset(body) : k.lowerOp(&op, body)))
      return failure();
    if (&op == overlapped.getOperation())
      afterDot(body);
  }
  for (auto [value, base] : llvm::zip(carriedYields, carriedBases))
    if (k.pointerBase(value) != base)
      return k.unsupported(loop, "a pointer that points into another kernel argument on another "
                                 "path");
  return success();
}

scf::IfOp PipelinedLoop::openIfLoopRuns(OpBuilder &builder, ValueRange inits) {
  if (!overlapped)
    return {};
  Value entered =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, lowerBound, upperBound);
  auto runs = scf::IfOp::create(builder, loc, inits.getTypes(), entered, /*withElseRegion=*/true);
  OpBuilder skipped = OpBuilder::atBlockBegin(runs.elseBlock());
  scf::YieldOp::create(skipped, loc, inits);
  builder.setInsertionPointToStart(runs.thenBlock());
  return runs;
}

SmallVector<Value> PipelinedLoop::closeIfLoopRuns(OpBuilder &builder, scf::IfOp runs,
                                                  ValueRange loopResults) {
  SmallVector<Value> results(loopResults);
  if (!overlapped)
    return results;
  // The last dot's reads must finish before the stages are reused, and its
  // result before anyone reads it. The accumulator's registers are among
  // the loop's results (none where nothing after the loop reads it).
  unsigned accArg = cast<BlockArgument>(overlapped.getAcc()).getArgNumber() - 1;
  size_t position = llvm::find(analysis.carried, accArg) - analysis.carried.begin();
  size_t first = k.flatRegisters(ArrayRef(carriedInits).take_front(position)).size();
  size_t count = position < carriedInits.size() ? k.registers(carriedInits[position]).size() : 0;
  MutableArrayRef<Value> acc = MutableArrayRef(results).slice(first, count);
  llvm::copy(rings.front().plan.instruction->emitWaitForAll(builder, loc, acc), acc.begin());
  scf::YieldOp::create(builder, loc, results);
  builder.setInsertionPointAfter(runs);
  return SmallVector<Value>(runs.getResults());
}

FailureOr<bool> PipelinedLoop::lower(OpBuilder &builder) {
  FailureOr<RingBytes> bytes = planRings();
  if (failed(bytes))
    return failure();
  reset = accumulatorReset();
  overlapped = overlappableDot();
  if (warpSpecializable())
    return lowerWarpSpecialized(builder, *bytes);
  // Synchronous copies gain nothing from deeper rings, which on AMD and
  // Vulkan (static workgroup buffers) also stay allocated for the kernel.
  // An overlapped dot holds one more stage where it fits; where it does
  // not, the copies wait for the dot instead (copiesAfterDot), which keeps
  // them num-stages - 1 iterations ahead rather than one less.
  //
  // A loop that only reads back reads each stage into registers at the top
  // of its iteration, each thread its own slots, and then copies a later
  // iteration into them: no stage is busy through the body, and no barrier
  // orders the threads. Its loads are read back only with cp.async or where
  // asked to on every target (ReadBackLoads::Always, which runs the stages
  // where nothing else does), so the ring has the stages the loop asks for.
  unsigned busyStages = readsBackOnly() ? 0 : overlapped ? 2 : 1;
  if (readsBackOnly())
    stages = requestedStages - 1;
  else
    stages = async ? requestedStages + busyStages - 1 : std::min(requestedStages, 2u);
  // Room for the mbarriers of TMA copies, where they may be used.
  int64_t barrierBytes = k.tensorMaps ? 8 : 0;
  if (readBackCostsStages(*bytes, barrierBytes))
    return false;
  if (overlapped && !bytes->fit(stages, barrierBytes, k.target.maxSharedMemoryBytes)) {
    copiesAfterDot = true;
    busyStages = 1;
    stages = k.numStages;
  }
  if (readBackCostsStages(*bytes, barrierBytes))
    return false;
  FailureOr<int64_t> invariantBytes = planInvariantOperands();
  if (failed(invariantBytes))
    return failure();
  bytes->invariant = *invariantBytes;
  // Hoisting is worth less than the stages it would cost.
  if (bytes->invariant &&
      !bytes->fit(stages, barrierBytes, k.target.maxSharedMemoryBytes)) {
    invariants.clear();
    bytes->invariant = 0;
  }
  if (!fitStages(*bytes, busyStages + 1, barrierBytes))
    return false;
  ahead = stages - busyStages;
  SharedMemory::Mark mark = k.shared.mark();
  if (failed(reserveRings()))
    return failure();
  if (failed(stageInvariantOperands(builder)))
    return failure();
  report(/*producer=*/false);
  if (llvm::SetVector<Value> maps = tensorMapsCopied(); !maps.empty()) {
    FailureOr<StageBarriers> reserved = StageBarriers::reserve(k, loop, stages);
    if (failed(reserved))
      return failure();
    barriers = *reserved;
    barriers->initialize(k, builder, loc, maps.getArrayRef());
  }
  if (failed(reserveTensorStoreBuffers(k, loop, bytes->besidesTensorStores)))
    return failure();

  readBounds();
  Type ivType = lowerBound.getType();
  auto ivConstant = [&](OpBuilder &b, int64_t value) -> Value {
    if (ivType.isIndex())
      return indexConstant(b, loc, value);
    return arith::ConstantIntOp::create(b, loc, ivType, value);
  };

  // Prologue: iterations 0 .. ahead-1 into stages 0 .. ahead-1.
  SmallVector<Registers> state;
  for (unsigned arg : analysis.recurrence)
    state.push_back(k.registers(loop.getInitArgs()[arg]));
  for (unsigned iteration = 0; iteration < ahead; ++iteration) {
    Value iv = arith::AddIOp::create(
        builder, loc, lowerBound,
        arith::MulIOp::create(builder, loc, step, ivConstant(builder, iteration)));
    FailureOr<SmallVector<Registers>> next =
        copyAhead(builder, iv, state, i32Constant(builder, loc, iteration),
                  isIteration(builder, lowerBound, iteration));
    if (failed(next))
      return failure();
    state = std::move(*next);
  }

  // The loop carries the needed iteration arguments, the recurrence's state
  // `ahead` iterations ahead, and the stages read and written, advanced by
  // one and wrapped (a remainder of an iteration count would be divided
  // every iteration, and LLVM strength-reduces it into an induction
  // variable per shared-memory address).
  SmallVector<Value> inits = k.flatRegisters(carriedInits);
  size_t carriedCount = inits.size();
  llvm::append_range(inits, flatten(state));
  inits.push_back(i32Constant(builder, loc, 0));
  inits.push_back(i32Constant(builder, loc, ahead % stages));
  // The phase of the read stage's mbarrier, which flips each time the reads
  // wrap around the ring.
  if (barriers)
    inits.push_back(arith::ConstantIntOp::create(builder, loc, 0, 32));
  size_t stageArgs = barriers ? 3 : 2;

  scf::IfOp runs = openIfLoopRuns(builder, inits);
  LogicalResult bodyResult = success();
  auto pipelined = scf::ForOp::create(
      builder, loc, lowerBound, upperBound, step, inits,
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        auto fail = [&] {
          bodyResult = failure();
          scf::YieldOp::create(body, loc, args);
        };
        Value readStage = args[args.size() - stageArgs];
        Value writeStage = args[args.size() - stageArgs + 1];
        SmallVector<Registers> aheadState = regroup(args.drop_front(carriedCount), state);
        if (cpAsyncGroups)
          NVVM::CpAsyncWaitGroupOp::create(body, loc, ahead - 1);
        if (barriers)
          barriers->wait(body, loc, readStage, args.back());
        // The stages of t are then ready for the dots: what cp.async wrote
        // fenced for instructions that read through the async proxy (TMA
        // writes through it already), and synchronized.
        if (llvm::any_of(rings, [](const Ring &ring) {
              return !ring.tensorCopy && ring.plan.instruction &&
                     ring.plan.instruction->readsThroughAsyncProxy();
            }))
          emitAsyncProxyFence(body, loc);
        if (!readsBackOnly())
          mlir::gpu::BarrierOp::create(body, loc);

        Value aheadIv = arith::AddIOp::create(
            body, loc, iv, arith::MulIOp::create(body, loc, step, ivConstant(body, ahead)));
        FailureOr<SmallVector<Registers>> nextState;
        auto copyNext = [&](OpBuilder &at) {
          nextState = copyAhead(at, aheadIv, aheadState, writeStage, isIteration(at, iv, ahead));
          return succeeded(nextState);
        };
        if (!overlapped && !readsBackOnly() && !copyNext(body))
          return fail();

        // The copies and the later iteration's addresses, lowered amid the
        // body's (between the dot's issue and its wait, or after the reads
        // of the stages); the mappings they change are put back for the
        // body's ops after them.
        auto copyAmidBody = [&](OpBuilder &during) -> LogicalResult {
          KernelLowering::SavedMapping saved = k.save(valuesRelowered());
          bool copied = copyNext(during);
          k.restore(saved);
          return success(copied);
        };
        if (overlapped)
          k.overlap(overlapped, copiesAfterDot ? WhileDotRuns() : WhileDotRuns(copyAmidBody));
        function_ref<LogicalResult(OpBuilder &)> afterReads;
        if (readsBackOnly())
          afterReads = copyAmidBody;
        if (failed(lowerIteration(body, iv, args.take_front(carriedCount), readStage,
                                  [](OpBuilder &) {}, afterReads)))
          return fail();
        if (overlapped && !copiesAfterDot && failed(nextState)) {
          loop.emitOpError("internal error: the overlapped dot issued no copies");
          return fail();
        }
        SmallVector<Value> yields = k.flatRegisters(carriedYields);
        if (copiesAfterDot) {
          // Past this barrier every warp has waited for its dot of t - 1,
          // the last reader of the stage the copies overwrite.
          mlir::gpu::BarrierOp::create(body, loc);
          if (!copyNext(body))
            return fail();
        }
        llvm::append_range(yields, flatten(*nextState));
        Value nextRead = nextStage(body, readStage);
        yields.push_back(nextRead);
        yields.push_back(nextStage(body, writeStage));
        if (barriers)
          yields.push_back(flipAtWrap(body, args.back(), nextRead));
        scf::YieldOp::create(body, loc, yields);
      });
  for (const StagedLoad &staged : analysis.loads)
    k.unstage(staged.operand());
  for (const InvariantOperand &invariant : invariants)
    k.unstage(invariant.operand());
  if (overlapped)
    k.endOverlap(overlapped);
  if (failed(bodyResult))
    return failure();

  // No copy is in flight: those beyond the last iteration were not issued.
  SmallVector<Value> loopResults = closeIfLoopRuns(builder, runs, pipelined.getResults());
  k.mapFlat(carriedResults, ValueRange(loopResults).take_front(carriedCount), carriedBases);
  // Every thread has passed its last wait on them: thread 0 is past the
  // last iteration's barrier, which follows the waits.
  if (barriers)
    barriers->invalidate(k, builder, loc);
  releaseTensorStoreBuffers(k, loop, builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
  k.shared.release(mark);
  return true;
}

} // namespace tessera::gpu::pipelining

namespace tessera::gpu {

FailureOr<bool> lowerPipelinedFor(KernelLowering &k, scf::ForOp op, OpBuilder &builder) {
  using namespace pipelining;
  // A loop with a dot is pipelined for the program's num_stages; one without
  // only where it asks for stages itself (Triton's tl.range(..., num_stages=S)),
  // for its loads read back.
  unsigned requested = k.numStages;
  bool dotless = !containsDot(op);
  if (dotless) {
    auto attr = op->getAttrOfType<IntegerAttr>(tile::TileDialect::kNumStagesAttr);
    requested = attr ? unsigned(std::max<int64_t>(attr.getInt(), 0)) : 0;
  }
  if (requested < 2)
    return false;
  if (failed(k.flatTypes(op, op.getResultTypes())))
    return failure();
  // With cp.async, a load is read back where its registers hold runs of at
  // least 4 bytes, which cp.async copies: its copies would otherwise be
  // loads and shared stores, which wait for memory where they are issued.
  auto copiedAsync = [&](Operation *load) {
    FailureOr<LinearLayout> layout = k.layout(load, load->getResult(0));
    int64_t bytes = loadedElement(load).getIntOrFloatBitWidth() / 8;
    return succeeded(layout) &&
           std::min<int64_t>(layout->contiguousRegisters(), 16 / bytes) * bytes >= 4;
  };
  auto everyLoad = [](Operation *) { return true; };
  function_ref<bool(Operation *)> readsBack;
  if (k.readBackLoads == ReadBackLoads::Always)
    readsBack = everyLoad;
  else if (readsLoadsBack(k.target, k.readBackLoads))
    readsBack = copiedAsync;
  // Where a load read back keeps the loop from being pipelined (its
  // addresses read another loaded value) or costs it stages, the loop goes
  // without them.
  bool readBack = static_cast<bool>(readsBack);
  if (dotless && !readBack)
    return false;
  std::optional<PipelineAnalysis> analysis = analyzePipeline(op, dotless, k.tensorMaps, readsBack);
  if (analysis && llvm::any_of(analysis->loads,
                               [](const StagedLoad &staged) { return staged.readBack; })) {
    FailureOr<bool> lowered = PipelinedLoop(k, op, std::move(*analysis), requested).lower(builder);
    if (failed(lowered) || *lowered || dotless)
      return lowered;
    analysis.reset();
  }
  // A loop without a dot stages nothing but its loads read back.
  if (!analysis && readBack && !dotless)
    analysis = analyzePipeline(op, dotless, k.tensorMaps, /*readsBack=*/{});
  if (!analysis)
    return false;
  return PipelinedLoop(k, op, std::move(*analysis), requested).lower(builder);
}

} // namespace tessera::gpu

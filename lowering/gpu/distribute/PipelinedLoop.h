// The software-pipelined lowering of one scf.for whose loads feed tile.dot
// (or, in a loop without a dot that asks for stages, are read back), shared
// by its two forms: one instruction stream for every warp
// (SoftwarePipeline.cpp) and a warp-specialized producer and consumers
// (WarpSpecializedLoop.cpp). Private to lowering/gpu/distribute.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINEDLOOP_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINEDLOOP_H

#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/StageCopies.h"
#include "lowering/gpu/distribute/TensorMaps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace tessera::gpu::pipelining {

/// A load whose result the pipeline puts into shared memory ahead of its dot,
/// directly or through a transpose; or, where `readBack`, another load of the
/// body (one that reaches a dot through a conversion or a scaling, an int8
/// weight widened to f16), which is copied ahead into a ring of its own in
/// its register layout and read back into registers in its iteration.
struct StagedLoad {
  mlir::Operation *load = nullptr;
  /// The tile.trans between the load and the dot, if any.
  tile::TransOp trans;
  tile::DotOp dot;
  DotOperand slot = DotOperand::A;
  bool readBack = false;
  bool transposed() const { return static_cast<bool>(trans); }
  /// What the dot receives.
  mlir::Value operand() const {
    return trans ? mlir::Value(trans->getResult(0)) : load->getResult(0);
  }
};

struct PipelineAnalysis {
  llvm::SmallVector<StagedLoad> loads;
  /// Ops of the body computing the staged loads' operands and the next values
  /// of the iteration arguments those read, in body order.
  llvm::SetVector<mlir::Operation *> addressOps;
  /// Iteration arguments (indices) the address ops read: their values for
  /// later iterations are carried.
  llvm::SmallVector<unsigned> recurrence;
  /// Iteration arguments whose current value the loop needs.
  llvm::SmallVector<unsigned> carried;
  /// Ops of the body lowered for the current iteration.
  llvm::DenseSet<mlir::Operation *> liveOps;
  /// Whether every address op may run for an iteration past the loop's end
  /// (no division by a value that may then be zero).
  bool speculatableAddresses = true;
};

/// Finds the staged loads and the ops that compute their operands; nullopt
/// when nothing can be staged or the operands need ops with effects of the
/// body. The body's other loads that can be and that `readsBack` takes (if
/// given) are read back. A loop without a dot (`dotless`) stages nothing:
/// its loads read back are its pipeline (lowerPipelinedFor lets only those
/// that ask for stages come here).
std::optional<PipelineAnalysis>
analyzePipeline(mlir::scf::ForOp loop, bool dotless, bool nanPaddedDescriptors,
                llvm::function_ref<bool(mlir::Operation *)> readsBack);

/// The registers of several values, one after the other.
llvm::SmallVector<mlir::Value> flatten(llvm::ArrayRef<Registers> values);
/// `flat` cut into values of as many registers as those of `like`.
llvm::SmallVector<Registers> regroup(mlir::ValueRange flat, llvm::ArrayRef<Registers> like);

/// The lowering of one pipelined loop.
class PipelinedLoop {
public:
  /// `requestedStages`: the num_stages the loop is lowered for (the
  /// program's, or a loop without a dot its own).
  PipelinedLoop(KernelLowering &k, mlir::scf::ForOp loop, PipelineAnalysis analysis,
                unsigned requestedStages)
      : k(k), loop(loop), analysis(std::move(analysis)), loc(loop.getLoc()),
        async(k.target.hasCpAsync()), requestedStages(requestedStages) {}

  /// False when the stages do not fit in shared memory.
  mlir::FailureOr<bool> lower(mlir::OpBuilder &builder);

private:
  /// Shared memory a stage of every ring takes, and what the body's own
  /// users (a dot's scratch, conversions) need beside the rings.
  struct RingBytes {
    int64_t stage = 0, body = 0;
    /// What the body's users but its TMA stores take at most
    /// (reserveTensorStoreBuffers).
    int64_t besidesTensorStores = 0;
    /// The buffers of the dot operands defined before the loop
    /// (InvariantOperand), live through it.
    int64_t invariant = 0;
    /// The part of `stage` that the rings of loads read back take (they
    /// follow the dots' rings).
    int64_t readBackStage = 0;
    /// Whether `stages` stages, each with `barrierBytes` of mbarriers, fit
    /// beside the body's users in `limit` bytes.
    bool fit(unsigned stages, int64_t barrierBytes, int64_t limit) const {
      return stages * (stage + barrierBytes) + body + invariant <= limit;
    }
    RingBytes withoutReadBack() const {
      return {stage - readBackStage, body, besidesTensorStores, invariant, 0};
    }
  };
  struct InvariantOperand {
    tile::DotOp dot;
    DotOperand slot;
    DotPlan plan;
    mlir::Value operand() const {
      tile::DotOp op = dot;
      return slot == DotOperand::A ? op.getA() : op.getB();
    }
  };
  struct Ring {
    DotPlan plan;
    /// The loaded tile over the operand (its transpose for a trans'd load).
    OperandSource source;
    mlir::Value buffer;
    int64_t stageElements = 0;
    RunPlaces runPlaces;
    /// Where TMA copies the load's blocks instead of cp.async.
    std::optional<TensorCopy> tensorCopy;
  };
  /// A loop over several output tiles (a persistent GEMM with its loops
  /// flattened) starts the accumulator again after each tile:
  /// `acc = select(last, fresh, dot)`, where the tile's epilogue, under
  /// `if last`, reads the dot. That branch resets the registers (and waits
  /// for an overlapped dot, which nothing else then waits for).
  struct AccumulatorReset {
    tile::DotOp dot;
    mlir::arith::SelectOp select;
    /// Null where nothing else reads the dot.
    mlir::scf::IfOp epilogue;
  };

  /// Plans each staged load's ring (no shared memory yet).
  mlir::FailureOr<RingBytes> planRings();
  /// Plans the body's dot operands defined before the loop (attention's Q):
  /// stored once into a buffer of their own before it rather than in every
  /// iteration, with the barriers around each dot that storing costs.
  /// Returns their bytes.
  mlir::FailureOr<int64_t> planInvariantOperands();
  /// Stores the invariant operands into their reserved buffers and stages
  /// them for the body's dots.
  mlir::LogicalResult stageInvariantOperands(mlir::OpBuilder &builder);
  /// Reserves `stages` stages of every ring and picks the rings TMA copies.
  mlir::LogicalResult reserveRings();
  /// The tensor-map parameters of the rings TMA copies, each once.
  llvm::SetVector<mlir::Value> tensorMapsCopied() const;
  /// Records in k.loopPipelines how the loop is lowered, once its rings are
  /// reserved (`producer`: copied by a producer warpgroup).
  void report(bool producer) const;
  /// Whether every load of the pipeline is read back (a loop without a
  /// dot): each thread reads only what it copied.
  bool readsBackOnly() const {
    return llvm::all_of(analysis.loads, [](const StagedLoad &staged) { return staged.readBack; });
  }
  /// Whether the rings of loads read back keep `stages` stages from fitting
  /// where the others would fit alone: the loop is then pipelined without
  /// them (lowerPipelinedFor), worth more than the loads read back. Never
  /// where they are all there is.
  bool readBackCostsStages(const RingBytes &bytes, int64_t barrierBytes) const;
  /// Lowers `stages` until the rings, each stage with `barrierBytes` of
  /// mbarriers, fit beside the body's users, down to `least`; false, and
  /// recorded in k.loopPipelines, where not even `least` fit.
  bool fitStages(const RingBytes &bytes, unsigned least, int64_t barrierBytes);
  /// The loop's bounds and its iteration arguments' pointer bases.
  void readBounds();
  /// Lowers the body's live ops for the iteration at `iv`, the carried
  /// arguments' registers `carried`, the staged operands read from
  /// `readStage`; `afterDot` runs right after the overlapped dot (its wait
  /// for the dot before it included), `afterReads` (if set) once the loads
  /// read back are in registers, before the body's ops.
  mlir::LogicalResult
  lowerIteration(mlir::OpBuilder &body, mlir::Value iv, mlir::ValueRange carried,
                 mlir::Value readStage, llvm::function_ref<void(mlir::OpBuilder &)> afterDot,
                 llvm::function_ref<mlir::LogicalResult(mlir::OpBuilder &)> afterReads = {});

  /// An overlapped dot's loop and its last wait sit under `if the loop
  /// runs`: where the loop's exit joined the path that skips it, the
  /// registers the skipping path sets (the initial accumulator) would be
  /// written between a wgmma and its wait as far as ptxas can tell, and
  /// ptxas would serialize every wgmma of the kernel (C7515). Opens that
  /// branch (null without an overlapped dot), the loop's `inits` its results
  /// where the loop does not run, and moves `builder` into it.
  mlir::scf::IfOp openIfLoopRuns(mlir::OpBuilder &builder, mlir::ValueRange inits);
  /// Closes `runs` after the loop, waiting there for the last dot; returns
  /// the loop's results as they are after the branch.
  llvm::SmallVector<mlir::Value> closeIfLoopRuns(mlir::OpBuilder &builder, mlir::scf::IfOp runs,
                                                 mlir::ValueRange loopResults);

  /// Whether the loop can be lowered warp-specialized
  /// (WarpSpecializedLoop.cpp).
  bool warpSpecializable();
  /// The warp-specialized lowering: a producer warpgroup copies, the others
  /// compute; false where the stages do not fit.
  mlir::FailureOr<bool> lowerWarpSpecialized(mlir::OpBuilder &builder, RingBytes bytes);
  /// The producer's loop (its first warp's): every iteration's copies, each into a stage
  /// that `empty` says the consumers have finished reading, completing on
  /// `full`.
  mlir::LogicalResult produce(mlir::OpBuilder &builder, const StageBarriers &full,
                              const StageBarriers &empty);
  /// The consumer warps' loop; returns its results (carried registers).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  consume(mlir::OpBuilder &builder, const StageBarriers &full, const StageBarriers &empty);

  /// Lowers the address ops for the iteration at `iv` whose recurrence
  /// arguments hold `state`; returns the recurrence's next state.
  mlir::FailureOr<llvm::SmallVector<Registers>>
  addressesFor(mlir::OpBuilder &builder, mlir::Value iv, llvm::ArrayRef<Registers> state);
  /// Copies the staged loads of the iteration at `iv`, whose recurrence
  /// arguments hold `state`, into `stage` where `valid` (the iteration
  /// exists) holds, and closes the copies' group; returns the recurrence's
  /// next state.
  mlir::FailureOr<llvm::SmallVector<Registers>> copyAhead(mlir::OpBuilder &builder, mlir::Value iv,
                                                          llvm::ArrayRef<Registers> state,
                                                          mlir::Value stage, mlir::Value valid);
  /// The values copyAhead maps anew: the loop's induction variable and
  /// iteration arguments, and what the address ops define.
  llvm::SmallVector<mlir::Value> valuesRelowered();
  /// The TMA copies of the rings that have them into `stage`, announced on
  /// its mbarrier; spread over the warps, or all issued by the warp where
  /// `soleIssuer` (i32, if set) is nonzero.
  void copyWithTensorMaps(mlir::OpBuilder &builder, mlir::Value stage, mlir::Value soleIssuer);
  /// The copies of copyAhead, their operands lowered.
  mlir::LogicalResult copyStagedLoads(mlir::OpBuilder &builder, mlir::Value stage);
  /// i1: `iv + stepsAhead * step` is still an iteration of the loop.
  mlir::Value isIteration(mlir::OpBuilder &builder, mlir::Value iv, int64_t stepsAhead);
  /// The stage after `stage`, wrapping around the ring. Stages are i32
  /// counters: `index` is 64-bit on NVPTX, where each step of a ring would
  /// cost a carry, an extended compare and two selects more.
  mlir::Value nextStage(mlir::OpBuilder &builder, mlir::Value stage);
  /// The stage before `stage`, wrapping around the ring.
  mlir::Value previousStage(mlir::OpBuilder &builder, mlir::Value stage);
  /// `phase` (i32), flipped where `next` (the next stage) wraps to 0.
  mlir::Value flipAtWrap(mlir::OpBuilder &builder, mlir::Value phase, mlir::Value next);
  /// The program's threads (those of the layouts).
  unsigned threads() const { return k.thread.warpSize() * k.numWarps; }
  /// The first element of `ring`'s stage `stage`.
  mlir::Value stageStart(mlir::OpBuilder &builder, const Ring &ring, mlir::Value stage);

  /// The accumulator of the loop's one dot, where it is an iteration
  /// argument read by nothing else; null otherwise.
  mlir::BlockArgument carriedAccumulator(tile::DotOp dot);
  /// Whether `value` is yielded to `acc` and read by nothing else.
  bool yieldedOnlyTo(mlir::Value value, mlir::BlockArgument acc);
  /// The restart of a staged tensor-core dot's accumulator after each tile.
  std::optional<AccumulatorReset> accumulatorReset();
  /// The dot that may run on into the next iteration, or null.
  tile::DotOp overlappableDot();
  /// Lowers the reset (with its epilogue, if any) in one branch.
  mlir::LogicalResult lowerReset(mlir::OpBuilder &builder);

  KernelLowering &k;
  mlir::scf::ForOp loop;
  PipelineAnalysis analysis;
  mlir::Location loc;
  bool async;
  unsigned requestedStages;
  /// The ring's size, and how many iterations ahead the copies are issued.
  unsigned stages = 0, ahead = 0;
  /// Whether an overlapped dot's loop issues its copies after the dot has
  /// waited for the one before it, behind a second barrier.
  bool copiesAfterDot = false;
  /// Whether some ring is copied with cp.async (closed in groups and waited
  /// for with cp.async.wait_group).
  bool cpAsyncGroups = false;
  /// The stages' mbarriers, where some ring is copied with TMA.
  std::optional<StageBarriers> barriers;
  tile::DotOp overlapped;
  std::optional<AccumulatorReset> reset;
  llvm::SmallVector<Ring, 2> rings;
  llvm::SmallVector<InvariantOperand, 1> invariants;
  llvm::SmallVector<mlir::Value> bases;
  mlir::Value lowerBound, upperBound, step;
  /// The carried iteration arguments' initial values, block arguments,
  /// yielded values and the loop's results, and their pointer bases
  /// (analysis.carried's order).
  llvm::SmallVector<mlir::Value> carriedInits, carriedArgs, carriedYields, carriedResults,
      carriedBases;
};

} // namespace tessera::gpu::pipelining

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINEDLOOP_H

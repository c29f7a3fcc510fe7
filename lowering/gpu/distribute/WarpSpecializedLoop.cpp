// Warp specialization of a software-pipelined loop whose staged blocks TMA
// copies (sm_90a, with `warp_specialize`), in the producer/consumer form of
// CUTLASS's Hopper GEMMs.
//
// In the single-stream loop (SoftwarePipeline.cpp) every warp waits for a
// stage, meets the others at a barrier, issues its share of the copies and
// computes. Here the program gets a warpgroup more, the producer, whose
// first warp (warp numWarps) does nothing but copy; the numWarps consumer
// warps only compute, and no barrier of the whole program sits in the loop:
//
//   producer: for t: wait until empty[t % S] has seen the consumers finish
//                    the stage's previous contents (iteration t - S);
//                    compute t's block coordinates; announce the bytes on
//                    full[t % S] and issue every TMA copy of t into the stage
//             exit
//   consumer: for t: wait for full[t % S]; the body, its dot reading the
//                    stage; once the dot of t is issued and the dot of t - 1
//                    has finished, each warp arrives on empty[(t - 1) % S]
//             wait for the last dot
//
// Each of the S stages thus has two mbarriers: `full` (one arrival, the
// producer's, plus the copies' bytes) and `empty` (one arrival per consumer
// warp). The producer runs up to S iterations ahead, bounded only by the
// consumers' releases, across the tiles of a persistent loop as well: it
// copies the next tile's first blocks while the consumers run this tile's
// epilogue. Its first pass over the ring waits on the phase before the
// first (parity 1), which an mbarrier reports complete at once.
//
// With two consumer warpgroups or more, the producer warpgroup gives its
// registers to the consumers (setmaxnreg) before anything else: ptxas sizes
// every thread's registers for the whole program at launch.
//
// The producer runs the kernel up to the loop with the consumers, so
// what precedes the loop must not touch memory or shared buffers through
// the layouts (which know numWarps warps): only scalars, constants and
// splats (warpSpecializable). After its loop it exits; every barrier after
// the split is one of the consumers' numWarps * 32 threads alone (named
// barrier 1), which the kernel's lowering (DistributeToThreads.cpp) puts in
// place of the program-wide barriers once the whole kernel is lowered.
//
// Not done yet: several consumer warpgroups on different tiles (ping-pong),
// and cluster multicast.
#include "lowering/gpu/distribute/PipelinedLoop.h"

#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/distribute/TensorMapStores.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tessera::gpu::pipelining {

namespace {

/// The producer warpgroup (kProducerWarps) keeps 40 registers per thread
/// (CUTLASS's figure for a TMA producer) of the 64K setmaxnreg divides.
constexpr unsigned kProducerRegisters = 40;
constexpr unsigned kRegistersPerSM = 65536;

/// What setmaxnreg gives each of the `numWarps` consumer warps once the
/// producer warpgroup keeps kProducerRegisters: the rest of the register
/// file, in steps of 8, at most 240; nullopt where that is no more than
/// ptxas allows every thread at launch already (the file over the program's
/// warpgroups, in steps of 8, 255 at most), so nothing need move.
std::optional<unsigned> registersForConsumers(unsigned numWarps, unsigned warpSize) {
  unsigned threads = numWarps * warpSize, producerThreads = kProducerWarps * warpSize;
  unsigned atLaunch = std::min(255u, kRegistersPerSM / (threads + producerThreads) / 8 * 8);
  unsigned consumers = std::min(
      240u, (kRegistersPerSM - kProducerRegisters * producerThreads) / threads / 8 * 8);
  if (consumers <= atLaunch)
    return std::nullopt;
  return consumers;
}

/// Whether the producer warps may run `op` on their way to the loop: no memory
/// effects but promises, and no tile but constants and splats, whose
/// registers every thread computes alike (anything else may go through
/// shared memory, addressed by a warp index the layouts do not have).
bool producerMayRun(Operation *op) {
  if (!tile::hasNoEffectsButPromises(op))
    return false;
  WalkResult walked = op->walk([](Operation *nested) {
    if (isa<arith::ConstantOp, tile::SplatOp>(nested))
      return WalkResult::advance();
    bool tiles = llvm::any_of(nested->getResultTypes(),
                              [](Type type) { return isa<RankedTensorType>(type); });
    return tiles ? WalkResult::interrupt() : WalkResult::advance();
  });
  return !walked.wasInterrupted();
}

} // namespace

bool PipelinedLoop::warpSpecializable() {
  // For every such loop by the option, or for this one as Triton's
  // tl.range(..., warp_specialize=True) asks (with TMA copies too).
  bool asked = k.warpSpecialize ||
               (k.tensorMaps && loop->hasAttr(tile::TileDialect::kWarpSpecializeAttr));
  if (!asked || k.producerBranch || !overlapped ||
      !isa<tile::FuncOp>(loop->getParentOp()))
    return false;
  // A load read back into registers is read by the thread that copied it.
  for (auto [staged, ring] : llvm::zip(analysis.loads, rings))
    if (staged.readBack ||
        !tensorCopyPanels(k, staged.load, staged.transposed(), ring.plan, staged.slot))
      return false;
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
    if (!producerMayRun(op))
      return false;
  return llvm::all_of(analysis.addressOps, producerMayRun);
}

FailureOr<bool> PipelinedLoop::lowerWarpSpecialized(OpBuilder &builder, RingBytes bytes) {
  // No stage stays busy under a running dot: the consumers free each one
  // themselves, so num_stages stages keep num_stages iterations in flight.
  stages = k.numStages;
  // Two mbarriers a stage: full and empty.
  constexpr int64_t kBarrierBytes = 2 * 8;
  if (!fitStages(bytes, 2, kBarrierBytes))
    return false;
  SharedMemory::Mark mark = k.shared.mark();
  if (failed(reserveRings()))
    return failure();
  report(/*producer=*/true);
  FailureOr<StageBarriers> full = StageBarriers::reserve(k, loop, stages);
  FailureOr<StageBarriers> empty = StageBarriers::reserve(k, loop, stages, k.numWarps);
  if (failed(full) || failed(empty))
    return failure();
  barriers = *full;
  full->initialize(k, builder, loc, tensorMapsCopied().getArrayRef());
  empty->initialize(k, builder, loc, {});
  if (failed(reserveTensorStoreBuffers(k, loop, bytes.besidesTensorStores)))
    return failure();
  readBounds();

  Value warp = k.thread.warp();
  Value producerGroup = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge, warp,
                                              i32Constant(builder, loc, k.numWarps));
  std::optional<unsigned> consumerRegisters =
      registersForConsumers(k.numWarps, k.target.warpSize);
  LogicalResult produced = success();
  auto producer = scf::IfOp::create(builder, loc, producerGroup, [&](OpBuilder &group,
                                                                     Location loc) {
    if (consumerRegisters)
      inlinePtx(group, loc, {}, {},
                "setmaxnreg.dec.sync.aligned.u32 " + std::to_string(kProducerRegisters) + ";", "");
    Value issues = arith::CmpIOp::create(group, loc, arith::CmpIPredicate::eq, warp,
                                         i32Constant(group, loc, k.numWarps));
    scf::IfOp::create(group, loc, issues, [&](OpBuilder &issuer, Location loc) {
      produced = produce(issuer, *full, *empty);
      scf::YieldOp::create(issuer, loc);
    });
    NVVM::Exit::create(group, loc);
    scf::YieldOp::create(group, loc);
  });
  if (failed(produced))
    return failure();
  k.producerBranch = producer;
  if (consumerRegisters)
    inlinePtx(builder, loc, {}, {},
              "setmaxnreg.inc.sync.aligned.u32 " + std::to_string(*consumerRegisters) + ";", "");

  FailureOr<SmallVector<Value>> results = consume(builder, *full, *empty);
  if (failed(results))
    return failure();
  k.mapFlat(carriedResults, *results, carriedBases);
  // Every consumer has passed its last wait, and the producer its last use
  // of the mbarriers (the arrival those waits saw), before they are
  // invalidated; and they are before their memory is used again.
  releaseTensorStoreBuffers(k, loop, builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
  full->invalidate(k, builder, loc);
  empty->invalidate(k, builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
  k.shared.release(mark);
  return true;
}

LogicalResult PipelinedLoop::produce(OpBuilder &builder, const StageBarriers &full,
                                     const StageBarriers &empty) {
  SmallVector<Registers> state;
  for (unsigned arg : analysis.recurrence)
    state.push_back(k.registers(loop.getInitArgs()[arg]));
  SmallVector<Value> inits = flatten(state);
  inits.push_back(i32Constant(builder, loc, 0));
  inits.push_back(i32Constant(builder, loc, 1));
  // The address ops are lowered here for the producer alone; the consumers
  // lower those they need again.
  KernelLowering::SavedMapping saved = k.save(valuesRelowered());
  LogicalResult result = success();
  scf::ForOp::create(
      builder, loc, lowerBound, upperBound, step, inits,
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        Value stage = args[args.size() - 2], phase = args.back();
        empty.wait(body, loc, stage, phase);
        FailureOr<SmallVector<Registers>> next =
            addressesFor(body, iv, regroup(args.drop_back(2), state));
        if (failed(next)) {
          result = failure();
          scf::YieldOp::create(body, loc, args);
          return;
        }
        copyWithTensorMaps(body, stage, i32Constant(body, loc, 1));
        SmallVector<Value> yields = flatten(*next);
        Value nextWrite = nextStage(body, stage);
        yields.push_back(nextWrite);
        yields.push_back(flipAtWrap(body, phase, nextWrite));
        scf::YieldOp::create(body, loc, yields);
      });
  k.restore(saved);
  return result;
}

FailureOr<SmallVector<Value>> PipelinedLoop::consume(OpBuilder &builder,
                                                     const StageBarriers &full,
                                                     const StageBarriers &empty) {
  SmallVector<Value> inits = k.flatRegisters(carriedInits);
  size_t carriedCount = inits.size();
  inits.push_back(i32Constant(builder, loc, 0));
  inits.push_back(i32Constant(builder, loc, 0));
  scf::IfOp runs = openIfLoopRuns(builder, inits);
  k.overlap(overlapped, WhileDotRuns());
  LogicalResult result = success();
  auto consumer = scf::ForOp::create(
      builder, loc, lowerBound, upperBound, step, inits,
      [&](OpBuilder &body, Location loc, Value iv, ValueRange args) {
        Value stage = args[args.size() - 2], phase = args.back();
        full.wait(body, loc, stage, phase);
        // The dot's wait has seen the dot of t - 1 finish in this warp: its
        // stage is free as far as this warp is concerned.
        auto release = [&](OpBuilder &at) {
          Value hadPrevious = arith::ExtUIOp::create(
              at, loc, at.getI32Type(),
              arith::CmpIOp::create(at, loc, arith::CmpIPredicate::ne, iv, lowerBound));
          empty.arrive(at, loc, previousStage(at, stage), hadPrevious);
        };
        if (failed(lowerIteration(body, iv, args.take_front(carriedCount), stage, release))) {
          result = failure();
          scf::YieldOp::create(body, loc, args);
          return;
        }
        SmallVector<Value> yields = k.flatRegisters(carriedYields);
        Value nextRead = nextStage(body, stage);
        yields.push_back(nextRead);
        yields.push_back(flipAtWrap(body, phase, nextRead));
        scf::YieldOp::create(body, loc, yields);
      });
  for (const StagedLoad &staged : analysis.loads)
    k.unstage(staged.operand());
  k.endOverlap(overlapped);
  if (failed(result))
    return failure();
  SmallVector<Value> results = closeIfLoopRuns(builder, runs, consumer.getResults());
  results.resize(carriedCount);
  return results;
}

} // namespace tessera::gpu::pipelining

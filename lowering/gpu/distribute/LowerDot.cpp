// tile.dot. Where the target has a matrix instruction for the problem
// (selectTensorCoreDot) and the result already has its accumulator layout,
// the operands go to the emitter's shared buffers (a vector store per run of
// registers the buffer keeps contiguous) and the emitter computes the
// accumulator (lowering/gpu/tensorcore/TensorCore.h). Otherwise the FMA path:
// both operands go to row-major shared buffers, and each thread runs one
// k-loop for all its accumulator registers, loading each row of A and column
// of B it needs once per step (any accumulator layout works). An operand a
// software-pipelined loop has already put into shared memory
// (KernelLowering::staged) is read from there.
//
// FMA arithmetic: f16, bf16 and f32 operands multiply in f32 (an f16
// accumulator is widened for the loop and rounded once at the end); tf32 and
// tf32x3 input precisions are computed in full f32, at least as accurate as
// asked. f64 stays f64; i8 multiplies in i32 with wrapping sums.
#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/ElementAccess.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

using namespace mlir;

namespace tessera::gpu {

namespace {

/// The type the FMA path computes in, or null when it has none.
Type computeType(Type operand) {
  MLIRContext *context = operand.getContext();
  if (operand.isF16() || operand.isBF16() || operand.isF32())
    return Float32Type::get(context);
  if (operand.isF64())
    return operand;
  if (operand.isInteger(8))
    return IntegerType::get(context, 32);
  return {};
}

Value convert(OpBuilder &builder, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (isa<IntegerType>(to))
    return arith::ExtSIOp::create(builder, loc, to, value);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, loc, to, value);
  return arith::TruncFOp::create(builder, loc, to, value);
}

Registers convertAll(OpBuilder &builder, Location loc, const Registers &regs, Type to) {
  return llvm::map_to_vector<4>(regs, [&](Value v) { return convert(builder, loc, v, to); });
}

/// Per batch, the registers of a dot's [B, M, N] (or [M, N]) accumulator in
/// the emitter's register order, when the accumulator layout is the emitter's
/// repeated per batch in registers; nullopt otherwise.
std::optional<SmallVector<SmallVector<unsigned>>>
batchRegisters(const LinearLayout &acc, const LinearLayout &instruction, int64_t batches) {
  bool batched = acc.rank() == 3;
  auto lift = [&](const Basis &basis) {
    Basis lifted(basis);
    if (batched)
      lifted.insert(lifted.begin(), 0);
    return lifted;
  };
  if (acc.lanes.size() != instruction.lanes.size() || acc.warps.size() != instruction.warps.size())
    return std::nullopt;
  for (auto [mine, theirs] : llvm::zip(acc.lanes, instruction.lanes))
    if (mine != lift(theirs))
      return std::nullopt;
  for (auto [mine, theirs] : llvm::zip(acc.warps, instruction.warps))
    if (mine != lift(theirs))
      return std::nullopt;
  std::map<Basis, unsigned> holders;
  for (unsigned reg = 0; reg < acc.numRegisters(); ++reg)
    holders.try_emplace(acc.registerOffset(reg), reg);
  if (acc.numRegisters() != batches * instruction.numRegisters())
    return std::nullopt;
  SmallVector<SmallVector<unsigned>> perBatch(batches);
  for (int64_t batch = 0; batch < batches; ++batch)
    for (unsigned reg = 0; reg < instruction.numRegisters(); ++reg) {
      Basis offset = lift(instruction.registerOffset(reg));
      if (batched)
        offset[0] = batch;
      auto found = holders.find(offset);
      if (found == holders.end())
        return std::nullopt;
      perBatch[batch].push_back(found->second);
    }
  return perBatch;
}

/// Operands whose batch is spread over threads would need a guard per
/// register; the layout assignment keeps batches in registers.
bool batchInRegisters(const LinearLayout &layout) {
  auto noBatch = [](const Basis &basis) { return basis[0] == 0; };
  return layout.rank() == 2 ||
         (llvm::all_of(layout.lanes, noBatch) && llvm::all_of(layout.warps, noBatch));
}

/// The operand's shared memory: where a pipelined loop staged it, or a new
/// buffer of the current user that the operand's registers are stored into
/// by `fill` (with a barrier after every operand's fill).
struct OperandBuffers {
  SharedOperand where[2];
  bool staged[2] = {false, false};
  /// A is passed to the instruction in registers and has no buffer.
  bool aInRegisters = false;
  /// The instruction's accumulator buffer, where it asks for one.
  Value accumulatorScratch;
  /// Whether the dot stores an operand into a buffer of its own: every
  /// thread's stores are then ordered before the reads, and every thread's
  /// reads before the buffer's next user writes it. Staged operands stay put
  /// until the pipelined loop's next barrier.
  bool storesOperands() const { return !(staged[0] || aInRegisters) || !staged[1]; }
};

/// Orders the stores into the dot's own operand buffers before `instruction`
/// reads them: a proxy fence where it reads through the async proxy, then a
/// barrier; every operand is then ready, and the emitter adds no barrier.
void orderOperandStores(OpBuilder &builder, Location loc, const TensorCoreDot *instruction,
                        OperandBuffers &buffers) {
  if (!buffers.storesOperands())
    return;
  if (instruction && instruction->readsThroughAsyncProxy())
    emitAsyncProxyFence(builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
  for (SharedOperand &operand : buffers.where)
    operand.ready = true;
}

FailureOr<OperandBuffers> operandBuffers(KernelLowering &k, tile::DotOp op, const DotPlan &plan,
                                         OpBuilder &builder, bool aInRegisters = false) {
  OperandBuffers buffers;
  buffers.aInRegisters = aInRegisters;
  k.shared.beginUser();
  for (DotOperand slot : {DotOperand::A, DotOperand::B}) {
    unsigned index = slot == DotOperand::A ? 0 : 1;
    Value operand = index == 0 ? op.getA() : op.getB();
    if (index == 0 && aInRegisters)
      continue;
    if (std::optional<SharedOperand> staged = k.staged(operand)) {
      buffers.where[index] = *staged;
      buffers.staged[index] = true;
      continue;
    }
    FailureOr<Value> buffer =
        k.shared.allocate(op, sharedElementType(plan.element(slot)), plan.sharedElements(slot),
                          plan.sharedAlignment());
    if (failed(buffer))
      return failure();
    buffers.where[index] = {*buffer, indexConstant(builder, op.getLoc(), 0)};
  }
  if (int64_t scratch = plan.instruction ? plan.instruction->accumulatorScratchElements() : 0) {
    FailureOr<Value> buffer =
        k.shared.allocate(op, sharedElementType(op.getType().getElementType()), scratch,
                          plan.sharedAlignment());
    if (failed(buffer))
      return failure();
    buffers.accumulatorScratch = *buffer;
  }
  return buffers;
}

/// Whether the dot gives the instruction A as the registers it holds: A in
/// the instruction's register layout (attention's P, a dot's result
/// converted), not staged in shared memory, one batch, not left running.
bool takesAInRegisters(KernelLowering &k, tile::DotOp op, const DotPlan &plan) {
  return plan.aInRegisterForm() && !k.staged(op.getA()) && !k.overlapped(op);
}

/// The dot with A passed in registers: only B goes to shared memory.
FailureOr<Registers> registerADot(KernelLowering &k, tile::DotOp op, OpBuilder &builder,
                                  const DotPlan &plan) {
  Location loc = op.getLoc();
  FailureOr<OperandBuffers> buffers = operandBuffers(k, op, plan, builder, /*aInRegisters=*/true);
  if (failed(buffers))
    return failure();
  if (!buffers->staged[1])
    storeOperandToShared(k, builder, loc, plan, DotOperand::B, plan.source(DotOperand::B),
                         k.registers(op.getB()), buffers->where[1]);
  orderOperandStores(builder, loc, plan.instruction.get(), *buffers);
  Registers acc = k.registers(op.getAcc());
  SmallVector<Value> accumulator =
      llvm::map_to_vector(plan.accRegisters.front(), [&](unsigned reg) { return acc[reg]; });
  SmallVector<Value> result = plan.instruction->emitWithRegisterA(
      builder, loc, k.thread.lane(), k.thread.warp(), k.registers(op.getA()), buffers->where[1],
      accumulator);
  if (buffers->storesOperands())
    k.shared.endUser(builder, loc);
  for (auto [reg, value] : llvm::zip_equal(plan.accRegisters.front(), result))
    acc[reg] = value;
  return acc;
}

FailureOr<Registers> tensorCoreDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder,
                                   const DotPlan &plan) {
  Location loc = op.getLoc();
  const TensorCoreDot &instruction = *plan.instruction;
  if (takesAInRegisters(k, op, plan)) {
    // --verbose says so beside the instruction.
    k.dotInstructions[op] = (instruction.name() + ", A in registers").str();
    return registerADot(k, op, builder, plan);
  }
  FailureOr<OperandBuffers> buffers = operandBuffers(k, op, plan, builder);
  if (failed(buffers))
    return failure();
  Registers acc = k.registers(op.getAcc());
  for (auto [batch, regsOfBatch] : llvm::enumerate(plan.accRegisters)) {
    for (DotOperand slot : {DotOperand::A, DotOperand::B}) {
      unsigned index = slot == DotOperand::A ? 0 : 1;
      if (!buffers->staged[index])
        storeOperandToShared(k, builder, loc, plan, slot, plan.source(slot),
                             k.registers(index == 0 ? op.getA() : op.getB()),
                             buffers->where[index], int64_t(batch));
    }
    orderOperandStores(builder, loc, &instruction, *buffers);
    SmallVector<Value> batchAcc =
        llvm::map_to_vector(regsOfBatch, [&](unsigned reg) { return acc[reg]; });
    SmallVector<Value> result;
    if (const WhileDotRuns *whileRunning = k.overlapped(op)) {
      // The loop's work while the dot runs, once, after its last batch.
      bool last = batch + 1 == plan.accRegisters.size();
      FailureOr<SmallVector<Value>> overlapped = instruction.emitOverlapped(
          builder, loc, k.thread.lane(), k.thread.warp(), buffers->where[0], buffers->where[1],
          batchAcc, buffers->accumulatorScratch, last ? *whileRunning : WhileDotRuns());
      if (failed(overlapped))
        return failure();
      result = std::move(*overlapped);
    } else {
      result = instruction.emit(builder, loc, k.thread.lane(), k.thread.warp(), buffers->where[0],
                                buffers->where[1], batchAcc, buffers->accumulatorScratch);
    }
    if (buffers->storesOperands())
      k.shared.endUser(builder, loc);
    if (result.size() != regsOfBatch.size())
      return op.emitOpError() << "internal error: the " << instruction.name() << " emitter returned "
                              << result.size() << " accumulator registers for "
                              << regsOfBatch.size();
    for (auto [reg, value] : llvm::zip(regsOfBatch, result))
      acc[reg] = value;
  }
  return acc;
}

/// The FMA path reads its operands row-major from the buffer's start.
void storeFmaOperand(KernelLowering &k, OpBuilder &builder, Location loc, const DotPlan &plan,
                     DotOperand operand, ValueRange registers, const SharedOperand &shared) {
  storeTileToShared(k.thread, builder, loc, shared.buffer, plan.layout(operand), registers, false);
}

FailureOr<Registers> fmaDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder,
                            const DotPlan &plan) {
  Location loc = op.getLoc();
  Type accElement = op.getType().getElementType();
  Type compute = computeType(plan.aElement);
  if (!compute) {
    std::string element;
    llvm::raw_string_ostream(element) << plan.aElement;
    return k.unsupported(op, "a dot of " + element + " operands without matrix instructions");
  }
  const LinearLayout &accLayout = plan.accLayout;
  unsigned rank = plan.aShape.size();
  bool batched = rank == 3;
  int64_t m = plan.aShape[rank - 2], kExtent = plan.aShape[rank - 1];
  int64_t n = plan.bShape[rank - 1];

  FailureOr<OperandBuffers> buffers = operandBuffers(k, op, plan, builder);
  if (failed(buffers))
    return failure();
  Value operands[] = {op.getA(), op.getB()};
  for (auto [index, operand] : llvm::enumerate(operands))
    if (!buffers->staged[index])
      storeFmaOperand(k, builder, loc, plan, index == 0 ? DotOperand::A : DotOperand::B,
                      k.registers(operand), buffers->where[index]);
  orderOperandStores(builder, loc, /*instruction=*/nullptr, *buffers);

  // Where each accumulator register's row of A and column of B start; the
  // registers of one row (column) share the loads of each k step.
  auto index = [&](int64_t v) { return indexConstant(builder, loc, v); };
  auto coordinate = [&](unsigned reg, unsigned dim) {
    return toIndex(builder, loc, k.thread.coordinate(builder, loc, accLayout, reg, dim));
  };
  std::map<std::pair<int64_t, int64_t>, unsigned> rowSlots, colSlots;
  SmallVector<Value> rowStarts, colStarts;
  SmallVector<unsigned> rowOf, colOf;
  for (unsigned reg = 0; reg < accLayout.numRegisters(); ++reg) {
    Basis offset = accLayout.registerOffset(reg);
    int64_t batchOffset = batched ? offset[0] : 0;
    auto [row, newRow] = rowSlots.try_emplace({batchOffset, offset[rank - 2]}, rowStarts.size());
    if (newRow) {
      // start + ((b * M) + m) * K
      Value start = coordinate(reg, rank - 2);
      if (batched)
        start = arith::AddIOp::create(
            builder, loc, arith::MulIOp::create(builder, loc, coordinate(reg, 0), index(m)), start);
      rowStarts.push_back(arith::AddIOp::create(
          builder, loc, buffers->where[0].start,
          arith::MulIOp::create(builder, loc, start, index(kExtent))));
    }
    rowOf.push_back(row->second);
    auto [col, newCol] = colSlots.try_emplace({batchOffset, offset[rank - 1]}, colStarts.size());
    if (newCol) {
      // start + b * K * N + n
      Value start = coordinate(reg, rank - 1);
      if (batched)
        start = arith::AddIOp::create(
            builder, loc, arith::MulIOp::create(builder, loc, coordinate(reg, 0), index(kExtent * n)),
            start);
      colStarts.push_back(arith::AddIOp::create(builder, loc, buffers->where[1].start, start));
    }
    colOf.push_back(col->second);
  }

  Registers init = convertAll(builder, loc, k.registers(op.getAcc()), compute);
  Value aBuffer = buffers->where[0].buffer, bBuffer = buffers->where[1].buffer;
  auto loadOperand = [&](OpBuilder &body, Location loc, Value buffer, Value at, Type element) {
    Value stored = memref::LoadOp::create(body, loc, buffer, ValueRange{at});
    return convert(body, loc, fromSharedElement(body, loc, stored, element), compute);
  };
  auto loop = scf::ForOp::create(
      builder, loc, index(0), index(kExtent), index(1), init,
      [&](OpBuilder &body, Location loc, Value kk, ValueRange acc) {
        Value bRowStart = arith::MulIOp::create(body, loc, kk,
                                                arith::ConstantIndexOp::create(body, loc, n));
        SmallVector<Value> aValues, bValues;
        for (Value start : rowStarts)
          aValues.push_back(loadOperand(body, loc, aBuffer,
                                        arith::AddIOp::create(body, loc, start, kk),
                                        plan.aElement));
        for (Value start : colStarts)
          bValues.push_back(loadOperand(body, loc, bBuffer,
                                        arith::AddIOp::create(body, loc, start, bRowStart),
                                        plan.bElement));
        SmallVector<Value> next;
        for (auto [reg, sum] : llvm::enumerate(acc)) {
          Value a = aValues[rowOf[reg]], b = bValues[colOf[reg]];
          if (isa<FloatType>(compute))
            next.push_back(math::FmaOp::create(body, loc, a, b, sum));
          else
            next.push_back(arith::AddIOp::create(body, loc, sum, arith::MulIOp::create(body, loc, a, b)));
        }
        scf::YieldOp::create(body, loc, next);
      });
  if (buffers->storesOperands())
    k.shared.endUser(builder, loc);
  Registers result(loop.getResults().begin(), loop.getResults().end());
  return convertAll(builder, loc, result, accElement);
}

} // namespace

bool DotPlan::aInRegisterForm() const {
  if (!instruction || accRegisters.size() != 1)
    return false;
  std::optional<LinearLayout> layout = instruction->registerALayout();
  return layout && *layout == aLayout;
}

int64_t DotPlan::sharedElements(DotOperand operand) const {
  if (instruction)
    return instruction->sharedElements(operand);
  ArrayRef<int64_t> shape = operand == DotOperand::A ? aShape : bShape;
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  return elements;
}

int64_t DotPlan::sharedAlignment() const {
  return instruction ? instruction->sharedAlignment() : SharedMemory::kMinAlignment;
}

Value DotPlan::sharedIndex(OpBuilder &builder, Location loc, DotOperand operand, Value row,
                           Value col) const {
  if (instruction)
    return instruction->sharedIndex(builder, loc, operand, row, col);
  ArrayRef<int64_t> shape = operand == DotOperand::A ? aShape : bShape;
  return arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, row, indexConstant(builder, loc, shape.back())),
      col);
}

SharedRuns DotPlan::sharedRuns(DotOperand operand, const OperandSource &source) const {
  if (!vectorStores)
    return {};
  // A run the placement keeps contiguous, where no thread's part of the
  // coordinates breaks the run's alignment; at most 16 bytes.
  const LinearLayout &layout = source.layout;
  Type stored = sharedElementType(element(operand));
  int64_t widest = 128 / std::max(8u, stored.getIntOrFloatBitWidth());
  auto runOf = [&](LinearLayout::RegisterRun registers, int64_t contiguous) {
    int64_t width = std::min<int64_t>({int64_t(registers.length), contiguous, widest});
    return width < 2 ? SharedRuns{}
                     : SharedRuns{unsigned(width), 1u << registers.firstBit};
  };
  ArrayRef<int64_t> shape = operand == DotOperand::A ? aShape : bShape;
  unsigned rowDim = layout.rank() - 2;
  int64_t alongRow;
  if (instruction)
    alongRow = source.transposed ? instruction->contiguousRows(operand)
                                 : instruction->contiguousColumns(operand);
  else
    alongRow = source.transposed ? 1 : shape.back(); // row-major
  LinearLayout::RegisterRun columns = layout.registerRunAlong(rowDim + 1);
  if (columns.firstBit == 0 && columns.length >= 2 && alongRow >= 2)
    return runOf(columns, alongRow);
  if (!instruction || source.transposed)
    return {};
  return runOf(layout.registerRunAlong(rowDim), instruction->contiguousRows(operand));
}

Value DotPlan::sharedIndexOf(KernelLowering &k, OpBuilder &builder, Location loc,
                             DotOperand operand, const OperandSource &source, unsigned reg,
                             Value start) const {
  unsigned rowDim = source.layout.rank() - 2;
  Value row = toIndex(builder, loc, k.thread.coordinate(builder, loc, source.layout, reg, rowDim));
  Value col =
      toIndex(builder, loc, k.thread.coordinate(builder, loc, source.layout, reg, rowDim + 1));
  if (source.transposed)
    std::swap(row, col);
  return arith::AddIOp::create(builder, loc, start, sharedIndex(builder, loc, operand, row, col));
}

SmallVector<SharedRunPlace> DotPlan::sharedRunPlaces(MLIRContext *context, DotOperand operand,
                                                     const OperandSource &source,
                                                     SharedRuns runs) const {
  const LinearLayout &layout = source.layout;
  unsigned rowDim = layout.rank() - 2;
  auto indexOf = [&](unsigned reg, unsigned lane, unsigned warp) -> std::optional<int64_t> {
    Basis at = layout.coordinates(reg, lane, warp);
    int64_t row = at[rowDim], col = at[rowDim + 1];
    if (source.transposed)
      std::swap(row, col);
    return foldedIndex(
        context,
        [&](OpBuilder &builder, Location loc, Value rowValue, Value colValue) {
          return sharedIndex(builder, loc, operand, rowValue, colValue);
        },
        row, col);
  };
  // A run's index in every thread (warp-major), or empty where one is not
  // known.
  auto indicesOf = [&](unsigned reg) {
    SmallVector<int64_t> indices;
    for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
      for (unsigned lane = 0; lane < layout.numLanes(); ++lane) {
        std::optional<int64_t> index = indexOf(reg, lane, warp);
        if (!index)
          return SmallVector<int64_t>();
        indices.push_back(*index);
      }
    return indices;
  };
  auto constantDistance = [](ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
    std::optional<int64_t> delta;
    if (from.empty() || to.empty())
      return delta;
    delta = to.front() - from.front();
    for (auto [a, b] : llvm::zip_equal(from, to))
      if (b - a != *delta)
        return std::optional<int64_t>();
    return delta;
  };
  SmallVector<SharedRunPlace> places;
  SmallVector<std::pair<unsigned, SmallVector<int64_t>>> bases;
  for (unsigned run = 0; run < layout.numRegisters() / runs.width; ++run) {
    SmallVector<int64_t> indices = indicesOf(runs.firstRegister(run));
    std::optional<SharedRunPlace> place;
    for (const auto &[baseRun, baseIndices] : bases)
      if (std::optional<int64_t> delta = constantDistance(baseIndices, indices)) {
        place = SharedRunPlace{baseRun, *delta};
        break;
      }
    if (!place) {
      place = SharedRunPlace{run, 0};
      if (!indices.empty())
        bases.emplace_back(run, std::move(indices));
    }
    places.push_back(*place);
  }
  return places;
}

Value SharedRunIndices::at(OpBuilder &builder, Location loc, unsigned reg) {
  const SharedRunPlace &place = places[runs.runOf(reg)];
  Value &base = baseIndices[place.baseRun];
  if (!base)
    base = plan.sharedIndexOf(k, builder, loc, operand, source,
                              runs.firstRegister(place.baseRun), start);
  if (place.delta == 0)
    return base;
  return arith::AddIOp::create(builder, loc, base, indexConstant(builder, loc, place.delta));
}

void storeUnbatchedOperand(KernelLowering &k, OpBuilder &builder, Location loc, const DotPlan &plan,
                           DotOperand operand, ValueRange registers, const SharedOperand &shared) {
  if (plan.instruction)
    storeOperandToShared(k, builder, loc, plan, operand, plan.source(operand), registers, shared);
  else
    storeFmaOperand(k, builder, loc, plan, operand, registers, shared);
}

void storeOperandToShared(KernelLowering &k, OpBuilder &builder, Location loc, const DotPlan &plan,
                          DotOperand operand, const OperandSource &source, ValueRange registers,
                          const SharedOperand &shared, int64_t batch) {
  const LinearLayout &layout = source.layout;
  unsigned rowDim = layout.rank() - 2;
  SharedRuns runs = plan.sharedRuns(operand, source);
  SmallVector<SharedRunPlace> places =
      plan.sharedRunPlaces(builder.getContext(), operand, source, runs);
  SharedRunIndices indices(k, plan, operand, source, runs, shared.start, places);
  auto stored = [&](unsigned reg) {
    return !layout.isDuplicateRegister(reg) &&
           (rowDim != 1 || layout.registerOffset(reg)[0] == batch);
  };
  auto storeRun = [&](unsigned reg, Value vector) {
    Type element = registers[reg].getType();
    unsigned bytes = runs.width * element.getIntOrFloatBitWidth() / 8;
    vector::StoreOp::create(builder, loc, vector, shared.buffer,
                            ValueRange{indices.at(builder, loc, reg)},
                            /*nontemporal=*/false, llvm::MaybeAlign(bytes));
  };
  // Runs of 4 bytes, one from each of 4 rows, 4 runs side by side: the 4
  // runs from run `run` on are the byte transpose of the rows' words.
  bool byteRows = runs.width == 4 && runs.stride % 4 == 0 &&
                  registers.front().getType().getIntOrFloatBitWidth() == 8;
  for (unsigned run = 0; run < layout.numRegisters() / runs.width; ++run) {
    unsigned reg = runs.firstRegister(run);
    if (byteRows && run % 4 == 0 &&
        llvm::all_of(llvm::seq(0u, 4u), [&](unsigned j) { return stored(reg + j); })) {
      auto rowType = VectorType::get({4}, registers[reg].getType());
      SmallVector<Value, 4> rows;
      for (unsigned i = 0; i < 4; ++i)
        rows.push_back(vector::FromElementsOp::create(
            builder, loc, rowType, registers.slice(reg + i * runs.stride, 4)));
      for (auto [j, column] : llvm::enumerate(transposeByteRows(builder, loc, rows)))
        storeRun(reg + j, column);
      run += 3;
      continue;
    }
    if (!stored(reg))
      continue;
    if (runs.width == 1) {
      memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, registers[reg]),
                              shared.buffer, ValueRange{indices.at(builder, loc, reg)});
      continue;
    }
    SmallVector<Value> elements;
    for (unsigned i = 0; i < runs.width; ++i)
      elements.push_back(registers[reg + i * runs.stride]);
    storeRun(reg, vector::FromElementsOp::create(
                      builder, loc,
                      VectorType::get({int64_t(runs.width)}, registers[reg].getType()), elements));
  }
}

FailureOr<DotPlan> planDot(KernelLowering &k, tile::DotOp op) {
  FailureOr<LinearLayout> aLayout = k.layout(op, op.getA());
  FailureOr<LinearLayout> bLayout = k.layout(op, op.getB());
  FailureOr<LinearLayout> accLayout = k.layout(op, op.getType());
  if (failed(aLayout) || failed(bLayout) || failed(accLayout))
    return failure();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  DotPlan plan;
  plan.aLayout = *aLayout;
  plan.bLayout = *bLayout;
  plan.accLayout = *accLayout;
  plan.aShape.assign(aType.getShape().begin(), aType.getShape().end());
  plan.bShape.assign(bType.getShape().begin(), bType.getShape().end());
  plan.aElement = aType.getElementType();
  plan.bElement = bType.getElementType();
  plan.vectorStores = k.target.hasVectorAccesses();

  unsigned rank = aType.getRank();
  std::unique_ptr<TensorCoreDot> instruction =
      selectTensorCoreDot(k.target, dotProblemOf(op), k.numWarps);
  std::optional<SmallVector<SmallVector<unsigned>>> accRegisters;
  if (instruction && batchInRegisters(*aLayout) && batchInRegisters(*bLayout))
    accRegisters = batchRegisters(*accLayout, instruction->accumulatorLayout(),
                                  rank == 3 ? aType.getShape()[0] : 1);
  if (accRegisters) {
    plan.instruction = std::move(instruction);
    plan.accRegisters = std::move(*accRegisters);
  }
  k.dotInstructions[op] = plan.instruction ? plan.instruction->name().str() : kFmaDot.str();
  return plan;
}

LogicalResult lowerDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder) {
  FailureOr<DotPlan> plan = planDot(k, op);
  if (failed(plan))
    return failure();
  FailureOr<Registers> result =
      plan->instruction ? tensorCoreDot(k, op, builder, *plan) : fmaDot(k, op, builder, *plan);
  if (failed(result))
    return failure();
  k.map(op, std::move(*result));
  return success();
}

} // namespace tessera::gpu

// tile.dot. Where the target has a matrix instruction for the problem
// (selectTensorCoreDot) and the result already has its accumulator layout,
// the operands go to the emitter's shared buffers (a vector store per run of
// registers the buffer keeps contiguous) and the emitter computes the
// accumulator (lowering/gpu/tensorcore/TensorCore.h). Otherwise the FMA path:
// both operands go to row-major shared buffers, and each thread runs one
// k-loop for all its accumulator registers, loading each row of A and column
// of B it needs once per step (any accumulator layout works).
//
// FMA arithmetic: f16, bf16 and f32 operands multiply in f32 (an f16
// accumulator is widened for the loop and rounded once at the end); tf32 and
// tf32x3 input precisions are computed in full f32, at least as accurate as
// asked. f64 stays f64; i8 multiplies in i32 with wrapping sums.
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/tensorcore/TensorCore.h"

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

/// Registers of an operand in `layout` that one vector store puts into a
/// shared buffer taking `contiguousColumns` consecutive columns at
/// consecutive indices: the layout's run along the row, where no thread's
/// part of the coordinates breaks the run's alignment. At most 16 bytes.
unsigned sharedRunWidth(const LinearLayout &layout, int64_t contiguousColumns,
                        Type element) {
  int64_t width = std::min<int64_t>(layout.contiguousRegisters(), contiguousColumns);
  width = std::min<int64_t>(width, 128 / std::max(8u, element.getIntOrFloatBitWidth()));
  for (const Basis &basis : llvm::concat<const Basis>(layout.lanes, layout.warps))
    if (basis.back() % width != 0)
      return 1;
  return width < 2 ? 1 : unsigned(width);
}

FailureOr<Registers> tensorCoreDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder,
                                   const TensorCoreDot &instruction, const LinearLayout &aLayout,
                                   const LinearLayout &bLayout,
                                   ArrayRef<SmallVector<unsigned>> accRegisters) {
  Location loc = op.getLoc();
  unsigned rowDim = aLayout.rank() - 2;
  k.shared.beginUser();
  const DotOperand slots[] = {DotOperand::A, DotOperand::B};
  Value buffers[2];
  for (auto [index, slot] : llvm::enumerate(slots)) {
    Type element = getElementTypeOrSelf((index == 0 ? op.getA() : op.getB()).getType());
    FailureOr<Value> buffer =
        k.shared.allocate(op, sharedElementType(element), instruction.sharedElements(slot));
    if (failed(buffer))
      return failure();
    buffers[index] = *buffer;
  }
  Registers acc = k.registers(op.getAcc());
  for (auto [batch, regsOfBatch] : llvm::enumerate(accRegisters)) {
    for (auto [index, slot] : llvm::enumerate(slots)) {
      const LinearLayout &layout = index == 0 ? aLayout : bLayout;
      Registers regs = k.registers(index == 0 ? op.getA() : op.getB());
      Type element = regs.front().getType();
      unsigned width = sharedRunWidth(layout, instruction.contiguousColumns(slot), element);
      for (unsigned reg = 0; reg < layout.numRegisters(); reg += width) {
        if (layout.isDuplicateRegister(reg) ||
            (rowDim == 1 && layout.registerOffset(reg)[0] != static_cast<int64_t>(batch)))
          continue;
        Value row = toIndex(builder, loc, k.thread.coordinate(builder, loc, layout, reg, rowDim));
        Value col =
            toIndex(builder, loc, k.thread.coordinate(builder, loc, layout, reg, rowDim + 1));
        Value at = instruction.sharedIndex(builder, loc, slot, row, col);
        if (width == 1) {
          memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, regs[reg]),
                                  buffers[index], at);
          continue;
        }
        Value run = vector::FromElementsOp::create(
            builder, loc, VectorType::get({int64_t(width)}, element),
            ValueRange(regs).slice(reg, width));
        unsigned bytes = width * element.getIntOrFloatBitWidth() / 8;
        vector::StoreOp::create(builder, loc, run, buffers[index], ValueRange{at},
                                /*nontemporal=*/false, llvm::MaybeAlign(bytes));
      }
    }
    mlir::gpu::BarrierOp::create(builder, loc);
    SmallVector<Value> batchAcc =
        llvm::map_to_vector(regsOfBatch, [&](unsigned reg) { return acc[reg]; });
    SmallVector<Value> result = instruction.emit(builder, loc, k.thread.lane(), k.thread.warp(),
                                                 buffers[0], buffers[1], batchAcc);
    mlir::gpu::BarrierOp::create(builder, loc);
    if (result.size() != regsOfBatch.size())
      return op.emitOpError() << "internal error: the " << instruction.name() << " emitter returned "
                              << result.size() << " accumulator registers for "
                              << regsOfBatch.size();
    for (auto [reg, value] : llvm::zip(regsOfBatch, result))
      acc[reg] = value;
  }
  return acc;
}

FailureOr<Registers> fmaDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder,
                            const LinearLayout &aLayout, const LinearLayout &bLayout,
                            const LinearLayout &accLayout) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  Type accElement = op.getType().getElementType();
  Type compute = computeType(aType.getElementType());
  if (!compute) {
    std::string element;
    llvm::raw_string_ostream(element) << aType.getElementType();
    return k.unsupported(op, "a dot of " + element + " operands without matrix instructions");
  }
  unsigned rank = aType.getRank();
  bool batched = rank == 3;
  int64_t batch = batched ? aType.getShape()[0] : 1;
  int64_t m = aType.getShape()[rank - 2], kExtent = aType.getShape()[rank - 1];
  int64_t n = bType.getShape()[rank - 1];

  k.shared.beginUser();
  FailureOr<Value> aBuffer = k.shared.allocate(op, compute, batch * m * kExtent);
  if (failed(aBuffer))
    return failure();
  FailureOr<Value> bBuffer = k.shared.allocate(op, compute, batch * kExtent * n);
  if (failed(bBuffer))
    return failure();
  storeTileToShared(k.thread, builder, loc, *aBuffer, aLayout,
                    convertAll(builder, loc, k.registers(op.getA()), compute), false);
  storeTileToShared(k.thread, builder, loc, *bBuffer, bLayout,
                    convertAll(builder, loc, k.registers(op.getB()), compute), false);
  mlir::gpu::BarrierOp::create(builder, loc);

  // Where each accumulator register's row of A and column of B start; the
  // registers of one row (column) share the loads of each k step.
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(builder, loc, v); };
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
      // ((b * M) + m) * K
      Value start = coordinate(reg, rank - 2);
      if (batched)
        start = arith::AddIOp::create(
            builder, loc, arith::MulIOp::create(builder, loc, coordinate(reg, 0), index(m)), start);
      rowStarts.push_back(arith::MulIOp::create(builder, loc, start, index(kExtent)));
    }
    rowOf.push_back(row->second);
    auto [col, newCol] = colSlots.try_emplace({batchOffset, offset[rank - 1]}, colStarts.size());
    if (newCol) {
      // b * K * N + n
      Value start = coordinate(reg, rank - 1);
      if (batched)
        start = arith::AddIOp::create(
            builder, loc, arith::MulIOp::create(builder, loc, coordinate(reg, 0), index(kExtent * n)),
            start);
      colStarts.push_back(start);
    }
    colOf.push_back(col->second);
  }

  Registers init = convertAll(builder, loc, k.registers(op.getAcc()), compute);
  auto loop = scf::ForOp::create(
      builder, loc, index(0), index(kExtent), index(1), init,
      [&](OpBuilder &body, Location loc, Value kk, ValueRange acc) {
        Value bRowStart = arith::MulIOp::create(body, loc, kk,
                                                arith::ConstantIndexOp::create(body, loc, n));
        SmallVector<Value> aValues, bValues;
        for (Value start : rowStarts)
          aValues.push_back(memref::LoadOp::create(
              body, loc, *aBuffer, ValueRange{arith::AddIOp::create(body, loc, start, kk)}));
        for (Value start : colStarts)
          bValues.push_back(memref::LoadOp::create(
              body, loc, *bBuffer, ValueRange{arith::AddIOp::create(body, loc, start, bRowStart)}));
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
  mlir::gpu::BarrierOp::create(builder, loc);
  Registers result(loop.getResults().begin(), loop.getResults().end());
  return convertAll(builder, loc, result, accElement);
}

} // namespace

LogicalResult lowerDot(KernelLowering &k, tile::DotOp op, OpBuilder &builder) {
  FailureOr<LinearLayout> aLayout = k.layout(op, op.getA());
  FailureOr<LinearLayout> bLayout = k.layout(op, op.getB());
  FailureOr<LinearLayout> accLayout = k.layout(op, op.getType());
  if (failed(aLayout) || failed(bLayout) || failed(accLayout))
    return failure();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());

  unsigned rank = aType.getRank();
  DotProblem problem;
  problem.m = aType.getShape()[rank - 2];
  problem.k = aType.getShape()[rank - 1];
  problem.n = bType.getShape()[rank - 1];
  problem.aElement = aType.getElementType();
  problem.bElement = bType.getElementType();
  problem.accElement = op.getType().getElementType();
  problem.precision = op.getInputPrecision();
  std::unique_ptr<TensorCoreDot> instruction =
      selectTensorCoreDot(k.target, problem, k.numWarps);
  std::optional<SmallVector<SmallVector<unsigned>>> accRegisters;
  if (instruction && batchInRegisters(*aLayout) && batchInRegisters(*bLayout))
    accRegisters = batchRegisters(*accLayout, instruction->accumulatorLayout(),
                                  rank == 3 ? aType.getShape()[0] : 1);
  FailureOr<Registers> result =
      accRegisters
          ? tensorCoreDot(k, op, builder, *instruction, *aLayout, *bLayout, *accRegisters)
          : fmaDot(k, op, builder, *aLayout, *bLayout, *accLayout);
  if (failed(result))
    return failure();
  k.map(op, std::move(*result));
  return success();
}

} // namespace tessera::gpu

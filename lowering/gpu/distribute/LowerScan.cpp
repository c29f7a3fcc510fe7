// tile.scan in two levels. The axis is cut into chunks: the runs of
// consecutive elements that one thread holds in registers (the register bases
// on the lowest bits of the axis). Each thread scans its chunks sequentially;
// the chunk totals go to a workgroup buffer, and each thread then folds the
// totals of the chunks before each of its chunks (a loop as long as the chunk
// index) into that chunk. With the usual blocked layouts (several elements
// per thread, lanes and warps across the axis) that is one short loop per
// chunk; a layout that gives each thread single elements still works, with
// one loop step per preceding element. A reverse scan runs the same on
// mirrored positions.
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/Reductions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;

namespace tessera::gpu {

namespace {

using Partial = SmallVector<Value>; // one scalar per scan operand

struct Chunking {
  int64_t chunkSize = 1, numChunks = 1;
  unsigned chunkBits = 0;     // log2(chunkSize)
  unsigned inChunkMask = 0;   // register bits that move within a chunk
};

Chunking chunkingOf(const LinearLayout &layout, unsigned axis) {
  Chunking chunking;
  bool extended = true;
  while (extended) {
    extended = false;
    for (auto [bit, basis] : llvm::enumerate(layout.registers))
      if (basis[axis] == chunking.chunkSize) {
        chunking.inChunkMask |= 1u << bit;
        chunking.chunkSize *= 2;
        ++chunking.chunkBits;
        extended = true;
      }
  }
  chunking.numChunks = layout.shape[axis] / chunking.chunkSize;
  return chunking;
}

/// Row-major index of the register's coordinates without the axis (i32).
Value rowIndex(KernelLowering &k, OpBuilder &builder, Location loc, const LinearLayout &layout,
               unsigned axis, unsigned reg) {
  Value index = arith::ConstantIntOp::create(builder, loc, 0, 32);
  for (unsigned dim = 0; dim < layout.rank(); ++dim) {
    if (dim == axis)
      continue;
    Value scaled = arith::MulIOp::create(
        builder, loc, index, arith::ConstantIntOp::create(builder, loc, layout.shape[dim], 32));
    index = arith::AddIOp::create(builder, loc, scaled,
                                  k.thread.coordinate(builder, loc, layout, reg, dim));
  }
  return index;
}

} // namespace

LogicalResult lowerScan(KernelLowering &k, tile::ScanOp op, OpBuilder &builder) {
  unsigned axis = op.getAxis();
  bool reverse = op.getReverse();
  FailureOr<LinearLayout> layout = k.layout(op, op.getSrcs().front());
  if (failed(layout) || failed(checkAxisBases(op, *layout, axis)))
    return failure();
  for (Value value : llvm::concat<Value>(op.getSrcs().drop_front(), op.getResults())) {
    FailureOr<LinearLayout> other = k.layout(op, value);
    if (failed(other))
      return failure();
    if (*other != *layout)
      return op->emitOpError("scans operands or results in different layouts");
  }
  Location loc = op.getLoc();
  Region &combineRegion = op.getCombineOp();
  Chunking chunking = chunkingOf(*layout, axis);
  SmallVector<Registers> inputs =
      llvm::map_to_vector(op.getSrcs(), [&](Value src) { return k.registers(src); });
  SmallVector<Registers> outputs(inputs.size(), Registers(layout->numRegisters()));

  // Each chunk's registers, in scan order.
  std::map<unsigned, SmallVector<unsigned>> chunks;
  for (unsigned reg = 0; reg < layout->numRegisters(); ++reg)
    chunks[reg & ~chunking.inChunkMask].push_back(reg);
  auto position = [&](unsigned reg) {
    int64_t pos = layout->registerOffset(reg)[axis] & (chunking.chunkSize - 1);
    return reverse ? chunking.chunkSize - 1 - pos : pos;
  };
  for (auto &[key, regs] : chunks)
    llvm::sort(regs, [&](unsigned a, unsigned b) { return position(a) < position(b); });

  // 1. Within each chunk.
  auto operandsOf = [&](SmallVector<Registers> &from, unsigned reg) {
    return llvm::map_to_vector(from, [&](Registers &regs) { return regs[reg]; });
  };
  auto store = [&](unsigned reg, const Partial &values) {
    for (auto [regs, value] : llvm::zip(outputs, values))
      regs[reg] = value;
  };
  for (auto &[key, regs] : chunks) {
    Partial running = operandsOf(inputs, regs.front());
    store(regs.front(), running);
    for (unsigned reg : ArrayRef(regs).drop_front()) {
      FailureOr<Partial> next = k.combine(builder, combineRegion, running, operandsOf(inputs, reg));
      if (failed(next))
        return failure();
      running = *next;
      store(reg, running);
    }
  }

  // 2. Across chunks, through the chunk totals.
  if (chunking.numChunks > 1) {
    int64_t rows = 1;
    for (auto [dim, extent] : llvm::enumerate(layout->shape))
      if (dim != axis)
        rows *= extent;
    FailureOr<SmallVector<Value>> allocated = k.shared.beginUserWith(
        op, bufferPerOperand(op.getSrcs(), rows * chunking.numChunks));
    if (failed(allocated))
      return failure();
    SmallVector<Value> buffers = std::move(*allocated);
    auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(builder, loc, v, 32); };
    // Per chunk: the index of its first total in the buffer and its chunk
    // number in scan order.
    SmallVector<std::pair<Value, Value>> places;
    for (auto &[key, regs] : chunks) {
      Value chunk = arith::ShRUIOp::create(
          builder, loc, k.thread.coordinate(builder, loc, *layout, regs.front(), axis),
          i32(chunking.chunkBits));
      if (reverse)
        chunk = arith::XOrIOp::create(builder, loc, chunk, i32(chunking.numChunks - 1));
      Value rowStart = arith::MulIOp::create(
          builder, loc, rowIndex(k, builder, loc, *layout, axis, regs.front()),
          i32(chunking.numChunks));
      places.emplace_back(rowStart, chunk);
      Value index = toIndex(builder, loc, arith::AddIOp::create(builder, loc, rowStart, chunk));
      for (auto [buffer, regsOfOperand] : llvm::zip(buffers, outputs))
        memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, regsOfOperand[regs.back()]),
                                buffer, index);
    }
    mlir::gpu::BarrierOp::create(builder, loc);

    auto loadTotals = [&](OpBuilder &b, Value rowStart, Value chunk) {
      Value index = toIndex(b, loc, arith::AddIOp::create(b, loc, rowStart, chunk));
      Partial totals;
      for (auto [buffer, src] : llvm::zip(buffers, op.getSrcs()))
        totals.push_back(fromSharedElement(b, loc, memref::LoadOp::create(b, loc, buffer, index),
                                           KernelLowering::registerType(src.getType())));
      return totals;
    };
    LogicalResult status = success();
    for (auto [chunkEntry, place] : llvm::zip(chunks, places)) {
      const SmallVector<unsigned> &regs = chunkEntry.second;
      auto [rowStart, chunk] = place;
      SmallVector<Value> scanned;
      for (unsigned reg : regs)
        for (Registers &regsOfOperand : outputs)
          scanned.push_back(regsOfOperand[reg]);
      Value hasPrefix = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ugt, chunk, i32(0));
      auto ifOp = scf::IfOp::create(
          builder, loc, hasPrefix,
          [&](OpBuilder &then, Location) {
            // prefix = T[0] + ... + T[chunk-1], folded from the right so that
            // only associativity is assumed.
            Value last = arith::SubIOp::create(then, loc, chunk,
                                               arith::ConstantIntOp::create(then, loc, 1, 32));
            Partial prefix = loadTotals(then, rowStart, last);
            auto loop = scf::ForOp::create(
                then, loc, arith::ConstantIndexOp::create(then, loc, 0),
                toIndex(then, loc, last), arith::ConstantIndexOp::create(then, loc, 1), prefix,
                [&](OpBuilder &body, Location, Value iv, ValueRange acc) {
                  Value step = arith::IndexCastOp::create(body, loc, body.getI32Type(), iv);
                  Value earlier = arith::SubIOp::create(
                      body, loc, arith::SubIOp::create(body, loc, last, step),
                      arith::ConstantIntOp::create(body, loc, 1, 32));
                  FailureOr<Partial> folded = k.combine(
                      body, combineRegion, loadTotals(body, rowStart, earlier), acc);
                  if (failed(folded)) {
                    status = failure();
                    folded = Partial(acc.begin(), acc.end());
                  }
                  scf::YieldOp::create(body, loc, *folded);
                });
            SmallVector<Value> results;
            size_t operands = outputs.size();
            for (size_t i = 0; i < regs.size(); ++i) {
              Partial mine(scanned.begin() + i * operands, scanned.begin() + (i + 1) * operands);
              FailureOr<Partial> withPrefix =
                  k.combine(then, combineRegion, loop.getResults(), mine);
              if (failed(withPrefix)) {
                status = failure();
                withPrefix = mine;
              }
              llvm::append_range(results, *withPrefix);
            }
            scf::YieldOp::create(then, loc, results);
          },
          [&](OpBuilder &otherwise, Location) { scf::YieldOp::create(otherwise, loc, scanned); });
      if (failed(status))
        return failure();
      unsigned next = 0;
      for (unsigned reg : regs)
        for (Registers &regsOfOperand : outputs)
          regsOfOperand[reg] = ifOp.getResult(next++);
    }
    k.shared.endUser(builder, loc);
  }

  for (auto [result, regs] : llvm::zip(op.getResults(), outputs))
    k.map(result, std::move(regs));
  return success();
}

} // namespace tessera::gpu

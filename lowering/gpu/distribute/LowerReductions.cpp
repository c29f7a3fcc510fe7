// tile.reduce: the combine region is inlined once per combination, in three
// steps that follow the layout's bases along the reduced axis:
//  1. registers of one thread, in register order;
//  2. lanes: a butterfly of `gpu.shuffle xor` over each lane bit along the
//     axis, after which every lane of the group holds the same value;
//  3. warps: each warp's partial goes to a workgroup buffer, and every thread
//     combines the partials of its row in warp order, so all copies agree.
// The result is in layout.reduced(axis), renamed into the result's layout.
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/Reductions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace tessera::gpu {

LogicalResult checkAxisBases(Operation *op, const LinearLayout &layout, unsigned axis) {
  for (auto bases : {llvm::ArrayRef(layout.registers), llvm::ArrayRef(layout.lanes),
                     llvm::ArrayRef(layout.warps)})
    for (const Basis &basis : bases) {
      bool alongAxis = basis[axis] != 0;
      bool alongOthers = llvm::any_of(llvm::enumerate(basis), [&](auto entry) {
        return entry.index() != axis && entry.value() != 0;
      });
      if (alongAxis && alongOthers)
        return op->emitOpError() << "has the layout " << layout.str()
                                 << ", which mixes axis " << axis
                                 << " with other dimensions in one basis";
    }
  return success();
}

Value shuffleXor(OpBuilder &builder, Location loc, Value value, unsigned mask, unsigned width) {
  Type type = value.getType();
  Type i32 = builder.getI32Type();
  auto shuffle32 = [&](Value word) {
    return mlir::gpu::ShuffleOp::create(builder, loc, word, mask, width, mlir::gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (type.isInteger(32) || type.isF32())
    return shuffle32(value);
  // Other types travel as one or two 32-bit words of their bits.
  Value bits = value;
  if (type.isIndex())
    bits = arith::IndexCastOp::create(builder, loc, builder.getI64Type(), value);
  else if (auto floatType = dyn_cast<FloatType>(type))
    bits = arith::BitcastOp::create(builder, loc, builder.getIntegerType(floatType.getWidth()),
                                    value);
  unsigned bitWidth = bits.getType().getIntOrFloatBitWidth();
  Value result;
  if (bitWidth < 32) {
    Value word = arith::ExtUIOp::create(builder, loc, i32, bits);
    result = arith::TruncIOp::create(builder, loc, bits.getType(), shuffle32(word));
  } else {
    Type i64 = builder.getI64Type();
    Value low = arith::TruncIOp::create(builder, loc, i32, bits);
    Value high = arith::TruncIOp::create(
        builder, loc, i32,
        arith::ShRUIOp::create(builder, loc, bits, arith::ConstantIntOp::create(builder, loc, 32, 64)));
    Value newLow = arith::ExtUIOp::create(builder, loc, i64, shuffle32(low));
    Value newHigh = arith::ShLIOp::create(builder, loc,
                                          arith::ExtUIOp::create(builder, loc, i64, shuffle32(high)),
                                          arith::ConstantIntOp::create(builder, loc, 32, 64));
    result = arith::OrIOp::create(builder, loc, newLow, newHigh);
  }
  if (type.isIndex())
    return arith::IndexCastOp::create(builder, loc, type, result);
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(builder, loc, type, result);
  return result;
}

namespace {

using Partial = SmallVector<Value>; // one scalar per reduce operand

/// Step 3: combines the partials of the warps along the axis.
LogicalResult combineAcrossWarps(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                                 const LinearLayout &layout, const LinearLayout &reduced,
                                 SmallVector<Partial> &partials) {
  unsigned axis = op.getAxis();
  SmallVector<unsigned> axisWarpBits;
  for (auto [bit, basis] : llvm::enumerate(layout.warps))
    if (basis[axis] != 0)
      axisWarpBits.push_back(bit);
  if (axisWarpBits.empty())
    return success();
  Location loc = op.getLoc();
  int64_t slots = int64_t(1) << axisWarpBits.size(), rowElements = 1;
  for (int64_t extent : reduced.shape)
    rowElements *= extent;

  k.shared.beginUser();
  SmallVector<Value> buffers;
  for (Value src : op.getSrcs()) {
    Type element = sharedElementType(KernelLowering::registerType(src.getType()));
    FailureOr<Value> buffer = k.shared.allocate(op, element, slots * rowElements);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(builder, loc, v, 32); };
  // This warp's slot: its bits along the axis, packed.
  Value slot = i32(0);
  for (auto [position, bit] : llvm::enumerate(axisWarpBits)) {
    Value bitValue = arith::AndIOp::create(
        builder, loc, arith::ShRUIOp::create(builder, loc, k.thread.warp(), i32(bit)), i32(1));
    slot = arith::OrIOp::create(builder, loc, slot,
                                arith::ShLIOp::create(builder, loc, bitValue, i32(position)));
  }
  Value slotBase = arith::MulIOp::create(builder, loc, slot, i32(rowElements));
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg) {
    if (reduced.isDuplicateRegister(reg))
      continue;
    Value index = toIndex(builder, loc,
                          arith::AddIOp::create(builder, loc, slotBase,
                                                k.thread.flatIndex(builder, loc, reduced, reg)));
    for (auto [value, buffer] : llvm::zip(partials[reg], buffers))
      memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, value), buffer, index);
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg) {
    Value element = k.thread.flatIndex(builder, loc, reduced, reg);
    Partial acc;
    for (int64_t s = 0; s < slots; ++s) {
      Value index = toIndex(builder, loc,
                            arith::AddIOp::create(builder, loc, element, i32(s * rowElements)));
      Partial loaded;
      for (auto [buffer, value] : llvm::zip(buffers, partials[reg]))
        loaded.push_back(fromSharedElement(
            builder, loc, memref::LoadOp::create(builder, loc, buffer, index), value.getType()));
      if (s == 0) {
        acc = loaded;
        continue;
      }
      FailureOr<Partial> combined = k.combine(builder, op.getCombineOp(), acc, loaded);
      if (failed(combined))
        return failure();
      acc = *combined;
    }
    partials[reg] = acc;
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  return success();
}

} // namespace

LogicalResult lowerReduce(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder) {
  unsigned axis = op.getAxis();
  FailureOr<LinearLayout> layout = k.layout(op, op.getSrcs().front());
  if (failed(layout) || failed(checkAxisBases(op, *layout, axis)))
    return failure();
  for (Value src : op.getSrcs().drop_front()) {
    FailureOr<LinearLayout> other = k.layout(op, src);
    if (failed(other))
      return failure();
    if (*other != *layout)
      return op->emitOpError("reduces operands in different layouts");
  }
  LinearLayout reduced = layout->reduced(axis);
  Location loc = op.getLoc();

  // 1. Registers of this thread.
  SmallVector<Registers> inputs =
      llvm::map_to_vector(op.getSrcs(), [&](Value src) { return k.registers(src); });
  SmallVector<Partial> partials(reduced.numRegisters());
  for (unsigned reg = 0; reg < layout->numRegisters(); ++reg) {
    Partial values = llvm::map_to_vector(inputs, [&](const Registers &regs) { return regs[reg]; });
    Partial &acc = partials[layout->reducedRegister(axis, reg)];
    if (acc.empty()) {
      acc = values;
      continue;
    }
    FailureOr<Partial> combined = k.combine(builder, op.getCombineOp(), acc, values);
    if (failed(combined))
      return failure();
    acc = *combined;
  }

  // 2. Lanes: after the butterfly over bit b, lanes differing in b agree.
  for (auto [bit, basis] : llvm::enumerate(layout->lanes)) {
    if (basis[axis] == 0)
      continue;
    for (Partial &acc : partials) {
      Partial other = llvm::map_to_vector(acc, [&](Value value) {
        return shuffleXor(builder, loc, value, 1u << bit, k.thread.warpSize());
      });
      FailureOr<Partial> combined = k.combine(builder, op.getCombineOp(), acc, other);
      if (failed(combined))
        return failure();
      acc = *combined;
    }
  }

  // 3. Warps.
  if (failed(combineAcrossWarps(k, op, builder, *layout, reduced, partials)))
    return failure();

  if (reduced.rank() == 0) {
    for (auto [result, value] : llvm::zip(op.getResults(), partials.front()))
      k.map(result, {value});
    return success();
  }
  FailureOr<LinearLayout> resultLayout = k.layout(op, op.getResult(0));
  if (failed(resultLayout))
    return failure();
  std::optional<SmallVector<RegisterSource>> renaming = registerRenaming(
      *resultLayout, reduced, [](const Basis &coords) { return std::pair(0u, coords); });
  if (!renaming)
    return op->emitOpError() << "has the result layout " << resultLayout->str()
                             << "; the reduction leaves " << reduced.str()
                             << " (tile-gpu-assign-layouts must use reduced(axis))";
  for (auto [operand, result] : llvm::enumerate(op.getResults())) {
    Registers regs;
    for (const RegisterSource &source : *renaming)
      regs.push_back(partials[source.reg][operand]);
    k.map(result, std::move(regs));
  }
  return success();
}

} // namespace tessera::gpu

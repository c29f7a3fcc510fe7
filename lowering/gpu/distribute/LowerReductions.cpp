// tile.reduce: the combine region is inlined once per combination, in three
// steps that follow the layout's bases along the reduced axis:
//  1. registers of one thread, in register order;
//  2. lanes: a butterfly of `gpu.shuffle xor` over each lane bit along the
//     axis, after which every lane of the group holds the same value;
//  3. warps: each warp's partials go to a workgroup buffer, and are combined
//     in warp order either by every thread for each of its elements, or
//     spread over the threads and written back once per element.
// The result is in layout.reduced(axis), renamed into the result's layout.
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/Reductions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

SmallVector<SharedMemory::BufferRequest> bufferPerOperand(ValueRange srcs, int64_t elements) {
  return llvm::map_to_vector(srcs, [&](Value src) {
    return SharedMemory::BufferRequest{
        sharedElementType(KernelLowering::registerType(src.getType())), elements};
  });
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

/// The workgroup buffers of step 3, one per reduce operand: the warps'
/// partials element-major (element * slots + slot, so that one element's
/// partials are adjacent), then one combined value per element.
struct WarpPartials {
  SmallVector<Value> buffers;
  /// The operands' register types, as the buffers' loads give them back.
  SmallVector<Type> types;
  int64_t slots, elements;
  int64_t resultsOffset() const { return slots * elements; }
};

/// `values` combined into `acc` after it (or taken as it where it is empty).
LogicalResult combineInto(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                          Partial &acc, const Partial &values) {
  if (acc.empty()) {
    acc = values;
    return success();
  }
  FailureOr<Partial> combined = k.combine(builder, op.getCombineOp(), acc, values);
  if (failed(combined))
    return failure();
  acc = *combined;
  return success();
}

/// `acc` from lane `lane ^ mask`.
Partial shuffled(OpBuilder &builder, Location loc, const Partial &acc, unsigned mask,
                 unsigned width) {
  return llvm::map_to_vector(
      acc, [&](Value value) { return shuffleXor(builder, loc, value, mask, width); });
}

/// One operand's partial: element `index` of its `buffer`, as a register of
/// `type`.
Value loadOperandPartial(OpBuilder &builder, Location loc, Value buffer, Type type, Value index) {
  return fromSharedElement(builder, loc, memref::LoadOp::create(builder, loc, buffer, index),
                           type);
}

/// `acc` combined over the `lanes` lanes of each group of as many
/// consecutive lanes: a butterfly over the lowest lane bits.
LogicalResult combineOverLowLanes(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                                  Partial &acc, int64_t lanes) {
  for (int64_t mask = 1; mask < lanes; mask <<= 1)
    if (failed(combineInto(k, op, builder, acc,
                           shuffled(builder, op.getLoc(), acc, mask, k.thread.warpSize()))))
      return failure();
  return success();
}

/// The partial at `index` of the buffers.
Partial loadPartial(OpBuilder &builder, Location loc, const WarpPartials &shared, Value index) {
  Partial loaded;
  for (auto [buffer, type] : llvm::zip(shared.buffers, shared.types))
    loaded.push_back(loadOperandPartial(builder, loc, buffer, type, index));
  return loaded;
}

/// The `slots` partials of one element, those of the operands in each, from
/// index `first` of the buffers, as vectors where the target has them: an
/// element's partials start at a multiple of `slots` in a buffer aligned to
/// 16 bytes, so every vector of them is aligned to its size.
SmallVector<Partial> loadElementPartials(KernelLowering &k, OpBuilder &builder, Location loc,
                                         const WarpPartials &shared, Value first) {
  SmallVector<Partial> bySlot(shared.slots);
  for (auto [buffer, type] : llvm::zip(shared.buffers, shared.types)) {
    Type memoryType = cast<MemRefType>(buffer.getType()).getElementType();
    int64_t width = vectorAccessWidth(k.target, unsigned(shared.slots), memoryType);
    for (int64_t s = 0; s < shared.slots; s += width) {
      Value index = toIndex(
          builder, loc, arith::AddIOp::create(builder, loc, first, i32Constant(builder, loc, s)));
      if (width == 1) {
        bySlot[s].push_back(loadOperandPartial(builder, loc, buffer, type, index));
        continue;
      }
      auto vectorType = VectorType::get({width}, memoryType);
      Value vector = vector::LoadOp::create(
          builder, loc, vectorType, buffer, ValueRange{index}, /*nontemporal=*/false,
          llvm::MaybeAlign(width * memoryType.getIntOrFloatBitWidth() / 8));
      for (int64_t i = 0; i < width; ++i)
        bySlot[s + i].push_back(fromSharedElement(
            builder, loc, vector::ExtractOp::create(builder, loc, vector, i), type));
    }
  }
  return bySlot;
}

/// Sets `partials` to `combined(first)` for each register of `reduced` this
/// thread holds, `first` the buffers' index of its element's first partial;
/// a register that copies another takes its value.
LogicalResult combineEachElement(KernelLowering &k, OpBuilder &builder, Location loc,
                                 const LinearLayout &reduced, const WarpPartials &shared,
                                 SmallVector<Partial> &partials,
                                 function_ref<FailureOr<Partial>(Value first)> combined) {
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg) {
    if (reduced.isDuplicateRegister(reg)) {
      partials[reg] = partials[reduced.firstCopy(reg)];
      continue;
    }
    Value element = k.thread.flatIndex(builder, loc, reduced, reg);
    FailureOr<Partial> result = combined(
        arith::MulIOp::create(builder, loc, element, i32Constant(builder, loc, shared.slots)));
    if (failed(result))
      return failure();
    partials[reg] = std::move(*result);
  }
  return success();
}

/// Every thread reads the partials of each of its elements (as vectors where
/// the target has them) and combines them in warp order: no second barrier,
/// but registers x slots / vector width loads per thread.
LogicalResult combineInEachThread(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                                  const LinearLayout &reduced, const WarpPartials &shared,
                                  SmallVector<Partial> &partials) {
  Location loc = op.getLoc();
  return combineEachElement(k, builder, loc, reduced, shared, partials,
                            [&](Value first) -> FailureOr<Partial> {
                              Partial acc;
                              for (const Partial &slot :
                                   loadElementPartials(k, builder, loc, shared, first))
                                if (failed(combineInto(k, op, builder, acc, slot)))
                                  return failure();
                              return acc;
                            });
}

/// The partials of all elements are spread over the program's threads, one
/// each per round, so that each element's `slots` partials sit in adjacent
/// lanes; a butterfly over those lanes combines them (the lowest lane's
/// result is in warp order), that lane writes the element's result, and after
/// a barrier every thread reads its elements' results: rounds + registers
/// loads per thread instead of registers x slots.
LogicalResult combineSpreadOverThreads(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                                       const LinearLayout &reduced, const WarpPartials &shared,
                                       SmallVector<Partial> &partials) {
  Location loc = op.getLoc();
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  int64_t threads = int64_t(k.thread.warpSize()) * k.numWarps;
  int64_t total = shared.slots * shared.elements;
  Value slotInGroup =
      arith::AndIOp::create(builder, loc, k.thread.threadId(), i32(shared.slots - 1));
  Value groupLeader =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, slotInGroup, i32(0));
  for (int64_t first = 0; first < total; first += threads) {
    Value partialIndex = arith::AddIOp::create(builder, loc, k.thread.threadId(), i32(first));
    // In a round with more threads than partials left, the threads past the
    // last read a real one and join the shuffles (every lane must), but write
    // nothing.
    bool partialRound = first + threads > total;
    Value readIndex = partialIndex;
    if (partialRound)
      readIndex = arith::MinUIOp::create(builder, loc, partialIndex, i32(total - 1));
    Partial acc = loadPartial(builder, loc, shared, toIndex(builder, loc, readIndex));
    if (failed(combineOverLowLanes(k, op, builder, acc, shared.slots)))
      return failure();
    Value writes = groupLeader;
    if (partialRound)
      writes = arith::AndIOp::create(
          builder, loc, writes,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, partialIndex, i32(total)));
    auto ifOp = scf::IfOp::create(builder, loc, writes, /*withElseRegion=*/false);
    OpBuilder inside = ifOp.getThenBodyBuilder();
    Value slotsValue = i32Constant(inside, loc, shared.slots);
    Value element = arith::DivUIOp::create(inside, loc, partialIndex, slotsValue);
    Value resultsOffset = i32Constant(inside, loc, shared.resultsOffset());
    Value resultIndex =
        toIndex(inside, loc, arith::AddIOp::create(inside, loc, element, resultsOffset));
    for (auto [value, buffer] : llvm::zip(acc, shared.buffers))
      memref::StoreOp::create(inside, loc, toSharedElement(inside, loc, value), buffer,
                              resultIndex);
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg) {
    if (reduced.isDuplicateRegister(reg)) {
      partials[reg] = partials[reduced.firstCopy(reg)];
      continue;
    }
    Value index = toIndex(builder, loc,
                          arith::AddIOp::create(builder, loc,
                                                k.thread.flatIndex(builder, loc, reduced, reg),
                                                i32(shared.resultsOffset())));
    partials[reg] = loadPartial(builder, loc, shared, index);
  }
  return success();
}

/// Each lane reads, for each of its elements, the partial of the warp its
/// lowest lane bits name, and a butterfly over those lanes combines them:
/// the lanes of a group of `slots` hold the same elements
/// (lanesShareElements), so every one ends with all the warps' partials
/// combined. One barrier as combineInEachThread, but `registers` values read
/// and live where that holds registers x slots (Triton's form).
LogicalResult combineAcrossLanes(KernelLowering &k, tile::ReduceOp op, OpBuilder &builder,
                                 const LinearLayout &reduced, const WarpPartials &shared,
                                 SmallVector<Partial> &partials) {
  Location loc = op.getLoc();
  Value slot = arith::AndIOp::create(builder, loc, k.thread.lane(),
                                     i32Constant(builder, loc, shared.slots - 1));
  return combineEachElement(
      k, builder, loc, reduced, shared, partials, [&](Value first) -> FailureOr<Partial> {
        Value index = toIndex(builder, loc, arith::AddIOp::create(builder, loc, first, slot));
        Partial acc = loadPartial(builder, loc, shared, index);
        if (failed(combineOverLowLanes(k, op, builder, acc, shared.slots)))
          return failure();
        return acc;
      });
}

/// Whether the lanes of every group of `slots` consecutive lanes hold the
/// same elements of `reduced` (its lowest lane bases are zero), as after a
/// row reduction whose lanes run along the rows' axis.
bool lanesShareElements(const KernelLowering &k, const LinearLayout &reduced, int64_t slots) {
  if (slots > int64_t(k.thread.warpSize()))
    return false;
  for (unsigned bit = 0; (int64_t(1) << bit) < slots; ++bit)
    if (bit >= reduced.lanes.size() || !isZero(reduced.lanes[bit]))
      return false;
  return true;
}

/// How the warps' partials are combined once in shared memory.
enum class WarpCombine { InEachThread, AcrossLanes, SpreadOverThreads };

/// Partials combineInEachThread may read per thread before the lanes'
/// butterfly, which holds one per element, is worth its shuffles: 16
/// values, four 16-byte loads of f32.
constexpr int64_t kPartialsReadInThread = 16;

/// Whether to spread the partials over the threads rather than have every
/// thread combine its own: that pays a barrier, and per round a load and the
/// shuffles, to load `registers` results instead of registers x slots
/// partials in `loadsPerElement` loads each (which ptxas issues at once, all
/// live). Spread when it at least halves the loads: a row or a whole tile
/// per thread (softmax, a sum to one value: 8 warps' f32 partials are two
/// 16-byte loads) keeps the one-barrier form, several rows or columns per
/// thread (column sums) are spread.
bool spreadOverThreads(KernelLowering &k, unsigned registers, int64_t slots, int64_t elements,
                       int64_t loadsPerElement) {
  int64_t threads = int64_t(k.thread.warpSize()) * k.numWarps;
  if (slots > k.thread.warpSize())
    return false;
  int64_t rounds = llvm::divideCeil(slots * elements, threads);
  return int64_t(registers) * loadsPerElement > 2 * (rounds + registers);
}

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
  WarpPartials shared{{}, {}, int64_t(1) << axisWarpBits.size(), 1};
  shared.types = llvm::map_to_vector(partials.front(), [](Value value) { return value.getType(); });
  for (int64_t extent : reduced.shape)
    shared.elements *= extent;
  unsigned registers = 0;
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg)
    registers += !reduced.isDuplicateRegister(reg);
  int64_t loadsPerElement =
      shared.slots / vectorAccessWidth(k.target, unsigned(shared.slots),
                                       sharedElementType(shared.types.front()));
  WarpCombine combine = WarpCombine::InEachThread;
  if (registers * shared.slots > kPartialsReadInThread &&
      lanesShareElements(k, reduced, shared.slots))
    combine = WarpCombine::AcrossLanes;
  else if (spreadOverThreads(k, registers, shared.slots, shared.elements, loadsPerElement))
    combine = WarpCombine::SpreadOverThreads;

  // The spread form writes each element's result behind the partials.
  bool resultsBehind = combine == WarpCombine::SpreadOverThreads;
  FailureOr<SmallVector<Value>> buffers = k.shared.beginUserWith(
      op, bufferPerOperand(op.getSrcs(),
                           shared.resultsOffset() + (resultsBehind ? shared.elements : 0)));
  if (failed(buffers))
    return failure();
  shared.buffers = std::move(*buffers);
  auto i32 = [&](int64_t v) { return i32Constant(builder, loc, v); };
  // This warp's slot: its bits along the axis, packed.
  Value slot = i32(0);
  for (auto [position, bit] : llvm::enumerate(axisWarpBits)) {
    Value bitValue = arith::AndIOp::create(
        builder, loc, arith::ShRUIOp::create(builder, loc, k.thread.warp(), i32(bit)), i32(1));
    slot = arith::OrIOp::create(builder, loc, slot,
                                arith::ShLIOp::create(builder, loc, bitValue, i32(position)));
  }
  for (unsigned reg = 0; reg < reduced.numRegisters(); ++reg) {
    if (reduced.isDuplicateRegister(reg))
      continue;
    Value element = k.thread.flatIndex(builder, loc, reduced, reg);
    Value first = arith::MulIOp::create(builder, loc, element, i32(shared.slots));
    Value index = toIndex(builder, loc, arith::AddIOp::create(builder, loc, first, slot));
    for (auto [value, buffer] : llvm::zip(partials[reg], shared.buffers))
      memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, value), buffer, index);
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  LogicalResult combined = failure();
  switch (combine) {
  case WarpCombine::InEachThread:
    combined = combineInEachThread(k, op, builder, reduced, shared, partials);
    break;
  case WarpCombine::AcrossLanes:
    combined = combineAcrossLanes(k, op, builder, reduced, shared, partials);
    break;
  case WarpCombine::SpreadOverThreads:
    combined = combineSpreadOverThreads(k, op, builder, reduced, shared, partials);
    break;
  }
  if (failed(combined))
    return failure();
  k.shared.endUser(builder, loc);
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
    if (failed(combineInto(k, op, builder, partials[layout->reducedRegister(axis, reg)], values)))
      return failure();
  }

  // 2. Lanes: after the butterfly over bit b, lanes differing in b agree.
  for (auto [bit, basis] : llvm::enumerate(layout->lanes)) {
    if (basis[axis] == 0)
      continue;
    for (Partial &acc : partials)
      if (failed(combineInto(k, op, builder, acc,
                             shuffled(builder, loc, acc, 1u << bit, k.thread.warpSize()))))
        return failure();
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

// tgpu.convert_layout: a register renaming when every thread already holds
// what it needs (same lane and warp bases, registers in another order or
// copied), else a round trip through a row-major workgroup buffer whose rows
// are padded against bank conflicts (conversionRowPadding), written with
// stmatrix where the source holds its fragments (MatrixStores.h).
// Where the whole tile does not fit in the shared memory left, it goes
// through in pieces, one after the other through one buffer
// (ExchangePieces.h): split along register bits where the layouts share
// them, else also along warp and lane bits, whose threads take turns. A
// conversion for a TMA store is left to the store (TensorMapStores.h).
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/ExchangePieces.h"
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/MatrixStores.h"
#include "lowering/gpu/distribute/TensorMapStores.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// The register of `from` each register of `to` copies, where no element
/// moves between threads.
std::optional<SmallVector<RegisterSource>> renamingOf(const LinearLayout &from,
                                                      const LinearLayout &to) {
  return registerRenaming(to, from, [](const Basis &coords) { return std::pair(0u, coords); });
}

int64_t elementsWithPadding(ArrayRef<int64_t> shape, int64_t padding) {
  int64_t elements = shape.back() + padding;
  for (int64_t extent : shape.drop_back())
    elements *= extent;
  return elements;
}

/// i1: this thread has every bit of `bits` (null when there are none).
Value hasThreadBits(ThreadContext &thread, OpBuilder &builder, Location loc,
                    ArrayRef<ThreadBit> bits) {
  SmallVector<Value> conditions;
  for (const ThreadBit &bit : bits) {
    Value index = bit.warp ? thread.warp() : thread.lane();
    Value masked =
        arith::AndIOp::create(builder, loc, index, i32Constant(builder, loc, 1 << bit.bit));
    conditions.push_back(arith::CmpIOp::create(
        builder, loc, bit.value ? arith::CmpIPredicate::ne : arith::CmpIPredicate::eq, masked,
        i32Constant(builder, loc, 0)));
  }
  return allOf(builder, loc, conditions);
}

/// The registers `load` gives where `holds`, else `otherwise`.
Registers loadWhere(OpBuilder &builder, Location loc, Value holds, ArrayRef<Value> otherwise,
                    function_ref<Registers()> load) {
  auto ifOp = scf::IfOp::create(builder, loc, ValueRange(otherwise).getTypes(), holds,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(builder, loc, ValueRange(load()));
  builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(builder, loc, otherwise);
  return Registers(ifOp.getResults().begin(), ifOp.getResults().end());
}

} // namespace

FailureOr<Registers> exchangeThroughShared(KernelLowering &k, Operation *user, OpBuilder &builder,
                                           ValueRange regs, const LinearLayout &from,
                                           const LinearLayout &to, Type registerType,
                                           bool ownersOnly) {
  Type elementType = sharedElementType(registerType);
  k.shared.beginUser();
  ExchangePieces pieces = planExchangePieces(
      from, to, [&](int64_t elements) { return k.shared.canAllocate(elementType, elements); },
      PieceSplits::RegistersThenThreads);
  int64_t padding = k.shared.conversionRowPadding(pieces.from.shape, elementType);
  FailureOr<Value> buffer =
      k.shared.allocate(user, elementType, elementsWithPadding(pieces.from.shape, padding));
  if (failed(buffer))
    return failure();
  Location loc = user->getLoc();
  bool storersTakeTurns =
      llvm::any_of(pieces.fromThreads, [](auto &bits) { return !bits.empty(); });
  std::optional<MatrixStores> matrixStores;
  if (k.target.hasStMatrix() && !ownersOnly && !storersTakeTurns &&
      elementType.getIntOrFloatBitWidth() == 16)
    matrixStores = planMatrixStores(pieces.from);
  // A piece's layout makes the threads that take turns look like copies of
  // each other: the first copies of the whole tile are the owners.
  Value owner = ownersOnly && storersTakeTurns ? k.thread.ownsElements(from) : Value();
  // One piece after another through the same buffer.
  Registers result(to.numRegisters());
  for (unsigned piece = 0; piece < pieces.count(); ++piece) {
    SmallVector<Value> stored;
    for (unsigned reg : pieces.fromRegisters[piece])
      stored.push_back(regs[reg]);
    if (matrixStores) {
      RegisterIndices rowStarts(k.thread, builder, loc, matrixStores->rowStarts, padding);
      storeTileWithMatrixStores(builder, loc, *buffer, *matrixStores, stored, rowStarts);
    } else if (Value stores = allOf(builder, loc,
                                    {hasThreadBits(k.thread, builder, loc,
                                                   pieces.fromThreads[piece]),
                                     owner})) {
      auto ifOp = scf::IfOp::create(builder, loc, stores, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard insertion(builder);
      builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
      storeTileToShared(k.thread, builder, loc, *buffer, pieces.from, stored,
                        /*ownersOnly=*/false, {}, padding);
    } else {
      storeTileToShared(k.thread, builder, loc, *buffer, pieces.from, stored, ownersOnly, {},
                        padding);
    }
    mlir::gpu::BarrierOp::create(builder, loc);
    auto load = [&] {
      return loadTileFromShared(k.thread, builder, loc, *buffer, pieces.to, registerType,
                                vectorAccessWidth(k.target, pieces.to, elementType), padding);
    };
    Registers loaded;
    if (Value loads = hasThreadBits(k.thread, builder, loc, pieces.toThreads[piece])) {
      // The other threads keep what an earlier piece gave them (or will get it later).
      SmallVector<Value> kept;
      for (unsigned reg : pieces.toRegisters[piece])
        kept.push_back(result[reg] ? result[reg]
                                   : Value(arith::ConstantOp::create(
                                         builder, loc, builder.getZeroAttr(registerType))));
      loaded = loadWhere(builder, loc, loads, kept, load);
    } else {
      loaded = load();
    }
    k.shared.endUser(builder, loc);
    for (auto [reg, value] : llvm::zip_equal(pieces.toRegisters[piece], loaded))
      result[reg] = value;
  }
  return result;
}

FailureOr<int64_t> leastConversionBytes(KernelLowering &k, ConvertLayoutOp op) {
  FailureOr<LinearLayout> from = k.layout(op, op.getSrc());
  FailureOr<LinearLayout> to = k.layout(op, op.getResult());
  if (failed(from) || failed(to))
    return failure();
  if (renamingOf(*from, *to))
    return int64_t(0);
  Type elementType = sharedElementType(KernelLowering::registerType(op.getType()));
  ExchangePieces pieces =
      planExchangePieces(*from, *to, [](int64_t) { return false; }, PieceSplits::Registers);
  return pieces.elements() * int64_t(llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8));
}

LogicalResult lowerConvertLayout(KernelLowering &k, ConvertLayoutOp op, OpBuilder &builder) {
  if (convertsForTensorStore(k, op))
    return success();
  FailureOr<LinearLayout> from = k.layout(op, op.getSrc());
  FailureOr<LinearLayout> to = k.layout(op, op.getResult());
  if (failed(from) || failed(to))
    return failure();
  const Registers &source = k.registers(op.getSrc());
  Value base = k.pointerBase(op.getSrc());
  if (std::optional<SmallVector<RegisterSource>> renaming = renamingOf(*from, *to)) {
    Registers regs;
    for (const RegisterSource &reg : *renaming)
      regs.push_back(source[reg.reg]);
    k.map(op, std::move(regs), base);
    return success();
  }
  FailureOr<Registers> regs =
      exchangeThroughShared(k, op, builder, source, *from, *to,
                            KernelLowering::registerType(op.getType()), /*ownersOnly=*/false);
  if (failed(regs))
    return failure();
  k.map(op, std::move(*regs), base);
  return success();
}

} // namespace tessera::gpu

// tgpu.convert_layout: a register renaming when every thread already holds
// what it needs (same lane and warp bases, registers in another order or
// copied), else a round trip through a row-major workgroup buffer whose rows
// are padded against bank conflicts (conversionRowPadding), written with
// stmatrix where the source holds its fragments (MatrixStores.h).
// Where the whole tile does not fit in the shared memory left, it goes
// through in pieces, one after the other through one buffer
// (ExchangePieces.h). A conversion for a TMA store is left to the store
// (TensorMapStores.h).
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

} // namespace

FailureOr<Registers> exchangeThroughShared(KernelLowering &k, Operation *user, OpBuilder &builder,
                                           ValueRange regs, const LinearLayout &from,
                                           const LinearLayout &to, Type registerType,
                                           bool ownersOnly) {
  Type elementType = sharedElementType(registerType);
  k.shared.beginUser();
  ExchangePieces pieces = planExchangePieces(
      from, to, [&](int64_t elements) { return k.shared.canAllocate(elementType, elements); });
  int64_t padding = k.shared.conversionRowPadding(pieces.from.shape, elementType);
  FailureOr<Value> buffer =
      k.shared.allocate(user, elementType, elementsWithPadding(pieces.from.shape, padding));
  if (failed(buffer))
    return failure();
  Location loc = user->getLoc();
  std::optional<MatrixStores> matrixStores;
  if (k.target.hasStMatrix() && !ownersOnly && elementType.getIntOrFloatBitWidth() == 16)
    matrixStores = planMatrixStores(pieces.from);
  // One piece after another through the same buffer.
  Registers result(to.numRegisters());
  for (auto [fromRegisters, toRegisters] :
       llvm::zip_equal(pieces.fromRegisters, pieces.toRegisters)) {
    SmallVector<Value> stored;
    for (unsigned reg : fromRegisters)
      stored.push_back(regs[reg]);
    if (matrixStores) {
      RegisterIndices rowStarts(k.thread, builder, loc, matrixStores->rowStarts, padding);
      storeTileWithMatrixStores(builder, loc, *buffer, *matrixStores, stored, rowStarts);
    } else {
      storeTileToShared(k.thread, builder, loc, *buffer, pieces.from, stored, ownersOnly, {},
                        padding);
    }
    mlir::gpu::BarrierOp::create(builder, loc);
    Registers loaded =
        loadTileFromShared(k.thread, builder, loc, *buffer, pieces.to, registerType,
                           vectorAccessWidth(k.target, pieces.to, elementType), padding);
    k.shared.endUser(builder, loc);
    for (auto [reg, value] : llvm::zip_equal(toRegisters, loaded))
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
  ExchangePieces pieces = planExchangePieces(*from, *to, [](int64_t) { return false; });
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

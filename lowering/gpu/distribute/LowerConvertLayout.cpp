// tgpu.convert_layout: a register renaming when every thread already holds
// what it needs (same lane and warp bases, registers in another order or
// copied), else a round trip through a row-major workgroup buffer whose rows
// are padded against bank conflicts (conversionRowPadding), written with
// stmatrix where the source holds its fragments (MatrixStores.h).
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/MatrixStores.h"

using namespace mlir;

namespace tessera::gpu {

FailureOr<Registers> exchangeThroughShared(KernelLowering &k, Operation *user, OpBuilder &builder,
                                           ValueRange regs, const LinearLayout &from,
                                           const LinearLayout &to, Type registerType,
                                           bool ownersOnly) {
  Type elementType = sharedElementType(registerType);
  k.shared.beginUser();
  int64_t padding = k.shared.conversionRowPadding(from.shape, elementType);
  int64_t elements = from.shape.back() + padding;
  for (int64_t extent : ArrayRef(from.shape).drop_back())
    elements *= extent;
  FailureOr<Value> buffer = k.shared.allocate(user, elementType, elements);
  if (failed(buffer))
    return failure();
  Location loc = user->getLoc();
  std::optional<MatrixStores> matrixStores;
  if (k.target.hasStMatrix() && !ownersOnly && elementType.getIntOrFloatBitWidth() == 16)
    matrixStores = planMatrixStores(from);
  if (matrixStores)
    storeTileWithMatrixStores(k.thread, builder, loc, *buffer, *matrixStores, regs, padding);
  else
    storeTileToShared(k.thread, builder, loc, *buffer, from, regs, ownersOnly, {}, padding);
  mlir::gpu::BarrierOp::create(builder, loc);
  Registers result = loadTileFromShared(k.thread, builder, loc, *buffer, to, registerType,
                                        vectorAccessWidth(k.target, to, elementType), padding);
  mlir::gpu::BarrierOp::create(builder, loc);
  return result;
}

LogicalResult lowerConvertLayout(KernelLowering &k, ConvertLayoutOp op, OpBuilder &builder) {
  FailureOr<LinearLayout> from = k.layout(op, op.getSrc());
  FailureOr<LinearLayout> to = k.layout(op, op.getResult());
  if (failed(from) || failed(to))
    return failure();
  const Registers &source = k.registers(op.getSrc());
  Value base = k.pointerBase(op.getSrc());
  std::optional<SmallVector<RegisterSource>> renaming =
      registerRenaming(*to, *from, [](const Basis &coords) { return std::pair(0u, coords); });
  if (renaming) {
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

// tile.gather: the source goes to a row-major workgroup buffer (whatever its
// layout), and each thread reads there the element of each of its result
// registers: the register's coordinates, with the one along the axis taken
// from the index in the same register of the indices, which share the
// result's layout. An index is wrapped into the axis first, so that no read
// leaves the buffer.
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// An integer register as an i32 in [0, extent).
Value wrappedIndex(OpBuilder &builder, Location loc, Value index, int64_t extent) {
  unsigned width = index.getType().getIntOrFloatBitWidth();
  if (width < 32)
    index = arith::ExtSIOp::create(builder, loc, builder.getI32Type(), index);
  else if (width > 32)
    index = arith::TruncIOp::create(builder, loc, builder.getI32Type(), index);
  if (llvm::isPowerOf2_64(extent))
    return arith::AndIOp::create(builder, loc, index, i32Constant(builder, loc, extent - 1));
  return arith::RemUIOp::create(builder, loc, index, i32Constant(builder, loc, extent));
}

} // namespace

LogicalResult lowerGather(KernelLowering &k, tile::GatherOp op, OpBuilder &builder) {
  FailureOr<LinearLayout> source = k.layout(op, op.getSrc());
  FailureOr<LinearLayout> result = k.layout(op, op.getResult());
  if (failed(source) || failed(result))
    return failure();
  Location loc = op.getLoc();
  Type registerType = KernelLowering::registerType(op.getType());
  ArrayRef<int64_t> shape = op.getSrc().getType().getShape();
  unsigned axis = op.getAxis();

  FailureOr<SmallVector<Value>> buffers = k.shared.beginUserWith(
      op, {{sharedElementType(registerType), op.getSrc().getType().getNumElements()}});
  if (failed(buffers))
    return failure();
  Value buffer = buffers->front();
  storeTileToShared(k.thread, builder, loc, buffer, *source, k.registers(op.getSrc()),
                    /*ownersOnly=*/false);
  mlir::gpu::BarrierOp::create(builder, loc);

  constexpr auto noWrap = arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  const Registers &indices = k.registers(op.getIndices());
  Registers gathered;
  for (unsigned reg = 0; reg < result->numRegisters(); ++reg) {
    Value flat = i32Constant(builder, loc, 0);
    for (unsigned dim = 0; dim < shape.size(); ++dim) {
      Value coordinate = dim == axis ? wrappedIndex(builder, loc, indices[reg], shape[dim])
                                     : k.thread.coordinate(builder, loc, *result, reg, dim);
      flat = arith::AddIOp::create(
          builder, loc,
          arith::MulIOp::create(builder, loc, flat, i32Constant(builder, loc, shape[dim]), noWrap),
          coordinate, noWrap);
    }
    Value stored = memref::LoadOp::create(builder, loc, buffer, toIndex(builder, loc, flat));
    gathered.push_back(fromSharedElement(builder, loc, stored, registerType));
  }
  k.shared.endUser(builder, loc);
  k.map(op, std::move(gathered), k.pointerBase(op.getSrc()));
  return success();
}

} // namespace tessera::gpu

// Tensor descriptors: make_tensor_descriptor is remembered (base argument,
// shape, strides, padding); each block access computes, per register, the
// element's global coordinates (block offset + the register's coordinates),
// whether they lie inside the shape, and the address from the strides. Reads
// outside yield the padding value, writes outside are dropped. Runs of a
// block row inside the shape move as vectors (ElementAccess.h).
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/KernelLowering.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// Where register `reg` of a block at `offsets` (i32 values) goes.
ElementAccess accessOf(KernelLowering &k, OpBuilder &builder, Location loc,
                       const TensorDescriptor &desc, ValueRange offsets,
                       const LinearLayout &layout, unsigned reg) {
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  Value inBounds, offset = desc.baseOffset;
  for (unsigned dim = 0; dim < layout.rank(); ++dim) {
    Value coord = arith::AddIOp::create(builder, loc, offsets[dim],
                                        k.thread.coordinate(builder, loc, layout, reg, dim));
    Value inside = arith::AndIOp::create(
        builder, loc, arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, coord, zero),
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, coord, desc.shape[dim]));
    inBounds = inBounds ? Value(arith::AndIOp::create(builder, loc, inBounds, inside)) : inside;
    Value wide = arith::ExtSIOp::create(builder, loc, builder.getI64Type(), coord);
    Value step = arith::MulIOp::create(builder, loc, wide, desc.strides[dim]);
    offset = arith::AddIOp::create(
        builder, loc, offset,
        arith::IndexCastOp::create(builder, loc, builder.getIndexType(), step));
  }
  return {offset, inBounds};
}

Value paddingValue(OpBuilder &builder, Location loc, Type element, tile::PaddingOption padding) {
  auto floatType = dyn_cast<FloatType>(element);
  if (floatType && padding == tile::PaddingOption::NaN)
    return arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(floatType, APFloat::getQNaN(floatType.getFloatSemantics())));
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(builder.getZeroAttr(element)));
}

LogicalResult lowerMake(KernelLowering &k, tile::MakeTensorDescOp op) {
  TensorDescriptor desc;
  desc.base = k.pointerBase(op.getBase());
  desc.baseOffset = k.registers(op.getBase()).front();
  for (Value extent : op.getShape())
    desc.shape.push_back(k.registers(extent).front());
  for (Value stride : op.getStrides())
    desc.strides.push_back(k.registers(stride).front());
  desc.padding = op.getPadding();
  k.mapDescriptor(op, std::move(desc));
  return success();
}

} // namespace

LogicalResult lowerDescriptorOp(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (auto make = dyn_cast<tile::MakeTensorDescOp>(op))
    return lowerMake(k, make);
  Location loc = op->getLoc();
  Value descValue = op->getOperand(0);
  const TensorDescriptor *desc = k.descriptor(descValue);
  if (!desc)
    return k.unsupported(op, "a tensor descriptor not made by tile.make_tensor_descriptor in the "
                             "same kernel outside control flow");
  auto blockType = cast<tile::TensorDescType>(descValue.getType()).getBlockType();
  FailureOr<LinearLayout> layout =
      k.layout(op, isa<tile::DescriptorLoadOp>(op) ? op->getResult(0).getType()
                                                   : op->getOperands().back().getType());
  if (failed(layout))
    return failure();
  SmallVector<Value> offsets;
  for (Value offset : isa<tile::DescriptorLoadOp>(op)
                          ? cast<tile::DescriptorLoadOp>(op).getOffsets()
                          : cast<tile::DescriptorStoreOp>(op).getOffsets())
    offsets.push_back(k.registers(offset).front());
  Type element = blockType.getElementType();

  // Runs of a block row are consecutive in memory when the innermost
  // stride is 1, which only the launch tells.
  RunAccess runs{vectorAccessWidth(k.target, *layout, element),
                 RunAddresses::WhenVectorConditionHolds, Value()};
  if (runs.width > 1)
    runs.vectorCondition = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, desc->strides.back(),
        arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 1));

  if (isa<tile::DescriptorLoadOp>(op)) {
    SmallVector<ElementAccess> accesses;
    for (unsigned reg = 0; reg < layout->numRegisters(); ++reg)
      accesses.push_back(accessOf(k, builder, loc, *desc, offsets, *layout, reg));
    Value padding = paddingValue(builder, loc, element, desc->padding);
    k.map(op->getResult(0),
          loadElements(builder, loc, desc->base, element, accesses, runs,
                       [&](OpBuilder &, unsigned) { return padding; }));
    return success();
  }

  Value owner = k.thread.ownsElements(*layout);
  SmallVector<ElementAccess> accesses;
  for (unsigned reg = 0; reg < layout->numRegisters(); ++reg) {
    ElementAccess access = accessOf(k, builder, loc, *desc, offsets, *layout, reg);
    if (owner)
      access.condition = arith::AndIOp::create(builder, loc, owner, access.condition);
    accesses.push_back(access);
  }
  storeElements(builder, loc, desc->base, accesses,
                k.registers(cast<tile::DescriptorStoreOp>(op).getValue()), runs,
                [&](unsigned reg) { return layout->isDuplicateRegister(reg); });
  return success();
}

} // namespace tessera::gpu

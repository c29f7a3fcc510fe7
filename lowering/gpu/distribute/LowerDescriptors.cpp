// Tensor descriptors: make_tensor_descriptor is remembered (base argument,
// shape, strides, padding); each block access computes, per register, the
// element's global coordinates (block offset + the register's coordinates),
// whether they lie inside the shape, and the address from the strides. Reads
// outside yield the padding value, writes outside are dropped. Runs of a
// block row inside the shape move as vectors (ElementAccess.h). With tensor
// maps, blocks are stored by TMA where they can be (TensorMapStores.h).
#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/TensorMapStores.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <numeric>

using namespace mlir;

namespace tessera::gpu {

namespace {

/// i1: 0 <= `coord` < `extent` (i32 values), a coordinate inside a shape.
Value insideExtent(OpBuilder &builder, Location loc, Value coord, Value extent) {
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  return arith::AndIOp::create(
      builder, loc, arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, coord, zero),
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, coord, extent));
}

/// Where register `reg` of a block at `offsets` (i32 values) goes. Its
/// offset is the block origin's (one for all registers, which changes with
/// the offsets) plus the register's within the block (which does not, so
/// that a loop computes it once): not one product per register and step.
ElementAccess accessOf(KernelLowering &k, OpBuilder &builder, Location loc,
                       const TensorDescriptor &desc, ValueRange offsets,
                       const LinearLayout &layout, unsigned reg) {
  auto times = [&](Value i32, Value stride) -> Value {
    Value wide = arith::ExtSIOp::create(builder, loc, builder.getI64Type(), i32);
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                      arith::MulIOp::create(builder, loc, wide, stride));
  };
  Value inBounds, origin, within = desc.baseOffset;
  for (unsigned dim = 0; dim < layout.rank(); ++dim) {
    Value position = k.thread.coordinate(builder, loc, layout, reg, dim);
    Value coord = arith::AddIOp::create(builder, loc, offsets[dim], position);
    Value inside = insideExtent(builder, loc, coord, desc.shape[dim]);
    inBounds = inBounds ? Value(arith::AndIOp::create(builder, loc, inBounds, inside)) : inside;
    Value start = times(offsets[dim], desc.strides[dim]);
    origin = origin ? Value(arith::AddIOp::create(builder, loc, origin, start)) : start;
    within = arith::AddIOp::create(builder, loc, within, times(position, desc.strides[dim]));
  }
  Value offset = arith::AddIOp::create(builder, loc, origin, within);
  return {offset, inBounds};
}

Value paddingValue(OpBuilder &builder, Location loc, Type element, tile::PaddingOption padding) {
  auto floatType = dyn_cast<FloatType>(element);
  if (floatType && padding == tile::PaddingOption::NaN)
    return arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(floatType, APFloat::getQNaN(floatType.getFloatSemantics())));
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(builder.getZeroAttr(element)));
}

/// The kernel arguments `desc` is made of, where it is made of nothing else:
/// a pointer argument itself, and extents and outer strides that are
/// arguments (a host descriptor as the JIT passes it; an outer stride may
/// also be a sign-extended i32 argument, as in
/// `tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], ...)`) or constants
/// (`[M, HEAD_DIM]` with a constexpr HEAD_DIM).
std::optional<TensorDescriptor::HostArguments> hostArgumentsOf(KernelLowering &k,
                                                               const TensorDescriptor &desc) {
  auto argumentNumber = [&](Value value) -> std::optional<int64_t> {
    if (auto widened = value.getDefiningOp<arith::ExtSIOp>())
      value = widened.getIn();
    auto argument = dyn_cast_or_null<BlockArgument>(value);
    if (!argument || argument.getOwner() != &k.kernel.getBody().front() ||
        argument.getArgNumber() >= k.kernel.getNumArguments())
      return std::nullopt;
    return argument.getArgNumber();
  };
  std::optional<int64_t> base = argumentNumber(desc.base);
  if (!base || !desc.unitInnerStride || !isConstantIntValue(desc.baseOffset, 0))
    return std::nullopt;
  TensorDescriptor::HostArguments host;
  host.base = static_cast<unsigned>(*base);
  auto record = [&](Value value, SmallVectorImpl<TensorMapValue> &values) {
    if (std::optional<int64_t> number = argumentNumber(value))
      values.push_back({int(*number), 0});
    else if (std::optional<int64_t> constant = getConstantIntValue(value))
      values.push_back({-1, *constant});
    else
      return false;
    return true;
  };
  for (Value extent : desc.shape)
    if (!record(extent, host.shape))
      return std::nullopt;
  for (Value stride : ArrayRef(desc.strides).drop_back())
    if (!record(stride, host.outerStrides))
      return std::nullopt;
  return host;
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
  desc.unitInnerStride = k.contiguity.constantValue(op.getStrides().back()) == 1;
  int64_t elementBytes =
      std::max<int64_t>(1, op.getType().getBlockType().getElementTypeBitWidth() / 8);
  desc.rowAlignment = k.contiguity.runStartAlignment(op.getBase(), 1, elementBytes);
  for (Value stride : op.getStrides().drop_back())
    desc.rowAlignment = std::gcd(
        desc.rowAlignment, k.contiguity.piecesOf(stride).divisibility * elementBytes);
  desc.lastExtentDivisibility = k.contiguity.piecesOf(op.getShape().back()).divisibility;
  desc.hostArguments = hostArgumentsOf(k, desc);
  k.mapDescriptor(op, std::move(desc));
  return success();
}

/// What a block access of either kind needs: the descriptor, the block's
/// layout, its offsets and how its runs may be vectors.
struct BlockAccess {
  const TensorDescriptor *desc = nullptr;
  LinearLayout layout;
  SmallVector<Value> offsets;
  RunAccess runs;
  /// Proved: the block's first column is at a byte address that is a
  /// multiple of this (LoadAccesses::BlockRows::startAlignment).
  int64_t startAlignment = 1;
};

FailureOr<BlockAccess> blockAccessOf(KernelLowering &k, Operation *op, Value descValue,
                                     ValueRange offsets, Type blockType, OpBuilder &builder) {
  BlockAccess block;
  block.desc = k.descriptor(descValue);
  if (!block.desc)
    return k.unsupported(op, "a tensor descriptor not made by tile.make_tensor_descriptor in the "
                             "same kernel outside control flow");
  FailureOr<LinearLayout> layout = k.layout(op, blockType);
  if (failed(layout))
    return failure();
  block.layout = *layout;
  for (Value offset : offsets)
    block.offsets.push_back(k.registers(offset).front());
  // Runs of a block row are consecutive in memory when the innermost
  // stride is 1, which only the launch tells.
  Location loc = op->getLoc();
  Type element = getElementTypeOrSelf(blockType);
  block.runs = RunAccess{vectorAccessWidth(k.target, block.layout, element),
                         RunAddresses::WhenVectorConditionHolds, Value()};
  int64_t elementBytes = storageBytes(element);
  block.startAlignment =
      std::gcd(block.desc->rowAlignment,
               k.contiguity.piecesOf(offsets.back()).divisibility * elementBytes);
  if (block.runs.width < 2)
    return block;
  if (!block.desc->unitInnerStride) {
    block.runs.vectorCondition = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, block.desc->strides.back(),
        arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 1));
    return block;
  }
  // A run of the layout is a run of memory. Where the runs are proved
  // aligned (rows and the block's first column) and the last extent divides
  // by them, each lies wholly inside the shape or wholly outside it.
  block.runs.addresses = RunAddresses::Consecutive;
  int64_t runBytes = block.runs.width * elementBytes;
  block.runs.provedAligned = block.startAlignment % runBytes == 0 &&
                             block.desc->lastExtentDivisibility % block.runs.width == 0;
  block.runs.predicated = k.target.vendor == GpuVendor::Nvidia;
  return block;
}

LogicalResult lowerStore(KernelLowering &k, tile::DescriptorStoreOp op, OpBuilder &builder) {
  if (std::optional<TensorStorePlan> plan = planTensorStore(k, op))
    return storeWithTensorMap(k, op, *plan, builder);
  Location loc = op.getLoc();
  if (tensorStorePanels(k, op)) {
    // A store TMA could write, but for which no shared memory is left:
    // TMA stores before it took it for one of theirs, which waits for
    // earlier copies' writes first (othersMayAccess), and left their own in
    // flight.
    inlinePtx(builder, loc, {}, {}, "cp.async.bulk.wait_group 0;", "");
    mlir::gpu::BarrierOp::create(builder, loc);
  }
  FailureOr<BlockAccess> block = blockAccessOf(k, op, op.getDesc(), op.getOffsets(),
                                               op.getValue().getType(), builder);
  if (failed(block))
    return failure();
  Value owner = k.thread.ownsElements(block->layout);
  SmallVector<ElementAccess> accesses;
  for (unsigned reg = 0; reg < block->layout.numRegisters(); ++reg) {
    ElementAccess access =
        accessOf(k, builder, loc, *block->desc, block->offsets, block->layout, reg);
    if (owner)
      access.condition = arith::AndIOp::create(builder, loc, owner, access.condition);
    accesses.push_back(access);
  }
  storeElements(builder, loc, block->desc->base, accesses, k.registers(op.getValue()),
                block->runs, [&](unsigned reg) { return block->layout.isDuplicateRegister(reg); });
  return success();
}

} // namespace

FailureOr<LoadAccesses> descriptorLoadAccesses(KernelLowering &k, tile::DescriptorLoadOp op,
                                               OpBuilder &builder) {
  Location loc = op.getLoc();
  FailureOr<BlockAccess> block =
      blockAccessOf(k, op, op.getDesc(), op.getOffsets(), op.getType(), builder);
  if (failed(block))
    return failure();
  LoadAccesses load;
  load.base = block->desc->base;
  load.element = op.getType().getElementType();
  for (unsigned reg = 0; reg < block->layout.numRegisters(); ++reg)
    load.accesses.push_back(
        accessOf(k, builder, loc, *block->desc, block->offsets, block->layout, reg));
  load.runs = block->runs;
  load.fill = {paddingValue(builder, loc, load.element, block->desc->padding)};
  if (block->desc->unitInnerStride && block->desc->padding == tile::PaddingOption::Zero)
    load.rows = LoadAccesses::BlockRows{block->desc, block->layout, block->offsets,
                                        block->startAlignment};
  return load;
}

std::pair<Value, Value> leadingElementsInBounds(KernelLowering &k, OpBuilder &builder,
                                                Location loc, const LoadAccesses::BlockRows &rows,
                                                unsigned first, unsigned width, bool aligned) {
  unsigned last = rows.layout.rank() - 1;
  Value inRow;
  for (unsigned dim = 0; dim < last; ++dim) {
    Value coord = arith::AddIOp::create(builder, loc, rows.offsets[dim],
                                        k.thread.coordinate(builder, loc, rows.layout, first, dim));
    Value inside = insideExtent(builder, loc, coord, rows.desc->shape[dim]);
    inRow = inRow ? Value(arith::AndIOp::create(builder, loc, inRow, inside)) : inside;
  }
  Value column = arith::AddIOp::create(builder, loc, rows.offsets[last],
                                       k.thread.coordinate(builder, loc, rows.layout, first, last));
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  Value all = arith::ConstantIntOp::create(builder, loc, width, 32);
  Value count;
  if (aligned && rows.desc->lastExtentDivisibility % width == 0) {
    // A predicated copy of the whole run (no source size to compute).
    Value before = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, column,
                                         rows.desc->shape[last]);
    count = arith::SelectOp::create(builder, loc, before, all, zero);
  } else {
    Value left = arith::SubIOp::create(builder, loc, rows.desc->shape[last], column);
    count = arith::MinSIOp::create(builder, loc, arith::MaxSIOp::create(builder, loc, left, zero),
                                   all);
  }
  Value started = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, column, zero);
  Value copied = inRow ? Value(arith::AndIOp::create(builder, loc, started, inRow)) : started;
  count = arith::SelectOp::create(builder, loc, copied, count, zero);
  Value before = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::sle, column,
      arith::ConstantIntOp::create(builder, loc, -static_cast<int64_t>(width), 32));
  return {arith::IndexCastOp::create(builder, loc, builder.getIndexType(), count),
          arith::OrIOp::create(builder, loc, started, before)};
}

LogicalResult lowerDescriptorOp(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (auto make = dyn_cast<tile::MakeTensorDescOp>(op))
    return lowerMake(k, make);
  if (auto store = dyn_cast<tile::DescriptorStoreOp>(op))
    return lowerStore(k, store, builder);
  FailureOr<LoadAccesses> load = descriptorLoadAccesses(k, cast<tile::DescriptorLoadOp>(op), builder);
  if (failed(load))
    return failure();
  k.map(op->getResult(0),
        loadElements(builder, op->getLoc(), load->base, load->element, load->accesses, load->runs,
                     [&](OpBuilder &, unsigned reg) { return load->fillOf(reg); }));
  return success();
}

} // namespace tessera::gpu

// Memory ops: loads and stores through pointer tiles, atomics and tensor
// descriptors. Every lane that is not masked off is bounds-checked against the
// buffer its pointer came from; masked-off lanes touch nothing.
#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace tessera::interp {
namespace {

bool laneEnabled(const Tile *mask, int64_t lane) { return !mask || mask->at(lane).bits != 0; }

llvm::Error load(Executor &exec, tile::LoadOp op) {
  const Tile &ptr = exec.tile(op.getPtr());
  const Tile *mask = op.getMask() ? &exec.tile(op.getMask()) : nullptr;
  const Tile *other = op.getOther() ? &exec.tile(op.getOther()) : nullptr;
  Tile result = Tile::zeros(op.getType());
  for (int64_t lane = 0; lane < result.size(); ++lane) {
    if (!laneEnabled(mask, lane)) {
      if (other)
        result.elements[lane] = other->at(lane);
      continue;
    }
    llvm::Expected<Element> value =
        exec.memory().load(ptr.at(lane), result.elementType, AccessKind::Load, lane);
    if (!value)
      return exec.fail(op, value.takeError());
    result.elements[lane] = *value;
  }
  exec.bind(op.getResult(), std::move(result));
  return llvm::Error::success();
}

llvm::Error store(Executor &exec, tile::StoreOp op) {
  const Tile &ptr = exec.tile(op.getPtr()), &value = exec.tile(op.getValue());
  const Tile *mask = op.getMask() ? &exec.tile(op.getMask()) : nullptr;
  for (int64_t lane = 0; lane < ptr.size(); ++lane) {
    if (!laneEnabled(mask, lane))
      continue;
    if (llvm::Error error = exec.memory().store(ptr.at(lane), value.elementType, value.at(lane),
                                                AccessKind::Store, lane))
      return exec.fail(op, std::move(error));
  }
  return llvm::Error::success();
}

// The value an atomic read-modify-write leaves in memory.
Element applyRMW(tile::RMWOp kind, const Element &old, const Element &val, Type type) {
  if (isa<FloatType>(type)) {
    switch (kind) {
    case tile::RMWOp::FAdd:
      return makeFloat(old.real + val.real, type);
    case tile::RMWOp::Max:
      return makeFloat(std::fmax(old.real, val.real), type);
    case tile::RMWOp::Min:
      return makeFloat(std::fmin(old.real, val.real), type);
    default:
      return val; // xchg, the only other kind the verifier allows on floats
    }
  }
  unsigned width = intWidth(type);
  int64_t a = signExtend(old.bits, width), b = signExtend(val.bits, width);
  switch (kind) {
  case tile::RMWOp::Add:
  case tile::RMWOp::FAdd:
    return makeInt(old.bits + val.bits, width);
  case tile::RMWOp::Max:
    return a >= b ? old : val;
  case tile::RMWOp::Min:
    return a <= b ? old : val;
  case tile::RMWOp::UMax:
    return makeInt(std::max(old.bits, val.bits), width);
  case tile::RMWOp::UMin:
    return makeInt(std::min(old.bits, val.bits), width);
  case tile::RMWOp::And:
    return makeInt(old.bits & val.bits, width);
  case tile::RMWOp::Or:
    return makeInt(old.bits | val.bits, width);
  case tile::RMWOp::Xor:
    return makeInt(old.bits ^ val.bits, width);
  case tile::RMWOp::Xchg:
    return val;
  }
  llvm_unreachable("unknown atomic_rmw kind");
}

// Programs run one at a time, so atomics are plain read-modify-writes done
// lane by lane in lane order.
llvm::Error atomicRMW(Executor &exec, tile::AtomicRMWOp op) {
  const Tile &ptr = exec.tile(op.getPtr()), &val = exec.tile(op.getVal());
  const Tile *mask = op.getMask() ? &exec.tile(op.getMask()) : nullptr;
  Tile result = Tile::zeros(op.getType());
  for (int64_t lane = 0; lane < result.size(); ++lane) {
    if (!laneEnabled(mask, lane))
      continue;
    llvm::Expected<Element> old =
        exec.memory().load(ptr.at(lane), result.elementType, AccessKind::Atomic, lane);
    if (!old)
      return exec.fail(op, old.takeError());
    Element updated = applyRMW(op.getRmwOp(), *old, val.at(lane), result.elementType);
    if (llvm::Error error = exec.memory().store(ptr.at(lane), result.elementType, updated,
                                                AccessKind::Atomic, lane))
      return exec.fail(op, std::move(error));
    result.elements[lane] = *old;
  }
  exec.bind(op.getResult(), std::move(result));
  return llvm::Error::success();
}

// Compares bit patterns, as the hardware does (so -0.0 differs from +0.0).
llvm::Error atomicCAS(Executor &exec, tile::AtomicCASOp op) {
  const Tile &ptr = exec.tile(op.getPtr()), &cmp = exec.tile(op.getCmp()),
             &val = exec.tile(op.getVal());
  Tile result = Tile::zeros(op.getType());
  Type type = result.elementType;
  for (int64_t lane = 0; lane < result.size(); ++lane) {
    llvm::Expected<Element> old = exec.memory().load(ptr.at(lane), type, AccessKind::Atomic, lane);
    if (!old)
      return exec.fail(op, old.takeError());
    if (toBits(*old, type) == toBits(cmp.at(lane), type))
      if (llvm::Error error =
              exec.memory().store(ptr.at(lane), type, val.at(lane), AccessKind::Atomic, lane))
        return exec.fail(op, std::move(error));
    result.elements[lane] = *old;
  }
  exec.bind(op.getResult(), std::move(result));
  return llvm::Error::success();
}

llvm::Error makeDescriptor(Executor &exec, tile::MakeTensorDescOp op) {
  Descriptor desc;
  desc.base = exec.tile(op.getBase()).at(0);
  RankedTensorType block = op.getType().getBlockType();
  desc.elementType = block.getElementType();
  desc.blockShape.assign(block.getShape().begin(), block.getShape().end());
  for (Value size : op.getShape())
    desc.shape.push_back(signExtend(exec.tile(size).at(0).bits, 32));
  for (Value stride : op.getStrides())
    desc.strides.push_back(static_cast<int64_t>(exec.tile(stride).at(0).bits));
  desc.nanPadding = op.getPadding() == tile::PaddingOption::NaN;
  exec.bind(op.getResult(), std::move(desc));
  return llvm::Error::success();
}

// The pointer of block element `lane` at block origin `offsets`, or nothing
// when that element lies outside the tensor's shape.
std::optional<Element> blockElementPointer(const Descriptor &desc, ArrayRef<int64_t> offsets,
                                           int64_t lane) {
  SmallVector<int64_t, 4> index = delinearize(lane, desc.blockShape);
  int64_t elementOffset = 0;
  for (auto [dim, i] : llvm::enumerate(index)) {
    int64_t global = offsets[dim] + i;
    if (global < 0 || global >= desc.shape[dim])
      return std::nullopt;
    elementOffset += global * desc.strides[dim];
  }
  Element pointer = desc.base;
  pointer.bits += static_cast<uint64_t>(elementOffset * storageBytes(desc.elementType));
  return pointer;
}

SmallVector<int64_t, 4> blockOffsets(Executor &exec, ValueRange offsets) {
  SmallVector<int64_t, 4> result;
  for (Value offset : offsets)
    result.push_back(signExtend(exec.tile(offset).at(0).bits, 32));
  return result;
}

llvm::Error descriptorLoad(Executor &exec, tile::DescriptorLoadOp op) {
  const Descriptor &desc = exec.descriptor(op.getDesc());
  SmallVector<int64_t, 4> offsets = blockOffsets(exec, op.getOffsets());
  Tile result = Tile::zeros(op.getType());
  Element padding;
  if (desc.nanPadding && isa<FloatType>(desc.elementType))
    padding.real = std::numeric_limits<double>::quiet_NaN();
  for (int64_t lane = 0; lane < result.size(); ++lane) {
    std::optional<Element> pointer = blockElementPointer(desc, offsets, lane);
    if (!pointer) {
      result.elements[lane] = padding;
      continue;
    }
    llvm::Expected<Element> value =
        exec.memory().load(*pointer, desc.elementType, AccessKind::Load, lane);
    if (!value)
      return exec.fail(op, value.takeError());
    result.elements[lane] = *value;
  }
  exec.bind(op.getResult(), std::move(result));
  return llvm::Error::success();
}

llvm::Error descriptorStore(Executor &exec, tile::DescriptorStoreOp op) {
  const Descriptor &desc = exec.descriptor(op.getDesc());
  SmallVector<int64_t, 4> offsets = blockOffsets(exec, op.getOffsets());
  const Tile &value = exec.tile(op.getValue());
  for (int64_t lane = 0; lane < value.size(); ++lane) {
    std::optional<Element> pointer = blockElementPointer(desc, offsets, lane);
    if (!pointer)
      continue;
    if (llvm::Error error = exec.memory().store(*pointer, desc.elementType,
                                                value.elements[lane], AccessKind::Store, lane))
      return exec.fail(op, std::move(error));
  }
  return llvm::Error::success();
}

} // namespace

void registerMemoryHandlers(HandlerTable &table) {
  table.add<tile::LoadOp>(load);
  table.add<tile::StoreOp>(store);
  table.add<tile::AtomicRMWOp>(atomicRMW);
  table.add<tile::AtomicCASOp>(atomicCAS);
  table.add<tile::MakeTensorDescOp>(makeDescriptor);
  table.add<tile::DescriptorLoadOp>(descriptorLoad);
  table.add<tile::DescriptorStoreOp>(descriptorStore);
}

} // namespace tessera::interp

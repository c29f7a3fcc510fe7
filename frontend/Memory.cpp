// KernelBuilder: loads, stores, atomics, tensor descriptors and debugging ops.
#include "frontend/KernelBuilder.h"
#include "frontend/Typing.h"

#include <limits>

using namespace mlir;

namespace tessera::frontend {

// "pointer tile [64, 32]" or "a scalar pointer", for messages.
static std::string describePointer(ArrayRef<int64_t> shape) {
  return shape.empty() ? "a scalar pointer" : "pointer tile " + KernelBuilder::str(shape);
}

Value KernelBuilder::requirePointer(Value ptr, const char *what, const SourceLocation &loc) {
  if (!isa<tile::PointerType>(elementType(ptr)))
    fail(loc, std::string(what) + " needs a pointer or a tile of pointers, got " +
                  str(ptr.getType()));
  return ptr;
}

Value KernelBuilder::maskFor(Value mask, ArrayRef<int64_t> shape, const char *what,
                             const SourceLocation &loc) {
  if (!mask)
    return mask;
  if (!typing::isBool(elementType(mask)))
    fail(loc, std::string(what) + " mask must be boolean, got " + str(mask.getType()));
  if (!typing::broadcastsTo(shapeOf(mask), shape))
    fail(loc, "mask of shape " + str(shapeOf(mask)) + " does not match " + describePointer(shape));
  return broadcastTo(mask, shape, loc);
}

// `value` converted to `elem` and broadcast to `shape`, the shape of `target`.
Value KernelBuilder::valueFor(Value value, Type elem, ArrayRef<int64_t> shape, const char *what,
                              const std::string &target, const SourceLocation &loc) {
  if (!typing::broadcastsTo(shapeOf(value), shape))
    fail(loc, std::string(what) + " of shape " + str(shapeOf(value)) + " does not match " + target);
  return broadcastTo(cast(value, elem, loc), shape, loc);
}

Value KernelBuilder::load(Value ptr, Value mask, Value other, const MemoryHints &hints,
                          const SourceLocation &loc) {
  requirePointer(ptr, "load", loc);
  std::vector<int64_t> shape = shapeOf(ptr);
  if (other && !mask)
    fail(loc, "load: 'other' is the value of masked-off lanes and needs a mask");
  mask = maskFor(mask, shape, "load", loc);
  if (other)
    other = valueFor(other, tile::getPointeeType(elementType(ptr)), shape, "other",
                     describePointer(shape), loc);
  return tile::LoadOp::create(builder_, at(loc), ptr, mask, other, hints.cache, hints.evict,
                              hints.isVolatile);
}

void KernelBuilder::store(Value ptr, Value value, Value mask, const MemoryHints &hints,
                          const SourceLocation &loc) {
  requirePointer(ptr, "store", loc);
  if (hints.isVolatile)
    fail(loc, "store: volatile applies to loads only");
  std::vector<int64_t> shape = shapeOf(ptr);
  // Like Triton, the stored value is converted to the pointee type.
  value = valueFor(value, tile::getPointeeType(elementType(ptr)), shape, "value",
                   describePointer(shape), loc);
  mask = maskFor(mask, shape, "store", loc);
  tile::StoreOp::create(builder_, at(loc), ptr, value, mask, hints.cache, hints.evict);
}

Value KernelBuilder::atomic(AtomicKind kind, Value ptr, Value value, Value mask,
                            tile::MemSemantic sem, tile::MemScope scope,
                            const SourceLocation &loc, Signedness sign) {
  requirePointer(ptr, "atomic", loc);
  std::vector<int64_t> shape = shapeOf(ptr);
  Type pointee = tile::getPointeeType(elementType(ptr));
  bool isFloat = typing::isFloat(pointee);
  bool unsignedInts = !isFloat && sign == Signedness::Unsigned;
  tile::RMWOp op = tile::RMWOp::Xchg;
  switch (kind) {
  case AtomicKind::Add: op = isFloat ? tile::RMWOp::FAdd : tile::RMWOp::Add; break;
  case AtomicKind::Max: op = unsignedInts ? tile::RMWOp::UMax : tile::RMWOp::Max; break;
  case AtomicKind::Min: op = unsignedInts ? tile::RMWOp::UMin : tile::RMWOp::Min; break;
  case AtomicKind::And: op = tile::RMWOp::And; break;
  case AtomicKind::Or: op = tile::RMWOp::Or; break;
  case AtomicKind::Xor: op = tile::RMWOp::Xor; break;
  case AtomicKind::Xchg: op = tile::RMWOp::Xchg; break;
  }
  bool bitwise = kind == AtomicKind::And || kind == AtomicKind::Or || kind == AtomicKind::Xor;
  if (bitwise && isFloat)
    fail(loc, "atomic_" + tile::stringifyRMWOp(op).str() + " needs integer elements, got " +
                  str(pointee));
  value = valueFor(value, pointee, shape, "value", describePointer(shape), loc);
  mask = maskFor(mask, shape, "atomic", loc);
  return tile::AtomicRMWOp::create(builder_, at(loc), op, sem, scope, ptr, value, mask);
}

Value KernelBuilder::atomicCas(Value ptr, Value cmp, Value value, tile::MemSemantic sem,
                               tile::MemScope scope, const SourceLocation &loc) {
  requirePointer(ptr, "atomic_cas", loc);
  std::vector<int64_t> shape = shapeOf(ptr);
  Type pointee = tile::getPointeeType(elementType(ptr));
  cmp = valueFor(cmp, pointee, shape, "cmp", describePointer(shape), loc);
  value = valueFor(value, pointee, shape, "value", describePointer(shape), loc);
  return tile::AtomicCASOp::create(builder_, at(loc), sem, scope, ptr, cmp, value);
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

// Scalar integers converted to `type`, for descriptor shapes, strides, offsets.
static SmallVector<Value> scalarIntegers(KernelBuilder &kb, ArrayRef<Value> values, Type type,
                                         const char *what, const SourceLocation &loc) {
  SmallVector<Value> result;
  for (Value value : values) {
    if (isa<RankedTensorType>(value.getType()) || !typing::isInteger(value.getType()))
      kb.fail(loc, std::string(what) + " must be scalar integers, got " +
                       KernelBuilder::str(value.getType()));
    result.push_back(kb.cast(value, type, loc));
  }
  return result;
}

Value KernelBuilder::makeTensorDescriptor(Value base, ArrayRef<Value> shape,
                                          ArrayRef<Value> strides, ArrayRef<int64_t> blockShape,
                                          tile::PaddingOption padding, const SourceLocation &loc) {
  auto ptrType = dyn_cast<tile::PointerType>(base.getType());
  if (!ptrType)
    fail(loc, "make_tensor_descriptor needs a scalar pointer base, got " + str(base.getType()));
  if (shape.size() != blockShape.size() || strides.size() != blockShape.size())
    fail(loc, "make_tensor_descriptor: shape, strides and block shape must have one rank, got " +
                  std::to_string(shape.size()) + ", " + std::to_string(strides.size()) + " and " +
                  std::to_string(blockShape.size()));
  for (int64_t dim : blockShape)
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      fail(loc, "make_tensor_descriptor: block dimensions must be powers of two, got " +
                    str(blockShape));
  if (padding == tile::PaddingOption::NaN && !isa<FloatType>(ptrType.getPointeeType()))
    fail(loc, "make_tensor_descriptor: NaN padding needs floating-point elements, got " +
                  str(ptrType.getPointeeType()));
  SmallVector<Value> shape32 = scalarIntegers(*this, shape, builder_.getI32Type(),
                                              "tensor descriptor shapes", loc);
  SmallVector<Value> strides64 = scalarIntegers(*this, strides, builder_.getI64Type(),
                                                "tensor descriptor strides", loc);
  auto type = tile::TensorDescType::get(&context(),
                                        RankedTensorType::get(blockShape, ptrType.getPointeeType()));
  return tile::MakeTensorDescOp::create(builder_, at(loc), type, base, shape32, strides64, padding);
}

static tile::TensorDescType requireDescriptor(const KernelBuilder &kb, Value desc,
                                              ArrayRef<Value> offsets, const char *what,
                                              const SourceLocation &loc) {
  auto type = dyn_cast<tile::TensorDescType>(desc.getType());
  if (!type)
    kb.fail(loc, std::string(what) + " needs a tensor descriptor, got " +
                     KernelBuilder::str(desc.getType()));
  if (offsets.size() != static_cast<size_t>(type.getBlockType().getRank()))
    kb.fail(loc, std::string(what) + ": a rank-" + std::to_string(type.getBlockType().getRank()) +
                     " descriptor needs " + std::to_string(type.getBlockType().getRank()) +
                     " offsets, got " + std::to_string(offsets.size()));
  return type;
}

Value KernelBuilder::descriptorLoad(Value desc, ArrayRef<Value> offsets, const SourceLocation &loc) {
  requireDescriptor(*this, desc, offsets, "descriptor load", loc);
  SmallVector<Value> offsets32 =
      scalarIntegers(*this, offsets, builder_.getI32Type(), "descriptor offsets", loc);
  return tile::DescriptorLoadOp::create(builder_, at(loc), desc, offsets32);
}

// The make op of `desc`: atomics, gathers and scatters, which have no op of
// their own, address its elements through pointers.
static tile::MakeTensorDescOp madeBy(const KernelBuilder &kb, Value desc, const char *what,
                                     const SourceLocation &loc) {
  auto make = desc.getDefiningOp<tile::MakeTensorDescOp>();
  if (!make)
    kb.fail(loc, std::string(what) + " needs a tensor descriptor made in this kernel, outside "
                                     "control flow");
  return make;
}

std::pair<Value, Value> KernelBuilder::descriptorPointers(tile::MakeTensorDescOp make,
                                                          ArrayRef<Value> indices,
                                                          ArrayRef<int64_t> shape,
                                                          const SourceLocation &loc) {
  Value offset, mask, zero = literal(int64_t{0}, builder_.getI32Type(), loc);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value term = binary(BinaryOp::Mul, cast(index, builder_.getI64Type(), loc),
                        make.getStrides()[dim], loc);
    offset = offset ? binary(BinaryOp::Add, offset, term, loc) : term;
    Value inside = binary(BinaryOp::And, compare(CompareOp::Ge, index, zero, loc),
                          compare(CompareOp::Lt, index, make.getShape()[dim], loc), loc);
    mask = mask ? binary(BinaryOp::And, mask, inside, loc) : inside;
  }
  return {binary(BinaryOp::Add, make.getBase(), broadcastTo(offset, shape, loc), loc),
          broadcastTo(mask, shape, loc)};
}

void KernelBuilder::descriptorAtomic(AtomicKind kind, Value desc, ArrayRef<Value> offsets,
                                     Value value, const SourceLocation &loc, Signedness sign) {
  auto type = requireDescriptor(*this, desc, offsets, "descriptor atomic", loc);
  tile::MakeTensorDescOp make = madeBy(*this, desc, "descriptor atomic", loc);
  RankedTensorType block = type.getBlockType();
  SmallVector<Value> offsets32 =
      scalarIntegers(*this, offsets, builder_.getI32Type(), "descriptor offsets", loc);
  std::vector<Value> indices;
  for (auto [dim, size] : llvm::enumerate(block.getShape())) {
    std::vector<int64_t> along(block.getRank(), 1);
    along[dim] = size;
    indices.push_back(reshape(binary(BinaryOp::Add, offsets32[dim], arange(0, size, loc), loc),
                              along, loc));
  }
  auto [ptrs, mask] = descriptorPointers(make, indices, block.getShape(), loc);
  value = valueFor(value, block.getElementType(), block.getShape(), "value",
                   "the descriptor block " + str(block.getShape()), loc);
  atomic(kind, ptrs, value, mask, tile::MemSemantic::Relaxed, tile::MemScope::GPU, loc, sign);
}

// The pointers and mask of rows `rows` of a one-row block from `column`.
static std::pair<Value, Value> rowPointers(KernelBuilder &kb, Value desc, Value rows, Value column,
                                           const char *what, const SourceLocation &loc) {
  auto type = dyn_cast<tile::TensorDescType>(desc.getType());
  if (!type)
    kb.fail(loc, std::string(what) + " needs a tensor descriptor, got " +
                     KernelBuilder::str(desc.getType()));
  ArrayRef<int64_t> block = type.getBlockType().getShape();
  if (block.size() != 2 || block[0] != 1)
    kb.fail(loc, std::string(what) + " needs a 2-D descriptor whose block is one row, got block "
                                     "shape " + KernelBuilder::str(block));
  std::vector<int64_t> rowShape = KernelBuilder::shapeOf(rows);
  if (rowShape.size() != 1 || !typing::isInteger(KernelBuilder::elementType(rows)))
    kb.fail(loc, std::string(what) + ": the row offsets must be a 1-D integer tile, got " +
                     KernelBuilder::str(rows.getType()));
  Value column32 = scalarIntegers(kb, {column}, kb.opBuilder().getI32Type(),
                                  "descriptor column", loc)
                       .front();
  Value rowIndex = kb.reshape(kb.cast(rows, kb.opBuilder().getI32Type(), loc),
                              {rowShape[0], 1}, loc);
  Value columnIndex = kb.reshape(
      kb.binary(BinaryOp::Add, column32, kb.arange(0, block[1], loc), loc), {1, block[1]}, loc);
  return kb.descriptorPointers(madeBy(kb, desc, what, loc), {rowIndex, columnIndex},
                               {rowShape[0], block[1]}, loc);
}

Value KernelBuilder::descriptorGather(Value desc, Value rows, Value column,
                                      const SourceLocation &loc) {
  auto [ptrs, mask] = rowPointers(*this, desc, rows, column, "descriptor gather", loc);
  auto make = desc.getDefiningOp<tile::MakeTensorDescOp>();
  Type element = llvm::cast<tile::TensorDescType>(desc.getType()).getBlockType().getElementType();
  Value padding = make.getPadding() == tile::PaddingOption::NaN
                      ? constant(std::numeric_limits<double>::quiet_NaN(), element, loc)
                      : constant(int64_t{0}, element, loc);
  return load(ptrs, mask, padding, {}, loc);
}

void KernelBuilder::descriptorScatter(Value desc, Value value, Value rows, Value column,
                                      const SourceLocation &loc) {
  auto [ptrs, mask] = rowPointers(*this, desc, rows, column, "descriptor scatter", loc);
  store(ptrs, value, mask, {}, loc);
}

void KernelBuilder::descriptorStore(Value desc, ArrayRef<Value> offsets, Value value,
                                    const SourceLocation &loc) {
  auto type = requireDescriptor(*this, desc, offsets, "descriptor store", loc);
  RankedTensorType block = type.getBlockType();
  value = valueFor(value, block.getElementType(), block.getShape(), "value",
                   "the descriptor block " + str(block.getShape()), loc);
  SmallVector<Value> offsets32 =
      scalarIntegers(*this, offsets, builder_.getI32Type(), "descriptor offsets", loc);
  tile::DescriptorStoreOp::create(builder_, at(loc), desc, offsets32, value);
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

void KernelBuilder::print(const std::string &prefix, ArrayRef<Value> values, bool hex,
                          const SourceLocation &loc, ArrayRef<bool> unsignedValues) {
  DenseBoolArrayAttr flags;
  if (llvm::is_contained(unsignedValues, true))
    flags = builder_.getDenseBoolArrayAttr(unsignedValues);
  tile::PrintOp::create(builder_, at(loc), prefix, hex, values, flags);
}

void KernelBuilder::assertTrue(Value cond, const std::string &message, const SourceLocation &loc) {
  if (!typing::isBool(elementType(cond)))
    fail(loc, "device_assert needs a boolean condition, got " + str(cond.getType()));
  tile::AssertOp::create(builder_, at(loc), cond, message);
}

void KernelBuilder::assume(Value cond, const SourceLocation &loc) {
  if (!cond.getType().isInteger(1))
    fail(loc, "assume needs a boolean scalar condition, got " + str(cond.getType()));
  tile::AssumeOp::create(builder_, at(loc), cond);
}

Value KernelBuilder::hint(Value value, std::optional<int64_t> multipleOf,
                          std::optional<int64_t> maxContiguous,
                          std::optional<int64_t> maxConstancy, const SourceLocation &loc) {
  Type element = getElementTypeOrSelf(value.getType());
  if (!isa<IntegerType, tile::PointerType>(element) || element.isInteger(1))
    fail(loc, "hints describe integer or pointer values, got " + str(value.getType()));
  auto attr = [&](std::optional<int64_t> v) {
    return v ? builder_.getI64IntegerAttr(*v) : IntegerAttr();
  };
  // A value the op's verifier refuses is reported by finish(), at `loc`.
  return tile::HintOp::create(builder_, at(loc), value.getType(), value, attr(multipleOf),
                              attr(maxContiguous), attr(maxConstancy));
}

void KernelBuilder::debugBarrier(const SourceLocation &loc) {
  tile::DebugBarrierOp::create(builder_, at(loc));
}

} // namespace tessera::frontend

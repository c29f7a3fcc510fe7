// Verifiers, folders, builders and type inference of the tile operations.
#include "ir/TileDialect.h"
#include "ir/TileEncodingInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tessera::tile;

#define GET_OP_CLASSES
#include "ir/TileOps.cpp.inc"

namespace {

ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [index, dim] : llvm::enumerate(shape))
    text += (index ? ", " : "") + std::to_string(dim);
  return text + "]";
}

// A folded splat constant reshaped to `type`, or nothing when `value` is not
// a splat constant.
OpFoldResult reshapeSplatConstant(Attribute value, Type type) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(value);
  if (!splat)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(type), splat.getSplatValue<Attribute>());
}

LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t limit, StringRef what) {
  if (axis < 0 || axis >= limit)
    return op->emitOpError() << what << " " << axis << " is out of range [0, " << limit << ")";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  // The I32Attr accessors return uint32_t: read the attributes signed.
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start (" << start << ")";
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError() << "result must be a 1-D tile of " << end - start
                         << " elements, got " << getType();
  return success();
}

LogicalResult HintOp::verify() {
  // The I64Attr accessors return uint64_t: read the attributes signed.
  auto signedValue = [](IntegerAttr attr) { return attr ? std::optional(attr.getInt()) : std::nullopt; };
  std::optional<int64_t> multiple = signedValue(getMultipleOfAttr());
  if (!multiple && !getMaxContiguousAttr() && !getMaxConstancyAttr())
    return emitOpError() << "needs multiple_of, max_contiguous or max_constancy";
  if (multiple && *multiple < 1)
    return emitOpError() << "multiple_of must be positive, got " << *multiple;
  auto tile = dyn_cast<RankedTensorType>(getType());
  for (auto [name, attr] : {std::pair{"max_contiguous", getMaxContiguousAttr()},
                            std::pair{"max_constancy", getMaxConstancyAttr()}}) {
    if (!attr)
      continue;
    if (!tile || tile.getRank() == 0)
      return emitOpError() << name << " describes the last dimension of a tile, not of "
                           << getType();
    int64_t extent = tile.getShape().back(), value = attr.getInt();
    if (value < 1 || value > extent || extent % value != 0)
      return emitOpError() << name << " must divide the last dimension (" << extent << "), got "
                           << value;
  }
  return success();
}

LogicalResult PrintOp::verify() {
  std::optional<ArrayRef<bool>> flags = getUnsignedArgs();
  if (!flags)
    return success();
  if (flags->size() != getArgs().size())
    return emitOpError() << "unsigned_args has " << flags->size() << " flags for "
                         << getArgs().size() << " operands";
  for (auto [flag, arg] : llvm::zip(*flags, getArgs()))
    if (flag && !getElementTypeOrSelf(arg.getType()).isInteger())
      return emitOpError() << "unsigned_args marks an operand of " << arg.getType()
                           << ", which is not an integer";
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (!adaptor.getSrc() || !isa<IntegerAttr, FloatAttr>(adaptor.getSrc()))
    return {};
  return SplatElementsAttr::get(getType(), adaptor.getSrc());
}

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType()), dst = shapeOf(getType());
  if (src.size() != dst.size())
    return emitOpError() << "operand rank (" << src.size() << ") must equal result rank ("
                         << dst.size() << "); use tile.expand_dims to add dimensions first";
  for (auto [dim, pair] : llvm::enumerate(llvm::zip(src, dst))) {
    auto [from, to] = pair;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << dim << " of the operand (" << from
                           << ") must equal the result's (" << to << ") or be 1";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult ExpandDimsOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType());
  int64_t axis = getAxisAttr().getInt();
  if (failed(verifyAxis(*this, axis, src.size() + 1, "axis")))
    return failure();
  SmallVector<int64_t> expected(src);
  expected.insert(expected.begin() + axis, 1);
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeString(expected) << ", got "
                         << shapeString(shapeOf(getType()));
  return success();
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult ReshapeOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  if (src.getNumElements() != getType().getNumElements())
    return emitOpError() << "operand has " << src.getNumElements() << " elements but result "
                         << getType() << " has " << getType().getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto producer = getSrc().getDefiningOp<ReshapeOp>();
      producer && producer.getAllowReorder() == getAllowReorder()) {
    getSrcMutable().assign(producer.getSrc());
    return getResult();
  }
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult TransOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType());
  ArrayRef<int32_t> order = getOrder();
  if (order.size() != src.size())
    return emitOpError() << "order has " << order.size() << " entries but the operand has rank "
                         << src.size();
  SmallVector<bool> seen(src.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t dim : order) {
    if (dim < 0 || dim >= static_cast<int64_t>(src.size()) || seen[dim])
      return emitOpError() << "order must be a permutation of 0.." << src.size() - 1;
    seen[dim] = true;
    expected.push_back(src[dim]);
  }
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeString(expected) << ", got "
                         << shapeString(shapeOf(getType()));
  return success();
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  if (llvm::all_of(llvm::enumerate(order), [](auto it) { return it.value() == (int)it.index(); }))
    return getSrc();
  if (auto producer = getSrc().getDefiningOp<TransOp>()) {
    // trans(trans(x, inner), outer) permutes x by inner[outer[i]].
    SmallVector<int32_t> composed;
    for (int32_t dim : order)
      composed.push_back(producer.getOrder()[dim]);
    getSrcMutable().assign(producer.getSrc());
    setOrder(composed);
    return getResult();
  }
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

LogicalResult JoinOp::verify() {
  SmallVector<int64_t> expected(shapeOf(getLhs().getType()));
  expected.push_back(2);
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeString(expected) << ", got "
                         << shapeString(shapeOf(getType()));
  if (getElementTypeOrSelf(getType()) != getElementTypeOrSelf(getLhs().getType()))
    return emitOpError() << "result element type must match the operands'";
  return success();
}

LogicalResult SplitOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType());
  if (src.size() < 2 || src.back() != 2)
    return emitOpError() << "operand must have rank 2 or more and a minor dimension of 2, got "
                         << shapeString(src);
  if (shapeOf(getLhs().getType()) != src.drop_back() ||
      getElementTypeOrSelf(getLhs().getType()) != getElementTypeOrSelf(getSrc().getType()))
    return emitOpError() << "results must be tiles of shape " << shapeString(src.drop_back())
                         << " and the operand's element type";
  return success();
}

LogicalResult CatOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getLhs().getType());
  if (failed(verifyAxis(*this, getAxisAttr().getInt(), src.size(), "axis")))
    return failure();
  SmallVector<int64_t> expected(src);
  expected[getAxis()] *= 2;
  if (shapeOf(getType()) != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape must be " << shapeString(expected) << ", got "
                         << shapeString(shapeOf(getType()));
  if (getElementTypeOrSelf(getType()) != getElementTypeOrSelf(getLhs().getType()))
    return emitOpError() << "result element type must match the operands'";
  return success();
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType()), indices = shapeOf(getIndices().getType());
  if (failed(verifyAxis(*this, getAxisAttr().getInt(), src.size(), "axis")))
    return failure();
  if (indices.size() != src.size())
    return emitOpError() << "indices must have the rank of the source, " << src.size()
                         << ", got " << shapeString(indices);
  for (unsigned dim = 0; dim < src.size(); ++dim)
    if (dim != getAxis() && indices[dim] != src[dim])
      return emitOpError() << "indices " << shapeString(indices) << " must match the source "
                           << shapeString(src) << " on every axis but " << getAxis();
  if (shapeOf(getType()) != indices)
    return emitOpError() << "result shape must be the indices' " << shapeString(indices)
                         << ", got " << shapeString(shapeOf(getType()));
  if (getElementTypeOrSelf(getType()) != getElementTypeOrSelf(getSrc().getType()))
    return emitOpError() << "result element type must be the source's";
  return success();
}

LogicalResult HistogramOp::verify() {
  ArrayRef<int64_t> src = shapeOf(getSrc().getType()), bins = shapeOf(getType());
  if (src.size() != 1)
    return emitOpError() << "operand must be a 1-D tile, got " << shapeString(src);
  if (getMask() && shapeOf(getMask().getType()) != src)
    return emitOpError() << "mask must have the operand's shape " << shapeString(src);
  if (bins.size() != 1 || !getElementTypeOrSelf(getType()).isInteger(32))
    return emitOpError() << "result must be a 1-D tile of i32";
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  bool ptrIsTile = isa<RankedTensorType>(getPtr().getType());
  bool offsetIsTile = isa<RankedTensorType>(getOffset().getType());
  if (ptrIsTile != offsetIsTile)
    return emitOpError() << (ptrIsTile ? "a tile of pointers needs a tile of offsets"
                                       : "a scalar pointer needs a scalar offset")
                         << "; splat the " << (ptrIsTile ? "offset" : "pointer") << " first";
  if (shapeOf(getPtr().getType()) != shapeOf(getOffset().getType()))
    return emitOpError() << "offset shape " << shapeString(shapeOf(getOffset().getType()))
                         << " must match the pointer shape "
                         << shapeString(shapeOf(getPtr().getType()));
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor) {
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' is only meaningful with a mask";
  // Write-side policies make no sense on a read.
  if (getCache() == CacheModifier::WB || getCache() == CacheModifier::WT)
    return emitOpError() << "cache = " << stringifyCacheModifier(getCache())
                         << " is a store policy; loads take ca, cg, cs or cv";
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get());
  // A volatile load must stay where it is: model it as also writing.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getType().getBlockType();
  auto base = cast<PointerType>(getBase().getType());
  if (base.getPointeeType() != block.getElementType())
    return emitOpError() << "base points to " << base.getPointeeType()
                         << " but the block holds " << block.getElementType();
  if (getShape().size() != static_cast<size_t>(block.getRank()) ||
      getStrides().size() != static_cast<size_t>(block.getRank()))
    return emitOpError() << "a rank-" << block.getRank() << " block needs " << block.getRank()
                         << " sizes and " << block.getRank() << " strides, got "
                         << getShape().size() << " and " << getStrides().size();
  if (getPadding() == PaddingOption::NaN && !isa<FloatType>(block.getElementType()))
    return emitOpError() << "padding = nan needs float elements, got " << block.getElementType();
  return success();
}

template <typename DescriptorOp>
static LogicalResult verifyBlockOffsets(DescriptorOp op) {
  int64_t rank = op.getDesc().getType().getBlockType().getRank();
  if (static_cast<int64_t>(op.getOffsets().size()) != rank)
    return op.emitOpError() << "a rank-" << rank << " descriptor needs " << rank
                            << " offsets, got " << op.getOffsets().size();
  return success();
}

LogicalResult DescriptorLoadOp::verify() { return verifyBlockOffsets(*this); }
LogicalResult DescriptorStoreOp::verify() { return verifyBlockOffsets(*this); }

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

static bool isValidDotElementTypes(Type operand, Type acc) {
  if (operand.isF16() || isFloat8(operand))
    return acc.isF32() || acc.isF16();
  if (operand.isBF16() || operand.isF32())
    return acc.isF32();
  if (operand.isF64())
    return acc.isF64();
  if (operand.isInteger(8))
    return acc.isInteger(32);
  return false;
}

LogicalResult DotOp::verify() {
  ArrayRef<int64_t> a = shapeOf(getA().getType()), b = shapeOf(getB().getType()),
                    c = shapeOf(getAcc().getType());
  if (a.size() != b.size() || a.size() != c.size() || a.size() < 2 || a.size() > 3)
    return emitOpError() << "operands and accumulator must all have rank 2 (or 3 with a batch "
                            "dimension), got ranks "
                         << a.size() << ", " << b.size() << " and " << c.size();
  size_t m = a.size() - 2, k = a.size() - 1;
  if (a[k] != b[m])
    return emitOpError() << "K of a " << shapeString(a) << " (" << a[k]
                         << ") must equal K of b " << shapeString(b) << " (" << b[m] << ")";
  if (c[m] != a[m] || c[k] != b[k])
    return emitOpError() << "accumulator shape " << shapeString(c) << " must be [M, N] = ["
                         << a[m] << ", " << b[k] << "]";
  if (a.size() == 3 && (a[0] != b[0] || a[0] != c[0]))
    return emitOpError() << "batch dimensions differ: " << a[0] << ", " << b[0] << ", " << c[0];
  Type aElem = getElementTypeOrSelf(getA().getType());
  Type bElem = getElementTypeOrSelf(getB().getType());
  Type accElem = getElementTypeOrSelf(getAcc().getType());
  if (aElem != bElem && !(isFloat8(aElem) && isFloat8(bElem)))
    return emitOpError() << "a and b must have one element type (or be two fp8 types), got "
                         << aElem << " and " << bElem;
  if (!isValidDotElementTypes(aElem, accElem))
    return emitOpError() << "unsupported operand/accumulator types " << aElem << " -> "
                         << accElem
                         << " (supported: f16->f32|f16, bf16->f32, f32->f32, f64->f64, "
                            "f8->f32|f16, i8->i32)";
  if (static_cast<int32_t>(getMaxNumImpreciseAcc()) < 0)
    return emitOpError() << "max_num_imprecise_acc must not be negative";
  if (getInputPrecision() != InputPrecision::TF32 && !aElem.isF32())
    return emitOpError() << "input_precision applies to f32 operands only";
  return success();
}

//===----------------------------------------------------------------------===//
// reduce and scan
//===----------------------------------------------------------------------===//

// The combining region of a reduce or scan over `srcs`: 2N scalar arguments
// (N of each side) and a tile.yield of N values, all of the operand element types.
static LogicalResult verifyCombineRegion(Operation *op, ValueRange srcs, Region &region) {
  SmallVector<Type> elementTypes;
  for (Value src : srcs)
    elementTypes.push_back(getElementTypeOrSelf(src.getType()));
  Block &block = region.front();
  SmallVector<Type> expectedArgs(elementTypes);
  expectedArgs.append(elementTypes);
  if (block.getArgumentTypes() != ArrayRef<Type>(expectedArgs)) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "combining region must take " << expectedArgs.size()
                              << " scalar arguments (";
    llvm::interleaveComma(expectedArgs, diag);
    return diag << "): the accumulated and the incoming element of each operand";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "combining region must end in tile.yield";
  if (yield.getValues().getTypes() != ArrayRef<Type>(elementTypes))
    return yield.emitOpError() << "must yield " << elementTypes.size()
                               << " value(s) of the operand element types";
  return success();
}

// The operand tiles of a reduce or scan, checked against `axis`. The custom
// parser infers the results before any operand is verified, so the operands
// may still be anything here.
static FailureOr<SmallVector<RankedTensorType>>
combineOperandTypes(std::optional<Location> location, StringRef opName, ValueRange operands,
                    int64_t axis) {
  if (operands.empty())
    return emitOptionalError(location, "'", opName, "' op needs at least one operand");
  SmallVector<RankedTensorType> types;
  for (Value operand : operands) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return emitOptionalError(location, "'", opName, "' op operands must be tiles, got ",
                               operand.getType());
    if (axis < 0 || axis >= type.getRank())
      return emitOptionalError(location, "'", opName, "' op axis ", axis,
                               " is out of range for an operand of rank ", type.getRank());
    types.push_back(type);
  }
  return types;
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                         ValueRange operands, DictionaryAttr,
                                         OpaqueProperties properties, RegionRange,
                                         SmallVectorImpl<Type> &inferred) {
  int64_t axis = properties.as<Properties *>()->axis.getInt();
  FailureOr<SmallVector<RankedTensorType>> types =
      combineOperandTypes(location, getOperationName(), operands, axis);
  if (failed(types))
    return failure();
  for (RankedTensorType type : *types) {
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    if (shape.empty()) {
      inferred.push_back(type.getElementType());
      continue;
    }
    Attribute encoding = type.getEncoding();
    if (encoding) {
      auto *encodings = encoding.getDialect().getRegisteredInterface<TileEncodingInterface>();
      FailureOr<Attribute> reduced =
          encodings ? encodings->inferReducedEncoding(encoding, type.getShape(), axis)
                    : FailureOr<Attribute>(failure());
      if (failed(reduced))
        return emitOptionalError(location, "'", getOperationName(), "' op cannot reduce a tile ",
                                 "with encoding ", encoding, " along axis ", axis);
      encoding = *reduced;
    }
    inferred.push_back(RankedTensorType::get(shape, type.getElementType(), encoding));
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  return verifyCombineRegion(*this, getSrcs(), getCombineOp());
}

LogicalResult ScanOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                       ValueRange operands, DictionaryAttr,
                                       OpaqueProperties properties, RegionRange,
                                       SmallVectorImpl<Type> &inferred) {
  int64_t axis = properties.as<Properties *>()->axis.getInt();
  FailureOr<SmallVector<RankedTensorType>> types =
      combineOperandTypes(location, getOperationName(), operands, axis);
  if (failed(types))
    return failure();
  inferred.append(types->begin(), types->end());
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  return verifyCombineRegion(*this, getSrcs(), getCombineOp());
}

//===----------------------------------------------------------------------===//
// Atomics and external calls
//===----------------------------------------------------------------------===//

LogicalResult AtomicRMWOp::verify() {
  Type elem = getElementTypeOrSelf(getVal().getType());
  bool isFloat = isa<FloatType>(elem);
  switch (getRmwOp()) {
  case RMWOp::FAdd:
    if (!isFloat)
      return emitOpError() << "fadd needs float elements, got " << elem << "; use add";
    break;
  case RMWOp::Add:
  case RMWOp::UMax:
  case RMWOp::UMin:
  case RMWOp::And:
  case RMWOp::Or:
  case RMWOp::Xor:
    if (isFloat)
      return emitOpError() << stringifyRMWOp(getRmwOp()) << " needs integer elements, got "
                           << elem << (getRmwOp() == RMWOp::Add ? "; use fadd" : "");
    break;
  case RMWOp::Max:
  case RMWOp::Min:
  case RMWOp::Xchg:
    break;
  }
  unsigned width = elem.getIntOrFloatBitWidth();
  if (width != 16 && width != 32 && width != 64)
    return emitOpError() << "atomics need 16-, 32- or 64-bit elements, got " << elem;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  unsigned width = getElementTypeOrSelf(getVal().getType()).getIntOrFloatBitWidth();
  if (width != 16 && width != 32 && width != 64)
    return emitOpError() << "atomics need 16-, 32- or 64-bit elements, got "
                         << getElementTypeOrSelf(getVal().getType());
  return success();
}

LogicalResult InlineAsmElementwiseOp::verify() {
  int32_t pack = getPack();
  if (pack < 1 || !llvm::isPowerOf2_32(pack))
    return emitOpError() << "pack " << pack << " is not a power of two";
  size_t bound = 0;
  for (StringRef constraint : llvm::split(getConstraints(), ',')) {
    constraint = constraint.trim();
    if (constraint.empty() || constraint.starts_with("~"))
      continue; // clobbers
    ++bound;
  }
  size_t operands = getResults().size() + getArgs().size();
  if (bound != operands)
    return emitOpError() << "constraints \"" << getConstraints() << "\" bind " << bound
                         << " operands, but the assembly has " << getResults().size()
                         << " result(s) and " << getArgs().size() << " argument(s)";
  for (Type type : llvm::concat<const Type>(getArgs().getTypes(), getResults().getTypes())) {
    Type element = getElementTypeOrSelf(type);
    if (!element.isIntOrFloat())
      return emitOpError() << "takes and gives integers and floats, not " << element;
    unsigned bits = element.getIntOrFloatBitWidth();
    if (pack > 1 && bits * pack > 32)
      return emitOpError() << "packs " << pack << " elements of " << element << " into "
                           << bits * pack << " bits; a packed operand fits one 32-bit register";
  }
  return success();
}

void InlineAsmElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

bool tessera::tile::hasNoEffectsButPromises(Operation *op) {
  WalkResult walked = op->walk([](Operation *nested) {
    if (isa<AssumeOp>(nested))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
      return effects.hasNoEffect() ? WalkResult::advance() : WalkResult::interrupt();
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ? WalkResult::advance()
                                                                  : WalkResult::interrupt();
  });
  return !walked.wasInterrupted();
}

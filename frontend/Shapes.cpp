// KernelBuilder: reshaping tiles, dot, reductions and scans.
#include "frontend/KernelBuilder.h"
#include "frontend/Typing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <numeric>

using namespace mlir;

namespace tessera::frontend {

static int64_t numElements(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// `axis` counted from the end when negative, checked against `rank`.
static int normalizeAxis(const KernelBuilder &kb, const char *what, int axis, int64_t rank,
                         const SourceLocation &loc) {
  int normalized = axis < 0 ? axis + static_cast<int>(rank) : axis;
  if (normalized < 0 || normalized >= rank)
    kb.fail(loc, std::string(what) + ": axis " + std::to_string(axis) +
                     " is out of range for a tile of rank " + std::to_string(rank));
  return normalized;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Value KernelBuilder::expandDims(Value value, int axis, const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(value);
  int normalized = normalizeAxis(*this, "expand_dims", axis, shape.size() + 1, loc);
  if (shape.empty())
    return splat(value, {1}, loc);
  shape.insert(shape.begin() + normalized, 1);
  return tile::ExpandDimsOp::create(builder_, at(loc), withShape(elementType(value), shape), value,
                                    static_cast<uint32_t>(normalized));
}

Value KernelBuilder::reshape(Value value, ArrayRef<int64_t> shape, const SourceLocation &loc) {
  std::vector<int64_t> from = shapeOf(value);
  if (shape.empty())
    fail(loc, "reshape needs a non-empty shape");
  if (numElements(from) != numElements(shape))
    fail(loc, "cannot reshape " + str(from) + " (" + std::to_string(numElements(from)) +
                  " elements) to " + str(shape) + " (" + std::to_string(numElements(shape)) +
                  " elements)");
  if (from.empty())
    return splat(value, shape, loc);
  if (ArrayRef<int64_t>(from) == shape)
    return value;
  return tile::ReshapeOp::create(builder_, at(loc), withShape(elementType(value), shape), value);
}

Value KernelBuilder::permute(Value value, ArrayRef<int> order, const SourceLocation &loc) {
  std::vector<int64_t> from = shapeOf(value);
  std::vector<int> sorted(order.begin(), order.end());
  std::sort(sorted.begin(), sorted.end());
  bool isPermutation = sorted.size() == from.size();
  for (size_t i = 0; isPermutation && i < sorted.size(); ++i)
    isPermutation = sorted[i] == static_cast<int>(i);
  if (!isPermutation) {
    std::vector<int64_t> wide(order.begin(), order.end());
    fail(loc, "permute order " + str(wide) + " is not a permutation of the dimensions of " +
                  str(from));
  }
  std::vector<int64_t> shape;
  for (int dim : order)
    shape.push_back(from[dim]);
  SmallVector<int32_t> order32(order.begin(), order.end());
  return tile::TransOp::create(builder_, at(loc), withShape(elementType(value), shape), value,
                               order32);
}

Value KernelBuilder::trans(Value value, const SourceLocation &loc) {
  if (shapeOf(value).size() != 2)
    fail(loc, "trans needs a 2-D tile, got " + str(shapeOf(value)) + "; use permute");
  return permute(value, {1, 0}, loc);
}

Value KernelBuilder::join(Value lhs, Value rhs, const SourceLocation &loc) {
  if (elementType(lhs) != elementType(rhs))
    fail(loc, "join needs two values of one element type, got " + str(elementType(lhs)) +
                  " and " + str(elementType(rhs)));
  std::vector<Value> both = broadcastAll({lhs, rhs}, loc);
  std::vector<int64_t> shape = shapeOf(both[0]);
  bool scalars = shape.empty();
  if (scalars)
    shape.push_back(1);
  lhs = broadcastTo(both[0], shape, loc);
  rhs = broadcastTo(both[1], shape, loc);
  std::vector<int64_t> joined = shape;
  joined.push_back(2);
  Value result =
      tile::JoinOp::create(builder_, at(loc), withShape(elementType(lhs), joined), lhs, rhs);
  return scalars ? reshape(result, {2}, loc) : result;
}

std::pair<Value, Value> KernelBuilder::split(Value value, const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(value);
  if (shape.empty() || shape.back() != 2)
    fail(loc, "split needs a tile whose last dimension is 2, got " +
                  (shape.empty() ? str(value.getType()) : str(shape)));
  bool toScalars = shape.size() == 1;
  if (toScalars) {
    value = expandDims(value, 0, loc);
    shape.insert(shape.begin(), 1);
  }
  shape.pop_back();
  Type half = withShape(elementType(value), shape);
  auto op = tile::SplitOp::create(builder_, at(loc), half, half, value);
  if (!toScalars)
    return {op.getLhs(), op.getRhs()};
  // The one element of a tile of 1, as a scalar.
  auto scalar = [&](Value half) { return reduce(ReduceKind::Max, half, 0, false, loc); };
  return {scalar(op.getLhs()), scalar(op.getRhs())};
}

Value KernelBuilder::cat(Value lhs, Value rhs, int axis, const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(lhs);
  if (shape.empty() || lhs.getType() != rhs.getType())
    fail(loc, "cat needs two tiles of one shape and element type, got " + str(lhs.getType()) +
                  " and " + str(rhs.getType()));
  int normalized = normalizeAxis(*this, "cat", axis, shape.size(), loc);
  shape[normalized] *= 2;
  return tile::CatOp::create(builder_, at(loc), withShape(elementType(lhs), shape), lhs, rhs,
                             static_cast<uint32_t>(normalized));
}

//===----------------------------------------------------------------------===//
// gather and histogram
//===----------------------------------------------------------------------===//

Value KernelBuilder::gather(Value src, Value indices, int axis, const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(src), indexShape = shapeOf(indices);
  if (shape.empty())
    fail(loc, "gather needs a tile to gather from, got " + str(src.getType()));
  if (!typing::isInteger(elementType(indices)) || typing::isBool(elementType(indices)))
    fail(loc, "gather indices must be integers, got " + str(indices.getType()));
  if (indexShape.size() != shape.size())
    fail(loc, "gather indices must have the rank of the source " + str(shape) + ", got " +
                  str(indexShape));
  int normalized = normalizeAxis(*this, "gather", axis, shape.size(), loc);
  for (size_t dim = 0; dim < shape.size(); ++dim)
    if (static_cast<int>(dim) != normalized && indexShape[dim] != shape[dim])
      fail(loc, "gather indices " + str(indexShape) + " must match the source " + str(shape) +
                    " on every axis but " + std::to_string(normalized));
  return tile::GatherOp::create(builder_, at(loc), withShape(elementType(src), indexShape), src,
                                indices, static_cast<uint32_t>(normalized));
}

Value KernelBuilder::histogram(Value src, int64_t numBins, Value mask,
                               const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(src);
  if (shape.size() != 1 || !typing::isInteger(elementType(src)) ||
      typing::isBool(elementType(src)))
    fail(loc, "histogram needs a 1-D tile of integers, got " + str(src.getType()));
  if (numBins <= 0 || !llvm::isPowerOf2_64(numBins))
    fail(loc, "histogram: the number of bins must be a power of two, got " +
                  std::to_string(numBins));
  mask = maskFor(mask, shape, "histogram", loc);
  return tile::HistogramOp::create(builder_, at(loc),
                                   withShape(builder_.getI32Type(), {numBins}), src, mask);
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

Value KernelBuilder::dot(Value a, Value b, Value acc, tile::InputPrecision precision,
                         const SourceLocation &loc, unsigned maxNumImpreciseAcc) {
  std::vector<int64_t> aShape = shapeOf(a), bShape = shapeOf(b);
  if (aShape.size() != bShape.size() || aShape.size() < 2 || aShape.size() > 3)
    fail(loc, "dot needs two tiles of rank 2 (or both of rank 3, with a batch dimension), got " +
                  str(aShape) + " and " + str(bShape));
  size_t m = aShape.size() - 2, k = aShape.size() - 1;
  if (aShape[k] != bShape[m])
    fail(loc, "dot: K of a " + str(aShape) + " is " + std::to_string(aShape[k]) + " but K of b " +
                  str(bShape) + " is " + std::to_string(bShape[m]));
  if (aShape.size() == 3 && aShape[0] != bShape[0])
    fail(loc, "dot: batch dimensions differ, " + std::to_string(aShape[0]) + " and " +
                  std::to_string(bShape[0]));
  Type aElem = elementType(a), bElem = elementType(b);
  if (aElem != bElem && !(tile::isFloat8(aElem) && tile::isFloat8(bElem)))
    fail(loc, "dot needs operands of one element type (or two fp8 types), got " + str(aElem) +
                  " and " + str(bElem));
  std::vector<int64_t> resultShape = aShape;
  resultShape.back() = bShape.back();
  if (!acc) {
    Type accElem = aElem.isInteger(8) ? Type(builder_.getI32Type())
                   : aElem.isF64()    ? Type(builder_.getF64Type())
                                      : Type(builder_.getF32Type());
    acc = zeros(resultShape, accElem, loc);
  } else if (shapeOf(acc) != resultShape) {
    fail(loc, "dot accumulator of shape " + str(shapeOf(acc)) + " does not match the result " +
                  str(resultShape));
  }
  // As Triton: the bound applies to fp8 operands alone, and can be no more
  // than K (a bound of K or more bounds nothing).
  bool fp8 = tile::isFloat8(aElem);
  if (fp8 && maxNumImpreciseAcc > static_cast<uint64_t>(aShape[k]))
    fail(loc, "dot: max_num_imprecise_acc (" + std::to_string(maxNumImpreciseAcc) +
                  ") must be at most K (" + std::to_string(aShape[k]) + ")");
  // Unsupported operand/accumulator type pairs are left to the op verifier,
  // whose message lists the supported ones; finish() reports it here.
  return tile::DotOp::create(builder_, at(loc), a, b, acc, precision,
                             fp8 ? maxNumImpreciseAcc : 0);
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

static const char *spelling(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum: return "sum";
  case ReduceKind::Max: return "max";
  case ReduceKind::Min: return "min";
  case ReduceKind::ArgMax: return "argmax";
  case ReduceKind::ArgMin: return "argmin";
  }
  llvm_unreachable("unknown reduction");
}

// The i32 tile of `shape` holding each element's index along `axis`.
Value KernelBuilder::indexTile(ArrayRef<int64_t> shape, int axis, const SourceLocation &loc) {
  auto rangeType = RankedTensorType::get({shape[axis]}, builder_.getI32Type());
  Value index = tile::MakeRangeOp::create(builder_, at(loc), rangeType, 0,
                                          static_cast<uint32_t>(shape[axis]));
  for (int dim = 0; dim < axis; ++dim)
    index = expandDims(index, 0, loc);
  while (shapeOf(index).size() < shape.size())
    index = expandDims(index, -1, loc);
  return broadcastTo(index, shape, loc);
}

Value KernelBuilder::reduce(ReduceKind kind, Value value, std::optional<int> axis, bool keepDims,
                            const SourceLocation &loc, Signedness sign) {
  const char *what = spelling(kind);
  std::vector<int64_t> shape = shapeOf(value);
  if (shape.empty())
    fail(loc, std::string(what) + " needs a tile, got the scalar " + str(value.getType()));
  Type elem = elementType(value);
  if (!elem.isIntOrFloat())
    fail(loc, std::string(what) + " is not defined for " + str(elem));
  bool isArg = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
  int reduceAxis = 0;
  if (axis) {
    reduceAxis = normalizeAxis(*this, what, *axis, shape.size(), loc);
  } else if (shape.size() > 1) {
    // Over all elements: flatten. Index results need the row-major order.
    value = tile::ReshapeOp::create(builder_, at(loc), withShape(elem, {numElements(shape)}), value,
                                    /*allow_reorder=*/!isArg);
  }

  SmallVector<Value> srcs{value};
  if (isArg)
    srcs.push_back(indexTile(shapeOf(value), reduceAxis, loc));
  Location where = at(loc);
  auto reduceOp = tile::ReduceOp::create(builder_, where, srcs, static_cast<uint32_t>(reduceAxis));
  {
    OpBuilder::InsertionGuard guard(builder_);
    SmallVector<Type> argTypes;
    for (int side = 0; side < 2; ++side)
      for (Value src : srcs)
        argTypes.push_back(getElementTypeOrSelf(src.getType()));
    Block *block = builder_.createBlock(&reduceOp.getCombineOp(), {}, argTypes,
                                        SmallVector<Location>(argTypes.size(), where));
    bool isFloat = typing::isFloat(elem), isUnsigned = sign == Signedness::Unsigned;
    Value a = block->getArgument(0), b = block->getArgument(srcs.size());
    SmallVector<Value> combined;
    switch (kind) {
    case ReduceKind::Sum:
      combined.push_back(isFloat ? Value(arith::AddFOp::create(builder_, where, a, b))
                                 : Value(arith::AddIOp::create(builder_, where, a, b)));
      break;
    case ReduceKind::Max:
      combined.push_back(isFloat ? Value(arith::MaxNumFOp::create(builder_, where, a, b))
                                 : integerExtremum(/*maximum=*/true, a, b, isUnsigned, where));
      break;
    case ReduceKind::Min:
      combined.push_back(isFloat ? Value(arith::MinNumFOp::create(builder_, where, a, b))
                                 : integerExtremum(/*maximum=*/false, a, b, isUnsigned, where));
      break;
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin: {
      // Keep `a` when it is strictly better, or equal with a smaller index:
      // the result is the first extreme element whatever the combining order.
      Value ai = block->getArgument(1), bi = block->getArgument(3);
      bool max = kind == ReduceKind::ArgMax;
      Value better, equal;
      if (isFloat) {
        better = arith::CmpFOp::create(builder_, where,
                                       max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a, b);
        equal = arith::CmpFOp::create(builder_, where, arith::CmpFPredicate::OEQ, a, b);
      } else {
        using P = arith::CmpIPredicate;
        P strict = max ? (isUnsigned ? P::ugt : P::sgt) : (isUnsigned ? P::ult : P::slt);
        better = arith::CmpIOp::create(builder_, where, strict, a, b);
        equal = arith::CmpIOp::create(builder_, where, arith::CmpIPredicate::eq, a, b);
      }
      Value earlier = arith::CmpIOp::create(builder_, where, arith::CmpIPredicate::slt, ai, bi);
      Value keepA = arith::OrIOp::create(builder_, where, better,
                                         arith::AndIOp::create(builder_, where, equal, earlier));
      combined.push_back(arith::SelectOp::create(builder_, where, keepA, a, b));
      combined.push_back(arith::SelectOp::create(builder_, where, keepA, ai, bi));
      break;
    }
    }
    tile::YieldOp::create(builder_, where, combined);
  }
  Value result = reduceOp.getResult(isArg ? 1 : 0);
  if (!keepDims)
    return result;
  if (!axis)
    return reshape(result, std::vector<int64_t>(shape.size(), 1), loc);
  return expandDims(result, reduceAxis, loc);
}

Value KernelBuilder::cumsum(Value value, int axis, bool reverse, const SourceLocation &loc) {
  std::vector<int64_t> shape = shapeOf(value);
  if (shape.empty())
    fail(loc, "cumsum needs a tile, got the scalar " + str(value.getType()));
  if (!elementType(value).isIntOrFloat())
    fail(loc, "cumsum is not defined for " + str(elementType(value)));
  int scanAxis = normalizeAxis(*this, "cumsum", axis, shape.size(), loc);
  Type elem = elementType(value);
  Location where = at(loc);
  auto scanOp = tile::ScanOp::create(builder_, where, ValueRange{value},
                                     static_cast<uint32_t>(scanAxis), reverse);
  OpBuilder::InsertionGuard guard(builder_);
  Block *block = builder_.createBlock(&scanOp.getCombineOp(), {}, {elem, elem}, {where, where});
  Value a = block->getArgument(0), b = block->getArgument(1);
  Value sum = typing::isFloat(elem) ? Value(arith::AddFOp::create(builder_, where, a, b))
                                    : Value(arith::AddIOp::create(builder_, where, a, b));
  tile::YieldOp::create(builder_, where, ValueRange{sum});
  return scanOp.getResult(0);
}

// The operands of a combining reduction or scan: tiles of one shape.
static std::vector<int64_t> combinedShape(const KernelBuilder &kb, ArrayRef<Value> values,
                                          const char *what, const SourceLocation &loc) {
  if (values.empty())
    kb.fail(loc, std::string(what) + " needs at least one tile");
  std::vector<int64_t> shape = KernelBuilder::shapeOf(values.front());
  if (shape.empty())
    kb.fail(loc, std::string(what) + " needs tiles, got the scalar " +
                     KernelBuilder::str(values.front().getType()));
  for (Value value : values.drop_front())
    if (KernelBuilder::shapeOf(value) != shape)
      kb.fail(loc, std::string(what) + " needs tiles of one shape, got " + KernelBuilder::str(shape) +
                       " and " + KernelBuilder::str(KernelBuilder::shapeOf(value)));
  return shape;
}

// Builds `region`'s block (2N scalar arguments) from `combine` and checks
// that it gives N values of the operands' element types.
static void buildCombine(KernelBuilder &kb, OpBuilder &builder, Region &region,
                         ArrayRef<Value> values, const KernelBuilder::Combine &combine,
                         const char *what, Location where, const SourceLocation &loc) {
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Type> elements;
  for (Value value : values)
    elements.push_back(KernelBuilder::elementType(value));
  SmallVector<Type> argTypes(elements);
  argTypes.append(elements.begin(), elements.end());
  Block *block = builder.createBlock(&region, {}, argTypes,
                                     SmallVector<Location>(argTypes.size(), where));
  std::vector<Value> combined = combine(
      std::vector<Value>(block->getArguments().begin(), block->getArguments().end()));
  if (combined.size() != values.size())
    kb.fail(loc, std::string(what) + ": the combine function returns " +
                     std::to_string(combined.size()) + " values for " +
                     std::to_string(values.size()) + " tiles");
  for (auto [i, value] : llvm::enumerate(combined)) {
    if (isa<RankedTensorType>(value.getType()))
      kb.fail(loc, std::string(what) + ": the combine function must return scalars, got " +
                       KernelBuilder::str(value.getType()));
    combined[i] = kb.cast(value, elements[i], loc);
  }
  tile::YieldOp::create(builder, where, combined);
}

std::vector<Value> KernelBuilder::reduceWith(ArrayRef<Value> values, std::optional<int> axis,
                                             bool keepDims, const Combine &combine,
                                             const SourceLocation &loc) {
  std::vector<int64_t> shape = combinedShape(*this, values, "reduce", loc);
  SmallVector<Value> srcs(values.begin(), values.end());
  int reduceAxis = 0;
  if (axis) {
    reduceAxis = normalizeAxis(*this, "reduce", *axis, shape.size(), loc);
  } else if (shape.size() > 1) {
    // Over all elements, in row-major order (the combination may not commute).
    for (Value &src : srcs)
      src = reshape(src, {numElements(shape)}, loc);
  }
  Location where = at(loc);
  auto reduceOp = tile::ReduceOp::create(builder_, where, srcs, static_cast<uint32_t>(reduceAxis));
  buildCombine(*this, builder_, reduceOp.getCombineOp(), srcs, combine, "reduce", where, loc);
  std::vector<Value> results;
  for (Value result : reduceOp.getResults()) {
    if (keepDims)
      result = axis ? expandDims(result, reduceAxis, loc)
                    : reshape(result, std::vector<int64_t>(shape.size(), 1), loc);
    results.push_back(result);
  }
  return results;
}

std::vector<Value> KernelBuilder::scanWith(ArrayRef<Value> values, int axis, bool reverse,
                                           const Combine &combine, const SourceLocation &loc) {
  std::vector<int64_t> shape = combinedShape(*this, values, "associative_scan", loc);
  int scanAxis = normalizeAxis(*this, "associative_scan", axis, shape.size(), loc);
  Location where = at(loc);
  auto scanOp = tile::ScanOp::create(builder_, where, values, static_cast<uint32_t>(scanAxis),
                                     reverse);
  buildCombine(*this, builder_, scanOp.getCombineOp(), values, combine, "associative_scan", where,
               loc);
  return {scanOp.getResults().begin(), scanOp.getResults().end()};
}

} // namespace tessera::frontend

// tile-cpu-lower-tiles: tile IR on static tensors -> flat LLVM vectors.
//
// Every tile becomes a 1-D vector of its elements in row-major order; tiles of
// pointers become vectors of i64 addresses. Data movement is a shuffle with a
// static mask (lowering/cpu/TileShuffles.h), memory access is a masked
// load/store per contiguous row (ir/analysis/Contiguity.h) or a masked
// gather/scatter, dot is a register-blocked micro-kernel
// (lowering/cpu/DotMicroKernel.h).
#include "lowering/cpu/DotMicroKernel.h"
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/TileShuffles.h"

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPULOWERTILES
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;
namespace tile = tessera::tile;
using tessera::cpu::concatVectors;
using tessera::cpu::product;
using tessera::cpu::shuffleLanes;

namespace {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Whether values of `type` are only moved here, as their bits: fp8 and bf16
/// (tile-expand-float8-conversions and tile-cpu-expand-bf16 have turned
/// their conversions into integer arithmetic, and their arithmetic is
/// computed in f32).
bool movedAsBits(Type type) { return tile::isFloat8(type) || type.isBF16(); }

/// The type of a lane of a flat vector, or of a scalar, holding `type`: an
/// integer of its width where its values are moved as bits, which LLVM can
/// load, store, select and shuffle at full speed.
Type laneType(Type type) {
  return movedAsBits(type) ? Type(IntegerType::get(type.getContext(),
                                                   type.getIntOrFloatBitWidth()))
                           : type;
}

/// `value` as an attribute of laneType: an fp8 or bf16 constant becomes its
/// bits.
TypedAttr laneAttr(TypedAttr value) {
  if (auto number = dyn_cast<FloatAttr>(value); number && movedAsBits(number.getType()))
    return IntegerAttr::get(laneType(number.getType()), number.getValue().bitcastToAPInt());
  return value;
}

class FlatVectorTypeConverter : public TypeConverter {
public:
  explicit FlatVectorTypeConverter(MLIRContext *ctx) {
    addConversion([](Type type) { return type; });
    addConversion([](FloatType type) { return laneType(type); });
    addConversion([ctx](tile::PointerType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
    addConversion([ctx](RankedTensorType type) -> Type {
      Type element = type.getElementType();
      element = isa<tile::PointerType>(element) ? IntegerType::get(ctx, 64) : laneType(element);
      return VectorType::get({std::max<int64_t>(1, product(type.getShape()))}, element);
    });
    addConversion([ctx](tile::TensorDescType type) -> Type {
      unsigned rank = type.getBlockType().getRank();
      SmallVector<Type> fields{LLVM::LLVMPointerType::get(ctx)};
      fields.append(2 * rank, IntegerType::get(ctx, 64));
      return LLVM::LLVMStructType::getLiteral(ctx, fields);
    });
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs).getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

/// How an element of `type` sits in memory: i1 takes a byte, fp8 is one.
Type memoryType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  return laneType(type);
}
unsigned byteSize(Type type) { return std::max(1u, memoryType(type).getIntOrFloatBitWidth() / 8); }

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}
Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value splatConstant(OpBuilder &b, Location loc, VectorType type, Attribute scalar) {
  return arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, scalar));
}
Value boolVector(OpBuilder &b, Location loc, ArrayRef<bool> bits) {
  auto type = VectorType::get({static_cast<int64_t>(bits.size())}, b.getI1Type());
  return arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, bits));
}

/// i1 values go to memory as bytes and come back as i1.
Value toMemory(OpBuilder &b, Location loc, Value v) {
  Type element = getElementTypeOrSelf(v.getType());
  if (!element.isInteger(1))
    return v;
  Type to = b.getI8Type();
  if (auto vt = dyn_cast<VectorType>(v.getType()))
    to = VectorType::get(vt.getShape(), to);
  return arith::ExtUIOp::create(b, loc, to, v);
}
Value fromMemory(OpBuilder &b, Location loc, Value v, Type element) {
  if (!element.isInteger(1))
    return v;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

Value toPointers(OpBuilder &b, Location loc, Value addresses) {
  auto type = cast<VectorType>(addresses.getType());
  auto ptrs = VectorType::get(type.getShape(), LLVM::LLVMPointerType::get(b.getContext()));
  return LLVM::IntToPtrOp::create(b, loc, ptrs, addresses);
}
Value toPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}
Value extractLane(OpBuilder &b, Location loc, Value vector, Value lane) {
  return LLVM::ExtractElementOp::create(b, loc, vector, lane);
}

/// The function that holds `op` and the op of its entry block that contains
/// `op`: stack buffers go before that op, outside every loop.
Operation *topLevelAncestor(Operation *op) {
  Operation *top = op;
  while (top->getParentOp() && !isa<FunctionOpInterface>(top->getParentOp()))
    top = top->getParentOp();
  return top;
}

/// The kernel's grid arguments (pid x/y/z, num x/y/z): its last six.
SmallVector<Value> gridArguments(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto args = func.getArguments();
  return SmallVector<Value>(args.take_back(tessera::cpu::kNumGridArgs));
}

//===----------------------------------------------------------------------===//
// arith / math on tiles: the same op on the flat vector type
//===----------------------------------------------------------------------===//

struct ElementwiseOnVectors : ConversionPattern {
  ElementwiseOnVectors(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || op->getNumRegions())
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto scalar = dyn_cast<FloatAttr>(constant.getValue());
          scalar && movedAsBits(scalar.getType())) {
        rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, laneAttr(scalar));
        return success();
      }
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        return failure();
      auto type = cast<VectorType>(types[0]);
      if (dense.getElementType() != type.getElementType())
        dense = dense.bitcast(type.getElementType());
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, dense.reshape(type));
      return success();
    }
    SmallVector<Value> newOperands(operands);
    if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp,
            arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op))
      newOperands[1] = safeDivisor(rewriter, op->getLoc(), operands[0], operands[1],
                                   isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op));
    OperationState state(op->getLoc(), op->getName(), newOperands, types, op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }

  /// x86 traps on a division by zero and on INT_MIN / -1, where tile code
  /// wraps (the interpreter's semantics); dividing by 1 instead gives the
  /// wrapped quotient INT_MIN and remainder 0 (and x for a zero divisor).
  static Value safeDivisor(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
    auto type = cast<VectorType>(y.getType());
    unsigned width = type.getElementTypeBitWidth();
    auto splat = [&](const APInt &v) {
      return arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, v)).getResult();
    };
    Value one = splat(APInt(width, 1));
    Value bad = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, splat(APInt(width, 0)));
    if (!isUnsigned) {
      Value overflow = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                                splat(APInt::getSignedMinValue(width))),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                splat(APInt::getAllOnes(width))));
      bad = arith::OrIOp::create(b, loc, bad, overflow);
    }
    return arith::SelectOp::create(b, loc, bad, one, y);
  }
};

/// Rebuilds the scalar body of a reduce/scan combine region on vectors of
/// `width` lanes: the region is elementwise.
FailureOr<SmallVector<Value>> combineOnVectors(OpBuilder &b, Location loc, Region &region,
                                               ValueRange lhs, ValueRange rhs) {
  Block &block = region.front();
  IRMapping mapping;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    mapping.map(block.getArgument(i), lhs[i]);
    mapping.map(block.getArgument(n + i), rhs[i]);
  }
  int64_t width = cast<VectorType>(lhs[0].getType()).getNumElements();
  for (Operation &op : block.without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) || op.getNumRegions()) {
      op.emitError() << "'" << op.getName()
                     << "' in a combine region is not supported by the CPU backend";
      return failure();
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      TypedAttr value = laneAttr(cast<TypedAttr>(constant.getValue()));
      auto type = VectorType::get({width}, value.getType());
      mapping.map(constant.getResult(), splatConstant(b, loc, type, value));
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      Value mapped = mapping.lookupOrNull(operand);
      if (!mapped) {
        op.emitError("a combine region that uses values from outside is not supported by the "
                     "CPU backend");
        return failure();
      }
      operands.push_back(mapped);
    }
    SmallVector<Type> types;
    for (Type t : op.getResultTypes())
      types.push_back(VectorType::get({width}, laneType(t)));
    OperationState state(loc, op.getName(), operands, types, op.getAttrs());
    Operation *clone = b.create(state);
    mapping.map(op.getResults(), clone->getResults());
  }
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookup(v));
  return results;
}

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

template <typename Op> struct TilePattern : OpConversionPattern<Op> {
  TilePattern(const TypeConverter &converter, MLIRContext *ctx,
              const llvm::DenseSet<Operation *> *contiguous = nullptr, unsigned vectorBits = 512)
      : OpConversionPattern<Op>(converter, ctx), contiguous(contiguous), vectorBits(vectorBits) {}
  VectorType vectorType(Type tensor) const {
    return cast<VectorType>(this->getTypeConverter()->convertType(tensor));
  }
  const llvm::DenseSet<Operation *> *contiguous;
  unsigned vectorBits;
};

struct MakeRangeLowering : TilePattern<tile::MakeRangeOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<int32_t> values;
    for (int32_t i = op.getStart(); i < op.getEnd(); ++i)
      values.push_back(i);
    VectorType type = vectorType(op.getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type, DenseElementsAttr::get(type, ArrayRef<int32_t>(values)));
    return success();
  }
};

struct SplatLowering : TilePattern<tile::SplatOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value src = adaptor.getSrc();
    if (isa<LLVM::LLVMPointerType>(src.getType()))
      src = LLVM::PtrToIntOp::create(rewriter, op.getLoc(), rewriter.getI64Type(), src);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vectorType(op.getType()), src);
    return success();
  }
};

/// Ops whose lowered value is their operand: expand_dims and reshape keep the
/// row-major order, pointer bitcasts change no address (addresses are
/// untyped), hints have been read by the contiguity analysis.
template <typename Op> struct NoOpLowering : TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct BroadcastLowering : TilePattern<tile::BroadcastOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto lanes = tessera::cpu::broadcastLanes(op.getSrc().getType().getShape(),
                                              op.getType().getShape());
    rewriter.replaceOp(op, shuffleLanes(rewriter, op.getLoc(), adaptor.getSrc(), {}, lanes));
    return success();
  }
};

struct TransLowering : TilePattern<tile::TransOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto lanes = tessera::cpu::transposeLanes(op.getSrc().getType().getShape(), op.getOrder());
    rewriter.replaceOp(op, shuffleLanes(rewriter, op.getLoc(), adaptor.getSrc(), {}, lanes));
    return success();
  }
};

struct JoinLowering : TilePattern<tile::JoinOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::JoinOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto lanes = tessera::cpu::joinLanes(op.getLhs().getType().getShape());
    rewriter.replaceOp(op, shuffleLanes(rewriter, op.getLoc(), adaptor.getLhs(),
                                        adaptor.getRhs(), lanes));
    return success();
  }
};

struct SplitLowering : TilePattern<tile::SplitOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto shape = op.getSrc().getType().getShape();
    Value lhs = shuffleLanes(rewriter, op.getLoc(), adaptor.getSrc(), {},
                             tessera::cpu::splitLanes(shape, 0));
    Value rhs = shuffleLanes(rewriter, op.getLoc(), adaptor.getSrc(), {},
                             tessera::cpu::splitLanes(shape, 1));
    rewriter.replaceOp(op, ValueRange{lhs, rhs});
    return success();
  }
};

struct CatLowering : TilePattern<tile::CatOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::CatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto lanes = tessera::cpu::catLanes(op.getLhs().getType().getShape(), op.getAxis());
    rewriter.replaceOp(op, shuffleLanes(rewriter, op.getLoc(), adaptor.getLhs(),
                                        adaptor.getRhs(), lanes));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

struct AddPtrLowering : TilePattern<tile::AddPtrOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = tile::getPointeeType(getElementTypeOrSelf(op.getType()));
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, adaptor.getPtr().getType(), memoryType(pointee),
                                               adaptor.getPtr(), ValueRange{adaptor.getOffset()});
      return success();
    }
    auto type = cast<VectorType>(adaptor.getPtr().getType());
    Value offset = adaptor.getOffset();
    auto offsetType = cast<VectorType>(offset.getType());
    if (offsetType.getElementTypeBitWidth() < 64)
      offset = arith::ExtSIOp::create(rewriter, loc, type, offset);
    Value scale = splatConstant(rewriter, loc, type, rewriter.getI64IntegerAttr(byteSize(pointee)));
    Value bytes = arith::MulIOp::create(rewriter, loc, offset, scale);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getPtr(), bytes);
    return success();
  }
};

struct IntToPtrLowering : TilePattern<tile::IntToPtrOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::IntToPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      rewriter.replaceOp(op, adaptor.getSrc());
    else
      rewriter.replaceOp(op, toPointer(rewriter, op.getLoc(), adaptor.getSrc()));
    return success();
  }
};

struct PtrToIntLowering : TilePattern<tile::PtrToIntOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::PtrToIntOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (isa<RankedTensorType>(op.getType()))
      rewriter.replaceOp(op, adaptor.getSrc());
    else
      rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, rewriter.getI64Type(), adaptor.getSrc());
    return success();
  }
};


/// Tiles wider than this are gathered and scattered by a loop over the lanes
/// through stack buffers: LLVM scalarizes a masked gather that the target
/// does not have (f16, or AVX2 CPUs tuned "prefer-no-gather") into one basic
/// block per lane, which takes minutes to compile for a 64x32 tile.
constexpr int64_t kMaxGatherLanes = 16;

Value stackBuffer(OpBuilder &b, Operation *op, Location loc, Type element, int64_t n) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(topLevelAncestor(op));
  return LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), element,
                                i64Const(b, loc, n), /*alignment=*/64);
}

/// A loop over the lanes 0 .. n-1 (i64) running `body` for each.
void forEachLane(OpBuilder &b, Location loc, int64_t n,
                 llvm::function_ref<void(OpBuilder &, Value lane)> body) {
  scf::ForOp::create(b, loc, i64Const(b, loc, 0), i64Const(b, loc, n), i64Const(b, loc, 1),
                     ValueRange{}, [&](OpBuilder &lb, Location, Value lane, ValueRange) {
                       body(lb, lane);
                       scf::YieldOp::create(lb, loc);
                     });
}

/// The lane loop of a gather (`values` non-null: a scatter of it).
Value gatherScatterLoop(OpBuilder &b, Operation *op, Location loc, Value addresses, Value mask,
                        Value passOrValues, bool isScatter, unsigned align) {
  auto type = cast<VectorType>(passOrValues.getType());
  int64_t n = type.getNumElements();
  Type element = type.getElementType();
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value addrBuf = stackBuffer(b, op, loc, b.getI64Type(), n);
  Value maskBuf = stackBuffer(b, op, loc, b.getI8Type(), n);
  Value valBuf = stackBuffer(b, op, loc, element, n);
  LLVM::StoreOp::create(b, loc, addresses, addrBuf, 8);
  LLVM::StoreOp::create(
      b, loc,
      arith::ExtUIOp::create(b, loc, VectorType::get({n}, b.getI8Type()), mask).getResult(),
      maskBuf, 1);
  LLVM::StoreOp::create(b, loc, passOrValues, valBuf, align);
  forEachLane(b, loc, n, [&](OpBuilder &lb, Value lane) {
    auto at = [&](Value base, Type t) {
      return LLVM::GEPOp::create(lb, loc, ptrType, t, base, ValueRange{lane}).getResult();
    };
    Value m = LLVM::LoadOp::create(lb, loc, lb.getI8Type(), at(maskBuf, lb.getI8Type()), 1);
    Value active = arith::CmpIOp::create(
        lb, loc, arith::CmpIPredicate::ne, m,
        arith::ConstantOp::create(lb, loc, lb.getI8IntegerAttr(0)));
    scf::IfOp::create(lb, loc, active, [&](OpBuilder &tb, Location) {
      Value addr = LLVM::LoadOp::create(tb, loc, tb.getI64Type(), at(addrBuf, tb.getI64Type()), 8);
      Value p = toPointer(tb, loc, addr);
      Value slot = LLVM::GEPOp::create(tb, loc, ptrType, element, valBuf, ValueRange{lane});
      if (isScatter) {
        LLVM::StoreOp::create(tb, loc, LLVM::LoadOp::create(tb, loc, element, slot, align), p,
                              align);
      } else {
        LLVM::StoreOp::create(tb, loc, LLVM::LoadOp::create(tb, loc, element, p, align), slot,
                              align);
      }
      scf::YieldOp::create(tb, loc);
    });
  });
  if (isScatter)
    return Value();
  return LLVM::LoadOp::create(b, loc, type, valBuf, align);
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

/// The vector<1xT> of a scalar, for the masked intrinsics.
Value oneLane(OpBuilder &b, Location loc, Value scalar) {
  return vector::BroadcastOp::create(b, loc, VectorType::get({1}, scalar.getType()), scalar);
}

/// Row `r` (`rowLength` lanes) of a flat row-major vector; the vector itself
/// when it is a single row.
Value extractRow(OpBuilder &b, Location loc, Value flat, int64_t r, int64_t rowLength) {
  SmallVector<int64_t> lanes;
  for (int64_t i = 0; i < rowLength; ++i)
    lanes.push_back(r * rowLength + i);
  return shuffleLanes(b, loc, flat, Value(), lanes);
}

struct LoadLowering : TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = getElementTypeOrSelf(op.getType());
    Type memElement = memoryType(element);
    unsigned align = byteSize(element);
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      Value result;
      if (!adaptor.getMask()) {
        result = LLVM::LoadOp::create(rewriter, loc, memElement, adaptor.getPtr(), align);
      } else {
        auto vt = VectorType::get({1}, memElement);
        Value pass = adaptor.getOther()
                         ? oneLane(rewriter, loc, toMemory(rewriter, loc, adaptor.getOther()))
                         : arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(vt)).getResult();
        Value v = LLVM::MaskedLoadOp::create(rewriter, loc, vt, adaptor.getPtr(),
                                             oneLane(rewriter, loc, adaptor.getMask()), pass, align);
        result = vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{0});
      }
      rewriter.replaceOp(op, fromMemory(rewriter, loc, result, element));
      return success();
    }
    int64_t n = product(tensorType.getShape());
    auto vt = VectorType::get({n}, memElement);
    Value mask = adaptor.getMask() ? adaptor.getMask()
                                   : boolVector(rewriter, loc, SmallVector<bool>(n, true));
    Value pass = adaptor.getOther()
                     ? toMemory(rewriter, loc, adaptor.getOther())
                     : arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(vt)).getResult();
    Value result;
    if (contiguous && contiguous->contains(op)) {
      int64_t rowLength = tensorType.getShape().back(), rows = n / rowLength;
      auto rowType = VectorType::get({rowLength}, memElement);
      SmallVector<Value> loaded;
      for (int64_t r = 0; r < rows; ++r) {
        Value address = extractLane(rewriter, loc, adaptor.getPtr(), i64Const(rewriter, loc, r * rowLength));
        loaded.push_back(LLVM::MaskedLoadOp::create(
            rewriter, loc, rowType, toPointer(rewriter, loc, address),
            extractRow(rewriter, loc, mask, r, rowLength),
            extractRow(rewriter, loc, pass, r, rowLength), align));
      }
      result = concatVectors(rewriter, loc, loaded);
    } else if (n > kMaxGatherLanes) {
      result = gatherScatterLoop(rewriter, op, loc, adaptor.getPtr(), mask, pass,
                                 /*isScatter=*/false, align);
    } else {
      result = LLVM::masked_gather::create(rewriter, loc, vt,
                                           toPointers(rewriter, loc, adaptor.getPtr()), mask,
                                           ValueRange{pass}, rewriter.getI32IntegerAttr(align));
    }
    rewriter.replaceOp(op, fromMemory(rewriter, loc, result, element));
    return success();
  }
};

struct StoreLowering : TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = getElementTypeOrSelf(op.getValue().getType());
    unsigned align = byteSize(element);
    Value value = toMemory(rewriter, loc, adaptor.getValue());
    auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
    if (!tensorType) {
      if (!adaptor.getMask())
        LLVM::StoreOp::create(rewriter, loc, value, adaptor.getPtr(), align);
      else
        LLVM::MaskedStoreOp::create(rewriter, loc, oneLane(rewriter, loc, value), adaptor.getPtr(),
                                    oneLane(rewriter, loc, adaptor.getMask()),
                                    rewriter.getI32IntegerAttr(align));
      rewriter.eraseOp(op);
      return success();
    }
    int64_t n = product(tensorType.getShape());
    Value mask = adaptor.getMask() ? adaptor.getMask()
                                   : boolVector(rewriter, loc, SmallVector<bool>(n, true));
    if (contiguous && contiguous->contains(op)) {
      int64_t rowLength = tensorType.getShape().back(), rows = n / rowLength;
      for (int64_t r = 0; r < rows; ++r) {
        Value address = extractLane(rewriter, loc, adaptor.getPtr(), i64Const(rewriter, loc, r * rowLength));
        LLVM::MaskedStoreOp::create(rewriter, loc, extractRow(rewriter, loc, value, r, rowLength),
                                    toPointer(rewriter, loc, address),
                                    extractRow(rewriter, loc, mask, r, rowLength),
                                    rewriter.getI32IntegerAttr(align));
      }
    } else if (n > kMaxGatherLanes) {
      gatherScatterLoop(rewriter, op, loc, adaptor.getPtr(), mask, value, /*isScatter=*/true,
                        align);
    } else {
      LLVM::masked_scatter::create(rewriter, loc, value,
                                   toPointers(rewriter, loc, adaptor.getPtr()), mask,
                                   rewriter.getI32IntegerAttr(align));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// gather and histogram: through stack buffers
//===----------------------------------------------------------------------===//

/// `indices` (a vector of integers) as i32 wrapped into [0, extent): compiled
/// code never reads outside the slice an index picks from.
Value wrapIndices(OpBuilder &b, Location loc, Value indices, int64_t extent) {
  auto type = cast<VectorType>(indices.getType());
  auto i32Type = VectorType::get(type.getShape(), b.getI32Type());
  unsigned width = type.getElementTypeBitWidth();
  if (width < 32)
    indices = arith::ExtSIOp::create(b, loc, i32Type, indices);
  else if (width > 32)
    indices = arith::TruncIOp::create(b, loc, i32Type, indices);
  if (llvm::isPowerOf2_64(extent))
    return arith::AndIOp::create(b, loc, indices,
                                 splatConstant(b, loc, i32Type, b.getI32IntegerAttr(extent - 1)));
  return arith::RemUIOp::create(b, loc, indices,
                                splatConstant(b, loc, i32Type, b.getI32IntegerAttr(extent)));
}

/// The source goes to a stack buffer, and a loop over the result's lanes
/// reads each element there: its slice's first element plus its index times
/// the axis's stride, the element indices staged in a second buffer (LLVM
/// unrolls the loop into scalar loads; no mask and no addresses to stage, as
/// a load's gatherScatterLoop has).
struct GatherLowering : TilePattern<tile::GatherOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    ArrayRef<int64_t> resultShape = op.getType().getShape();
    unsigned axis = op.getAxis();
    Type element = getElementTypeOrSelf(op.getType());
    Type memElement = memoryType(element);
    unsigned align = byteSize(element);
    int64_t n = product(resultShape);
    SmallVector<int64_t, 4> srcStrides = tessera::cpu::rowMajorStrides(srcShape);
    SmallVector<int64_t> starts = tessera::cpu::mapLanes(resultShape, [&](auto index) {
      int64_t lane = 0;
      for (auto [dim, i] : llvm::enumerate(index))
        lane += (dim == axis ? 0 : i) * srcStrides[dim];
      return lane;
    });
    SmallVector<int32_t> sliceStarts(starts.begin(), starts.end());

    Value buffer = stackBuffer(rewriter, op, loc, memElement, product(srcShape));
    LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, adaptor.getSrc()), buffer, align);
    Type i32 = rewriter.getI32Type();
    auto i32Type = VectorType::get({n}, i32);
    Value wrapped = wrapIndices(rewriter, loc, adaptor.getIndices(), srcShape[axis]);
    Value elements = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(
            rewriter, loc, wrapped,
            splatConstant(rewriter, loc, i32Type, rewriter.getI32IntegerAttr(srcStrides[axis]))),
        arith::ConstantOp::create(rewriter, loc, i32Type,
                                  DenseElementsAttr::get(i32Type, ArrayRef(sliceStarts))));

    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value indexBuffer = stackBuffer(rewriter, op, loc, i32, n);
    Value resultBuffer = stackBuffer(rewriter, op, loc, memElement, n);
    LLVM::StoreOp::create(rewriter, loc, elements, indexBuffer, 4);
    forEachLane(rewriter, loc, n, [&](OpBuilder &b, Value lane) {
      Value index = LLVM::LoadOp::create(
          b, loc, i32, LLVM::GEPOp::create(b, loc, ptrType, i32, indexBuffer, lane), 4);
      Value from = LLVM::GEPOp::create(
          b, loc, ptrType, memElement, buffer,
          ValueRange{arith::ExtUIOp::create(b, loc, b.getI64Type(), index)});
      Value to = LLVM::GEPOp::create(b, loc, ptrType, memElement, resultBuffer, lane);
      LLVM::StoreOp::create(b, loc, LLVM::LoadOp::create(b, loc, memElement, from, align), to,
                            align);
    });
    Value result =
        LLVM::LoadOp::create(rewriter, loc, VectorType::get({n}, memElement), resultBuffer, align);
    rewriter.replaceOp(op, fromMemory(rewriter, loc, result, element));
    return success();
  }
};

/// Counts in a stack buffer with one slot more than the bins, where lanes
/// that are not counted go, so that the loop over the lanes has no branch.
/// Slots are i32 (a bin count fits), half the bytes of 64-bit ones to stage.
struct HistogramLowering : TilePattern<tile::HistogramOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::HistogramOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t n = op.getSrc().getType().getNumElements();
    int64_t bins = op.getType().getNumElements();
    Type i32 = rewriter.getI32Type();
    auto i32Type = VectorType::get({n}, i32);
    // Values narrower than i32 are widened with their sign: compared
    // unsigned, negative values are then above the bins too.
    Value values = adaptor.getSrc();
    auto valueType = cast<VectorType>(values.getType());
    if (valueType.getElementTypeBitWidth() < 32) {
      values = arith::ExtSIOp::create(rewriter, loc, i32Type, values);
      valueType = i32Type;
    }
    Value counted = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, values,
        splatConstant(rewriter, loc, valueType,
                      rewriter.getIntegerAttr(valueType.getElementType(), bins)));
    if (adaptor.getMask())
      counted = arith::AndIOp::create(rewriter, loc, counted, adaptor.getMask());
    if (valueType != i32Type)
      values = arith::TruncIOp::create(rewriter, loc, i32Type, values);
    Value slots = arith::SelectOp::create(
        rewriter, loc, counted, values,
        splatConstant(rewriter, loc, i32Type, rewriter.getI32IntegerAttr(bins)));

    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value slotBuffer = stackBuffer(rewriter, op, loc, i32, n);
    Value countBuffer = stackBuffer(rewriter, op, loc, i32, bins + 1);
    LLVM::StoreOp::create(rewriter, loc, slots, slotBuffer, 4);
    auto countsType = VectorType::get({bins + 1}, i32);
    LLVM::StoreOp::create(rewriter, loc,
                          arith::ConstantOp::create(rewriter, loc,
                                                    rewriter.getZeroAttr(countsType)),
                          countBuffer, 4);
    forEachLane(rewriter, loc, n, [&](OpBuilder &b, Value lane) {
      Value slotAddress = LLVM::GEPOp::create(b, loc, ptrType, i32, slotBuffer, lane);
      Value slot = arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                          LLVM::LoadOp::create(b, loc, i32, slotAddress, 4));
      Value count = LLVM::GEPOp::create(b, loc, ptrType, i32, countBuffer, slot);
      Value incremented = arith::AddIOp::create(
          b, loc, LLVM::LoadOp::create(b, loc, i32, count, 4), i32Const(b, loc, 1));
      LLVM::StoreOp::create(b, loc, incremented, count, 4);
    });
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, VectorType::get({bins}, i32), countBuffer, 4);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensor descriptors: {base, shape[r], strides[r]}; blocks move row by row
//===----------------------------------------------------------------------===//

struct MakeTensorDescLowering : TilePattern<tile::MakeTensorDescOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::MakeTensorDescOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = getTypeConverter()->convertType(op.getType());
    Value desc = LLVM::PoisonOp::create(rewriter, loc, type);
    desc = LLVM::InsertValueOp::create(rewriter, loc, desc, adaptor.getBase(), ArrayRef<int64_t>{0});
    int64_t field = 1;
    for (Value dim : adaptor.getShape())
      desc = LLVM::InsertValueOp::create(
          rewriter, loc, desc, arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), dim),
          ArrayRef<int64_t>{field++});
    for (Value stride : adaptor.getStrides())
      desc = LLVM::InsertValueOp::create(rewriter, loc, desc, stride, ArrayRef<int64_t>{field++});
    rewriter.replaceOp(op, desc);
    return success();
  }
};

/// Where the rows of a descriptor block are, and which of their lanes are in
/// bounds; `body(rowIndex, address, mask)` emits the access of one row,
/// whose first lane is at `address`.
template <typename Op>
void forEachDescriptorRow(OpBuilder &b, Op op, Value desc, ValueRange offsets,
                          function_ref<void(int64_t, Value, Value)> body) {
  Location loc = op.getLoc();
  auto descType = cast<tile::TensorDescType>(op.getDesc().getType());
  ArrayRef<int64_t> block = descType.getBlockType().getShape();
  int64_t rank = block.size(), rowLength = block.back(), rows = product(block) / rowLength;
  Type element = descType.getBlockType().getElementType();
  SmallVector<Value> shape, strides, offs;
  Value base = LLVM::ExtractValueOp::create(b, loc, desc, ArrayRef<int64_t>{0});
  for (int64_t d = 0; d < rank; ++d) {
    shape.push_back(LLVM::ExtractValueOp::create(b, loc, desc, ArrayRef<int64_t>{1 + d}));
    strides.push_back(LLVM::ExtractValueOp::create(b, loc, desc, ArrayRef<int64_t>{1 + rank + d}));
    offs.push_back(arith::ExtSIOp::create(b, loc, b.getI64Type(), offsets[d]));
  }
  auto laneType = VectorType::get({rowLength}, b.getI64Type());
  SmallVector<int64_t> iota;
  for (int64_t i = 0; i < rowLength; ++i)
    iota.push_back(i);
  Value cols = arith::AddIOp::create(
      b, loc, vector::BroadcastOp::create(b, loc, laneType, offs.back()),
      arith::ConstantOp::create(b, loc, laneType, DenseElementsAttr::get(laneType, ArrayRef<int64_t>(iota))));
  Value zeros = arith::ConstantOp::create(b, loc, b.getZeroAttr(laneType));
  Value colMask = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, cols, zeros),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cols,
                            vector::BroadcastOp::create(b, loc, laneType, shape.back())));
  Value zero = i64Const(b, loc, 0);
  SmallVector<int64_t> leading(block.drop_back());
  for (int64_t r = 0; r < rows; ++r) {
    // Element offset of the row's first lane, and whether the row is in bounds.
    Value offset = arith::MulIOp::create(b, loc, offs.back(), strides.back());
    Value inBounds = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    int64_t rest = r;
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t index = rest % block[d];
      rest /= block[d];
      Value coord = arith::AddIOp::create(b, loc, offs[d], i64Const(b, loc, index));
      offset = arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, coord, strides[d]));
      inBounds = arith::AndIOp::create(
          b, loc, inBounds,
          arith::AndIOp::create(b, loc,
                                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, coord, zero),
                                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, coord, shape[d])));
    }
    Value mask = arith::AndIOp::create(
        b, loc, colMask,
        vector::BroadcastOp::create(b, loc, VectorType::get({rowLength}, b.getI1Type()), inBounds));
    Value address = LLVM::GEPOp::create(b, loc, base.getType(), memoryType(element), base,
                                        ValueRange{offset});
    body(r, address, mask);
  }
}

/// The addresses (i64) of the `rowLength` lanes of a row whose first lane is
/// at `address` and whose lanes are `stride` elements of `element` apart.
Value stridedLaneAddresses(OpBuilder &b, Location loc, Value address, Value stride,
                           int64_t rowLength, Type element) {
  auto laneType = VectorType::get({rowLength}, b.getI64Type());
  SmallVector<int64_t> laneBytes;
  for (int64_t i = 0; i < rowLength; ++i)
    laneBytes.push_back(i * byteSize(element));
  Value first = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  Value bytes = arith::ConstantOp::create(
      b, loc, laneType, DenseElementsAttr::get(laneType, ArrayRef<int64_t>(laneBytes)));
  Value steps = arith::MulIOp::create(b, loc, bytes,
                                      vector::BroadcastOp::create(b, loc, laneType, stride));
  Value firsts = vector::BroadcastOp::create(b, loc, laneType, first);
  return arith::AddIOp::create(b, loc, firsts, steps);
}

/// The innermost stride of the descriptor struct `desc`.
Value innermostStride(OpBuilder &b, Location loc, Value desc, int64_t rank) {
  return LLVM::ExtractValueOp::create(b, loc, desc, ArrayRef<int64_t>{2 * rank});
}

/// The address (i64) and in-bounds mask of every element of the block `op`
/// accesses through the descriptor struct `desc`, whose innermost stride is
/// not 1: the block's lanes for gatherScatterLoop.
template <typename Op>
std::pair<Value, Value> stridedBlockLanes(OpBuilder &b, Op op, Value desc, ValueRange offsets) {
  Location loc = op.getLoc();
  RankedTensorType block = cast<tile::TensorDescType>(op.getDesc().getType()).getBlockType();
  Value stride = innermostStride(b, loc, desc, block.getRank());
  SmallVector<Value> addresses, masks;
  forEachDescriptorRow<Op>(b, op, desc, offsets, [&](int64_t, Value address, Value mask) {
    addresses.push_back(stridedLaneAddresses(b, loc, address, stride, block.getShape().back(),
                                             block.getElementType()));
    masks.push_back(mask);
  });
  return {concatVectors(b, loc, addresses), concatVectors(b, loc, masks)};
}

/// Emits a descriptor access by `access(unitStride)`: once with row vectors
/// when the descriptor's innermost stride is the constant 1; otherwise
/// under an scf.if on that stride, row vectors when it is 1 at run time and
/// a loop over the block's lanes when it is not (gathers of every row would
/// grow the kernel with the block). `access` also gets the op its stack
/// buffers may go before. Returns the access's value (of `resultType`; none
/// when it is null).
template <typename Op>
Value byInnermostStride(OpBuilder &b, Op op, Value desc, Type resultType,
                        function_ref<Value(bool, Operation *)> access) {
  if (auto make = op.getDesc().template getDefiningOp<tile::MakeTensorDescOp>())
    if (matchPattern(make.getStrides().back(), m_One()))
      return access(true, op);
  Location loc = op.getLoc();
  int64_t rank = cast<tile::TensorDescType>(op.getDesc().getType()).getBlockType().getRank();
  Value unit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     innermostStride(b, loc, desc, rank), i64Const(b, loc, 1));
  TypeRange results = resultType ? TypeRange(resultType) : TypeRange();
  auto branch = scf::IfOp::create(b, loc, results, unit, /*withElseRegion=*/true);
  for (bool unitStride : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = unitStride ? branch.getThenRegion().front() : branch.getElseRegion().front();
    // Without results the builder has ended both blocks with their yield.
    if (resultType)
      b.setInsertionPointToEnd(&block);
    else
      b.setInsertionPoint(block.getTerminator());
    Value value = access(unitStride, branch);
    if (resultType)
      scf::YieldOp::create(b, loc, value);
  }
  return resultType ? branch.getResult(0) : Value();
}

struct DescriptorLoadLowering : TilePattern<tile::DescriptorLoadOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::DescriptorLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto blockType = op.getType();
    Type element = blockType.getElementType();
    int64_t rowLength = blockType.getShape().back(), n = product(blockType.getShape());
    auto rowType = VectorType::get({rowLength}, memoryType(element));
    auto vt = VectorType::get({n}, memoryType(element));
    // The padding: zero, or NaN for floats when the descriptor says so.
    Attribute padValue = rewriter.getZeroAttr(memoryType(element));
    if (auto make = op.getDesc().getDefiningOp<tile::MakeTensorDescOp>())
      if (make.getPadding() == tile::PaddingOption::NaN)
        if (auto ft = dyn_cast<FloatType>(element))
          padValue = laneAttr(rewriter.getFloatAttr(ft, APFloat::getQNaN(ft.getFloatSemantics())));
    auto rows = [&](bool unitStride, Operation *anchor) {
      if (!unitStride) {
        auto [addresses, mask] = stridedBlockLanes<tile::DescriptorLoadOp>(
            rewriter, op, adaptor.getDesc(), adaptor.getOffsets());
        return gatherScatterLoop(rewriter, anchor, loc, addresses, mask,
                                 splatConstant(rewriter, loc, vt, padValue), /*isScatter=*/false,
                                 byteSize(element));
      }
      Value pass = splatConstant(rewriter, loc, rowType, padValue);
      SmallVector<Value> loaded;
      forEachDescriptorRow<tile::DescriptorLoadOp>(
          rewriter, op, adaptor.getDesc(), adaptor.getOffsets(),
          [&](int64_t, Value address, Value mask) {
            loaded.push_back(LLVM::MaskedLoadOp::create(rewriter, loc, rowType, address, mask,
                                                        pass, byteSize(element)));
          });
      return concatVectors(rewriter, loc, loaded);
    };
    Value result =
        byInnermostStride<tile::DescriptorLoadOp>(rewriter, op, adaptor.getDesc(), vt, rows);
    rewriter.replaceOp(op, fromMemory(rewriter, loc, result, element));
    return success();
  }
};

struct DescriptorStoreLowering : TilePattern<tile::DescriptorStoreOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::DescriptorStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto blockType = cast<RankedTensorType>(op.getValue().getType());
    Type element = blockType.getElementType();
    int64_t rowLength = blockType.getShape().back();
    Value value = toMemory(rewriter, loc, adaptor.getValue());
    IntegerAttr align = rewriter.getI32IntegerAttr(byteSize(element));
    auto rows = [&](bool unitStride, Operation *anchor) {
      if (!unitStride) {
        auto [addresses, mask] = stridedBlockLanes<tile::DescriptorStoreOp>(
            rewriter, op, adaptor.getDesc(), adaptor.getOffsets());
        gatherScatterLoop(rewriter, anchor, loc, addresses, mask, value, /*isScatter=*/true,
                          align.getInt());
        return Value();
      }
      forEachDescriptorRow<tile::DescriptorStoreOp>(
          rewriter, op, adaptor.getDesc(), adaptor.getOffsets(),
          [&](int64_t r, Value address, Value mask) {
            LLVM::MaskedStoreOp::create(rewriter, loc,
                                        extractRow(rewriter, loc, value, r, rowLength), address,
                                        mask, align);
          });
      return Value();
    };
    byInnermostStride<tile::DescriptorStoreOp>(rewriter, op, adaptor.getDesc(), Type(), rows);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// dot, reduce, scan
//===----------------------------------------------------------------------===//

struct DotLowering : TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    int64_t rank = aType.getRank();
    tessera::cpu::DotShape shape;
    shape.batch = rank == 3 ? aType.getShape()[0] : 1;
    shape.m = aType.getShape()[rank - 2];
    shape.k = aType.getShape()[rank - 1];
    shape.n = bType.getShape()[rank - 1];
    // Stack buffers go right before the op's outermost ancestor: in the
    // kernel's entry block, outside every loop.
    Operation *top = topLevelAncestor(op);
    Value result = tessera::cpu::emitDotMicroKernel(rewriter, op.getLoc(), adaptor.getA(),
                                                    adaptor.getB(), adaptor.getAcc(), shape,
                                                    top, vectorBits);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ReduceLowering : TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto shape = cast<RankedTensorType>(op.getSrcs()[0].getType()).getShape();
    int64_t axis = op.getAxis();
    int64_t outer = product(shape.take_front(axis)), inner = product(shape.drop_front(axis + 1));
    SmallVector<Value> current(adaptor.getSrcs());
    int64_t n = shape[axis];
    while (n > 1) {
      int64_t half = n / 2;
      SmallVector<Value> lhs, rhs;
      auto lowLanes = tessera::cpu::sliceLanes(outer, n, inner, 0, half);
      auto highLanes = tessera::cpu::sliceLanes(outer, n, inner, half, 2 * half);
      for (Value v : current) {
        lhs.push_back(shuffleLanes(rewriter, loc, v, {}, lowLanes));
        rhs.push_back(shuffleLanes(rewriter, loc, v, {}, highLanes));
      }
      auto combined = combineOnVectors(rewriter, loc, op.getCombineOp(), lhs, rhs);
      if (failed(combined))
        return failure();
      if (n % 2 == 0) {
        current = *combined;
        n = half;
        continue;
      }
      // Odd: the last slice joins the combined halves as one more slice.
      int64_t combinedSize = outer * half * inner;
      auto lanes = tessera::cpu::mapLanes({outer, half + 1, inner}, [&](ArrayRef<int64_t> i) {
        if (i[1] < half)
          return (i[0] * half + i[1]) * inner + i[2];
        return combinedSize + (i[0] * n + n - 1) * inner + i[2];
      });
      for (auto [k, v] : llvm::enumerate(current))
        v = shuffleLanes(rewriter, loc, (*combined)[k], v, lanes);
      n = half + 1;
    }
    SmallVector<Value> results;
    for (auto [v, result] : llvm::zip(current, op.getResults())) {
      if (isa<RankedTensorType>(result.getType()))
        results.push_back(v);
      else
        results.push_back(vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{0}));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ScanLowering : TilePattern<tile::ScanOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto shape = cast<RankedTensorType>(op.getSrcs()[0].getType()).getShape();
    int64_t axis = op.getAxis(), n = shape[axis];
    int64_t outer = product(shape.take_front(axis)), inner = product(shape.drop_front(axis + 1));
    bool reverse = op.getReverse();
    SmallVector<Value> current(adaptor.getSrcs());
    // Hillis-Steele: after the step of distance d, element i holds the
    // combination of the 2d elements ending (or, reversed, starting) at i.
    for (int64_t d = 1; d < n; d *= 2) {
      SmallVector<bool> active;
      auto lanes = tessera::cpu::mapLanes({outer, n, inner}, [&](ArrayRef<int64_t> i) {
        bool has = reverse ? i[1] + d < n : i[1] >= d;
        active.push_back(has);
        int64_t from = has ? (reverse ? i[1] + d : i[1] - d) : i[1];
        return (i[0] * n + from) * inner + i[2];
      });
      Value mask = boolVector(rewriter, loc, active);
      SmallVector<Value> running;
      for (Value v : current)
        running.push_back(shuffleLanes(rewriter, loc, v, {}, lanes));
      auto combined = combineOnVectors(rewriter, loc, op.getCombineOp(), running, current);
      if (failed(combined))
        return failure();
      for (auto [k, v] : llvm::enumerate(current))
        v = arith::SelectOp::create(rewriter, loc, mask, (*combined)[k], v);
    }
    rewriter.replaceOp(op, current);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Atomics: one llvm.atomicrmw / cmpxchg per active lane
//===----------------------------------------------------------------------===//

LLVM::AtomicOrdering ordering(tile::MemSemantic sem) {
  switch (sem) {
  case tile::MemSemantic::Relaxed: return LLVM::AtomicOrdering::monotonic;
  case tile::MemSemantic::Acquire: return LLVM::AtomicOrdering::acquire;
  case tile::MemSemantic::Release: return LLVM::AtomicOrdering::release;
  case tile::MemSemantic::AcqRel: return LLVM::AtomicOrdering::acq_rel;
  }
  return LLVM::AtomicOrdering::seq_cst;
}

/// A compare-and-swap that fails orders no store, so it may not release.
LLVM::AtomicOrdering failureOrdering(LLVM::AtomicOrdering success) {
  switch (success) {
  case LLVM::AtomicOrdering::release: return LLVM::AtomicOrdering::monotonic;
  case LLVM::AtomicOrdering::acq_rel: return LLVM::AtomicOrdering::acquire;
  default: return success;
  }
}

LLVM::AtomicBinOp binOp(tile::RMWOp op, bool isFloat) {
  switch (op) {
  case tile::RMWOp::Add: return LLVM::AtomicBinOp::add;
  case tile::RMWOp::FAdd: return LLVM::AtomicBinOp::fadd;
  case tile::RMWOp::Max: return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case tile::RMWOp::UMax: return LLVM::AtomicBinOp::umax;
  case tile::RMWOp::Min: return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case tile::RMWOp::UMin: return LLVM::AtomicBinOp::umin;
  case tile::RMWOp::And: return LLVM::AtomicBinOp::_and;
  case tile::RMWOp::Or: return LLVM::AtomicBinOp::_or;
  case tile::RMWOp::Xor: return LLVM::AtomicBinOp::_xor;
  case tile::RMWOp::Xchg: return LLVM::AtomicBinOp::xchg;
  }
  return LLVM::AtomicBinOp::xchg;
}

/// Runs `perLane(builder, pointer, laneIndex) -> old value` for every active
/// lane of a tile (a loop over the lanes) or once for a scalar, and gathers
/// the old values.
Value forEachActiveLane(ConversionPatternRewriter &b, Location loc, Value ptr, Value mask,
                        Type resultType,
                        function_ref<Value(OpBuilder &, Value, Value)> perLane) {
  Type element = getElementTypeOrSelf(resultType);
  if (!isa<VectorType>(resultType)) {
    if (!mask)
      return perLane(b, ptr, Value());
    auto ifOp = scf::IfOp::create(
        b, loc, mask,
        [&](OpBuilder &tb, Location) { scf::YieldOp::create(tb, loc, perLane(tb, ptr, Value())); },
        [&](OpBuilder &eb, Location) {
          scf::YieldOp::create(eb, loc, arith::ConstantOp::create(eb, loc, eb.getZeroAttr(element)).getResult());
        });
    return ifOp.getResult(0);
  }
  int64_t n = cast<VectorType>(resultType).getNumElements();
  Value init = arith::ConstantOp::create(b, loc, b.getZeroAttr(resultType));
  auto loop = scf::ForOp::create(
      b, loc, i64Const(b, loc, 0), i64Const(b, loc, n), i64Const(b, loc, 1), ValueRange{init},
      [&](OpBuilder &lb, Location, Value lane, ValueRange carried) {
        Value active = mask ? extractLane(lb, loc, mask, lane)
                            : arith::ConstantOp::create(lb, loc, lb.getBoolAttr(true)).getResult();
        auto ifOp = scf::IfOp::create(
            lb, loc, active,
            [&](OpBuilder &tb, Location) {
              Value p = toPointer(tb, loc, extractLane(tb, loc, ptr, lane));
              Value old = perLane(tb, p, lane);
              scf::YieldOp::create(
                  tb, loc, LLVM::InsertElementOp::create(tb, loc, carried[0], old, lane).getResult());
            },
            [&](OpBuilder &eb, Location) { scf::YieldOp::create(eb, loc, carried[0]); });
        scf::YieldOp::create(lb, loc, ifOp.getResult(0));
      });
  return loop.getResult(0);
}

Value bf16BitsToF32(OpBuilder &b, Location loc, Value bits) {
  Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
  Value high = arith::ShLIOp::create(b, loc, wide, i32Const(b, loc, 16));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), high);
}

/// Rounds to nearest even; a NaN stays a NaN of its sign, made quiet: what
/// upstream's bf16 expansion (tile-cpu-expand-bf16) does to an arith.truncf,
/// written out here because this conversion cannot create bf16-typed ops.
Value f32ToBf16Bits(OpBuilder &b, Location loc, Value number) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), number);
  Value high = arith::ShRUIOp::create(b, loc, bits, i32Const(b, loc, 16));
  Value odd = arith::AndIOp::create(b, loc, high, i32Const(b, loc, 1));
  Value bias = arith::AddIOp::create(b, loc, odd, i32Const(b, loc, 0x7FFF));
  Value rounded = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, bias), i32Const(b, loc, 16));
  Value quietNaN = arith::OrIOp::create(b, loc, high, i32Const(b, loc, 0x40));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, number, number);
  Value chosen = arith::SelectOp::create(b, loc, isNaN, quietNaN, rounded);
  return arith::TruncIOp::create(b, loc, b.getI16Type(), chosen);
}

/// A bf16 float atomic on a lane's 16 bits: a compare-and-swap loop that
/// combines in f32 and rounds back. LLVM's own `atomicrmw fadd bfloat` rounds
/// with a call of libgcc's __truncsfbf2, which Debian 12's libgcc lacks.
Value bf16AtomicThroughF32(OpBuilder &b, Location loc, LLVM::AtomicBinOp bin, Value ptr,
                           Value bits, LLVM::AtomicOrdering order) {
  Type i16 = b.getI16Type();
  Value operand = bf16BitsToF32(b, loc, bits);
  Value initial = LLVM::LoadOp::create(b, loc, i16, ptr, /*alignment=*/2, /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, /*isInvariant=*/false,
                                       /*isInvariantGroup=*/false,
                                       LLVM::AtomicOrdering::monotonic);
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{i16}, ValueRange{initial},
      [&](OpBuilder &cb, Location, ValueRange expected) {
        Value current = bf16BitsToF32(cb, loc, expected[0]);
        Value combined;
        switch (bin) {
        case LLVM::AtomicBinOp::fadd:
          combined = arith::AddFOp::create(cb, loc, current, operand);
          break;
        case LLVM::AtomicBinOp::fmax:
          combined = arith::MaxNumFOp::create(cb, loc, current, operand);
          break;
        default:
          combined = arith::MinNumFOp::create(cb, loc, current, operand);
          break;
        }
        Value desired = f32ToBf16Bits(cb, loc, combined);
        Value pair = LLVM::AtomicCmpXchgOp::create(cb, loc, ptr, expected[0], desired, order,
                                                   failureOrdering(order));
        Value seen = LLVM::ExtractValueOp::create(cb, loc, pair, ArrayRef<int64_t>{0});
        Value swapped = LLVM::ExtractValueOp::create(cb, loc, pair, ArrayRef<int64_t>{1});
        Value retry = arith::XOrIOp::create(
            cb, loc, swapped, arith::ConstantOp::create(cb, loc, cb.getBoolAttr(true)));
        scf::ConditionOp::create(cb, loc, retry, ValueRange{seen});
      },
      [&](OpBuilder &ab, Location, ValueRange seen) { scf::YieldOp::create(ab, loc, seen); });
  return loop.getResult(0);
}

struct AtomicRMWLowering : TilePattern<tile::AtomicRMWOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type element = getElementTypeOrSelf(op.getType());
    bool isFloat = isa<FloatType>(element);
    Value val = adaptor.getVal();
    auto bin = binOp(op.getRmwOp(), isFloat);
    bool bf16Arithmetic = element.isBF16() && bin != LLVM::AtomicBinOp::xchg;
    auto order = ordering(op.getSem());
    Value result = forEachActiveLane(
        rewriter, loc, adaptor.getPtr(), adaptor.getMask(), resultType,
        [&](OpBuilder &b, Value p, Value lane) -> Value {
          Value v = lane ? extractLane(b, loc, val, lane) : val;
          if (bf16Arithmetic)
            return bf16AtomicThroughF32(b, loc, bin, p, v, order);
          return LLVM::AtomicRMWOp::create(b, loc, bin, p, v, order);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AtomicCASLowering : TilePattern<tile::AtomicCASOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AtomicCASOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type element = getElementTypeOrSelf(resultType);
    auto success_ = ordering(op.getSem());
    auto failure_ = failureOrdering(success_);
    Type intType = rewriter.getIntegerType(element.getIntOrFloatBitWidth());
    Value cmp = adaptor.getCmp(), val = adaptor.getVal();
    Value result = forEachActiveLane(
        rewriter, loc, adaptor.getPtr(), Value(), resultType,
        [&](OpBuilder &b, Value p, Value lane) -> Value {
          Value c = lane ? extractLane(b, loc, cmp, lane) : cmp;
          Value v = lane ? extractLane(b, loc, val, lane) : val;
          if (isa<FloatType>(element)) {
            c = arith::BitcastOp::create(b, loc, intType, c);
            v = arith::BitcastOp::create(b, loc, intType, v);
          }
          Value pair = LLVM::AtomicCmpXchgOp::create(b, loc, p, c, v, success_, failure_);
          Value old = LLVM::ExtractValueOp::create(b, loc, pair, ArrayRef<int64_t>{0});
          if (isa<FloatType>(element))
            old = arith::BitcastOp::create(b, loc, element, old);
          return old;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Math beyond the math dialect
//===----------------------------------------------------------------------===//

struct ClampLowering : TilePattern<tile::ClampOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ClampOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lo, result;
    if (op.getPropagateNan() == tile::PropagateNan::All) {
      lo = arith::MaximumFOp::create(rewriter, loc, adaptor.getX(), adaptor.getMin());
      result = arith::MinimumFOp::create(rewriter, loc, lo, adaptor.getMax());
    } else {
      lo = arith::MaxNumFOp::create(rewriter, loc, adaptor.getX(), adaptor.getMin());
      result = arith::MinNumFOp::create(rewriter, loc, lo, adaptor.getMax());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PreciseSqrtLowering : TilePattern<tile::PreciseSqrtOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::PreciseSqrtOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::SqrtOp>(op, adaptor.getX());
    return success();
  }
};

struct PreciseDivFLowering : TilePattern<tile::PreciseDivFOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::PreciseDivFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, adaptor.getX(), adaptor.getY());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Debugging: printf per element, assert through a runtime hook
//===----------------------------------------------------------------------===//

Value globalString(OpBuilder &b, Location loc, ModuleOp module, StringRef prefix, StringRef text) {
  unsigned id = 0;
  std::string name;
  do
    name = (prefix + "_" + Twine(id++)).str();
  while (module.lookupSymbol(name));
  std::string withNul = text.str();
  withNul.push_back('\0');
  return LLVM::createGlobalString(loc, b, name, withNul, LLVM::Linkage::Internal);
}

struct PrintLowering : TilePattern<tile::PrintOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptrType = LLVM::LLVMPointerType::get(getContext());
    auto printf = LLVM::lookupOrCreateFn(rewriter, module, "printf", {ptrType},
                                         rewriter.getI32Type(), /*isVarArg=*/true);
    if (failed(printf))
      return op.emitError("'printf' is declared with another type");
    SmallVector<Value> grid = gridArguments(op);
    std::string header = "pid (%d, %d, %d)";
    if (op.getArgs().empty()) {
      Value fmt = globalString(rewriter, loc, module, "__tessera_fmt", header + " " + op.getPrefix().str() + "\n");
      LLVM::CallOp::create(rewriter, loc, *printf, ValueRange{fmt, grid[0], grid[1], grid[2]});
      rewriter.eraseOp(op);
      return success();
    }
    bool several = op.getArgs().size() > 1;
    for (auto [operand, value] : llvm::enumerate(adaptor.getArgs())) {
      Type type = op.getArgs()[operand].getType();
      Type element = getElementTypeOrSelf(type);
      auto tensor = dyn_cast<RankedTensorType>(type);
      bool isUnsigned = element.isInteger(1) ||
                        (op.getUnsignedArgs() && (*op.getUnsignedArgs())[operand]);
      std::string fmt = header;
      if (tensor) {
        fmt += " idx (";
        for (auto [d, size] : llvm::enumerate(tensor.getShape()))
          fmt += (d ? ", %" : "%") + std::to_string(std::to_string(std::max<int64_t>(size - 1, 0)).size()) + "lld";
        fmt += ")";
      }
      fmt += " " + op.getPrefix().str();
      if (several)
        fmt += "(operand " + std::to_string(operand) + ") ";
      bool isPtr = isa<tile::PointerType>(element);
      if (isPtr)
        fmt += "0x%016llx";
      else if (op.getHex())
        fmt += "0x%0" + std::to_string(2 * byteSize(element)) + "llx";
      else if (isa<FloatType>(element))
        fmt += "%f";
      else
        fmt += isUnsigned ? "%llu" : "%lld";
      fmt += "\n";
      Value format = globalString(rewriter, loc, module, "__tessera_fmt", fmt);
      auto emit = [&](OpBuilder &b, Value scalar, Value lane) {
        SmallVector<Value> args{format, grid[0], grid[1], grid[2]};
        if (tensor) {
          auto strides = tessera::cpu::rowMajorStrides(tensor.getShape());
          for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
            Value idx = arith::DivUIOp::create(b, loc, lane, i64Const(b, loc, strides[d]));
            args.push_back(arith::RemUIOp::create(b, loc, idx, i64Const(b, loc, size)));
          }
        }
        Value v = scalar;
        Type t = v.getType();
        if (isPtr || isa<LLVM::LLVMPointerType>(t)) {
          if (isa<LLVM::LLVMPointerType>(t))
            v = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
        } else if (op.getHex()) {
          Type bits = b.getIntegerType(element.getIntOrFloatBitWidth());
          if (isa<FloatType>(t))
            v = arith::BitcastOp::create(b, loc, bits, v);
          if (bits.getIntOrFloatBitWidth() < 64)
            v = arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
        } else if (isa<FloatType>(t)) {
          if (!t.isF64())
            v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
        } else if (t.getIntOrFloatBitWidth() < 64) {
          v = isUnsigned ? arith::ExtUIOp::create(b, loc, b.getI64Type(), v).getResult()
                         : arith::ExtSIOp::create(b, loc, b.getI64Type(), v).getResult();
        }
        args.push_back(v);
        LLVM::CallOp::create(b, loc, *printf, args);
      };
      if (!tensor) {
        emit(rewriter, value, Value());
        continue;
      }
      forEachLane(rewriter, loc, product(tensor.getShape()), [&](OpBuilder &b, Value lane) {
        emit(b, extractLane(b, loc, value, lane), lane);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

// LLVM's own analyses may use the promise too.
struct AssumeLowering : TilePattern<tile::AssumeOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AssumeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::AssumeOp>(op, adaptor.getCondition());
    return success();
  }
};

// A CPU program is one thread: nothing to wait for.
struct DebugBarrierLowering : TilePattern<tile::DebugBarrierOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertLowering : TilePattern<tile::AssertOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptrType = LLVM::LLVMPointerType::get(getContext());
    auto hook = LLVM::lookupOrCreateFn(rewriter, module, "__tessera_assert_fail",
                                       {ptrType, ptrType, rewriter.getI32Type()},
                                       LLVM::LLVMVoidType::get(getContext()));
    if (failed(hook))
      return op.emitError("'__tessera_assert_fail' is declared with another type");
    Value cond = adaptor.getCondition();
    if (isa<VectorType>(cond.getType()))
      cond = LLVM::vector_reduce_and::create(rewriter, loc, rewriter.getI1Type(), cond);
    std::string file = "<unknown>";
    int64_t line = 0;
    loc->walk([&](Location l) {
      if (auto fl = dyn_cast<FileLineColLoc>(l)) {
        file = fl.getFilename().str();
        line = fl.getLine();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    Value failed_ = arith::XOrIOp::create(rewriter, loc, cond,
                                          arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
    std::string message = op.getMessage().str();
    // The strings are made outside the scf.if: the builder of its region is
    // not attached to the module yet.
    Value msg = globalString(rewriter, loc, module, "__tessera_assert_msg", message);
    Value fileStr = globalString(rewriter, loc, module, "__tessera_assert_file", file);
    scf::IfOp::create(rewriter, loc, failed_, [&](OpBuilder &b, Location) {
      LLVM::CallOp::create(b, loc, *hook, ValueRange{msg, fileStr, i32Const(b, loc, line)});
      scf::YieldOp::create(b, loc);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Reports the ops the CPU backend cannot lower, before converting anything.
LogicalResult checkSupported(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (auto call = dyn_cast<tile::ExternElementwiseOp>(op)) {
      // tile-libdevice-to-math has turned the libdevice calls it knows into ops.
      call.emitError() << "'" << op->getName() << "' calls '" << call.getSymbol()
                       << "' of library '" << call.getLibname()
                       << "', which the CPU backend does not link; it computes the libdevice "
                          "functions that a math op computes";
      ok = false;
      return;
    }
    if (isa<tile::InlineAsmElementwiseOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' runs GPU assembly, which the CPU backend cannot run";
      ok = false;
      return;
    }
    if (isa<tile::CallOp>(op)) {
      op->emitError() << "'" << op->getName() << "' is not supported by the CPU backend";
      ok = false;
      return;
    }
  });
  return success(ok);
}

/// Kernel arguments of type !tile.ptr become !llvm.ptr in place (a cast back
/// to !tile.ptr feeds the old uses until they are converted): the entry block
/// stays the same block, and the grid arguments stay reachable.
void convertKernelSignature(func::FuncOp func, const TypeConverter &converter) {
  Block &entry = func.getBody().front();
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&entry);
  SmallVector<Type> inputs;
  for (BlockArgument arg : entry.getArguments()) {
    Type old = arg.getType(), converted = converter.convertType(old);
    inputs.push_back(converted);
    if (converted == old)
      continue;
    arg.setType(converted);
    auto cast = UnrealizedConversionCastOp::create(b, arg.getLoc(), old, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
  }
  func.setFunctionType(FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  // Tile argument attributes have no meaning past this point.
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    func.removeArgAttr(i, StringAttr::get(func.getContext(), "tile.divisibility"));
    func.removeArgAttr(i, StringAttr::get(func.getContext(), "tile.equal_to_1"));
  }
}

struct LowerTiles : tessera::cpu::impl::TileCpuLowerTilesBase<LowerTiles> {
  using TileCpuLowerTilesBase::TileCpuLowerTilesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkSupported(module)))
      return signalPassFailure();

    // The contiguity facts are read off the tile IR before it changes.
    llvm::DenseSet<Operation *> contiguous;
    tessera::tile::ContiguityAnalysis analysis;
    module.walk([&](Operation *op) {
      if (auto load = dyn_cast<tile::LoadOp>(op)) {
        if (analysis.isContiguous(load.getPtr()))
          contiguous.insert(op);
      } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
        if (analysis.isContiguous(store.getPtr()))
          contiguous.insert(op);
      }
    });

    FlatVectorTypeConverter converter(ctx);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        convertKernelSignature(func, converter);

    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, vector::VectorDialect, ub::UBDialect>();
    target.addIllegalDialect<tile::TileDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) && converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    RewritePatternSet patterns(ctx);
    patterns.add<ElementwiseOnVectors>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    patterns.add<MakeRangeLowering, SplatLowering, NoOpLowering<tile::ExpandDimsOp>,
                 NoOpLowering<tile::ReshapeOp>, BroadcastLowering, TransLowering, JoinLowering,
                 SplitLowering, CatLowering, GatherLowering, HistogramLowering, AddPtrLowering,
                 NoOpLowering<tile::BitcastOp>, IntToPtrLowering, PtrToIntLowering, MakeTensorDescLowering, DescriptorLoadLowering,
                 DescriptorStoreLowering, ReduceLowering, ScanLowering, AtomicRMWLowering,
                 AtomicCASLowering, ClampLowering, PreciseSqrtLowering, PreciseDivFLowering,
                 PrintLowering, AssertLowering, AssumeLowering, DebugBarrierLowering,
                 NoOpLowering<tile::HintOp>>(converter, ctx, &contiguous, vectorBits);
    patterns.add<LoadLowering, StoreLowering, DotLowering>(converter, ctx, &contiguous,
                                                           vectorBits);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

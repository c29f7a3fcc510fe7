// tessera-nvvm-float8-conversions (Passes.td): conversions from and to fp8
// as the cvt pair conversions of sm_89 and later.
#include "lowering/gpu/nvidia/Passes.h"

#include "ir/TileDialect.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/nvidia/NeighbourPairs.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVVMFLOAT8CONVERSIONS
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

/// The module's NVVM target, where nvvm-attach-target gave it one.
std::optional<tessera::gpu::GpuTarget> nvidiaTarget(mlir::gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets)
    return std::nullopt;
  for (Attribute target : targets)
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target)) {
      tessera::gpu::GpuTarget chip;
      chip.vendor = tessera::gpu::GpuVendor::Nvidia;
      chip.chip = nvvm.getChip().str();
      return chip;
    }
  return std::nullopt;
}

/// The conversions the pair instructions do: fp8 to f16 (`extf`) and f32 to
/// fp8 (`truncf`). Every other conversion from or to fp8 becomes one of
/// these between ordinary conversions (normalize).
bool isCore(Operation *op) {
  if (auto extf = dyn_cast<arith::ExtFOp>(op))
    return tessera::tile::isFloat8(extf.getIn().getType()) && extf.getType().isF16();
  if (auto truncf = dyn_cast<arith::TruncFOp>(op))
    return truncf.getIn().getType().isF32() && tessera::tile::isFloat8(truncf.getType());
  return false;
}

/// `op` as ordinary conversions around a core one (fp8 <-> f16 or f32); the
/// core conversion is left as an arith op for pairing. An integer side goes
/// through f32 (rounding twice is innocuous: f32 has more than twice the bits
/// of fp8's significand, plus two).
void normalize(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  Value in = op->getOperand(0);
  Type from = in.getType(), to = op->getResult(0).getType();
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  auto sameOpTo = [&](Value operand, Type result) {
    OperationState state(loc, op->getName(), operand, result, op->getAttrs());
    return b.create(state)->getResult(0);
  };
  Value result;
  if (tessera::tile::isFloat8(from)) {
    Value half = arith::ExtFOp::create(b, loc, f16, in);
    auto wide = dyn_cast<FloatType>(to);
    if (!wide)
      result = sameOpTo(arith::ExtFOp::create(b, loc, f32, half), to);
    else if (wide.getWidth() > 16)
      result = arith::ExtFOp::create(b, loc, to, half);
    else
      // bf16 through f32, exactly: every fp8 value is a bf16 value.
      result = arith::TruncFOp::create(b, loc, to, arith::ExtFOp::create(b, loc, f32, half));
  } else {
    Value single = in;
    if (!isa<FloatType>(from))
      single = sameOpTo(in, f32);
    else if (cast<FloatType>(from).getWidth() < 32)
      single = arith::ExtFOp::create(b, loc, f32, in);
    else if (cast<FloatType>(from).getWidth() > 32)
      single = arith::TruncFOp::create(b, loc, f32, in);
    result = arith::TruncFOp::create(b, loc, to, single);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// `first` and, where given, `second` (core conversions of the same kind and
/// fp8 type, `second`'s operand available at `first`) as one pair
/// instruction at `first`; without `second`, `first`'s operand twice.
void lowerCore(OpBuilder &b, Operation *first, Operation *second) {
  b.setInsertionPoint(first);
  Location loc = first->getLoc();
  Value x = first->getOperand(0), y = second ? second->getOperand(0) : x;
  if (auto extf = dyn_cast<arith::ExtFOp>(first)) {
    auto pairType = VectorType::get({2}, b.getI8Type());
    auto byte = [&](Value value) { return arith::BitcastOp::create(b, loc, b.getI8Type(), value); };
    Value low = byte(x), high = second ? byte(y) : low;
    Value bytes = vector::FromElementsOp::create(b, loc, pairType, ValueRange{low, high});
    Value halves = NVVM::ConvertF8x2ToF16x2Op::create(
        b, loc, VectorType::get({2}, b.getF16Type()), bytes, b.getBoolAttr(false),
        TypeAttr::get(x.getType()));
    first->getResult(0).replaceAllUsesWith(
        vector::ExtractOp::create(b, loc, halves, ArrayRef<int64_t>{0}));
    if (second)
      second->getResult(0).replaceAllUsesWith(
          vector::ExtractOp::create(b, loc, halves, ArrayRef<int64_t>{1}));
  } else {
    Type to = first->getResult(0).getType();
    // cvt puts its first source in the high byte.
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, b.getI16Type(), y, x,
        NVVM::FPRoundingModeAttr::get(b.getContext(), NVVM::FPRoundingMode::RN),
        NVVM::SaturationModeAttr::get(b.getContext(), NVVM::SaturationMode::SATFINITE),
        b.getBoolAttr(false), TypeAttr::get(to));
    // The pair as two bytes of a vector (not shifts and truncations), so
    // that LLVM sees a tile's pairs stored side by side as one word.
    Value bytes = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, b.getI8Type()), pair);
    auto byteAt = [&](int64_t index) -> Value {
      Value byte = vector::ExtractOp::create(b, loc, bytes, ArrayRef<int64_t>{index});
      return arith::BitcastOp::create(b, loc, to, byte);
    };
    first->getResult(0).replaceAllUsesWith(byteAt(0));
    if (second)
      second->getResult(0).replaceAllUsesWith(byteAt(1));
  }
  first->erase();
  if (second)
    second->erase();
}

// Integer conversions appear too: canonicalization folds truncf(sitofp(x))
// into an sitofp to fp8.
struct Float8Conversions
    : tessera::gpu::impl::TesseraNvvmFloat8ConversionsBase<Float8Conversions> {
  void runOnOperation() override {
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
              arith::FPToUIOp>(op) &&
          (tessera::tile::isFloat8(op->getOperand(0).getType()) ||
           tessera::tile::isFloat8(op->getResult(0).getType())))
        conversions.push_back(op);
    });
    if (conversions.empty())
      return;
    std::optional<tessera::gpu::GpuTarget> target = nvidiaTarget(getOperation());
    OpBuilder b(&getContext());
    for (Operation *op : conversions) {
      Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
      if (target && !target->hasFp8()) {
        op->emitError() << "converting " << from << " to " << to
                        << " needs the fp8 conversions of sm_89 or later, not " << target->chip;
        return signalPassFailure();
      }
      if (isCore(op))
        continue;
      b.setInsertionPoint(op);
      normalize(b, op);
    }
    // A tile's registers convert two at a time.
    tessera::gpu::lowerInNeighbourPairs(
        getOperation(),
        [](Operation *op) -> Type {
          if (!isCore(op))
            return {};
          return isa<arith::ExtFOp>(op) ? op->getOperand(0).getType() : op->getResult(0).getType();
        },
        [&](Operation *first, Operation *second) { lowerCore(b, first, second); });
  }
};

} // namespace

// tessera-nvvm-float8-conversions (Passes.td): conversions from and to fp8
// as the cvt pair conversions of sm_89 and later.
#include "lowering/gpu/nvidia/Passes.h"

#include "ir/TileDialect.h"
#include "lowering/gpu/GpuTarget.h"

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

Value fromFp8(OpBuilder &b, Location loc, Value value, FloatType to) {
  Value byte = arith::BitcastOp::create(b, loc, b.getI8Type(), value);
  auto pairType = VectorType::get({2}, b.getI8Type());
  Value pair = vector::FromElementsOp::create(b, loc, pairType, ValueRange{byte, byte});
  Value halves = NVVM::ConvertF8x2ToF16x2Op::create(b, loc, VectorType::get({2}, b.getF16Type()),
                                                    pair, b.getBoolAttr(false),
                                                    TypeAttr::get(value.getType()));
  Value half = vector::ExtractOp::create(b, loc, halves, ArrayRef<int64_t>{0});
  if (to.isF16())
    return half;
  if (to.getWidth() > 16)
    return arith::ExtFOp::create(b, loc, to, half);
  // bf16 through f32, exactly: every fp8 value is a bf16 value.
  Value single = arith::ExtFOp::create(b, loc, b.getF32Type(), half);
  return arith::TruncFOp::create(b, loc, to, single);
}

Value toFp8(OpBuilder &b, Location loc, Value value, Type to) {
  Type f32 = b.getF32Type();
  auto from = cast<FloatType>(value.getType());
  if (from.getWidth() < 32)
    value = arith::ExtFOp::create(b, loc, f32, value);
  else if (from.getWidth() > 32)
    value = arith::TruncFOp::create(b, loc, f32, value);
  Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, b.getI16Type(), value, value,
      NVVM::FPRoundingModeAttr::get(b.getContext(), NVVM::FPRoundingMode::RN),
      NVVM::SaturationModeAttr::get(b.getContext(), NVVM::SaturationMode::SATFINITE),
      b.getBoolAttr(false), TypeAttr::get(to));
  Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
  return arith::BitcastOp::create(b, loc, to, byte);
}

/// `op`, a conversion from or to fp8, with the fp8 side converted by cvt;
/// an integer side goes through f32 (rounding twice is innocuous: f32 has
/// more than twice the bits of fp8's significand, plus two).
Value convert(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  Value in = op->getOperand(0);
  Type from = in.getType(), to = op->getResult(0).getType();
  auto sameOpTo = [&](Value operand, Type result) {
    OperationState state(loc, op->getName(), operand, result, op->getAttrs());
    return b.create(state)->getResult(0);
  };
  if (tessera::tile::isFloat8(from)) {
    if (auto wide = dyn_cast<FloatType>(to))
      return fromFp8(b, loc, in, wide);
    return sameOpTo(fromFp8(b, loc, in, b.getF32Type()), to);
  }
  if (isa<FloatType>(from))
    return toFp8(b, loc, in, to);
  return toFp8(b, loc, sameOpTo(in, b.getF32Type()), to);
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
    for (Operation *op : conversions) {
      Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
      if (target && !target->hasFp8()) {
        op->emitError() << "converting " << from << " to " << to
                        << " needs the fp8 conversions of sm_89 or later, not " << target->chip;
        return signalPassFailure();
      }
      OpBuilder b(op);
      op->getResult(0).replaceAllUsesWith(convert(b, op));
      op->erase();
    }
  }
};

} // namespace

#include "lowering/gpu/distribute/FastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <numbers>

using namespace mlir;

namespace tessera::gpu {

namespace {

Value callIntrinsic(OpBuilder &builder, Location loc, llvm::StringRef name, ValueRange operands) {
  return LLVM::CallIntrinsicOp::create(builder, loc, operands.front().getType(),
                                       builder.getStringAttr(name), operands)
      .getResult(0);
}

/// `op`'s fast form on f32 `operands`; null where it has none.
Value lowerF32WithFastMath(Operation *op, OpBuilder &builder, ValueRange operands) {
  Location loc = op->getLoc();
  if (isa<arith::DivFOp>(op))
    return callIntrinsic(builder, loc, "llvm.nvvm.div.full", operands);
  // As Triton: exp2 flushes subnormal inputs and results to zero (.ftz),
  // which saves ptxas's range fix-up around each MUFU.EX2 (a compare and two
  // multiplies, the most of a flash attention's softmax); exp does not.
  if (isa<math::Exp2Op>(op))
    return callIntrinsic(builder, loc, "llvm.nvvm.ex2.approx.ftz.f32", operands);
  if (isa<math::ExpOp>(op)) {
    Value log2e = arith::ConstantOp::create(builder, loc,
                                            builder.getF32FloatAttr(std::numbers::log2e_v<float>));
    Value scaled = arith::MulFOp::create(builder, loc, operands.front(), log2e);
    return callIntrinsic(builder, loc, "llvm.nvvm.ex2.approx.f32", scaled);
  }
  return Value();
}

} // namespace

Value lowerWithFastMath(const GpuTarget &target, Operation *op, OpBuilder &builder,
                        ValueRange operands) {
  if (target.vendor != GpuVendor::Nvidia || operands.empty() ||
      !isa<arith::DivFOp, math::ExpOp, math::Exp2Op>(op))
    return Value();
  Type type = operands.front().getType();
  if (type.isF32())
    return lowerF32WithFastMath(op, builder, operands);
  if (!type.isF16() && !type.isBF16())
    return Value();
  // Halves compute in f32 and round once, as Triton divides them; LLVM would
  // widen them too, but into the slow f32 forms.
  Location loc = op->getLoc();
  SmallVector<Value> wide;
  for (Value operand : operands)
    wide.push_back(arith::ExtFOp::create(builder, loc, builder.getF32Type(), operand));
  return arith::TruncFOp::create(builder, loc, type, lowerF32WithFastMath(op, builder, wide));
}

} // namespace tessera::gpu

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

} // namespace

Value lowerWithFastMath(const GpuTarget &target, Operation *op, OpBuilder &builder,
                        ValueRange operands) {
  if (target.vendor != GpuVendor::Nvidia || operands.empty() ||
      !operands.front().getType().isF32())
    return Value();
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

} // namespace tessera::gpu

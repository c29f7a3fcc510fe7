// tile.inline_asm_elementwise: one llvm.inline_asm per `pack` registers of
// the arguments, each operand a vector of `pack` elements when pack > 1, its
// results taken apart into the registers of the op's results. The assembly
// is the target's own (PTX on NVIDIA, GCN on AMD); SPIR-V has none.
#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// `regs[first, first + pack)` as one operand of the assembly.
Value packed(OpBuilder &builder, Location loc, const Registers &regs, unsigned first,
             unsigned pack) {
  if (regs.size() == 1)
    return regs.front();
  if (pack == 1)
    return regs[first];
  auto type = VectorType::get({pack}, regs[first].getType());
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (unsigned i = 0; i < pack; ++i)
    vector = LLVM::InsertElementOp::create(builder, loc, vector, regs[first + i],
                                           arith::ConstantIntOp::create(builder, loc, i, 32));
  return vector;
}

} // namespace

LogicalResult lowerInlineAsm(KernelLowering &k, tile::InlineAsmElementwiseOp op,
                             OpBuilder &builder) {
  if (k.target.vendor == GpuVendor::Vulkan)
    return op.emitOpError() << "runs target assembly, which target " << k.target.str()
                            << " cannot: SPIR-V has no inline assembly";
  Location loc = op.getLoc();
  unsigned count = 1;
  if (auto tile = dyn_cast<RankedTensorType>(op.getResult(0).getType())) {
    FailureOr<LinearLayout> layout = k.layout(op, tile);
    if (failed(layout))
      return failure();
    count = layout->numRegisters();
  }
  unsigned pack = op.getPack();
  if (count % pack != 0)
    return op.emitOpError() << "packs " << pack << " elements, but each thread of target "
                            << k.target.str() << " holds " << count
                            << " of the result; take a smaller pack or a larger tile";

  SmallVector<Registers> args =
      llvm::map_to_vector(op.getArgs(), [&](Value arg) { return k.registers(arg); });
  SmallVector<Type> asmTypes;
  for (Value result : op.getResults()) {
    Type element = getElementTypeOrSelf(result);
    asmTypes.push_back(pack == 1 ? element : VectorType::get({pack}, element));
  }
  SmallVector<Registers> results(op.getNumResults());
  for (unsigned first = 0; first < count; first += pack) {
    SmallVector<Value> operands = llvm::map_to_vector(
        args, [&](const Registers &regs) { return packed(builder, loc, regs, first, pack); });
    SmallVector<Value> values = inlineAssembly(builder, loc, asmTypes, operands,
                                               op.getAsmString(), op.getConstraints(),
                                               /*sideEffects=*/!op.getPure());
    for (auto [value, regs] : llvm::zip(values, results)) {
      if (pack == 1) {
        regs.push_back(value);
        continue;
      }
      for (unsigned i = 0; i < pack; ++i)
        regs.push_back(LLVM::ExtractElementOp::create(
            builder, loc, value, arith::ConstantIntOp::create(builder, loc, i, 32)));
    }
  }
  for (auto [result, regs] : llvm::zip(op.getResults(), results))
    k.map(result, std::move(regs));
  return success();
}

} // namespace tessera::gpu

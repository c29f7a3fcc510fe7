// tile.inline_asm_elementwise: one llvm.inline_asm per `pack` registers of
// the arguments, each operand a vector of `pack` elements when pack > 1, its
// results taken apart into the registers of the op's results. A thread that
// holds fewer registers than a pack (a small tile spread over many threads)
// fills the rest of its one pack with copies of its first register and drops
// their results: the assembly is elementwise, so its other lanes cannot change
// the ones kept. The assembly is the target's own (PTX on NVIDIA, GCN on AMD);
// SPIR-V has none.
#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// `regs[first, first + pack)` as one operand of the assembly; registers past
/// the thread's last are copies of `regs[first]`.
Value packed(OpBuilder &builder, Location loc, const Registers &regs, unsigned first,
             unsigned pack) {
  if (pack == 1)
    return regs[first];
  auto type = VectorType::get({pack}, regs[first].getType());
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (unsigned i = 0; i < pack; ++i) {
    Value reg = first + i < regs.size() ? regs[first + i] : regs[first];
    vector = LLVM::InsertElementOp::create(builder, loc, vector, reg,
                                           arith::ConstantIntOp::create(builder, loc, i, 32));
  }
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
  // Packs are powers of two, as are registers per thread: where a pack does
  // not divide them, the thread holds fewer than one pack.
  unsigned pack = op.getPack();

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
      for (unsigned i = 0; i < pack && first + i < count; ++i)
        regs.push_back(LLVM::ExtractElementOp::create(
            builder, loc, value, arith::ConstantIntOp::create(builder, loc, i, 32)));
    }
  }
  for (auto [result, regs] : llvm::zip(op.getResults(), results))
    k.map(result, std::move(regs));
  return success();
}

} // namespace tessera::gpu

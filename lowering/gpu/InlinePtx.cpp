#include "lowering/gpu/InlinePtx.h"

#include "lowering/gpu/DistributedFormAttrs.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// The asm op, with no result for an empty `results` (a store: LLVM's void
/// inline asm), one result for one, and one struct (as LLVM returns them)
/// for more.
LLVM::InlineAsmOp createAsm(OpBuilder &builder, Location loc, TypeRange results,
                            ValueRange operands, StringRef assembly, StringRef constraints,
                            bool sideEffects) {
  Type resultType = results.empty()       ? Type()
                    : results.size() == 1 ? results.front()
                                          : LLVM::LLVMStructType::getLiteral(
                                                builder.getContext(), SmallVector<Type>(results));
  return LLVM::InlineAsmOp::create(
      builder, loc, resultType, operands, assembly, constraints, sideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(builder.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

/// The results of `op`, out of its struct where there are several.
SmallVector<Value> resultsOf(OpBuilder &builder, Location loc, LLVM::InlineAsmOp op,
                             size_t count) {
  if (count == 0)
    return {};
  if (count == 1)
    return {op.getResult(0)};
  SmallVector<Value> values;
  for (size_t field = 0; field < count; ++field)
    values.push_back(LLVM::ExtractValueOp::create(builder, loc, op.getResult(0), field));
  return values;
}

} // namespace

SmallVector<Value> inlinePtx(OpBuilder &builder, Location loc, TypeRange results,
                             ValueRange operands, StringRef assembly, StringRef constraints,
                             SharedMemoryUse shared) {
  LLVM::InlineAsmOp op = createAsm(builder, loc, results, operands, assembly, constraints,
                                   /*sideEffects=*/true);
  if (shared == SharedMemoryUse::None)
    op->setAttr(kAsmTouchesNoSharedMemory, builder.getUnitAttr());
  return resultsOf(builder, loc, op, results.size());
}

SmallVector<Value> inlineAssembly(OpBuilder &builder, Location loc, TypeRange results,
                                  ValueRange operands, StringRef assembly, StringRef constraints,
                                  bool sideEffects) {
  return resultsOf(builder, loc,
                   createAsm(builder, loc, results, operands, assembly, constraints, sideEffects),
                   results.size());
}

SmallVector<Value> opaqueCopies(OpBuilder &builder, Location loc, ValueRange values) {
  std::string assembly;
  llvm::raw_string_ostream code(assembly);
  SmallVector<std::string> outputs, inputs;
  for (auto [i, value] : llvm::enumerate(values)) {
    code << "mov.b32 $" << i << ", $" << i + values.size() << ";\n";
    inputs.push_back(value.getType().isF32() ? "f" : "r");
    outputs.push_back("=" + inputs.back());
  }
  llvm::append_range(outputs, inputs);
  return inlinePtx(builder, loc, values.getTypes(), values, assembly, llvm::join(outputs, ","),
                   SharedMemoryUse::None);
}

} // namespace tessera::gpu

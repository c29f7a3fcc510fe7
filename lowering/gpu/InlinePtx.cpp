#include "lowering/gpu/InlinePtx.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace tessera::gpu {

SmallVector<Value> inlinePtx(OpBuilder &builder, Location loc, TypeRange results,
                             ValueRange operands, StringRef assembly, StringRef constraints) {
  return inlineAssembly(builder, loc, results, operands, assembly, constraints,
                        /*sideEffects=*/true);
}

SmallVector<Value> inlineAssembly(OpBuilder &builder, Location loc, TypeRange results,
                                  ValueRange operands, StringRef assembly, StringRef constraints,
                                  bool sideEffects) {
  // No result (a store): the op has none, as LLVM's void inline asm.
  Type resultType = results.empty()       ? Type()
                    : results.size() == 1 ? results.front()
                                          : LLVM::LLVMStructType::getLiteral(
                                                builder.getContext(), SmallVector<Type>(results));
  auto op = LLVM::InlineAsmOp::create(
      builder, loc, resultType, operands, assembly, constraints,
      sideEffects, /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(builder.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  if (results.empty())
    return {};
  if (results.size() == 1)
    return {op.getResult(0)};
  SmallVector<Value> values;
  for (size_t field = 0; field < results.size(); ++field)
    values.push_back(LLVM::ExtractValueOp::create(builder, loc, op.getResult(0), field));
  return values;
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
  return inlinePtx(builder, loc, values.getTypes(), values, assembly, llvm::join(outputs, ","));
}

} // namespace tessera::gpu

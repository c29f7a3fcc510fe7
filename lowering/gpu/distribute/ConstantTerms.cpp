#include "lowering/gpu/distribute/ConstantTerms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace tessera::gpu {

std::optional<APInt> constantOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant;
  return std::nullopt;
}

std::pair<Value, std::optional<APInt>> splitConstantTerm(Value value) {
  auto sum = value.getDefiningOp<arith::AddIOp>();
  if (!sum)
    return {value, std::nullopt};
  if (std::optional<APInt> term = constantOf(sum.getRhs()))
    return {sum.getLhs(), term};
  if (std::optional<APInt> term = constantOf(sum.getLhs()))
    return {sum.getRhs(), term};
  return {value, std::nullopt};
}

} // namespace tessera::gpu

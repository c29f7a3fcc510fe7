// Helpers for handlers of elementwise ops: one result computed lane by lane,
// scalar operands broadcasting to every lane.
#ifndef TESSERA_RUNTIME_INTERPRETER_ELEMENTWISE_H
#define TESSERA_RUNTIME_INTERPRETER_ELEMENTWISE_H

#include "runtime/interpreter/Executor.h"

#include "mlir/IR/TypeUtilities.h"

#include <array>
#include <tuple>

namespace tessera::interp {

/// Binds result 0 of `op` to the tile whose lane `i` is `fn(i)`.
template <typename Fn> llvm::Error mapResult(Executor &exec, mlir::Operation *op, Fn fn) {
  Tile result = Tile::zeros(op->getResult(0).getType());
  for (int64_t lane = 0; lane < result.size(); ++lane)
    result.elements[lane] = fn(lane);
  exec.bind(op->getResult(0), std::move(result));
  return llvm::Error::success();
}

/// A float op of any arity: `fn(double...)` computed in double, then rounded
/// to the result type, which makes +, -, *, / and sqrt exactly IEEE-rounded
/// in every narrower format (double has more than 2p+2 bits for all of them).
template <typename OpTy, size_t Arity, typename Fn>
void addFloatOp(HandlerTable &table, Fn fn) {
  table.add<OpTy>([fn](Executor &exec, OpTy op) {
    std::array<const Tile *, Arity> operands;
    for (size_t i = 0; i < Arity; ++i)
      operands[i] = &exec.tile(op->getOperand(i));
    mlir::Type type = mlir::getElementTypeOrSelf(op->getResult(0).getType());
    return mapResult(exec, op, [&](int64_t lane) {
      return std::apply(
          [&](auto... tiles) { return makeFloat(fn(tiles->at(lane).real...), type); },
          operands);
    });
  });
}

/// An integer op of any arity: `fn(width, bits...)` on zero-extended bits,
/// truncated to the result width.
template <typename OpTy, size_t Arity, typename Fn> void addIntOp(HandlerTable &table, Fn fn) {
  table.add<OpTy>([fn](Executor &exec, OpTy op) {
    std::array<const Tile *, Arity> operands;
    for (size_t i = 0; i < Arity; ++i)
      operands[i] = &exec.tile(op->getOperand(i));
    unsigned width = intWidth(mlir::getElementTypeOrSelf(op->getResult(0).getType()));
    return mapResult(exec, op, [&](int64_t lane) {
      return std::apply(
          [&](auto... tiles) { return makeInt(fn(width, tiles->at(lane).bits...), width); },
          operands);
    });
  });
}

} // namespace tessera::interp

#endif // TESSERA_RUNTIME_INTERPRETER_ELEMENTWISE_H

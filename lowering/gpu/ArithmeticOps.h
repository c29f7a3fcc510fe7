// Which ops compute with their operands, for the target checks that refuse
// arithmetic on element types the chip only stores (8-bit floats).
#ifndef TESSERA_LOWERING_GPU_ARITHMETICOPS_H
#define TESSERA_LOWERING_GPU_ARITHMETICOPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace tessera::gpu {

/// An arith or math op that computes with its operands; constants, selects
/// and bitcasts only move values (the tile passes of docs/float8.md leave
/// only those on fp8).
inline bool isArithmetic(mlir::Operation *op) {
  return mlir::isa<mlir::arith::ArithDialect, mlir::math::MathDialect>(op->getDialect()) &&
         !mlir::isa<mlir::arith::ConstantOp, mlir::arith::SelectOp, mlir::arith::BitcastOp>(op);
}

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_ARITHMETICOPS_H

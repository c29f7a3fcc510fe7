// Widening an fp8 dot's operands, shared by tile-widen-float8-dots and the
// GPU distribution's tile-gpu-widen-float8-dots, which differ only in which
// dots they widen and to what.
#ifndef TESSERA_IR_TRANSFORMS_FLOAT8DOTS_H
#define TESSERA_IR_TRANSFORMS_FLOAT8DOTS_H

#include "ir/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {

/// Whether `dot` multiplies fp8 operands.
bool hasFloat8Operands(DotOp dot);

/// Replaces `dot` by the same dot of its operands converted (arith.extf) to
/// `element`, f16 or f32, which hold every fp8 value exactly. An f32 operand
/// multiplies at full precision (ieee); max_num_imprecise_acc is dropped, as
/// the widened dot adds every product at full precision.
void widenFloat8Dot(mlir::RewriterBase &rewriter, DotOp dot, mlir::Type element);

} // namespace tessera::tile

#endif // TESSERA_IR_TRANSFORMS_FLOAT8DOTS_H

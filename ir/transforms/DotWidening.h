// Widening a dot's narrow-float operands, shared by tile-widen-float8-dots,
// the GPU distribution's tile-gpu-widen-float8-dots and the CPU's
// tile-cpu-expand-bf16, which differ in which dots they widen and to what.
#ifndef TESSERA_IR_TRANSFORMS_DOTWIDENING_H
#define TESSERA_IR_TRANSFORMS_DOTWIDENING_H

#include "ir/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {

/// Whether `dot` multiplies fp8 operands.
bool hasFloat8Operands(DotOp dot);

/// Replaces `dot` by the same dot of its operands converted (arith.extf) to
/// `element`, f16 or f32, which must hold every operand value exactly (fp8 in
/// either, bf16 in f32). An f32 operand multiplies at full precision (ieee);
/// max_num_imprecise_acc is dropped, as the widened dot adds every product at
/// full precision.
void widenDotOperands(mlir::RewriterBase &rewriter, DotOp dot, mlir::Type element);

} // namespace tessera::tile

#endif // TESSERA_IR_TRANSFORMS_DOTWIDENING_H

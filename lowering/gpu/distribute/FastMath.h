// Faster forms of f32 division, exp and exp2 on NVIDIA GPUs, as Triton's:
// `/` is PTX div.full.f32 (within 2 ulp over the whole range) where LLVM's
// fdiv would be the correctly rounded div.rn.f32, several times the
// instructions; exp(x) is ex2.approx.f32(x * log2(e)) and exp2 ex2.approx.f32
// where libdevice's __nv_expf would reduce the range first. f16 and bf16
// take the f32 forms between a widening and one rounding back (Triton divides
// halves so; it refuses exp of halves, which LLVM would widen into its slow
// f32 expansion). Correctly rounded division stays available as
// tile.precise_divf (Python's tl.div_rn); the other backends keep their own
// forms.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_FASTMATH_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_FASTMATH_H

#include "lowering/gpu/GpuTarget.h"

#include "mlir/IR/Builders.h"

namespace tessera::gpu {

/// One register of `op` (arith.divf, math.exp or math.exp2 on f32, f16 or
/// bf16) on `target` from its scalar `operands`, in its fast form; null where
/// `op` has none there.
mlir::Value lowerWithFastMath(const GpuTarget &target, mlir::Operation *op,
                              mlir::OpBuilder &builder, mlir::ValueRange operands);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_FASTMATH_H

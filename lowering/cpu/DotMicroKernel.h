// tile.dot on the CPU: a register-blocked FMA micro-kernel. A [M, K], B [K, N]
// and C [M, N] go to stack buffers; C is computed in blocks of MR rows by NR
// columns whose accumulators stay in vector registers through the k-loop,
// each step broadcasting A[i, k] and multiplying it with the row B[k, j0:j0+NR].
#ifndef TESSERA_LOWERING_CPU_DOTMICROKERNEL_H
#define TESSERA_LOWERING_CPU_DOTMICROKERNEL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace tessera::cpu {

struct DotShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
};

/// The register block of C: `mr` rows of `nr` columns.
struct MicroKernelBlocking {
  int64_t mr = 1, nr = 1;
};

/// The blocking chosen for a product of `shape` whose accumulation type has
/// `elementBits` bits on vector registers of `vectorBits` bits (AVX-512 f32:
/// 8 x 32; AVX2 f32: 6 x 16). `nr` divides N; rows that do not fill a block of
/// `mr` are done in a last, shorter block.
MicroKernelBlocking chooseBlocking(const DotShape &shape, unsigned elementBits,
                                   unsigned vectorBits);

/// Emits `a * b + acc` for flat row-major vectors `a` [batch*M*K], `b`
/// [batch*K*N] and `acc` [batch*M*N]. f16 operands are extended to f32 (an
/// f16 accumulator is computed in f32 and rounded at the end), i8 to i32;
/// bf16 dots arrive with f32 operands (tile-cpu-expand-bf16).
/// Stack buffers are allocated right before `allocaPoint` (an op of the
/// function's entry block, so that loops do not grow the stack).
mlir::Value emitDotMicroKernel(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                               mlir::Value bMat, mlir::Value acc, const DotShape &shape,
                               mlir::Operation *allocaPoint, unsigned vectorBits);

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_DOTMICROKERNEL_H

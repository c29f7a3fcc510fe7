// The example kernels of docs/edsl-guide.md, written in the C++ EDSL. Each
// function traces one kernel with the block sizes it is given: they are
// trace-time constants, like Triton's tl.constexpr parameters, so a tuner or
// a test can trace any configuration.
#ifndef TESSERA_EXAMPLES_EXAMPLES_H
#define TESSERA_EXAMPLES_EXAMPLES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>

namespace tessera::examples {

/// vector_add(x, y, out: ptr<f32>, n: i32): out[i] = x[i] + y[i] for i < n.
/// Grid: ceil(n / block) programs.
mlir::OwningOpRef<mlir::ModuleOp> traceVectorAdd(mlir::MLIRContext &context, int64_t block = 1024);

/// softmax(out, in: ptr<f32>, out_row_stride, in_row_stride, n_cols: i32):
/// a numerically stable softmax of each row. Grid: one program per row;
/// `block` (a power of two) must be at least n_cols.
mlir::OwningOpRef<mlir::ModuleOp> traceSoftmax(mlir::MLIRContext &context, int64_t block = 1024);

enum class MatmulInputs { F32, F16 };

struct MatmulConfig {
  int64_t blockM = 64, blockN = 64, blockK = 32;
  /// f16 inputs accumulate in f32 and store f16, like Triton's tutorial.
  MatmulInputs inputs = MatmulInputs::F32;
  /// Specialize stride_ak, stride_bn and stride_cn to 1 (row-major a, b, c),
  /// so that rows load and store as contiguous vectors; launches must then
  /// pass 1 for them.
  bool unitInnerStrides = false;
  /// Program order: groups of `groupM` row blocks are walked column block by
  /// column block (Triton's GROUP_M); 1 keeps the launch order.
  int64_t groupM = 8;
};

/// matmul(a, b, c: ptr<T>, M, N, K, stride_am, stride_ak, stride_bk,
/// stride_bn, stride_cm, stride_cn: i32): c = a @ b, tiled, with a k-loop
/// carrying an f32 accumulator. Grid: (ceil(M / blockM), ceil(N / blockN)).
mlir::OwningOpRef<mlir::ModuleOp> traceMatmul(mlir::MLIRContext &context, MatmulConfig config = {});

/// layer_norm(x, y, w, b, mean, rstd: ptr<f32>, row_stride, n: i32, eps: f32):
/// y = (x - mean) * rstd * w + b over each row, also storing mean and rstd.
/// Grid: one program per row; rows of any length, `block` columns at a time.
mlir::OwningOpRef<mlir::ModuleOp> traceLayerNorm(mlir::MLIRContext &context, int64_t block = 1024);

} // namespace tessera::examples

#endif // TESSERA_EXAMPLES_EXAMPLES_H

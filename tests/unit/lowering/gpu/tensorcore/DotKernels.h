// Hand-written kernels around one TensorCoreDot, in the forms its users see:
// the distributed GPU form that the NVIDIA pipeline compiles, and a bare warp
// function for the warp simulator.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_DOTKERNELS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_DOTKERNELS_H

#include "lowering/gpu/tensorcore/TensorCore.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <vector>

namespace tessera::gpu::testing {

/// Operand and accumulator types of the test dots. F32 keeps the default
/// input precision (tf32 where the target has it); the fp8 types accumulate
/// in f32, but for F8E4M3AccF16.
enum class DotTypes { F16, F16AccF16, BF16, F32, S8, F8E4M3, F8E5M2, F8E4M3xE5M2, F8E4M3AccF16 };

/// "f16", "f16acc16", "bf16", "f32", "s8", "e4m3", "e5m2", "e4m3xe5m2" (A
/// e4m3, B e5m2), "e4m3acc16": part of test names.
const char *dotTypesName(DotTypes types);

/// The [M, K] x [K, N] + [M, N] dot of `types`.
DotProblem dotProblem(mlir::MLIRContext &context, DotTypes types, int64_t m, int64_t n, int64_t k);

/// Loads every dialect the kernels below and the NVIDIA pipeline use.
void loadDotKernelDialects(mlir::MLIRContext &context);

/// One program computing C = A * B + C for row-major global A [M, K],
/// B [K, N] and C [M, N], as the distribution pass would emit it:
///   gpu.func @mma_dot(%a: memref<?xT>, %b: memref<?xT>, %c: memref<?xAcc>)
///       workgroup(%aShared, %bShared: 16-byte aligned) kernel
/// copies A and B into the shared buffers at `sharedIndex`, synchronizes,
/// loads C at the coordinates of `accumulatorLayout()`, calls `emit` and
/// stores the result back at the same coordinates.
mlir::OwningOpRef<mlir::ModuleOp> buildDotKernel(mlir::MLIRContext &context,
                                                 const TensorCoreDot &dot,
                                                 const DotProblem &problem, unsigned numWarps);

/// func.func @warp(%lane: i32, %warp: i32, %aShared, %bShared, %acc...) ->
/// (acc...) whose body is `emit` alone, for simulateWarp. An emitter that
/// asks for an accumulator buffer gets it as one more argument after
/// %bShared. With `fromZeros`, `emit` gets constant zeros instead of %acc
/// (a dot such as attention's S = Q K^T), which it may read as it likes.
/// With `registerA` the body is emitWithRegisterA, given A's registers of
/// registerALayout() as arguments after the accumulator's.
mlir::func::FuncOp buildWarpFunction(mlir::ModuleOp into, const TensorCoreDot &dot,
                                     const DotProblem &problem, bool fromZeros = false,
                                     bool registerA = false);

/// sharedIndex(operand, row, col) evaluated by folding constants
/// (foldedIndex); -1 when the index does not fold to a constant.
int64_t foldedSharedIndex(mlir::MLIRContext *context, const TensorCoreDot &dot, DotOperand operand,
                          int64_t row, int64_t col);

/// Why `sharedIndex` of the [rows, cols] operand is not a bijection onto a
/// buffer of exactly rows * cols elements: the buffer size, or the first
/// element whose index does not fold, falls outside or collides; "" when it
/// is one.
std::string sharedIndexBijectionError(mlir::MLIRContext *context, const TensorCoreDot &dot,
                                      DotOperand operand, int64_t rows, int64_t cols);

/// A, B and C of an [M, K] x [K, N] + [M, N] dot, row-major, drawn in that
/// order from integers in [-range, range]: small enough that every product
/// and sum is exact in the operand types and in a float64 reference.
struct DotOperands {
  std::vector<double> a, b, acc;
};
DotOperands randomDotOperands(int64_t m, int64_t n, int64_t k, int range, unsigned seed);
/// The same drawn from f32 values in [-1, 1]: products and sums are not
/// exact in tf32 (nor in f32).
DotOperands randomF32DotOperands(int64_t m, int64_t n, int64_t k, unsigned seed);
/// The simulated dots' independent reference: element (row, col) of
/// C + A B in float64 for row-major A [M, K], B [K, N], C [M, N] (A B alone
/// without `accumulate`).
double referenceDot(const DotOperands &x, int64_t n, int64_t k, int64_t row, int64_t col,
                    bool accumulate = true);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_DOTKERNELS_H

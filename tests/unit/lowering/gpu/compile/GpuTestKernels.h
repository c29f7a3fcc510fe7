// The kernels every GPU target must compile: the EDSL examples (examples/),
// GEMMs in every input type the matrix units take, and every kernel of
// tests/unit/kernels/TileKernels.h (with each of its textual variants).
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUTESTKERNELS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUTESTKERNELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <string>

namespace tessera::gpu::testing {

struct KernelCase {
  /// Unique, usable in a test name: "example_matmul_f16", "tile_collatz".
  std::string name;
  /// The kernel's symbol in the module.
  std::string kernel;
  std::function<mlir::OwningOpRef<mlir::ModuleOp>(mlir::MLIRContext &)> build;
};

/// Every kernel of the sweep, in a fixed order.
llvm::ArrayRef<KernelCase> allKernels();
/// The case called `name`; aborts the test binary if there is none.
const KernelCase &kernelCase(llvm::StringRef name);

/// The input types of the GEMMs. F32 multiplies with input_precision tf32
/// (F32Tf32) or ieee (F32Ieee); I8 accumulates in i32, the others in f32.
enum class GemmInputs { F16, BF16, F32Tf32, F32Ieee, I8 };

/// gemm(a, b: ptr<T>, c: ptr<Acc>, M, N, K: i32): c = a @ b for row-major
/// a [M, K], b [K, N], c [M, N]; one [blockM, blockN] block per program
/// (grid ceil(M / blockM) x ceil(N / blockN)), K in steps of blockK with a
/// loop-carried accumulator, masked at every edge.
mlir::OwningOpRef<mlir::ModuleOp> traceGemm(mlir::MLIRContext &context, GemmInputs inputs,
                                            int64_t blockM = 64, int64_t blockN = 64,
                                            int64_t blockK = 32);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUTESTKERNELS_H

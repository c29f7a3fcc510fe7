// Runs kernels on the CPU backend: lowers a copy of a module with
// lowerTileToLLVM, JIT-compiles it with mlir::ExecutionEngine and runs the
// grid sequentially through K__grid_entry; and a differential check that runs
// a kernel on both the CPU backend and the interpreter and compares every
// buffer.
#ifndef TESSERA_TESTS_UNIT_LOWERING_CPU_CPUTESTUTILS_H
#define TESSERA_TESTS_UNIT_LOWERING_CPU_CPUTESTUTILS_H

#include "lowering/cpu/Pipeline.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"

#include <memory>
#include <string>

namespace tessera::cpu::testing {

using interp::GridSize;
using interp::KernelArgument;

/// A kernel compiled for the CPU.
struct CompiledKernel {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  using Entry = void (*)(void **, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
  Entry entry = nullptr;
  llvm::SmallVector<mlir::Type> argumentTypes;
};

/// Number of times __tessera_assert_fail was called, and its last message.
extern int assertFailures;
extern std::string lastAssertMessage;

class CpuTest : public interp::testing::InterpreterTest {
protected:
  CpuTest();

  /// Lowers a clone of `module` for `target` and JIT-compiles it; "" or the
  /// diagnostics on failure.
  std::string compile(mlir::ModuleOp module, llvm::StringRef kernel, CompiledKernel &compiled,
                      const CpuTarget &target = CpuTarget::host());
  /// Runs the grid, programs in x-major order.
  void launch(const CompiledKernel &kernel, llvm::ArrayRef<KernelArgument> args, GridSize grid);

  /// Runs `kernel` on the interpreter and on the CPU backend, each on its own
  /// copy of the buffers in `args`, and compares every buffer (its element
  /// type from the signature) with |cpu - interp| <= atol + rtol * |interp|.
  /// The CPU results are left in `args`' buffers.
  void expectSameAsInterpreter(mlir::ModuleOp module, llvm::StringRef kernel,
                               llvm::ArrayRef<KernelArgument> args, GridSize grid, double rtol,
                               double atol, const CpuTarget &target = CpuTarget::host());
};

/// An AVX2-only x86-64 target (Haswell): what machines without AVX-512 get.
CpuTarget avx2Target();

} // namespace tessera::cpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_CPU_CPUTESTUTILS_H

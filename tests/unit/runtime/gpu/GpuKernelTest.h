// The fixture of the GPU end-to-end tests: a kernel compiled with
// compileTileForGpu for one device's own target and number of warps, run on
// that device over host buffers, and compared with the tile IR interpreter
// run on copies of the same inputs (and, in the tests, with float64
// references). Tests are instantiated for every device kind and 1, 2 and 4
// warps; a device that is absent skips with its reason.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUKERNELTEST_H
#define TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUKERNELTEST_H

#include "GpuTestDevice.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::gpu_testing {

using interp::GridSize;
using interp::KernelArgument;

struct GpuCase {
  DeviceKind device = DeviceKind::Vulkan;
  unsigned numWarps = 4;
};

/// Every device kind with 1, 2 and 4 warps per program.
std::vector<GpuCase> everyDeviceAndWarpCount();
/// Every device kind with 4 warps per program.
std::vector<GpuCase> everyDevice();
/// "Vulkan_2warps".
std::string caseName(const ::testing::TestParamInfo<GpuCase> &info);

class GpuKernelTest : public interp::testing::InterpreterTest,
                      public ::testing::WithParamInterface<GpuCase> {
protected:
  /// Skips when the device is absent, fails when it exists but cannot open.
  void SetUp() override;

  unsigned numWarps() const { return GetParam().numWarps; }
  const gpu::GpuTarget &target() const { return device->target(); }

  /// Compiles `kernel` of `module` for the device; "" or the error's text.
  std::string compile(mlir::ModuleOp module, llvm::StringRef kernel,
                      gpu::CompiledGpuKernel &compiled);
  /// Compiles and runs `kernel` on the device; the results are left in the
  /// buffers of `args`. Failures are test failures.
  void runOnDevice(mlir::ModuleOp module, llvm::StringRef kernel,
                   llvm::ArrayRef<KernelArgument> args, GridSize grid);
  /// Runs `kernel` on the interpreter (on copies of the buffers) and on the
  /// device, and compares every buffer, element type from the signature:
  /// |device - interpreter| <= atol + rtol * |interpreter|, NaN matching NaN.
  /// The device's results are left in `args`' buffers.
  void expectSameAsInterpreter(mlir::ModuleOp module, llvm::StringRef kernel,
                               llvm::ArrayRef<KernelArgument> args, GridSize grid, double rtol,
                               double atol);

  GpuTestDevice *device = nullptr;
  /// The software-pipelining depth kernels are compiled with.
  unsigned numStages = gpu::GpuLoweringOptions().numStages;
};

unsigned ceilDiv(int64_t a, int64_t b);

} // namespace tessera::gpu_testing

#endif // TESSERA_TESTS_UNIT_RUNTIME_GPU_GPUKERNELTEST_H

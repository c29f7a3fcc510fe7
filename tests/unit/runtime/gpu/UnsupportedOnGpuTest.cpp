// What a GPU target cannot compile by design is a compile-time error naming
// the op, its location and the target, never a crash or a wrong result:
// each case with its expected message, on every device's own target.
#include "GpuKernelTest.h"
#include "tests/unit/kernels/TileKernels.h"

namespace tessera::gpu_testing {
namespace {

using namespace tessera::test_kernels;

/// "'OP' op WHAT (target TARGET" with the target's full name, as the
/// distribution reports it.
std::string distributionError(llvm::StringRef op, llvm::StringRef what,
                              const gpu::GpuTarget &target) {
  return "'" + op.str() + "' op " + what.str() + " (target " + target.str();
}

class UnsupportedOnGpuTest : public GpuKernelTest {
protected:
  /// Compiling `kernel` of `source` fails with an error holding `message`
  /// and the op's line in kernel.mlir.
  void expectCompileError(llvm::StringRef source, llvm::StringRef kernel, llvm::StringRef op,
                          const std::string &message) {
    auto module = parse(source);
    ASSERT_TRUE(module);
    gpu::CompiledGpuKernel compiled;
    std::string error = compile(*module, kernel, compiled);
    ASSERT_NE(error, "") << "'" << kernel.str() << "' compiled for " << target().str();
    EXPECT_NE(error.find(message), std::string::npos) << error;
    std::string location = "kernel.mlir:" + std::to_string(interp::testing::lineOf(source, op));
    EXPECT_NE(error.find(location), std::string::npos) << "no " << location << " in: " << error;
  }
};

TEST_P(UnsupportedOnGpuTest, TilesWhoseShapeIsNotAPowerOfTwo) {
  std::string tile = "tile 'tensor<3xi32>' has a shape that is not a power of two in every "
                     "dimension; GPU target " +
                     target().str();
  expectCompileError(kPrint, "show", "tile.make_range 0 to 3", tile);
}

TEST_P(UnsupportedOnGpuTest, CallsOfALibraryNoTargetLinks) {
  std::string source = withReplaced(withReplaced(kExternCall, "FUNCTION", "my_erff"), "LIBRARY",
                                    "mylib");
  expectCompileError(source, "ext", "tile.extern_elementwise",
                     "'tile.extern_elementwise' op calls 'my_erff' of library 'mylib', which "
                     "target " +
                         target().str());
}

TEST_P(UnsupportedOnGpuTest, LibdeviceFunctionsWithoutAMathOpOutsideNvidia) {
  if (target().vendor == gpu::GpuVendor::Nvidia)
    GTEST_SKIP() << "NVIDIA targets link libdevice";
  std::string source = withReplaced(withReplaced(kExternCall, "FUNCTION", "__nv_lgammaf"),
                                    "LIBRARY", "libdevice");
  expectCompileError(source, "ext", "tile.extern_elementwise",
                     "'tile.extern_elementwise' op calls '__nv_lgammaf' of library 'libdevice', "
                     "which target " +
                         target().str());
}

TEST_P(UnsupportedOnGpuTest, PointersMadeFromIntegers) {
  constexpr llvm::StringLiteral kUsedStrayLoad = R"mlir(
tile.func @stray(%p: !tile.ptr<f32>) {
  %addr = arith.constant 16 : i64
  %q = tile.int_to_ptr %addr : i64 -> !tile.ptr<f32>
  %v = tile.load %q : !tile.ptr<f32>
  tile.store %p, %v : !tile.ptr<f32>
  tile.return
}
)mlir";
  expectCompileError(kUsedStrayLoad, "stray", "tile.int_to_ptr",
                     distributionError("tile.int_to_ptr",
                                       "making pointers from integers is not supported on GPU "
                                       "targets yet",
                                       target()));
}

TEST_P(UnsupportedOnGpuTest, PointersTurnedIntoIntegers) {
  expectCompileError(kPointerRoundTrip, "roundtrip", "tile.ptr_to_int",
                     distributionError("tile.ptr_to_int",
                                       "turning pointers into integers is not supported on GPU "
                                       "targets yet",
                                       target()));
}

TEST_P(UnsupportedOnGpuTest, AssertOnVulkan) {
  if (target().vendor != gpu::GpuVendor::Vulkan)
    GTEST_SKIP() << "device asserts exist on " << target().str();
  expectCompileError(kAssert, "check", "tile.assert",
                     distributionError("tile.assert",
                                       "printing and asserting on Vulkan (which has no device "
                                       "printf) is not supported on GPU targets yet",
                                       target()));
}

TEST_P(UnsupportedOnGpuTest, PrintOnVulkan) {
  if (target().vendor != gpu::GpuVendor::Vulkan)
    GTEST_SKIP() << "device printf exists on " << target().str();
  constexpr llvm::StringLiteral kPrintScalar = R"mlir(
tile.func @show(%s: i32) {
  tile.print "s: " (%s : i32)
  tile.return
}
)mlir";
  expectCompileError(kPrintScalar, "show", "tile.print",
                     distributionError("tile.print",
                                       "printing and asserting on Vulkan (which has no device "
                                       "printf) is not supported on GPU targets yet",
                                       target()));
}

INSTANTIATE_TEST_SUITE_P(Devices, UnsupportedOnGpuTest, ::testing::ValuesIn(everyDevice()),
                         caseName);

} // namespace
} // namespace tessera::gpu_testing

// tile.extern_elementwise on NVIDIA targets: each call is a call of the
// libdevice function, or of a bitcode library the call names by path, linked
// into the PTX (nothing left `.extern`); calls a library cannot satisfy are
// errors that name the function, not ptxas failures.
#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"

#include "ir/TileDialect.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

namespace tessera::gpu::testing {
namespace {

using namespace tessera::test_kernels;

class LibdeviceCalls : public ::testing::TestWithParam<const char *> {
protected:
  LibdeviceCalls() {
    context.loadDialect<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::scf::SCFDialect>();
  }

  llvm::Expected<CompiledGpuKernel> compile(const std::string &text, llvm::StringRef kernel) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context, "calls.mlir");
    EXPECT_TRUE(module);
    return compileTileForGpu(*module, kernel, parseTarget(GetParam()));
  }

  llvm::Expected<CompiledGpuKernel> compileCall(llvm::StringRef function,
                                                llvm::StringRef path = "") {
    std::string library = path.empty() ? "libdevice" : "mylib\" path \"" + path.str();
    return compile(withReplaced(withReplaced(kExternCall, "FUNCTION", function), "LIBRARY",
                                library),
                   "ext");
  }

  /// A bitcode library defining my_cube(float) -> float, in a temporary file
  /// removed with the test.
  std::string writeLibrary() {
    llvm::LLVMContext llvmContext;
    llvm::SMDiagnostic diagnostic;
    std::unique_ptr<llvm::Module> library = llvm::parseAssemblyString(R"(
define float @my_cube(float %x) {
  %square = fmul float %x, %x
  %cube = fmul float %square, %x
  ret float %cube
}
)",
                                                                       diagnostic, llvmContext);
    EXPECT_TRUE(library);
    llvm::SmallString<128> path;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("tessera-library", "bc", path));
    std::error_code error;
    llvm::raw_fd_ostream out(path, error);
    llvm::WriteBitcodeToFile(*library, out);
    temporaries.push_back(path.str().str());
    return temporaries.back();
  }

  ~LibdeviceCalls() override {
    for (const std::string &path : temporaries)
      llvm::sys::fs::remove(path);
  }

  std::vector<std::string> temporaries;

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_P(LibdeviceCalls, AreLinkedIntoThePtx) {
  llvm::Expected<CompiledGpuKernel> compiled = compile(kLibdevice.str(), "libdevice");
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const std::string &ptx = compiled->binary.assembly;
  EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("__nv_"), std::string::npos) << "calls left in the PTX:\n" << ptx;
  // __nv_popc and __nv_clz are single instructions; a math.ctpop would be too,
  // but tile-libdevice-to-math does not run for NVIDIA: the calls are libdevice's.
  EXPECT_NE(ptx.find("popc.b32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("clz.b32"), std::string::npos) << ptx;
}

TEST_P(LibdeviceCalls, FunctionsWithoutAMathOpCompile) {
  llvm::Expected<CompiledGpuKernel> compiled = compileCall("__nv_lgammaf");
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_EQ(compiled->binary.assembly.find(".extern"), std::string::npos);
}

TEST_P(LibdeviceCalls, AFunctionLibdeviceLacksIsNamed) {
  llvm::Expected<CompiledGpuKernel> compiled = compileCall("__nv_tanhhf");
  ASSERT_FALSE(compiled);
  std::string error = llvm::toString(compiled.takeError());
  EXPECT_NE(error.find("the kernel calls __nv_tanhhf, which libdevice ("), std::string::npos)
      << error;
  EXPECT_NE(error.find(") does not define"), std::string::npos) << error;
}

TEST_P(LibdeviceCalls, AFunctionCalledWithOtherTypesIsNamed) {
  // __nv_tanh is the f64 function; the kernel calls it on an f32.
  llvm::Expected<CompiledGpuKernel> compiled = compileCall("__nv_tanh");
  ASSERT_FALSE(compiled);
  std::string error = llvm::toString(compiled.takeError());
  EXPECT_NE(error.find("the kernel calls __nv_tanh as float (float), but libdevice ("),
            std::string::npos)
      << error;
  EXPECT_NE(error.find(") defines it as double (double)"), std::string::npos) << error;
}

TEST_P(LibdeviceCalls, ABitcodeLibraryNamedByPathIsLinked) {
  llvm::Expected<CompiledGpuKernel> compiled = compileCall("my_cube", writeLibrary());
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const std::string &ptx = compiled->binary.assembly;
  EXPECT_EQ(ptx.find(".extern"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("mul.f32"), std::string::npos) << ptx; // my_cube, inlined
}

TEST_P(LibdeviceCalls, ALibraryThatCannotBeReadOrLacksTheFunctionIsNamed) {
  llvm::Expected<CompiledGpuKernel> unreadable = compileCall("my_cube", "/nonexistent/lib.bc");
  ASSERT_FALSE(unreadable);
  std::string error = llvm::toString(unreadable.takeError());
  EXPECT_NE(error.find("the kernel calls my_cube from the bitcode library /nonexistent/lib.bc, "
                       "which cannot be read as LLVM bitcode"),
            std::string::npos)
      << error;

  std::string path = writeLibrary();
  llvm::Expected<CompiledGpuKernel> missing = compileCall("my_square", path);
  ASSERT_FALSE(missing);
  error = llvm::toString(missing.takeError());
  EXPECT_NE(error.find("the kernel calls my_square, which the bitcode library " + path +
                       " does not define"),
            std::string::npos)
      << error;
}

TEST_P(LibdeviceCalls, OneFunctionCalledWithTwoTypesIsAnErrorOnTheSecondCall) {
  constexpr llvm::StringLiteral kTwoTypes = R"mlir(
tile.func @twice(%x: f32, %d: f64, %out: !tile.ptr<f32>, %dout: !tile.ptr<f64>) {
  %y = tile.extern_elementwise "__nv_tanhf"(%x) lib "libdevice" pure : (f32) -> f32
  %z = tile.extern_elementwise "__nv_tanhf"(%d) lib "libdevice" pure : (f64) -> f64
  tile.store %out, %y : !tile.ptr<f32>
  tile.store %dout, %z : !tile.ptr<f64>
  tile.return
}
)mlir";
  llvm::Expected<CompiledGpuKernel> compiled = compile(kTwoTypes.str(), "twice");
  ASSERT_FALSE(compiled);
  std::string error = llvm::toString(compiled.takeError());
  EXPECT_NE(error.find("calls.mlir:4:8: error: 'tile.extern_elementwise' op calls '__nv_tanhf' "
                       "as '!llvm.func<f64 (f64)>' where another call in the kernel calls it as "
                       "'!llvm.func<f32 (f32)>'"),
            std::string::npos)
      << error;
}

INSTANTIATE_TEST_SUITE_P(NvidiaTargets, LibdeviceCalls,
                         ::testing::Values("cuda:sm_80", "cuda:sm_90a"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return sanitize(info.param);
                         });

} // namespace
} // namespace tessera::gpu::testing

// tile.inline_asm_elementwise compiled for the targets whose assembly it
// carries: the PTX reaches ptxas on NVIDIA (scalar and packed halves, packs
// wider than a thread's registers), GCN reaches the AMDGPU assembler; assembly
// of the wrong target is an error naming what rejected it, and Vulkan refuses
// it on the op.
#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"

#include "ir/TileDialect.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace tessera::gpu::testing {
namespace {

using tessera::test_kernels::withReplaced;

/// ASM (constraints CONSTRAINTS, pack PACK) on LEN elements of type T.
constexpr llvm::StringLiteral kAssembly = R"mlir(
tile.func @asm(%x: !tile.ptr<T>) {
  %r = tile.make_range 0 to LEN : tensor<LENxi32>
  %xs = tile.splat %x : !tile.ptr<T> -> tensor<LENx!tile.ptr<T>>
  %xp = tile.addptr %xs, %r : tensor<LENx!tile.ptr<T>>, tensor<LENxi32>
  %v = tile.load %xp : tensor<LENx!tile.ptr<T>>
  %y = tile.inline_asm_elementwise "ASM"(%v) constraints "CONSTRAINTS" pure pack PACK : (tensor<LENxT>) -> tensor<LENxT>
  tile.store %xp, %y : tensor<LENx!tile.ptr<T>>
  tile.return
}
)mlir";

class InlineAsm : public ::testing::Test {
protected:
  InlineAsm() {
    context.loadDialect<tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::scf::SCFDialect>();
  }

  llvm::Expected<CompiledGpuKernel> compile(llvm::StringRef assembly, llvm::StringRef constraints,
                                            llvm::StringRef type, llvm::StringRef pack,
                                            llvm::StringRef target,
                                            llvm::StringRef length = "256") {
    std::string text = kAssembly.str();
    for (auto [what, by] : {std::pair{"ASM", assembly}, {"CONSTRAINTS", constraints},
                            {"PACK", pack}, {"LEN", length}, {"T", type}})
      text = withReplaced(text, what, by);
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context, "asm.mlir");
    EXPECT_TRUE(module);
    return compileTileForGpu(*module, "asm", parseTarget(target));
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(InlineAsm, PtxReachesPtxasOnNvidia) {
  for (const char *target : {"cuda:sm_80", "cuda:sm_90a"}) {
    llvm::Expected<CompiledGpuKernel> compiled =
        compile("tanh.approx.f32 $0, $1;", "=r,r", "f32", "1", target);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    EXPECT_NE(compiled->binary.assembly.find("tanh.approx.f32"), std::string::npos);
  }
}

TEST_F(InlineAsm, PackedHalvesShareA32BitRegister) {
  llvm::Expected<CompiledGpuKernel> compiled =
      compile("mul.rn.f16x2 $0, $1, $1;", "=r,r", "f16", "2", "cuda:sm_90a");
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const std::string &ptx = compiled->binary.assembly;
  EXPECT_NE(ptx.find("mul.rn.f16x2"), std::string::npos) << ptx;
}

TEST_F(InlineAsm, GcnReachesTheAssemblerOnAmd) {
  llvm::Expected<CompiledGpuKernel> compiled =
      compile("v_mul_f32 $0, $1, $1", "=v,v", "f32", "1", "hip:gfx942");
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_NE(compiled->binary.assembly.find("v_mul_f32"), std::string::npos);
}

TEST_F(InlineAsm, PtxOnAmdIsAnErrorNamingTheAssembler) {
  llvm::Expected<CompiledGpuKernel> compiled =
      compile("tanh.approx.f32 $0, $1;", "=v,v", "f32", "1", "hip:gfx942");
  ASSERT_FALSE(compiled);
  std::string error = llvm::toString(compiled.takeError());
  EXPECT_NE(error.find("the AMDGPU assembler rejected the kernel's assembly"), std::string::npos)
      << error;
  EXPECT_NE(error.find("must be GCN for gfx942"), std::string::npos) << error;
}

TEST_F(InlineAsm, AssemblyOnVulkanIsAnErrorOnTheOp) {
  llvm::Expected<CompiledGpuKernel> compiled =
      compile("tanh.approx.f32 $0, $1;", "=r,r", "f32", "1", "vulkan:1.3:subgroup=8");
  ASSERT_FALSE(compiled);
  std::string error = llvm::toString(compiled.takeError());
  EXPECT_NE(error.find("asm.mlir:7:8: error: 'tile.inline_asm_elementwise' op runs target "
                       "assembly, which target vulkan:1.3:subgroup=8"),
            std::string::npos)
      << error;
}

TEST_F(InlineAsm, APackWiderThanAThreadsRegistersIsFilledWithCopies) {
  // 64 halves on 4 warps: one a thread, half a pack of two.
  llvm::Expected<CompiledGpuKernel> compiled =
      compile("mul.rn.f16x2 $0, $1, $1;", "=r,r", "f16", "2", "cuda:sm_90a", "64");
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_NE(compiled->binary.assembly.find("mul.rn.f16x2"), std::string::npos);

  constexpr llvm::StringLiteral kScalar = R"mlir(
tile.func @asm(%x: !tile.ptr<f16>, %s: f16) {
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;"(%s) constraints "=r,r" pure pack 2 : (f16) -> f16
  tile.store %x, %y : !tile.ptr<f16>
  tile.return
}
)mlir";
  module = mlir::parseSourceString<mlir::ModuleOp>(kScalar, &context, "asm.mlir");
  ASSERT_TRUE(module);
  compiled = compileTileForGpu(*module, "asm", parseTarget("cuda:sm_90a"));
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_NE(compiled->binary.assembly.find("mov.b32"), std::string::npos);
}

} // namespace
} // namespace tessera::gpu::testing

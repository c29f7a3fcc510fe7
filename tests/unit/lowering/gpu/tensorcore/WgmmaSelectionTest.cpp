// selectTensorCoreDot on NVIDIA: wgmma where the chip is sm_90a, the warps
// form whole warpgroups and the dot fits the instruction; mma.sync otherwise.
#include "lowering/gpu/tensorcore/TensorCore.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::gpu;

namespace {

GpuTarget target(llvm::StringRef spec) {
  llvm::Expected<GpuTarget> parsed = GpuTarget::parse(spec);
  EXPECT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  return *parsed;
}

class WgmmaSelection : public ::testing::Test {
protected:
  DotProblem problem(Type operand, Type acc, int64_t m, int64_t n, int64_t k) {
    return DotProblem{m, n, k, operand, operand, acc};
  }
  DotProblem bf16(int64_t m, int64_t n, int64_t k) {
    return problem(b.getBF16Type(), b.getF32Type(), m, n, k);
  }
  /// The selected instruction's name, or "none".
  std::string selected(const GpuTarget &on, const DotProblem &dot, unsigned numWarps) {
    std::unique_ptr<TensorCoreDot> instruction = selectTensorCoreDot(on, dot, numWarps);
    return instruction ? instruction->name().str() : std::string("none");
  }

  MLIRContext context;
  Builder b{&context};
  GpuTarget sm90a = target("cuda:sm_90a");
};

TEST_F(WgmmaSelection, NamesTheInstructionOnSm90a) {
  EXPECT_EQ(selected(sm90a, problem(b.getF16Type(), b.getF32Type(), 64, 64, 64), 4),
            "wgmma.m64n64k16.f16");
  EXPECT_EQ(selected(sm90a, bf16(128, 256, 64), 8), "wgmma.m64n256k16.bf16");
  EXPECT_EQ(selected(sm90a, problem(b.getF32Type(), b.getF32Type(), 64, 32, 32), 4),
            "wgmma.m64n32k8.tf32");
  // A tf32 B of rows of N runs swapped (C^T = B^T A^T), unless it comes
  // transposed or the dot is chained.
  DotProblem tf32 = problem(b.getF32Type(), b.getF32Type(), 128, 64, 32);
  EXPECT_EQ(selected(sm90a, tf32, 4), "wgmma.m64n128k8.tf32.swapped");
  DotProblem transposed = tf32;
  transposed.bTransposed = true;
  EXPECT_EQ(selected(sm90a, transposed, 4), "wgmma.m64n64k8.tf32");
  DotProblem chained = tf32;
  chained.chained = true;
  EXPECT_EQ(selected(sm90a, chained, 4), "wgmma.m64n64k8.tf32");
  EXPECT_EQ(selected(sm90a, problem(b.getI8Type(), b.getI32Type(), 64, 64, 64), 4),
            "wgmma.m64n64k32.s8");
  // fp8 operands of one type, or of two (A's type first).
  Type e4m3 = b.getType<Float8E4M3FNType>(), e5m2 = b.getType<Float8E5M2Type>();
  EXPECT_EQ(selected(sm90a, problem(e4m3, b.getF32Type(), 64, 64, 64), 4),
            "wgmma.m64n64k32.e4m3");
  DotProblem mixed = problem(e5m2, b.getF32Type(), 64, 64, 64);
  mixed.bElement = e4m3;
  EXPECT_EQ(selected(sm90a, mixed, 4), "wgmma.m64n64k32.e5m2.e4m3");
  // Below a warpgroup, mma.sync's fp8 form.
  EXPECT_EQ(selected(sm90a, mixed, 2), "mma.sync.m16n8k32.e5m2.e4m3");
  // f16 accumulators, of f16 and of fp8 products.
  EXPECT_EQ(selected(sm90a, problem(b.getF16Type(), b.getF16Type(), 64, 64, 64), 4),
            "wgmma.m64n64k16.f16.f16acc");
  EXPECT_EQ(selected(sm90a, problem(e4m3, b.getF16Type(), 128, 128, 64), 8),
            "wgmma.m64n128k32.e4m3.f16acc");
  // mma.sync has no fp8 form into f16 before PTX ISA 8.7: the dot widens.
  EXPECT_EQ(selected(sm90a, problem(e4m3, b.getF16Type(), 128, 128, 64), 2), "none");
}

TEST_F(WgmmaSelection, OtherChipsKeepMmaSync) {
  for (const char *chip : {"cuda:sm_80", "cuda:sm_89", "cuda:sm_90"}) {
    EXPECT_EQ(selectWgmmaDot(target(chip), bf16(64, 64, 64), 4), nullptr) << chip;
    EXPECT_EQ(selected(target(chip), bf16(64, 64, 64), 4), "mma.sync.m16n8k16.bf16") << chip;
  }
}

TEST_F(WgmmaSelection, WarpCountsWithoutWholeWarpgroupsKeepMmaSync) {
  EXPECT_EQ(selected(sm90a, bf16(64, 64, 64), 1), "mma.sync.m16n8k16.bf16");
  EXPECT_EQ(selected(sm90a, bf16(64, 64, 64), 2), "mma.sync.m16n8k16.bf16");
  EXPECT_EQ(selectWgmmaDot(sm90a, bf16(64, 64, 64), 6), nullptr);
  EXPECT_EQ(selected(sm90a, bf16(64, 64, 64), 4), "wgmma.m64n64k16.bf16");
  EXPECT_EQ(selected(sm90a, bf16(128, 64, 64), 16), "wgmma.m64n32k16.bf16");
}

TEST_F(WgmmaSelection, ShapesThatDoNotFitKeepMmaSync) {
  // M below one 64-row tile.
  EXPECT_EQ(selected(sm90a, bf16(32, 64, 64), 4), "mma.sync.m16n8k16.bf16");
  // K below the instruction's 16.
  EXPECT_EQ(selected(sm90a, bf16(64, 64, 8), 4), "none");
  EXPECT_EQ(selectWgmmaDot(sm90a, bf16(64, 64, 8), 4), nullptr);
  // Eight warpgroups along N leave 4 columns each.
  EXPECT_EQ(selectWgmmaDot(sm90a, bf16(64, 32, 64), 32), nullptr);
  // Not powers of two.
  EXPECT_EQ(selectWgmmaDot(sm90a, bf16(192, 64, 64), 4), nullptr);
  // A and B beyond the 227 KiB of an sm_90a block.
  EXPECT_NE(selectWgmmaDot(sm90a, bf16(256, 256, 128), 8), nullptr);
  EXPECT_EQ(selectWgmmaDot(sm90a, bf16(256, 256, 256), 8), nullptr);
}

TEST_F(WgmmaSelection, TypesWithoutWgmmaHereKeepMmaSyncOrFma) {
  // bf16 has no f16 accumulator: mma.sync has none either.
  EXPECT_EQ(selected(sm90a, problem(b.getBF16Type(), b.getF16Type(), 64, 64, 64), 4), "none");
  DotProblem ieee = problem(b.getF32Type(), b.getF32Type(), 64, 64, 64);
  ieee.precision = tessera::tile::InputPrecision::IEEE;
  EXPECT_EQ(selected(sm90a, ieee, 4), "none");
  EXPECT_EQ(selected(sm90a, problem(b.getF64Type(), b.getF64Type(), 64, 64, 64), 4), "none");
}

} // namespace

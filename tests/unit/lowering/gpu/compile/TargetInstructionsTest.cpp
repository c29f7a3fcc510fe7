// The instructions the catalogue's kernels must use on each target, found in
// the assembly the compiler returns. Global memory: 128-bit vector loads and
// stores for contiguous, aligned runs (with element accesses for the ragged
// edge) on NVIDIA and AMD, cp.async into the stages of pipelined K loops on
// sm_80 and later. The GEMMs run on each target's matrix instructions:
// mma.sync with ldmatrix on sm_80 and on Blackwell (sm_100, sm_120), wgmma
// on sm_90a (one warpgroup's 64-row tile: 4 warps, blockM = 64), MFMA
// on CDNA (gfx90a, gfx942), WMMA on RDNA3 (gfx1100); f32 with
// input_precision = ieee stays on exact FMA on NVIDIA. The test log shows
// each GEMM's register, spill and shared-memory usage (ptxas -v, the AMD
// code object's metadata).
#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <iostream>
#include <vector>

namespace tessera::gpu::testing {
namespace {

struct InstructionCase {
  const char *kernel;
  const char *target;
  /// Must all appear in the assembly.
  std::vector<const char *> present;
  /// Must not appear.
  std::vector<const char *> absent;
};

const InstructionCase kInstructionCases[] = {
    // 16-byte vector accesses where a thread holds 4 contiguous floats.
    {"example_vector_add", "cuda:sm_80", {"ld.global.v4.b32", "st.global.v4.b32"}, {}},
    {"example_vector_add", "cuda:sm_90a", {"ld.global.v4.b32", "st.global.v4.b32"}, {}},
    {"example_vector_add", "hip:gfx942", {"global_load_dwordx4", "global_store_dwordx4"}, {}},
    {"example_vector_add", "hip:gfx1100", {"global_load_b128", "global_store_b128"}, {}},
    // NVIDIA Ampere: mma.sync fed by ldmatrix.
    {"gemm_f16", "cuda:sm_80", {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix"},
     {"wgmma"}},
    {"example_matmul_f16", "cuda:sm_80",
     {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix"}, {"wgmma"}},
    // The K loop pipelined over the default 2 stages: descriptor blocks (unit
    // inner stride at run time) are copied with 16-byte cp.async, one group
    // per iteration, waited for one iteration later.
    {"example_matmul_f16_descriptors", "cuda:sm_80",
     {"cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group \t0;", "mma.sync"},
     {}},
    // On sm_90a the wgmma of one iteration runs on while the next issues
    // its copies: each waits for the one before, the loop for the last.
    {"example_matmul_f16_descriptors", "cuda:sm_90a",
     {"cp.async.cg.shared.global", "cp.async.wait_group \t0;", "wgmma.wait_group.sync.aligned 1;",
      "wgmma.wait_group.sync.aligned 0;"},
     {}},
    {"gemm_bf16", "cuda:sm_80",
     {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix"}, {"wgmma"}},
    {"gemm_f32_tf32", "cuda:sm_80",
     {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "ldmatrix"}, {"wgmma"}},
    // B [K, N] of bytes goes K-major into shared memory: 4 rows of K a
    // thread, one 32-bit store each (LayoutAnchors::operandLoad), not byte
    // stores.
    {"gemm_i8", "cuda:sm_80",
     {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "ldmatrix", "st.shared.b32"},
     {"wgmma", "st.shared.u8", "st.shared.b8"}},
    {"gemm_f32_ieee", "cuda:sm_80", {"fma.rn.f32"}, {"mma.sync", "tf32"}},
    // Plain sm_90 has no wgmma (it needs the sm_90a features): mma.sync.
    {"gemm_bf16", "cuda:sm_90",
     {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix"}, {"wgmma"}},
    // Blackwell (sm_100 datacenter, sm_120 consumer): what sm_80 has,
    // mma.sync fed by ldmatrix and K loops pipelined with cp.async; no wgmma.
    {"gemm_bf16", "cuda:sm_100",
     {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix"}, {"wgmma"}},
    {"gemm_f16", "cuda:sm_120", {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix"},
     {"wgmma"}},
    {"example_matmul_f16_descriptors", "cuda:sm_120",
     {"cp.async.cg.shared.global", "cp.async.commit_group", "mma.sync"}, {"wgmma"}},
    // NVIDIA Hopper: warpgroup MMA straight from shared memory.
    {"gemm_f16", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"},
     {"mma.sync"}},
    {"example_matmul_f16", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"},
     {"mma.sync"}},
    {"gemm_bf16", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"},
     {"mma.sync"}},
    {"gemm_f32_tf32", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"},
     {"mma.sync"}},
    {"gemm_i8", "cuda:sm_90a",
     {"wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8", "st.shared.b32"},
     {"mma.sync", "st.shared.u8", "st.shared.b8"}},
    {"gemm_f32_ieee", "cuda:sm_90a", {"fma.rn.f32"}, {"mma.sync", "wgmma", "tf32"}},
    {"tile_dot_e4m3", "cuda:sm_90", {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"},
     {"wgmma", "st.shared.u8", "st.shared.b8"}},
    {"tile_dot_e4m3", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3"},
     {"mma.sync", "st.shared.u8", "st.shared.b8"}},
    {"tile_dot_e5m2", "cuda:sm_90a", {"wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2"},
     {"mma.sync", "st.shared.u8", "st.shared.b8"}},
    // AMD CDNA: MFMA.
    {"gemm_f16", "hip:gfx90a", {"v_mfma_f32_32x32x8f16"}, {}},
    {"example_matmul_f16", "hip:gfx90a", {"v_mfma_f32_32x32x8f16"}, {}},
    {"gemm_bf16", "hip:gfx90a", {"v_mfma_f32_32x32x8bf16_1k"}, {}},
    {"gemm_i8", "hip:gfx90a", {"v_mfma_i32_32x32x8i8"}, {}},
    {"gemm_f16", "hip:gfx942", {"v_mfma_f32_32x32x8_f16"}, {}},
    {"example_matmul_f16", "hip:gfx942", {"v_mfma_f32_32x32x8_f16"}, {}},
    {"gemm_bf16", "hip:gfx942", {"v_mfma_f32_32x32x8_bf16"}, {}},
    {"gemm_i8", "hip:gfx942", {"v_mfma_i32_32x32x16_i8"}, {}},
    // AMD RDNA3: WMMA.
    {"gemm_f16", "hip:gfx1100", {"v_wmma_f32_16x16x16_f16"}, {"v_mfma"}},
    {"example_matmul_f16", "hip:gfx1100", {"v_wmma_f32_16x16x16_f16"}, {"v_mfma"}},
    {"gemm_bf16", "hip:gfx1100", {"v_wmma_f32_16x16x16_bf16"}, {"v_mfma"}},
    {"gemm_i8", "hip:gfx1100", {"v_wmma_i32_16x16x16_iu8"}, {"v_mfma"}},
};

class TargetInstructions : public ::testing::TestWithParam<InstructionCase> {};

std::string describeUsage(const KernelBinary &binary) {
  const ResourceUsage &usage = binary.usage;
  std::string text = llvm::formatv("{0} registers", usage.registers).str();
  if (usage.scalarRegisters >= 0)
    text += llvm::formatv(", {0} SGPRs", usage.scalarRegisters).str();
  return text + llvm::formatv(", {0} bytes spill stores, {1} bytes spill loads, {2} bytes static "
                              "shared memory, {3} bytes dynamic shared memory, {4} threads",
                              usage.spillStoreBytes, usage.spillLoadBytes,
                              usage.sharedMemoryBytes, binary.dynamicSharedMemoryBytes,
                              binary.blockThreads)
                    .str();
}

TEST_P(TargetInstructions, AppearInTheAssembly) {
  const InstructionCase &wanted = GetParam();
  GpuTarget target = parseTarget(wanted.target);
  llvm::Expected<CompiledGpuKernel> compiled = compileCatalogued(wanted.kernel, target);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const KernelBinary &binary = compiled->binary;
  for (const char *instruction : wanted.present)
    EXPECT_NE(binary.assembly.find(instruction), std::string::npos)
        << "no " << instruction << " in the assembly of " << wanted.kernel << " for " << wanted.target;
  for (const char *instruction : wanted.absent)
    EXPECT_EQ(binary.assembly.find(instruction), std::string::npos)
        << instruction << " in the assembly of " << wanted.kernel << " for " << wanted.target;

  std::string usage = describeUsage(binary);
  std::cout << "[ usage    ] " << wanted.kernel << " on " << wanted.target << ": " << usage << "\n";
  RecordProperty("usage", usage);
  // A kernel of the catalogue that spills is a performance bug worth a
  // failing test (-1: the tool does not report spills). Serialized wgmma:
  // EveryKernelEveryTarget, for every kernel.
  EXPECT_LE(binary.usage.spillStoreBytes, 0) << binary.usage.report;
  EXPECT_LE(binary.usage.spillLoadBytes, 0) << binary.usage.report;
}

INSTANTIATE_TEST_SUITE_P(GpuTargets, TargetInstructions, ::testing::ValuesIn(kInstructionCases),
                         [](const ::testing::TestParamInfo<InstructionCase> &info) {
                           return std::string(info.param.kernel) + "_on_" +
                                  sanitize(info.param.target);
                         });

} // namespace
} // namespace tessera::gpu::testing

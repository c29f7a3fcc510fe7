// `tile.dot` on Hopper warpgroup MMA (wgmma.mma_async, sm_90a only): both
// operands are read by the tensor cores straight from shared memory through
// 64-bit matrix descriptors, the accumulator stays in registers.
//
// Instructions (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-
// Accumulate"), all m64nNk* with N = min(N per warpgroup, 256):
//   f16 x f16 -> f32     k16
//   bf16 x bf16 -> f32   k16
//   f32 x f32 -> f32     k8 .tf32, only for input_precision = tf32
//   i8 x i8 -> i32       k32 .s8, wrapping sums (no .satfinite)
//   f8 x f8 -> f32       k32 .e4m3 (f8E4M3FN) or .e5m2 (f8E5M2), both alike
// Every instruction reads 32 bytes of K per row of A and per column of B.
// f16 accumulators stay on mma.sync (their wgmma fragment packs f16 pairs).
// The tensor core adds fp8 products at less than f32's precision; a dot
// with max_num_imprecise_acc below K sums each run of that many K elements
// from zeros, waits for it and adds it to the accumulator with f32 adds.
//
// Warpgroup tiling: warpgroup g = warp / 4 (four consecutive warps) sits at
// row g / warpgroupsN, column g % warpgroupsN of a warpgroupsM x warpgroupsN
// grid, as many along M as the 64-row instruction tiles allow, and owns a
// contiguous block of tilesM x tilesN instruction tiles. Accumulator register
// r of a thread is register r % (N / 2) of the D fragment of instruction tile
// t = r / (N / 2), t = tn + tilesN * tm. The D fragment of m64nN: warp w of
// the warpgroup holds rows 16w..16w+15; lane l (g = l / 4, q = l % 4) holds
// d_i at row 16w + g + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2q + i % 2 —
// the m16n8 C fragment of mma.sync, repeated over N / 8.
//
// Shared memory: A K-major, as [M, K]. B either K-major, transposed as
// [N, K] (the only layout tf32 and the 8-bit types allow, and the one a B that reaches
// the dot through tile.trans of a [N, K] load already has), or, for 16-bit
// types otherwise, N-major as [K, N] (the instruction's transpose bit), so
// that rows of a row-major B copy straight in. Each buffer is in the
// canonical swizzled layout of the descriptor: its contiguous dimension is
// cut into panels of S bytes (S = min(128, K * bytes) for K-major operands,
// min(128, instruction N * bytes) for an N-major B); panel j holds all lines
// of the other dimension, S bytes each, at byte j * lines * S, and the
// hardware XORs the 16-byte chunk bits [4, 4 + log2(S / 16)) of every
// address with the bits right above the 128-byte line, [7, ...).
// sharedIndex stores each element where that swizzle makes the descriptor
// find it. The XOR works on absolute shared-memory addresses, so both
// buffers must start on a multiple of kWgmmaSharedAlignment bytes (the
// 1024-byte repeat of the 128-byte swizzle).
//
// A tf32 B whose rows of N are contiguous in memory (not given through
// tile.trans) would have to be transposed into the K-major layout, 4 bytes at
// a time. Instead the dot runs swapped, as C^T = B^T A^T (name suffix
// ".swapped"): the instruction's M is the dot's N and its N the dot's M. Its
// A operand is B, N-major in shared memory as a 16-bit B is, loaded into
// registers one commit group of K steps at a time (the wgmma form with A in
// registers has no layout constraint);
// its B operand is A, whose K-major rows are what a transposed B is. The
// accumulator layout is the instruction's D fragment transposed, its rows
// (the dot's columns) permuted so that the fragment loads meet no bank
// conflicts (Wgmma.cpp, kSwappedRowBits). Only where
// the swapped grid exists (N of at least 64 per warpgroup row) and the dot
// is not chained (a row of C^T's transpose spans the warpgroup's warps).
#ifndef TESSERA_LOWERING_GPU_TENSORCORE_WGMMA_H
#define TESSERA_LOWERING_GPU_TENSORCORE_WGMMA_H

#include "lowering/gpu/tensorcore/TensorCore.h"

#include <optional>
#include <string>

namespace tessera::gpu {

/// Alignment, in bytes, that both shared buffers of a wgmma dot must have.
constexpr int64_t kWgmmaSharedAlignment = 1024;

/// The descriptor's swizzle-mode field (bits 62-63).
enum class WgmmaSwizzle : uint8_t { None = 0, Bytes128 = 1, Bytes64 = 2, Bytes32 = 3 };

/// The instruction and the warpgroup grid chosen for one dot.
struct WgmmaPlan {
  /// "wgmma.m64n128k16.bf16": TensorCoreDot::name().
  std::string name;
  int64_t instructionN = 0, instructionK = 0;
  int64_t warpgroupsM = 1, warpgroupsN = 1;
  int64_t tilesM = 1, tilesN = 1;
  /// Width of A's swizzled lines in bytes: 128, 64 or 32.
  int64_t swizzleBytes = 128;
  /// Whether B is stored N-major (else K-major), and its lines' width.
  bool bNMajor = false;
  int64_t bSwizzleBytes = 128;
  /// Whether the dot runs as C^T = B^T A^T (above): then warpgroupsM,
  /// tilesM count along the dot's N and warpgroupsN, tilesN, instructionN
  /// along its M.
  bool swapped = false;
  /// K steps (instructions along K) whose fp8 products the tensor core sums
  /// before they are added to the accumulator in f32 (name suffix
  /// ".promote<K elements>"); 0: every step into the accumulator.
  int64_t promoteEverySteps = 0;
};

/// The descriptor's mode for lines of `swizzleBytes` (128, 64 or 32).
WgmmaSwizzle swizzleMode(int64_t swizzleBytes);

/// The element index of (line, alongIndex) (values of one integer type) in
/// a buffer of `panels` in the canonical swizzled layout above: where
/// wgmma's descriptors read an element and where TMA's swizzle of the same
/// width writes it (or reads it, storing). A constant for constant
/// coordinates.
mlir::Value swizzledPanelIndex(mlir::OpBuilder &builder, mlir::Location loc,
                               const SwizzledPanels &panels, mlir::Value line,
                               mlir::Value alongIndex);

/// The plan for `problem` with `numWarps` warps, or std::nullopt when the
/// target is not sm_90a, the warps do not form whole warpgroups, the types
/// have no wgmma here (see above), a dimension is not a power of two, M gives
/// no warpgroup a 64-row tile, N gives one fewer than 8 columns, K is below
/// the instruction's, or A and B together do not fit in shared memory.
std::optional<WgmmaPlan> planWgmma(const GpuTarget &target, const DotProblem &problem,
                                   unsigned numWarps);

/// The TensorCoreDot for planWgmma's plan, or nullptr when there is none.
std::unique_ptr<TensorCoreDot> selectWgmmaDot(const GpuTarget &target, const DotProblem &problem,
                                              unsigned numWarps);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_TENSORCORE_WGMMA_H

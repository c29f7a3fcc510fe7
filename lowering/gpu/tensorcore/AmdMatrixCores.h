// `tile.dot` on AMD matrix cores: MFMA on CDNA2/CDNA3 (gfx90a, gfx942; wave64)
// and WMMA on RDNA3 (gfx1100; wave32), behind the TensorCoreDot interface.
//
// Every instruction used here has the same operand shape as seen by one
// lane: lane l feeds `kPerLane` consecutive k of row (l % m) of A and of
// column (l % n) of B, starting at k = ((l / m) % kGroups) * kPerLane. MFMA
// spreads k over the 64 / m lane groups (kGroups = 64 / m); RDNA3 WMMA gives
// each lane a whole k-slice (kGroups = 1) and needs lanes 16-31 to repeat
// lanes 0-15, which the formula yields by itself.
//
// The dot is tiled over waves and instruction tiles: waves form a
// warpsM x warpsN grid (wave w is at column w % warpsN, row w / warpsN) and
// each owns a contiguous (M / warpsM) x (N / warpsN) block made of
// tilesM x tilesN instruction tiles. Waves beyond warpsM * warpsN (a dot with
// fewer instruction tiles than waves) compute copies. The accumulator
// register r of a lane is register (r % instructionRegisters) of instruction
// tile t = r / instructionRegisters, with t = tn + tilesN * tm.
//
// Operands live in LDS in "lines" of K elements: the rows of A and the
// columns of B, so that a lane's fragment is contiguous (one vector load per
// 16 bytes). Within a line, units of `swizzleUnit` elements are XOR-swizzled
// by a phase that depends on the line, which spreads the lanes of one LDS
// cycle over distinct banks (see docs/gpu-tensor-cores.md). The buffers
// hold exactly M * K and N * K elements and must be 16-byte aligned.
#ifndef TESSERA_LOWERING_GPU_TENSORCORE_AMDMATRIXCORES_H
#define TESSERA_LOWERING_GPU_TENSORCORE_AMDMATRIXCORES_H

#include "lowering/gpu/tensorcore/TensorCore.h"

#include <optional>

namespace tessera::gpu {

enum class AmdMatrixFamily { Mfma, Wmma };

/// One matrix instruction as one wave sees it.
struct AmdMatrixInstruction {
  AmdMatrixFamily family = AmdMatrixFamily::Mfma;
  /// "mfma.32x32x8.f16": TensorCoreDot::name().
  llvm::StringLiteral name = "";
  int64_t m = 0, n = 0, k = 0;
  /// Operand elements one lane feeds per instruction, consecutive in k.
  int64_t kPerLane = 0;
};

/// The instruction and the wave grid chosen for one dot.
struct AmdDotPlan {
  AmdMatrixInstruction instruction;
  int64_t warpsM = 1, warpsN = 1;
  /// LDS swizzle, the same for A and B: element k of line l is at
  /// l * K + ((k / swizzleUnit) ^ ((l / perPhase) % maxPhase)) * swizzleUnit
  /// + k % swizzleUnit.
  int64_t swizzleUnit = 1, perPhase = 1, maxPhase = 1;
};

/// The plan for `problem` on `target` with `numWarps` waves, or std::nullopt
/// when the target has no matrix instruction for these types or the shape is
/// not a multiple of any instruction's tile (or the operands do not fit in
/// LDS).
std::optional<AmdDotPlan> planAmdMatrixDot(const GpuTarget &target, const DotProblem &problem,
                                           unsigned numWarps);

/// The TensorCoreDot for planAmdMatrixDot's plan, or nullptr when there is none.
std::unique_ptr<TensorCoreDot> selectAmdMatrixDot(const GpuTarget &target,
                                                  const DotProblem &problem, unsigned numWarps);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_TENSORCORE_AMDMATRIXCORES_H

// The register tables of AMD's matrix instructions as the ISA guides state
// them (CDNA3 ISA "Matrix Arithmetic Instructions" and the AMD matrix
// instruction calculator; RDNA3 ISA "Wave Matrix Multiply Accumulate"),
// written independently of lowering/gpu/tensorcore so that tests can hold
// the production layouts and emitted code against them.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_AMDISAMODEL_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_AMDISAMODEL_H

#include "lowering/gpu/tensorcore/AmdMatrixCores.h"

namespace tessera::gpu::testing {

/// A lane and the element of its register vector.
struct Slot {
  unsigned item, lane;
};

/// Where D[i][j] of one instruction lives. CDNA 32x32 (one block):
/// lane j + 32 * ((i / 4) % 2), item i % 4 + 4 * (i / 8). CDNA 16x16:
/// lane j + 16 * (i / 4), item i % 4. RDNA3 16x16 (32-bit D): lane
/// j + 16 * (i % 2), item i / 2.
inline Slot resultSlot(const AmdMatrixInstruction &in, int64_t i, int64_t j) {
  if (in.family == AmdMatrixFamily::Wmma)
    return {static_cast<unsigned>(i / 2), static_cast<unsigned>(j + 16 * (i % 2))};
  if (in.m == 32)
    return {static_cast<unsigned>(i % 4 + 4 * (i / 8)),
            static_cast<unsigned>(j + 32 * ((i / 4) % 2))};
  return {static_cast<unsigned>(i % 4), static_cast<unsigned>(j + 16 * (i / 4))};
}

/// Where A[i][k] (and, with the column for i, B[k][j]) of one instruction
/// lives. CDNA: lane i + m * (k / kPerLane), item k % kPerLane. RDNA3: lane i
/// (lanes 16-31 must hold the same values as lanes 0-15), item k.
inline Slot operandSlot(const AmdMatrixInstruction &in, int64_t line, int64_t k) {
  if (in.family == AmdMatrixFamily::Wmma)
    return {static_cast<unsigned>(k), static_cast<unsigned>(line)};
  return {static_cast<unsigned>(k % in.kPerLane),
          static_cast<unsigned>(line + in.m * (k / in.kPerLane))};
}

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_AMDISAMODEL_H

// A CPU model of one NVIDIA warp running the straight-line code that
// TensorCoreDot::emit produces, for checking its numbers where there is no GPU.
// The 32 lanes execute each op in lock step: index arithmetic, nvgpu.ldmatrix
// (with its exchange of rows between lanes), element loads from shared
// memory (memref.load), vector/LLVM value plumbing and
// nvvm.mma.sync (or, for fp8, the same as inline PTX), whose operand and
// result fragments are placed with the formulas of the PTX ISA ("Matrix
// Fragments for mma.m16n8k*"), written here independently of the emitter.
//
// A value is the list of operand elements it holds: an i32 that packs two bf16
// holds two elements, so bitcasts between such types change nothing.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPSIMULATOR_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPSIMULATOR_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace tessera::gpu::testing {

constexpr unsigned kSimulatedWarpSize = 32;

/// The arguments of the simulated function
/// `(%lane: i32, %warp: i32, %aShared: memref, %bShared: memref, %acc...: T,
///   %a...: A) -> (T...)`.
struct WarpInputs {
  unsigned warp = 0;
  std::vector<double> aShared, bShared;
  /// Bytes of one element of the shared buffers (ldmatrix moves bytes).
  unsigned elementBytes = 2;
  /// acc[lane][register].
  std::vector<std::vector<double>> acc;
  /// A's registers where the function takes A in registers
  /// (TensorCoreDot::emitWithRegisterA), [lane][register]; else empty.
  std::vector<std::vector<double>> aRegisters;
};

struct WarpOutputs {
  /// The returned accumulator, [lane][register].
  std::vector<std::vector<double>> acc;
  /// ldmatrix 8x8 matrices whose eight row addresses do not fall on eight
  /// distinct 16-byte positions of the 128-byte bank line.
  unsigned bankConflictedMatrices = 0;
  unsigned ldmatrixCount = 0, mmaCount = 0;
  /// Element loads from shared memory, and the most distinct 4-byte words
  /// that one of them read from a single bank (1: conflict-free).
  unsigned sharedLoadCount = 0, sharedLoadConflictWays = 0;
};

/// Runs the body of `function` for the 32 lanes of warp `inputs.warp`. Fails
/// on an op it does not model, on an ldmatrix row address that is not 16-byte
/// aligned or runs past its buffer, and on an mma.sync shape or type that is
/// not m16n8k16 f16/bf16, m16n8k8 tf32 or m16n8k32 s8, e4m3 or e5m2.
llvm::Expected<WarpOutputs> simulateWarp(mlir::func::FuncOp function, const WarpInputs &inputs);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPSIMULATOR_H

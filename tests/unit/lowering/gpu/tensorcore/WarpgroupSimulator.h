// A CPU model of one NVIDIA warpgroup (four warps, 128 threads) running the
// straight-line code that the wgmma TensorCoreDot::emit produces, for checking
// its numbers where there is no GPU. The threads execute each op in lock step;
// nvvm.wgmma.mma_async reads A and B from a model of shared memory through its
// two matrix descriptors, as the PTX ISA specifies ("Matrix Descriptor
// Format", the canonical swizzled layouts, K-major and, for a transposed
// 16-bit B, N-major, swizzling applied to absolute shared-memory
// addresses), and places D with the ISA's m64nN
// fragment formula; both written here independently of the emitter. The
// swapped tf32 dot's wgmma, inline PTX with A in registers, takes A from the
// threads' registers with the ISA's A fragment formula; its fragments come
// from ordinary loads (memref.load) of the buffers. Promoted fp8 sums are
// added with arith.addf, in f32.
//
// It also enforces wgmma's ordering rules: shared memory written by ordinary
// stores needs fence.proxy.async before wgmma reads it, accumulator and A
// registers written by ordinary instructions need wgmma.fence before a wgmma
// uses them, a wgmma result may be read only after a commit_group and a
// wait_group that covers it (extractvalue and a wait_group as inline PTX with each output tied
// to its input pass the registers on), and every thread of the warpgroup must
// give the same descriptors.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPGROUPSIMULATOR_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPGROUPSIMULATOR_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tessera::gpu::testing {

constexpr unsigned kWarpgroupThreads = 128;

/// The arguments of the simulated function
/// `(%lane: i32, %warp: i32, %aShared: memref, %bShared: memref, %acc...: T) -> (T...)`.
struct WarpgroupInputs {
  /// Warps 4 * warpgroup .. 4 * warpgroup + 3 run.
  unsigned warpgroup = 0;
  std::vector<double> aShared, bShared;
  /// Bytes of one element of the shared buffers.
  unsigned elementBytes = 2;
  /// Shared-memory byte addresses of the buffers (what
  /// memref.extract_aligned_pointer_as_index yields); they must not overlap.
  uint64_t aAddress = 0, bAddress = 0;
  /// acc[thread of the warpgroup][register].
  std::vector<std::vector<double>> acc;
  /// A's registers where the function takes A in registers (arguments after
  /// the accumulator's), [thread of the warpgroup][register]; else empty.
  std::vector<std::vector<double>> aRegisters;
};

struct WarpgroupOutputs {
  /// The returned accumulator, [thread of the warpgroup][register].
  std::vector<std::vector<double>> acc;
  unsigned wgmmaCount = 0;
};

/// Runs the body of `function` for the 128 threads of warpgroup
/// `inputs.warpgroup`. Fails on an op it does not model, a broken ordering
/// rule, a descriptor that differs between threads, uses an unmodelled
/// layout (no swizzle, a non-zero base offset, transposed operands) or reads
/// outside both buffers.
llvm::Expected<WarpgroupOutputs> simulateWarpgroup(mlir::func::FuncOp function,
                                                   const WarpgroupInputs &inputs);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WARPGROUPSIMULATOR_H

// The target-independent half of every GPU backend: tile IR -> the
// distributed GPU form (gpu.module/gpu.func per kernel, docs/gpu-backends.md),
// which the NVIDIA, AMD and Vulkan pipelines take from there.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINE_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINE_H

#include "lowering/gpu/GpuTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/CommandLine.h"

namespace tessera::gpu {

/// Which loads of a software-pipelined loop that reach a dot only through
/// other ops (a conversion, a scaling: an int8 weight widened to f16) are
/// copied ahead into shared memory, as the dot's operands are, and read back
/// into registers in their iteration (docs/gpu-backends.md, "Loads read
/// back"): spelled cp-async, always and never in pass options.
enum class ReadBackLoads {
  /// Where the target has cp.async, whose copies run while the loop works.
  WithCpAsync,
  /// On every target: elsewhere as loads and shared stores, which gains
  /// nothing but runs the same stages (on lavapipe, in the tests).
  Always,
  /// None: each such load is issued in its iteration (for comparisons).
  Never,
};

/// ReadBackLoads's spellings, for the passes' and the pipeline's options.
inline llvm::cl::ValuesClass readBackLoadsValues() {
  return llvm::cl::values(
      clEnumValN(ReadBackLoads::WithCpAsync, "cp-async", "where the target has cp.async"),
      clEnumValN(ReadBackLoads::Always, "always",
                 "on every target, elsewhere as loads and shared stores"),
      clEnumValN(ReadBackLoads::Never, "never", "none"));
}

struct GpuLoweringOptions {
  /// Warps per program: the block has numWarps * target.warpSize threads.
  unsigned numWarps = 4;
  /// Software-pipelining depth of loops whose loads feed a dot (1: none):
  /// how many iterations' operands are in shared memory at once.
  unsigned numStages = 2;
  /// Whether pipelined loops copy the blocks of host tensor descriptors, and
  /// their stores write them, with TMA on sm_90a (docs/gpu-nvidia.md, "Tensor
  /// maps"): the launch then encodes a tensor map per descriptor
  /// (KernelBinary::tensorMaps). On, as in Python's compile_gpu, the JIT and
  /// `tessera compile` (measured on an H100 and an H200, docs/gpu-nvidia.md);
  /// off, pipelined descriptor blocks are copied with cp.async.
  bool tensorMaps = true;
  /// With tensorMaps: a pipelined loop whose staged blocks TMA copies, and
  /// that follows only scalar work in the kernel, gets a producer warpgroup of its
  /// own, which copies while the numWarps warps compute (docs/gpu-nvidia.md,
  /// "Warp specialization"); the program then has numWarps + 4 warps. Off by
  /// default, as Triton's warp_specialize.
  bool warpSpecialize = false;
  ReadBackLoads readBackLoads = ReadBackLoads::WithCpAsync;
};

/// Inlines device functions, assigns layouts and distributes every kernel of
/// `module` in place. Failures are reported as diagnostics on the offending op.
mlir::LogicalResult lowerTileToGpu(mlir::ModuleOp module, const GpuTarget &target,
                                   const GpuLoweringOptions &options = {});

/// Adds the passes of lowerTileToGpu to `pm` (a pass manager on a module).
void buildTileToGpuPipeline(mlir::OpPassManager &pm, const GpuTarget &target,
                            const GpuLoweringOptions &options);

/// Adds the first half of buildTileToGpuPipeline: inlining, canonicalization
/// and tile-gpu-assign-layouts (what `tessera compile --emit tgpu` shows).
void buildLayoutAssignmentPipeline(mlir::OpPassManager &pm, const GpuTarget &target,
                                   const GpuLoweringOptions &options);

/// Registers tile-gpu-distribute and the pipeline
/// `tile-lower-to-gpu{target=... num-warps=...}`.
void registerGpuDistributionPasses();

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_PIPELINE_H

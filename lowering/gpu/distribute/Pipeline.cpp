#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/distribute/Passes.h"

#include "ir/transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tessera::gpu {

void buildLayoutAssignmentPipeline(OpPassManager &pm, const GpuTarget &target,
                                   const GpuLoweringOptions &options) {
  pm.addPass(createInlinerPass());
  pm.addPass(tile::createTileCombineDotAdd());
  // NVIDIA links libdevice itself; the other targets compute its functions
  // with the math ops that have their own lowerings.
  if (target.vendor != GpuVendor::Nvidia)
    pm.addPass(tile::createTileLibdeviceToMath());
  // fp8 values are stored and multiplied in fp8 where the target's matrix
  // instructions can; they are never computed with, and converted in
  // hardware from Ada on.
  TileGpuWidenFloat8DotsOptions widen;
  widen.target = target.str();
  widen.numWarps = options.numWarps;
  pm.addPass(createTileGpuWidenFloat8Dots(widen));
  pm.addPass(tile::createTileEmulateFloat8Arithmetic());
  if (!target.hasFp8())
    pm.addPass(tile::createTileExpandFloat8Conversions());
  pm.addPass(createCanonicalizerPass());
  // One value for each scalar the source spells twice (`pid_n * BN` in a
  // GEMM's loads and in its store): what tl.assume and the remainders'
  // versioning say of one then holds for every use.
  pm.addPass(tile::createTileMergeScalars());
  // After canonicalization, which hoists a K loop's zero accumulator out of
  // the tile loop: the flattened loop restarts from it. A producer
  // warpgroup's loop keeps the form that redoes the tile's work every step.
  tile::TileFlattenLoopsOptions flatten;
  flatten.carryTileWork = !options.warpSpecialize;
  pm.addPass(tile::createTileFlattenLoops(flatten));
  pm.addPass(createTileGpuTransposeColumnLoads());
  TileGpuPrefetchLoadsOptions prefetch;
  prefetch.target = target.str();
  prefetch.numWarps = options.numWarps;
  prefetch.readBackLoads = options.readBackLoads;
  pm.addPass(createTileGpuPrefetchLoads(prefetch));
  pm.addPass(createTileGpuIssueLoadsEarly());
  TileGpuAssignLayoutsOptions assign;
  assign.target = target.str();
  assign.numWarps = options.numWarps;
  pm.addPass(createTileGpuAssignLayouts(assign));
  // Where the layouts give threads runs of a checked tile (Vulkan's are one
  // element long: its storage buffers are arrays of scalars).
  pm.addPass(createTileGpuVersionSignedRemainders());
  // A conversion that only one branch reads moves into it: a persistent
  // GEMM's epilogue, under `if the tile is done`, converts its accumulator
  // there, and the dot need not finish on the other path.
  pm.addPass(createControlFlowSinkPass());
}

void buildTileToGpuPipeline(OpPassManager &pm, const GpuTarget &target,
                            const GpuLoweringOptions &options) {
  buildLayoutAssignmentPipeline(pm, target, options);
  TileGpuDistributeOptions distribute;
  distribute.numStages = options.numStages;
  distribute.tensorMaps = options.tensorMaps;
  distribute.warpSpecialize = options.warpSpecialize;
  distribute.readBackLoads = options.readBackLoads;
  pm.addPass(createTileGpuDistribute(distribute));
  pm.addPass(createTileGpuElideBarriers());
  // Bottom-up: MLIR 22's top-down traversal took 16 s instead of 0.2 s on a
  // persistent GEMM's distributed body (thousands of ops in nested branches).
  pm.addPass(createCanonicalizerPass(GreedyRewriteConfig().setUseTopDownTraversal(false)));
  pm.addPass(createCSEPass());
}

LogicalResult lowerTileToGpu(ModuleOp module, const GpuTarget &target,
                             const GpuLoweringOptions &options) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildTileToGpuPipeline(pm, target, options);
  return pm.run(module);
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU target: cuda:sm_90a, hip:gfx942, vulkan:1.3:subgroup=32, ..."),
                             llvm::cl::init("cuda:sm_90a")};
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::desc("Warps per program"),
                            llvm::cl::init(4)};
  Option<unsigned> numStages{*this, "num-stages",
                             llvm::cl::desc("Software-pipelining depth of loops feeding dots"),
                             llvm::cl::init(2)};
  Option<bool> tensorMaps{*this, "tensor-maps",
                          llvm::cl::desc("Copy pipelined host-descriptor blocks, and store "
                                         "such blocks, with TMA on sm_90a (false: cp.async "
                                         "and element-wise stores)"),
                          llvm::cl::init(true)};
  Option<bool> warpSpecialize{*this, "warp-specialize",
                              llvm::cl::desc("With tensor-maps: a producer warpgroup copies a "
                                             "pipelined loop's TMA blocks while the others "
                                             "compute"),
                              llvm::cl::init(false)};
  Option<ReadBackLoads> readBackLoads{
      *this, "read-back-loads",
      llvm::cl::desc("Loads of a pipelined loop that reach a dot through other ops, copied "
                     "ahead and read back into registers"),
      llvm::cl::init(ReadBackLoads::WithCpAsync), readBackLoadsValues()};
};
} // namespace

void registerGpuDistributionPasses() {
  registerTileGpuDistribute();
  registerTileGpuElideBarriers();
  PassPipelineRegistration<PipelineOptions>(
      "tile-lower-to-gpu",
      "Lower tile kernels to the distributed GPU form: inline, assign layouts, distribute over "
      "threads (gpu.module/gpu.func per kernel)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        llvm::Expected<GpuTarget> target = GpuTarget::parse(options.target);
        if (!target) {
          // The pipeline callback cannot fail; an unparsable target is
          // reported by the assign pass, which parses the same spec.
          llvm::consumeError(target.takeError());
          TileGpuAssignLayoutsOptions assign;
          assign.target = options.target;
          pm.addPass(createTileGpuAssignLayouts(assign));
          return;
        }
        GpuLoweringOptions lowering;
        lowering.numWarps = options.numWarps;
        lowering.numStages = options.numStages;
        lowering.tensorMaps = options.tensorMaps;
        lowering.warpSpecialize = options.warpSpecialize;
        lowering.readBackLoads = options.readBackLoads;
        buildTileToGpuPipeline(pm, *target, lowering);
      });
}

} // namespace tessera::gpu

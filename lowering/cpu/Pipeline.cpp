#include "lowering/cpu/Pipeline.h"
#include "lowering/cpu/Passes.h"

#include "ir/transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace tessera::cpu {

void buildTileToLLVMCpuPipeline(OpPassManager &pm, const CpuTarget &target) {
  pm.addPass(tile::createTileCombineDotAdd());
  pm.addPass(tile::createTileLibdeviceToMath());
  tile::TileWidenFloat8DotsOptions widen;
  widen.operandType = "f32";
  pm.addPass(tile::createTileWidenFloat8Dots(widen));
  tile::TileEmulateFloat8ArithmeticOptions emulate;
  emulate.bf16 = true;
  pm.addPass(tile::createTileEmulateFloat8Arithmetic(emulate));
  pm.addPass(tile::createTileExpandFloat8Conversions());
  pm.addPass(createTileCpuExpandBf16());
  pm.addPass(createTileCpuPrepareKernels());
  TileCpuLowerTilesOptions lowerOptions;
  lowerOptions.vectorBits = target.vectorBits ? target.vectorBits : 128;
  pm.addPass(createTileCpuLowerTiles(lowerOptions));
  pm.addPass(createTileCpuEmitGridEntry());
  pm.addPass(createTileCpuApproximateMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  TileCpuSplitVectorsOptions splitOptions;
  splitOptions.vectorBits = lowerOptions.vectorBits;
  pm.addPass(createTileCpuSplitVectors(splitOptions));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  // libm calls (f64 erf, ...) are scalar: the vectors they are taken from
  // and put back into are lowered after them.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

LogicalResult lowerTileToLLVM(ModuleOp module, const CpuTarget &target) {
  MLIRContext *ctx = module.getContext();
  // The data layout of the target, when LLVM knows the target.
  std::string dataLayout;
  llvm::InitializeNativeTarget();
  std::string error;
  llvm::Triple triple(target.triple);
  if (const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error)) {
    std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
        triple, target.cpu, target.features, llvm::TargetOptions(), std::nullopt));
    if (machine)
      dataLayout = machine->createDataLayout().getStringRepresentation();
  }

  PassManager pm(ctx, ModuleOp::getOperationName());
  buildTileToLLVMCpuPipeline(pm, target);
  if (failed(pm.run(module)))
    return failure();

  if (!target.triple.empty())
    module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                    StringAttr::get(ctx, target.triple));
  if (!dataLayout.empty())
    module->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(), StringAttr::get(ctx, dataLayout));
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (func.isExternal())
      return;
    if (!target.cpu.empty())
      func.setTargetCpuAttr(StringAttr::get(ctx, target.cpu));
    if (!target.features.empty())
      func.setTargetFeaturesAttr(LLVM::TargetFeaturesAttr::get(ctx, target.features));
  });
  return success();
}

namespace {
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> triple{*this, "triple", llvm::cl::desc("Target triple (default: host)")};
  Option<std::string> cpu{*this, "cpu", llvm::cl::desc("Target CPU (default: host)")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("Target features, e.g. +avx2,+fma (default: host)")};
  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("Vector register width in bits (default: from features)"),
                              llvm::cl::init(0)};
};
} // namespace

void registerCpuLoweringPasses() {
  registerTesseraCpuPasses();
  PassPipelineRegistration<PipelineOptions>(
      "tile-lower-to-llvm-cpu",
      "Lower tile kernels to the LLVM dialect for the CPU (flat vectors, masked memory access, "
      "FMA micro-kernel dot, grid entry points)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        CpuTarget target = CpuTarget::host();
        if (!options.triple.empty())
          target.triple = options.triple;
        if (!options.cpu.empty())
          target.cpu = options.cpu;
        if (!options.features.empty()) {
          target.features = options.features;
          target.vectorBits = CpuTarget::vectorBitsFor(target.features);
        }
        if (options.vectorBits)
          target.vectorBits = options.vectorBits;
        buildTileToLLVMCpuPipeline(pm, target);
      });
}

} // namespace tessera::cpu

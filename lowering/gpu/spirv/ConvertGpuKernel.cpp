// tessera-spirv-convert-gpu-kernel: the prepared gpu.module -> spirv.module,
// in place, with workgroup attributions and unstructured control flow made
// expressible first.
#include "lowering/gpu/spirv/KernelPatterns.h"
#include "lowering/gpu/spirv/Passes.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/IndexToSPIRV/IndexToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessera::gpu::vulkan {
#define GEN_PASS_DEF_TESSERASPIRVCONVERTGPUKERNEL
#include "lowering/gpu/spirv/Passes.h.inc"
} // namespace tessera::gpu::vulkan

using namespace mlir;

namespace {

/// Workgroup attributions become memref.alloc in workgroup memory at the
/// kernel's entry, which MemRef-to-SPIR-V turns into Workgroup variables
/// (the GPU-to-SPIR-V function lowering does not handle attributions).
void materializeWorkgroupAttributions(gpu::GPUFuncOp kernel) {
  unsigned count = kernel.getNumWorkgroupAttributions();
  if (count == 0)
    return;
  Block &entry = kernel.getBody().front();
  unsigned first = kernel.getFirstWorkgroupAttributionIndex();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument attribution = entry.getArgument(first + i);
    Value buffer = memref::AllocOp::create(builder, attribution.getLoc(),
                                           cast<MemRefType>(attribution.getType()));
    attribution.replaceAllUsesWith(buffer);
  }
  entry.eraseArguments(first, count);
  kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                  Builder(kernel).getI64IntegerAttr(0));
  kernel->removeAttr("workgroup_attrib_attrs");
}

/// Lifts cf branches into scf, whose SPIR-V lowering is structured as Vulkan
/// requires; a statically infinite loop ends in a gpu.return it never reaches.
class LiftKernelControlFlow final : public ControlFlowToSCFTransformation {
public:
  FailureOr<Operation *> createUnreachableTerminator(Location loc, OpBuilder &builder,
                                                     Region &region) override {
    if (!isa<gpu::GPUFuncOp>(region.getParentOp()))
      return emitError(loc, "cannot end unreachable code outside a gpu.func");
    return gpu::ReturnOp::create(builder, loc).getOperation();
  }
};

LogicalResult structurizeControlFlow(gpu::GPUFuncOp kernel) {
  if (kernel.getBody().hasOneBlock())
    return success();
  LiftKernelControlFlow lifting;
  DominanceInfo dominance(kernel);
  if (failed(transformCFGToSCF(kernel.getBody(), lifting, dominance)))
    return kernel.emitOpError() << "cannot turn its control flow into structured SPIR-V";
  return success();
}

/// MLIR's scf.for -> SPIR-V lowering hands out a loop's results from a
/// variable that only the loop body writes: a loop that runs zero times
/// yields garbage instead of its initial values (seen as wrong scans on
/// lavapipe). Loops that may not run are therefore wrapped in an scf.if that
/// yields the initial values when they do not.
void guardLoopsThatMayNotRun(gpu::GPUModuleOp gpuModule) {
  SmallVector<scf::ForOp> loops;
  gpuModule.walk([&](scf::ForOp loop) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (loop.getNumResults() > 0 && (!trips || trips->isZero()))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    OpBuilder builder(loop);
    Location loc = loop.getLoc();
    Value runs = arith::CmpIOp::create(
        builder, loc, loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
        loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(builder, loc, loop.getResultTypes(), runs,
                                   /*withElseRegion=*/true);
    loop.getResults().replaceAllUsesWith(guard.getResults());
    Block *then = &guard.getThenRegion().front();
    loop->moveBefore(then, then->end());
    OpBuilder thenEnd = OpBuilder::atBlockEnd(then);
    scf::YieldOp::create(thenEnd, loc, loop.getResults());
    OpBuilder elseEnd = OpBuilder::atBlockEnd(&guard.getElseRegion().front());
    scf::YieldOp::create(elseEnd, loc, loop.getInitArgs());
  }
}

/// math.trunc -> copysign(floor(|x|), x): exact, and -0.0, infinities and
/// NaN come through as trunc gives them.
struct TruncThroughFloor final : OpRewritePattern<math::TruncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TruncOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value magnitude = math::FloorOp::create(
        rewriter, loc, math::AbsFOp::create(rewriter, loc, op.getOperand()));
    rewriter.replaceOpWithNewOp<math::CopySignOp>(op, magnitude, op.getOperand());
    return success();
  }
};

/// Default memory space -> StorageBuffer, #gpu.address_space<workgroup> ->
/// Workgroup, <private> -> Function; numeric spaces by MLIR's Vulkan rule.
std::optional<spirv::StorageClass> vulkanStorageClass(Attribute memorySpace) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(memorySpace)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return spirv::StorageClass::StorageBuffer;
    case gpu::AddressSpace::Workgroup:
      return spirv::StorageClass::Workgroup;
    case gpu::AddressSpace::Private:
      return spirv::StorageClass::Function;
    }
  }
  return spirv::mapMemorySpaceToVulkanStorageClass(memorySpace);
}

struct ConvertGpuKernelPass
    : tessera::gpu::vulkan::impl::TesseraSpirvConvertGpuKernelBase<ConvertGpuKernelPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<gpu::GPUModuleOp> gpuModules;
    for (auto gpuModule : getOperation().getOps<gpu::GPUModuleOp>())
      if (gpuModule->hasAttr(spirv::getTargetEnvAttrName()))
        gpuModules.push_back(gpuModule);
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      if (failed(convert(ctx, gpuModule)))
        return signalPassFailure();
  }

  LogicalResult convert(MLIRContext *ctx, gpu::GPUModuleOp gpuModule) {
    // SPIR-V has no floor or ceiling division, and GLSL.std.450 no erf,
    // erfc, cbrt, atan2, trunc or powers with integer exponents: rewrite
    // them with truncating division and fix-ups, the polynomial
    // approximations the CPU backend also uses, and ops GLSL has. GLSL's
    // Acos and Asin are, but llvmpipe's are off by 1e-4 (relative): those
    // polynomials instead.
    RewritePatternSet expansions(ctx);
    arith::populateCeilFloorDivExpandOpsPatterns(expansions);
    populatePolynomialApproximateErfPattern(expansions);
    populatePolynomialApproximateErfcPattern(expansions);
    populateMathPolynomialApproximationPatterns(
        expansions, [](StringRef op) {
          return op == "math.cbrt" || op == "math.atan2" || op == "math.acos" || op == "math.asin";
        });
    math::populateExpansionPatterns(expansions, {"fpowi"});
    expansions.add<TruncThroughFloor>(ctx);
    if (failed(applyPatternsGreedily(gpuModule, std::move(expansions))))
      return gpuModule.emitError() << "cannot expand the ops SPIR-V lacks";
    guardLoopsThatMayNotRun(gpuModule);
    for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
      materializeWorkgroupAttributions(kernel);
      if (failed(structurizeControlFlow(kernel)))
        return failure();
    }

    spirv::MemorySpaceToStorageClassConverter storageClasses(vulkanStorageClass);
    spirv::convertMemRefTypesAndAttrs(gpuModule, storageClasses);

    auto targetEnv = gpuModule->getAttrOfType<spirv::TargetEnvAttr>(spirv::getTargetEnvAttrName());
    std::unique_ptr<ConversionTarget> target = SPIRVConversionTarget::get(targetEnv);
    SPIRVConversionOptions options;
    // The kernel ABI passes every type as it is: emulating narrow types with
    // wider ones would change the buffers' layout behind the runtime's back.
    // tessera-spirv-prepare-kernel has refused the types the target lacks.
    // fp8 becomes i8, of the same layout; only moves of it are left.
    options.emulateLT32BitScalarTypes = false;
    options.emulateUnsupportedFloatTypes = true;
    options.use64bitIndex = false;
    SPIRVTypeConverter typeConverter(targetEnv, options);
    // gpu.subgroup_mma_* (the cooperative-matrix dot) to the KHR extension;
    // tessera-spirv-prepare-kernel refused them where the target lacks it.
    populateMMAToSPIRVCoopMatrixTypeConversion(typeConverter);

    RewritePatternSet patterns(ctx);
    tessera::gpu::vulkan::populateKernelToSpirvPatterns(typeConverter, patterns);
    populateGPUToSPIRVPatterns(typeConverter, patterns);
    populateGpuWMMAToSPIRVCoopMatrixKHRConversionPatterns(typeConverter, patterns);
    ScfToSPIRVContext scfContext;
    populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
    cf::populateControlFlowToSPIRVPatterns(typeConverter, patterns);
    arith::populateArithToSPIRVPatterns(typeConverter, patterns);
    populateMathToSPIRVPatterns(typeConverter, patterns);
    populateMemRefToSPIRVPatterns(typeConverter, patterns);
    index::populateIndexToSPIRVPatterns(typeConverter, patterns);
    ub::populateUBToSPIRVConversionPatterns(typeConverter, patterns);
    return applyFullConversion(gpuModule, *target, std::move(patterns));
  }
};

} // namespace

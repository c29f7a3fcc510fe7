#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/Diagnostics.h"
#include "lowering/gpu/Passes.h"
#include "lowering/gpu/amd/CodeObject.h"
#include "lowering/gpu/amd/KernelInterface.h"
#include "lowering/gpu/amd/Passes.h"
#include "lowering/gpu/amd/RocmToolkit.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace tessera::gpu::amd {

namespace {

struct SerializedModule {
  std::string assembly;
  SmallVector<char, 0> codeObject;
};

/// Serializes `gpuModule` once to AMDGCN assembly, then assembles and links
/// that text, so that the assembly is exactly what the code object holds
/// (the serializer's binary path would compile the module a second time).
/// Failures are reported as diagnostics.
FailureOr<SerializedModule> serialize(mlir::gpu::GPUModuleOp gpuModule, StringRef toolkit) {
  auto target = cast<ROCDL::ROCDLTargetAttr>(gpuModule.getTargetsAttr()[0]);
  mlir::gpu::TargetOptions options(toolkit, /*librariesToLink=*/{}, /*cmdOptions=*/{},
                                   /*elfSection=*/{}, mlir::gpu::CompilationTarget::Assembly);
  std::optional<SmallVector<char, 0>> isa =
      cast<mlir::gpu::TargetAttrInterface>(target).serializeToObject(gpuModule, options);
  if (!isa)
    return failure();
  SerializedModule result;
  result.assembly.assign(isa->begin(), isa->end());
  auto emitError = [&] { return gpuModule.emitError(); };
  FailureOr<SmallVector<char, 0>> object = ROCDL::assembleIsa(
      result.assembly, target.getTriple(), target.getChip(), target.getFeatures(), emitError);
  if (failed(object))
    return failure();
  // The assembler prints what it rejects (inline assembly that is not GCN)
  // to standard error and returns no object.
  if (object->empty())
    return gpuModule.emitError()
           << "the AMDGPU assembler rejected the kernel's assembly (its messages are on "
              "standard error); inline assembly (tile.inline_asm_elementwise) must be GCN for "
           << target.getChip();
  FailureOr<SmallVector<char, 0>> linked = ROCDL::linkObjectCode(*object, toolkit, emitError);
  if (failed(linked))
    return failure();
  result.codeObject = std::move(*linked);
  return result;
}

llvm::Error compileError(StringRef kernel, const GpuTarget &target, const llvm::Twine &what) {
  return llvm::createStringError("cannot compile kernel '" + kernel + "' for " + target.str() +
                                 ": " + what);
}

} // namespace

void registerAmdLoweringDependencies(DialectRegistry &registry) {
  registry.insert<amdgpu::AMDGPUDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, mlir::gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  ROCDL::ROCDLDialect, scf::SCFDialect, ub::UBDialect,
                  vector::VectorDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

void buildGpuToRocdlPipeline(OpPassManager &pm, const GpuTarget &target,
                             const AmdCompileOptions &options) {
  OpPassManager &gpuModulePM = pm.nest<mlir::gpu::GPUModuleOp>();
  gpuModulePM.addPass(createAmdCheckTarget(AmdCheckTargetOptions{target.chip}));
  gpuModulePM.addPass(createTesseraGpuBarePointerArgs());
  gpuModulePM.addPass(createSCFToControlFlowPass());
  gpuModulePM.addPass(createArithToAMDGPUConversionPass(
      ArithToAMDGPUConversionPassOptions{target.chip, /*saturateFP8Truncf=*/false,
                                         /*allowPackedF16Rtz=*/false}));
  gpuModulePM.addPass(createConvertAMDGPUToROCDLPass(ConvertAMDGPUToROCDLPassOptions{target.chip}));
  // ocml has f16, f32 and f64 functions: math on bf16 (tl.exp of a bf16
  // tile) is computed in f32 and rounded once, as NVIDIA's is.
  math::MathExtendToSupportedTypesOptions extend;
  extend.extraTypeStrs = {"f16"};
  gpuModulePM.addPass(math::createMathExtendToSupportedTypes(extend));
  ConvertGpuOpsToROCDLOpsOptions toRocdl;
  toRocdl.chipset = target.chip;
  // 32-bit indices with gpu.block_dim produce invalid LLVM IR in MLIR 22.
  toRocdl.indexBitwidth = 64;
  toRocdl.useBarePtrCallConv = true;
  toRocdl.runtime = mlir::gpu::amd::Runtime::HIP;
  // The dialects whose to-LLVM interfaces registerAmdLoweringDependencies
  // registers: after an NVIDIA compile in the same context the pass would
  // also take NVVM's (math to libdevice and llvm.tanh, which AMDGPU cannot
  // select: "no libcall available for ftanh", a fatal LLVM error).
  toRocdl.allowedDialects = {"arith", "cf", "func", "index", "math", "memref", "ub", "vector"};
  gpuModulePM.addPass(createConvertGpuOpsToROCDLOps(toRocdl));

  GpuROCDLAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.optLevel = options.optLevel;
  attach.abiVersion = std::to_string(options.codeObjectVersion);
  // Selects the device libraries' wave-size-dependent code; the code
  // generator picks the chip's native wave size (64 on CDNA, 32 on RDNA3).
  attach.wave64Flag = target.warpSize == 64;
  pm.addPass(createGpuROCDLAttachTarget(attach));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

llvm::Expected<KernelBinary> compileForAmd(ModuleOp distributed, const GpuTarget &target,
                                           const AmdCompileOptions &options) {
  MLIRContext *context = distributed.getContext();
  DialectRegistry registry;
  registerAmdLoweringDependencies(registry);
  context->appendDialectRegistry(registry);
  DiagnosticCollector diagnostics(context);

  FailureOr<mlir::gpu::GPUModuleOp> sourceModule = findKernelModule(distributed);
  FailureOr<KernelInterface> interface = failure();
  if (succeeded(sourceModule))
    interface = readKernelInterface(*sourceModule);
  if (failed(interface))
    return llvm::createStringError("not a kernel in the distributed GPU form:" +
                                   diagnostics.take());
  std::string kernelName = interface->kernel.getName().str();
  if (target.vendor != GpuVendor::Amd)
    return compileError(kernelName, target, "not an AMD target");
  if (options.optLevel > 3)
    return compileError(kernelName, target,
                        "optimization level " + llvm::Twine(options.optLevel) +
                            " is not supported (0 to 3)");
  if (options.codeObjectVersion != 500 && options.codeObjectVersion != 600)
    return compileError(kernelName, target,
                        "code object version " + llvm::Twine(options.codeObjectVersion) +
                            " is not supported (500 or 600)");

  std::string toolkit = options.rocmPath;
  if (toolkit.empty()) {
    llvm::Expected<std::string> staged = stageRocmToolkit();
    if (!staged)
      return compileError(kernelName, target, llvm::toString(staged.takeError()));
    toolkit = *staged;
  }

  OwningOpRef<ModuleOp> module(distributed.clone());
  PassManager pm(context, ModuleOp::getOperationName());
  buildGpuToRocdlPipeline(pm, target, options);
  if (failed(pm.run(*module)))
    return compileError(kernelName, target, "lowering to ROCDL failed:" + diagnostics.take());

  FailureOr<SerializedModule> serialized = serialize(*findKernelModule(*module), toolkit);
  if (failed(serialized))
    return compileError(kernelName, target,
                        "AMDGCN code generation, assembly or linking failed:" +
                            diagnostics.take());

  KernelBinary binary;
  binary.target = target;
  binary.kernelName = kernelName;
  binary.binary.assign(serialized->codeObject.begin(), serialized->codeObject.end());
  binary.assembly = std::move(serialized->assembly);
  binary.blockThreads = interface->blockThreads;
  binary.dynamicSharedMemoryBytes = interface->dynamicSharedMemoryBytes;

  llvm::Expected<CodeObject> codeObject = readCodeObject(binary.binary);
  if (!codeObject)
    return compileError(kernelName, target, llvm::toString(codeObject.takeError()));
  if (!codeObject->undefinedSymbols.empty())
    return compileError(kernelName, target,
                        "the code object calls functions no device library defines: " +
                            llvm::join(codeObject->undefinedSymbols, ", ") +
                            " (an operation without an ocml/ockl implementation)");
  const KernelMetadata *metadata = codeObject->findKernel(kernelName);
  if (!metadata)
    return compileError(kernelName, target, "the code object's metadata lacks the kernel");
  if (metadata->wavefrontSize != int(target.warpSize))
    return compileError(kernelName, target,
                        "the code object runs in waves of " +
                            llvm::Twine(metadata->wavefrontSize) + " threads, not " +
                            llvm::Twine(target.warpSize));
  binary.usage = metadata->resourceUsage();
  binary.usage.report = codeObject->metadataYaml;
  return binary;
}

namespace {
struct GpuToRocdlPipelineOptions : public PassPipelineOptions<GpuToRocdlPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("AMD chip: gfx90a, gfx942 or gfx1100"),
                           llvm::cl::init("gfx942")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("AMDGPU code generator optimization level"),
                            llvm::cl::init(3)};
  Option<unsigned> abi{*this, "abi", llvm::cl::desc("Code object version: 500 or 600"),
                       llvm::cl::init(500)};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Also serialize with gpu-module-to-binary: isa (AMDGCN assembly) or bin "
                     "(HSACO); empty: stop at the ROCDL dialect"),
      llvm::cl::init("")};
};
} // namespace

void registerAmdLoweringPasses() {
  registerTesseraGpuAmdPasses();
  registerPassPipeline(
      "tessera-gpu-to-rocdl",
      "Lower a kernel in the distributed GPU form to ROCDL for one AMD chip (and, with "
      "format=isa|bin, to AMDGCN assembly or an HSACO code object)",
      [](OpPassManager &pm, StringRef text, function_ref<LogicalResult(const llvm::Twine &)> error) {
        GpuToRocdlPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        llvm::Expected<GpuTarget> target = GpuTarget::parse("hip:" + options.chip);
        if (!target)
          return error(llvm::toString(target.takeError()));
        if (options.abi != 500 && options.abi != 600)
          return error("abi must be 500 or 600, got " + llvm::Twine(options.abi.getValue()));
        AmdCompileOptions compileOptions;
        compileOptions.optLevel = options.optLevel;
        compileOptions.codeObjectVersion = options.abi;
        buildGpuToRocdlPipeline(pm, *target, compileOptions);
        if (options.format.empty())
          return success();
        if (options.format != "isa" && options.format != "bin")
          return error("format must be isa or bin, got '" + options.format.getValue() + "'");
        llvm::Expected<std::string> toolkit = stageRocmToolkit();
        if (!toolkit)
          return error(llvm::toString(toolkit.takeError()));
        GpuModuleToBinaryPassOptions binaryOptions;
        binaryOptions.toolkitPath = *toolkit;
        binaryOptions.compilationTarget = options.format;
        pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(GpuToRocdlPipelineOptions());
      });
}

} // namespace tessera::gpu::amd

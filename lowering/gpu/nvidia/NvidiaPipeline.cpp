#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "lowering/gpu/Diagnostics.h"
#include "lowering/gpu/Passes.h"

#include "lowering/gpu/nvidia/CudaToolkit.h"
#include "lowering/gpu/nvidia/Passes.h"
#include "lowering/gpu/nvidia/TensorMapParams.h"
#include "lowering/gpu/nvidia/Ptxas.h"
#include "lowering/gpu/nvidia/PtxEmitter.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace tessera::gpu {

namespace {

/// The dialects of the distributed form and of its lowering, and the
/// interfaces convert-gpu-to-nvvm and the LLVM IR translation look up.
void addNvidiaDialects(DialectRegistry &registry) {
  registry.insert<mlir::gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect,
                  LLVM::LLVMDialect, memref::MemRefDialect, vector::VectorDialect,
                  arith::ArithDialect, math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  index::IndexDialect, ub::UBDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

/// The kernel of the distributed form and what a launch of it needs.
struct KernelFacts {
  mlir::gpu::GPUFuncOp kernel;
  unsigned blockThreads = 0;
  unsigned dynamicSharedMemoryBytes = 0;
  std::vector<TensorMapParam> tensorMaps;
};

constexpr unsigned kMaxThreadsPerBlock = 1024;

llvm::Expected<KernelFacts> findKernel(ModuleOp module, const GpuTarget &target) {
  SmallVector<mlir::gpu::GPUFuncOp> kernels;
  unsigned gpuModules = 0;
  for (auto gpuModule : module.getOps<mlir::gpu::GPUModuleOp>()) {
    ++gpuModules;
    for (auto func : gpuModule.getOps<mlir::gpu::GPUFuncOp>())
      if (func.isKernel())
        kernels.push_back(func);
  }
  if (gpuModules != 1 || kernels.size() != 1)
    return llvm::createStringError(
        llvm::formatv("compileForNvidia({0}) takes the distributed GPU form: one gpu.module holding "
                      "one gpu.func kernel; the module has {1} gpu.module(s) and {2} kernel(s)",
                      target.str(), gpuModules, kernels.size())
            .str());

  KernelFacts facts;
  facts.kernel = kernels.front();
  std::string where = ("kernel '" + facts.kernel.getName() + "' for " + target.str()).str();
  DenseI32ArrayAttr blockSize = facts.kernel.getKnownBlockSizeAttr();
  if (!blockSize)
    return llvm::createStringError(where + ": the gpu.func has no known_block_size; the distributed "
                                           "form gives every kernel known_block_size = "
                                           "array<i32: T, 1, 1> with T = num_warps * 32");
  llvm::ArrayRef<int32_t> size = blockSize.asArrayRef();
  if (size[0] <= 0 || size[1] != 1 || size[2] != 1)
    return llvm::createStringError(llvm::formatv("{0}: known_block_size ({1}, {2}, {3}) is not "
                                                 "(T, 1, 1) with T > 0",
                                                 where, size[0], size[1], size[2])
                                       .str());
  if (unsigned(size[0]) > kMaxThreadsPerBlock)
    return llvm::createStringError(llvm::formatv("{0}: {1} threads per block exceed NVIDIA's limit "
                                                 "of {2} (num_warps <= 32)",
                                                 where, size[0], kMaxThreadsPerBlock)
                                       .str());
  facts.blockThreads = unsigned(size[0]);

  if (Attribute attr = facts.kernel->getAttr("tessera.shared_memory_bytes")) {
    auto bytes = dyn_cast<IntegerAttr>(attr);
    if (!bytes || bytes.getValue().isNegative())
      return llvm::createStringError(where + ": tessera.shared_memory_bytes must be a "
                                             "non-negative integer");
    if (bytes.getValue().ugt(target.maxSharedMemoryBytes))
      return llvm::createStringError(
          llvm::formatv("{0}: the kernel needs {1} bytes of shared memory; {2} gives a block at "
                        "most {3}",
                        where, bytes.getValue().getZExtValue(), target.chip,
                        target.maxSharedMemoryBytes)
              .str());
    facts.dynamicSharedMemoryBytes = unsigned(bytes.getValue().getZExtValue());
  }
  llvm::Expected<std::vector<TensorMapParam>> tensorMaps = tensorMapParamsOf(facts.kernel);
  if (!tensorMaps)
    return llvm::createStringError(where + ": " + llvm::toString(tensorMaps.takeError()));
  facts.tensorMaps = std::move(*tensorMaps);
  return facts;
}

/// After the lowering only LLVM and NVVM ops may remain: anything else has
/// no lowering for this target and would only fail later, less clearly.
LogicalResult checkFullyLowered(mlir::gpu::GPUModuleOp module, const GpuTarget &target) {
  WalkResult walk = module.walk([&](Operation *op) {
    if (op == module.getOperation() || isa<LLVM::LLVMDialect, NVVM::NVVMDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName() << "' has no lowering to NVVM for " << target.str();
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// libdevice functions the PTX still declares instead of defining.
SmallVector<llvm::StringRef> unresolvedLibdeviceCalls(llvm::StringRef ptx) {
  SmallVector<llvm::StringRef> calls;
  llvm::StringRef rest = ptx;
  for (size_t at; (at = rest.find(".extern .func")) != llvm::StringRef::npos;) {
    rest = rest.drop_front(at);
    llvm::StringRef line = rest.take_until([](char c) { return c == '\n'; });
    if (size_t name = line.find("__nv_"); name != llvm::StringRef::npos)
      calls.push_back(line.drop_front(name).take_while(
          [](char c) { return llvm::isAlnum(c) || c == '_'; }));
    rest = rest.drop_front(line.size());
  }
  return calls;
}

/// Registers a thread of a block of `blockThreads` may hold when the block has
/// the multiprocessor to itself (64K registers; 255 at most per thread).
int registerShareOfOneBlock(unsigned blockThreads) {
  return std::min<int>(255, 65536 / std::max(1u, blockThreads));
}

} // namespace

void buildGpuToNvvmPipeline(OpPassManager &pm, const NvvmLoweringOptions &options) {
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  // An empty feature string lets LLVM pick the lowest PTX version the chip
  // allows; a fixed one (MLIR's default +ptx60) is refused for sm_75+. The
  // fp8 instructions need PTX 8.4, above LLVM's lowest for sm_89 and sm_90[a]
  // (7.8, 8.0; later chips start above it); the cubin, not the PTX, runs.
  GpuTarget chip;
  chip.chip = options.chip;
  attach.features = chip.hasFp8() && chip.computeCapability() < 100 ? "+ptx84" : "";
  attach.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));

  OpPassManager &device = pm.nest<mlir::gpu::GPUModuleOp>();
  device.addPass(createTesseraGpuBarePointerArgs());
  device.addPass(createTesseraNvgpuFloat8LdMatrix());
  device.addPass(createTesseraNvvmFloat8Conversions());
  TesseraNvvmByteToFloatOptions bytes;
  bytes.bf16Subtraction = chip.hasBf16Subtraction();
  device.addPass(createTesseraNvvmByteToFloat(bytes));
  device.addPass(createConvertNVGPUToNVVMPass());
  device.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.useBarePtrCallConv = true;
  toNvvm.hasRedux = true; // redux.sync: every supported chip is sm_80 or newer.
  // The dialects whose to-LLVM interfaces addNvidiaDialects registers: the
  // pass would also take those another target registered in this context
  // (the AMD pipeline's math to llvm.* intrinsics), and its code would then
  // depend on what the process compiled before.
  toNvvm.allowedDialects = {"arith", "cf", "func", "index", "memref", "nvvm", "ub", "vector"};
  device.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  // NVVM ops without an LLVM intrinsic (nvvm.wgmma.mma_async) become inline PTX.
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(createTesseraNvvmExternDynamicSharedMemory());
  device.addPass(createTesseraNvvmTensorMapParams());
  // Before canonicalization, so the descriptors of tessera-gpu-bare-pointer-args
  // meet their extractions and fold away.
  device.addPass(createReconcileUnrealizedCastsPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
}

llvm::Expected<KernelBinary> compileForNvidia(ModuleOp distributed, const GpuTarget &target,
                                              const NvidiaCompileOptions &options) {
  if (target.vendor != GpuVendor::Nvidia)
    return llvm::createStringError("compileForNvidia needs an NVIDIA target, got " + target.str());
  if (options.optLevel > 3)
    return llvm::createStringError("compileForNvidia: optLevel is 0 to 3, got " +
                                   std::to_string(options.optLevel));
  llvm::Expected<KernelFacts> facts = findKernel(distributed, target);
  if (!facts)
    return facts.takeError();
  std::string kernelName = facts->kernel.getName().str();
  std::string where = "kernel '" + kernelName + "' for " + target.str();

  MLIRContext *context = distributed.getContext();
  DialectRegistry registry;
  addNvidiaDialects(registry);
  context->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> work(distributed.clone());
  DiagnosticCollector diagnostics(context);
  auto failedWith = [&](llvm::StringRef step) {
    return llvm::createStringError(where + ": " + step + " failed:" + diagnostics.take());
  };

  PassManager pm(context, ModuleOp::getOperationName());
  buildGpuToNvvmPipeline(pm, {target.chip, options.optLevel});
  if (failed(pm.run(*work)))
    return failedWith("lowering to NVVM");
  auto gpuModule = *work->getOps<mlir::gpu::GPUModuleOp>().begin();
  if (failed(checkFullyLowered(gpuModule, target)))
    return failedWith("lowering to NVVM");

  auto entry = gpuModule.lookupSymbol<LLVM::LLVMFuncOp>(kernelName);
  if (!entry)
    return llvm::createStringError(where + ": the lowering lost the kernel's llvm.func");
  if (options.maxRegisters) {
    // As `.maxnreg` in the PTX: ptxas ignores -maxrregcount for kernels whose
    // `.maxntid` (from known_block_size) allows more registers.
    entry->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                   Builder(context).getI32IntegerAttr(int32_t(options.maxRegisters)));
  }

  CudaToolkit toolkit = CudaToolkit::locate(options.cudaRoot);
  auto emitChecked = [&]() -> llvm::Expected<std::string> {
    FailureOr<std::string> ptx = emitPtx(gpuModule, toolkit, options.fpFusion);
    if (failed(ptx))
      return failedWith("PTX generation");
    if (SmallVector<llvm::StringRef> calls = unresolvedLibdeviceCalls(*ptx); !calls.empty())
      return llvm::createStringError(where + ": the PTX still declares " +
                                     llvm::join(calls, ", ") + " (libdevice was not linked)");
    return std::move(*ptx);
  };
  auto binaryOf = [&](std::string ptx) {
    KernelBinary binary;
    binary.target = target;
    binary.kernelName = kernelName;
    binary.assembly = std::move(ptx);
    binary.blockThreads = facts->blockThreads;
    binary.dynamicSharedMemoryBytes = facts->dynamicSharedMemoryBytes;
    binary.tensorMaps = std::move(facts->tensorMaps);
    return binary;
  };

  llvm::Expected<std::string> ptxas = toolkit.ptxas();
  if (!ptxas) {
    std::string why = llvm::toString(ptxas.takeError());
    // A ptxas the user named must be there; without any, a machine with a
    // driver but no CUDA toolkit (a pip-installed PyTorch's) still runs the
    // kernel through the driver's JIT.
    if (CudaToolkit::ptxasNamed())
      return llvm::createStringError(where + ": " + why);
    llvm::Expected<std::string> ptx = emitChecked();
    if (!ptx)
      return ptx.takeError();
    KernelBinary binary = binaryOf(std::move(*ptx));
    binary.binary.assign(binary.assembly.begin(), binary.assembly.end());
    binary.binary.push_back(0);
    binary.ptxForDriverJit = true;
    binary.usage.report = "no ptxas, so the driver's JIT compiles this PTX when it is loaded (" +
                          llvm::StringRef(why).split('\n').first.str() + ")";
    return binary;
  }
  struct Build {
    std::string ptx;
    PtxasOutput assembled;
  };
  auto emitAndAssemble = [&]() -> llvm::Expected<Build> {
    llvm::Expected<std::string> ptx = emitChecked();
    if (!ptx)
      return ptx.takeError();
    llvm::Expected<PtxasOutput> assembled =
        assembleWithPtxas(*ptxas, *ptx, kernelName, {target.assembledChip(), options.optLevel});
    if (!assembled)
      return assembled.takeError();
    return Build{std::move(*ptx), std::move(*assembled)};
  };
  llvm::Expected<Build> build = emitAndAssemble();
  if (!build)
    return build.takeError();
  // Where a block's values do not fit the registers that would let a second
  // block share the multiprocessor, ptxas may spill down to far fewer (32 at
  // 512 threads, as if for four blocks). Such a kernel is assembled again
  // with `.minnctapersm 1`, which lets it take the whole register file, and
  // the build that spills less is kept. Kernels that fit keep ptxas's choice
  // and the room for a second block.
  const ResourceUsage &usage = build->assembled.usage;
  if (!options.maxRegisters && usage.spillStoreBytes > 0 &&
      usage.registers < registerShareOfOneBlock(facts->blockThreads)) {
    entry->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), Builder(context).getI32IntegerAttr(1));
    llvm::Expected<Build> roomier = emitAndAssemble();
    if (!roomier)
      return roomier.takeError();
    if (roomier->assembled.usage.spillStoreBytes < usage.spillStoreBytes)
      build = std::move(roomier);
  }
  PtxasOutput &assembled = build->assembled;
  int staticShared = std::max(assembled.usage.sharedMemoryBytes, 0);
  if (uint64_t(staticShared) + facts->dynamicSharedMemoryBytes > target.maxSharedMemoryBytes)
    return llvm::createStringError(
        llvm::formatv("{0}: {1} bytes of static and {2} of dynamic shared memory exceed the {3} "
                      "bytes a block may use on {4}",
                      where, staticShared, facts->dynamicSharedMemoryBytes,
                      target.maxSharedMemoryBytes, target.chip)
            .str());

  KernelBinary binary = binaryOf(std::move(build->ptx));
  binary.binary = std::move(assembled.cubin);
  binary.usage = std::move(assembled.usage);
  return binary;
}

namespace {
struct GpuToNvvmPipelineOptions : public PassPipelineOptions<GpuToNvvmPipelineOptions> {
  Option<std::string> chip{
      *this, "chip", llvm::cl::desc("NVIDIA architecture: sm_80 ... sm_90a, sm_100 ... sm_121"),
      llvm::cl::init("sm_90a")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level recorded in #nvvm.target"),
                            llvm::cl::init(3)};
};
} // namespace

void registerNvidiaLowering(DialectRegistry &registry) {
  addNvidiaDialects(registry);
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerTesseraGpuNvidiaPasses();
    // The pieces of the pipeline that lit tests also run on their own.
    registerGpuNVVMAttachTarget();
    registerGpuModuleToBinaryPass();
    registerPassPipeline(
        "tessera-gpu-to-nvvm",
        "Lower the distributed GPU form to the LLVM and NVVM dialects for an NVIDIA chip "
        "(bare-pointer kernel arguments, nvgpu/gpu/arith/math/scf/memref/vector to NVVM/LLVM)",
        [](OpPassManager &pm, llvm::StringRef text,
           llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler) {
          GpuToNvvmPipelineOptions options;
          if (failed(options.parseFromString(text)))
            return failure();
          if (llvm::Expected<GpuTarget> target = GpuTarget::parse("cuda:" + options.chip); !target)
            return errorHandler("tessera-gpu-to-nvvm: " + llvm::toString(target.takeError()));
          if (options.optLevel > 3)
            return errorHandler("tessera-gpu-to-nvvm: opt-level is 0 to 3");
          buildGpuToNvvmPipeline(pm, {options.chip, options.optLevel});
          return success();
        },
        [](llvm::function_ref<void(const detail::PassOptions &)> handler) {
          handler(GpuToNvvmPipelineOptions());
        });
  });
}

} // namespace tessera::gpu

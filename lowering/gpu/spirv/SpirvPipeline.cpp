#include "lowering/gpu/spirv/SpirvPipeline.h"
#include "lowering/gpu/Diagnostics.h"
#include "lowering/gpu/spirv/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;

namespace tessera::gpu::vulkan {
namespace {

void addPipeline(OpPassManager &pm, StringRef targetSpec, ArrayRef<std::string> without) {
  // f16 math (exp, log, tanh, ...) is computed in f32 and rounded once, as
  // on the other backends: Vulkan allows GLSL's f16 functions errors of
  // many ulps, which lavapipe shows.
  pm.addNestedPass<mlir::gpu::GPUModuleOp>(math::createMathExtendToSupportedTypes());
  TesseraSpirvPrepareKernelOptions prepare;
  prepare.target = targetSpec.str();
  prepare.without = llvm::to_vector(without);
  pm.addPass(createTesseraSpirvPrepareKernel(prepare));
  pm.addPass(createTesseraSpirvConvertGpuKernel());
  OpPassManager &spirvModule = pm.nest<spirv::ModuleOp>();
  spirvModule.addPass(createTesseraSpirvKernelAbi());
  spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spirvModule.addPass(createCanonicalizerPass());
  spirvModule.addPass(createCSEPass());
  spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
  spirvModule.addPass(createTesseraSpirvFinalizeModule());
}

struct GpuToSpirvPipelineOptions : PassPipelineOptions<GpuToSpirvPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("The Vulkan target (vulkan:1.3:subgroup=8)"),
                             llvm::cl::init("vulkan:1.3")};
  ListOption<std::string> without{*this, "without",
                                  llvm::cl::desc("Device features to treat as absent")};
};

std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return name;
}

/// The ABI of the kernel, from its gpu.func signature (the same rule
/// tessera-spirv-kernel-abi applies to the converted one). Boolean buffers
/// are byte buffers, as SPIR-V stores them.
llvm::Expected<VulkanKernelAbi> abiOf(mlir::gpu::GPUFuncOp kernel) {
  SmallVector<VulkanArgumentShape> shapes;
  for (Type type : kernel.getArgumentTypes()) {
    VulkanArgumentShape shape;
    Type element = type;
    if (auto memref = dyn_cast<MemRefType>(type)) {
      shape.isBuffer = true;
      element = memref.getElementType();
    }
    if (element.isInteger(1))
      element = IntegerType::get(kernel.getContext(), 8);
    shape.type = typeName(element);
    shape.bytes = element.getIntOrFloatBitWidth() / 8;
    shapes.push_back(shape);
  }
  return VulkanKernelAbi::layout(shapes);
}

} // namespace

void buildGpuToSpirvPipeline(OpPassManager &pm, const GpuTarget &target,
                             const VulkanFeatures &features) {
  addPipeline(pm, target.str(), features.disabledNames());
}

llvm::Expected<VulkanKernel> compileForVulkan(ModuleOp distributed, const GpuTarget &target,
                                              const VulkanFeatures &features) {
  if (target.vendor != GpuVendor::Vulkan)
    return llvm::createStringError("compileForVulkan needs a Vulkan target, not " + target.str());
  MLIRContext *ctx = distributed.getContext();
  OwningOpRef<ModuleOp> module(distributed.clone());

  mlir::gpu::GPUFuncOp kernel;
  module->walk([&](mlir::gpu::GPUFuncOp func) {
    if (func.isKernel() && !kernel)
      kernel = func;
  });
  std::string kernelName = kernel ? kernel.getName().str() : std::string("<none>");
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("cannot compile kernel '" + kernelName + "' for " +
                                   target.str() + ":" + why);
  };

  VulkanKernel result;
  std::array<unsigned, 3> workgroupSize = {1, 1, 1};
  if (kernel) {
    llvm::Expected<VulkanKernelAbi> abi = abiOf(kernel);
    if (!abi)
      return fail("\n  " + llvm::toString(abi.takeError()));
    result.abi = std::move(*abi);
    if (std::optional<ArrayRef<int32_t>> blockSize = kernel.getKnownBlockSize())
      for (unsigned i = 0; i < 3; ++i)
        workgroupSize[i] = (*blockSize)[i];
  }

  DiagnosticCollector diagnostics(ctx);
  PassManager pm(ctx, ModuleOp::getOperationName());
  buildGpuToSpirvPipeline(pm, target, features);
  if (failed(pm.run(*module)))
    return fail(diagnostics.take());

  auto spirvModules = llvm::to_vector(module->getOps<spirv::ModuleOp>());
  if (spirvModules.size() != 1)
    return fail("\n  the lowering produced " + llvm::Twine(spirvModules.size()) + " spirv.modules");
  spirv::ModuleOp spirvModule = spirvModules.front();
  SmallVector<uint32_t> words;
  if (failed(spirv::serialize(spirvModule, words)))
    return fail(diagnostics.take());

  KernelBinary &binary = result.binary;
  binary.target = target;
  binary.kernelName = kernelName;
  binary.binary.resize(words.size() * sizeof(uint32_t));
  std::memcpy(binary.binary.data(), words.data(), binary.binary.size());
  llvm::raw_string_ostream(binary.assembly) << spirvModule;
  binary.blockThreads = workgroupSize[0] * workgroupSize[1] * workgroupSize[2];
  binary.dynamicSharedMemoryBytes = 0;
  binary.usage.sharedMemoryBytes = int(workgroupMemoryBytes(spirvModule).value_or(0));
  result.workgroupSize = workgroupSize;

  spirv::VerCapExtAttr triple = *spirvModule.getVceTriple();
  result.spirvVersion = 0x00010000u | (static_cast<uint32_t>(triple.getVersion()) << 8);
  for (spirv::Capability capability : triple.getCapabilities())
    result.capabilities.push_back(spirv::stringifyCapability(capability).str());
  for (spirv::Extension extension : triple.getExtensions())
    result.extensions.push_back(spirv::stringifyExtension(extension).str());
  return result;
}

void registerSpirvLoweringPasses() {
  registerTesseraGpuSpirvPasses();
  PassPipelineRegistration<GpuToSpirvPipelineOptions>(
      "tessera-gpu-to-spirv",
      "Lower the distributed GPU form of a kernel to a finished spirv.module for Vulkan compute",
      [](OpPassManager &pm, const GpuToSpirvPipelineOptions &options) {
        addPipeline(pm, options.target, options.without);
      });
}

void registerSpirvLoweringDialects(DialectRegistry &registry) {
  registry.insert<mlir::gpu::GPUDialect, spirv::SPIRVDialect, memref::MemRefDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect, index::IndexDialect,
                  ub::UBDialect>();
}

} // namespace tessera::gpu::vulkan

#include "lowering/gpu/Compile.h"
#include "lowering/gpu/Diagnostics.h"
#include "lowering/gpu/DistributedFormAttrs.h"

#include "ir/TileDialect.h"
#include "lowering/gpu/spirv/SpirvPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;

namespace tessera::gpu {

namespace {

struct StageName {
  llvm::StringLiteral name;
  GpuStage stage;
  /// The vendor whose pipeline produces it; none for the shared stages.
  std::optional<GpuVendor> vendor;
};

constexpr StageName kStageNames[] = {
    {"tgpu", GpuStage::Layouts, std::nullopt},
    {"gpu", GpuStage::Distributed, std::nullopt},
    {"ptx", GpuStage::Assembly, GpuVendor::Nvidia},
    {"cubin", GpuStage::Binary, GpuVendor::Nvidia},
    {"amdgcn", GpuStage::Assembly, GpuVendor::Amd},
    {"hsaco", GpuStage::Binary, GpuVendor::Amd},
    {"spirv", GpuStage::Assembly, GpuVendor::Vulkan},
    {"spv", GpuStage::Binary, GpuVendor::Vulkan},
};

llvm::Error compileError(llvm::StringRef kernel, const GpuTarget &target, const llvm::Twine &what) {
  return llvm::createStringError("cannot compile kernel '" + kernel + "' for " + target.str() +
                                 ": " + what);
}

/// A clone of `module` in which `kernel` is the only kernel: the distribution
/// takes modules of one kernel. Device functions stay for the inliner.
llvm::Expected<OwningOpRef<ModuleOp>> isolateKernel(ModuleOp module, llvm::StringRef kernel,
                                                    const GpuTarget &target) {
  SmallVector<std::string> kernels;
  bool found = false;
  for (auto func : module.getOps<tile::FuncOp>()) {
    if (!func.isKernel())
      continue;
    kernels.push_back(func.getSymName().str());
    found |= func.getSymName() == kernel;
  }
  if (!found) {
    std::string listing = kernels.empty() ? std::string("the module has no kernel")
                                          : "its kernels: " + llvm::join(kernels, ", ");
    return compileError(kernel, target, "no such kernel in the module (" + listing + ")");
  }

  OwningOpRef<ModuleOp> clone(module.clone());
  for (auto func : llvm::make_early_inc_range(clone->getOps<tile::FuncOp>()))
    if (func.isKernel() && func.getSymName() != kernel)
      func.erase();

  DiagnosticCollector diagnostics(module.getContext());
  if (failed(verify(*clone)))
    return compileError(kernel, target, "the tile module does not verify:" + diagnostics.take());
  return std::move(clone);
}

LogicalResult assignLayouts(ModuleOp module, const GpuTarget &target,
                            const GpuLoweringOptions &options) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildLayoutAssignmentPipeline(pm, target, options);
  return pm.run(module);
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// The distributed GPU form of `kernel` alone.
llvm::Expected<OwningOpRef<ModuleOp>> distribute(ModuleOp tileModule, llvm::StringRef kernel,
                                                 const GpuTarget &target,
                                                 const GpuLoweringOptions &options) {
  llvm::Expected<OwningOpRef<ModuleOp>> module = isolateKernel(tileModule, kernel, target);
  if (!module)
    return module.takeError();
  DiagnosticCollector diagnostics(tileModule.getContext());
  if (failed(lowerTileToGpu(**module, target, options)))
    return compileError(kernel, target,
                        "lowering to the distributed GPU form failed:" + diagnostics.take());
  return module;
}

/// The strings of the array attribute `name` of the distributed form's
/// kernel (kDotsAttrName, kPipelinesAttrName).
std::vector<std::string> kernelNotes(ModuleOp distributed, StringRef name) {
  std::vector<std::string> notes;
  distributed.walk([&](mlir::gpu::GPUFuncOp func) {
    if (auto list = func->getAttrOfType<ArrayAttr>(name))
      for (StringRef note : list.getAsValueRange<StringAttr>())
        notes.push_back(note.str());
  });
  return notes;
}

} // namespace

std::vector<llvm::StringRef> gpuStageNames(const GpuTarget &target) {
  std::vector<llvm::StringRef> names;
  for (const StageName &stage : kStageNames)
    if (!stage.vendor || *stage.vendor == target.vendor)
      names.push_back(stage.name);
  return names;
}

llvm::Expected<GpuStage> parseGpuStage(llvm::StringRef name, const GpuTarget &target) {
  std::string offered = llvm::join(gpuStageNames(target), ", ");
  for (const StageName &stage : kStageNames) {
    if (stage.name != name)
      continue;
    if (stage.vendor && *stage.vendor != target.vendor)
      return llvm::createStringError(
          llvm::formatv("'{0}' is not an output of {1} (it emits {2})", name, target.str(),
                        offered)
              .str());
    return stage.stage;
  }
  return llvm::createStringError(
      llvm::formatv("unknown GPU output '{0}' ({1} emits {2})", name, target.str(), offered)
          .str());
}

llvm::Expected<CompiledGpuKernel> compileTileForGpu(ModuleOp tileModule, llvm::StringRef kernel,
                                                    const GpuTarget &target,
                                                    const GpuCompileOptions &options) {
  llvm::Expected<OwningOpRef<ModuleOp>> distributed =
      distribute(tileModule, kernel, target, options.lowering);
  if (!distributed)
    return distributed.takeError();

  // The vendor pipelines' errors already name the kernel and the target.
  CompiledGpuKernel compiled;
  compiled.dots = kernelNotes(**distributed, kDotsAttrName);
  compiled.pipelines = kernelNotes(**distributed, kPipelinesAttrName);
  switch (target.vendor) {
  case GpuVendor::Nvidia: {
    llvm::Expected<KernelBinary> binary = compileForNvidia(**distributed, target, options.nvidia);
    if (!binary)
      return binary.takeError();
    compiled.binary = std::move(*binary);
    return compiled;
  }
  case GpuVendor::Amd: {
    llvm::Expected<KernelBinary> binary = amd::compileForAmd(**distributed, target, options.amd);
    if (!binary)
      return binary.takeError();
    compiled.binary = std::move(*binary);
    return compiled;
  }
  case GpuVendor::Vulkan: {
    llvm::Expected<vulkan::VulkanKernel> shader =
        vulkan::compileForVulkan(**distributed, target, options.vulkan);
    if (!shader)
      return shader.takeError();
    compiled.binary = shader->binary;
    compiled.vulkan = std::move(*shader);
    return compiled;
  }
  }
  llvm_unreachable("unknown GPU vendor");
}

llvm::Expected<std::string> emitTileForGpu(ModuleOp tileModule, llvm::StringRef kernel,
                                           const GpuTarget &target, GpuStage stage,
                                           const GpuCompileOptions &options) {
  switch (stage) {
  case GpuStage::Layouts: {
    llvm::Expected<OwningOpRef<ModuleOp>> module = isolateKernel(tileModule, kernel, target);
    if (!module)
      return module.takeError();
    DiagnosticCollector diagnostics(tileModule.getContext());
    if (failed(assignLayouts(**module, target, options.lowering)))
      return compileError(kernel, target, "assigning layouts failed:" + diagnostics.take());
    return printModule(**module);
  }
  case GpuStage::Distributed: {
    llvm::Expected<OwningOpRef<ModuleOp>> module =
        distribute(tileModule, kernel, target, options.lowering);
    if (!module)
      return module.takeError();
    return printModule(**module);
  }
  case GpuStage::Assembly:
  case GpuStage::Binary: {
    llvm::Expected<CompiledGpuKernel> compiled =
        compileTileForGpu(tileModule, kernel, target, options);
    if (!compiled)
      return compiled.takeError();
    if (stage == GpuStage::Assembly)
      return std::move(compiled->binary.assembly);
    if (compiled->binary.ptxForDriverJit)
      return compileError(kernel, target,
                          "cannot write a cubin: " + compiled->binary.usage.report);
    const std::vector<uint8_t> &bytes = compiled->binary.binary;
    return std::string(bytes.begin(), bytes.end());
  }
  }
  llvm_unreachable("unknown GPU stage");
}

} // namespace tessera::gpu

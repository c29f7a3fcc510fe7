// tessera-spirv-finalize-module: the SPIR-V version an entry point interface
// listing buffers needs, the capabilities of built-in variables, and the
// shared-memory budget.
#include "lowering/gpu/spirv/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVEnums.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

#include "llvm/Support/MathExtras.h"

namespace tessera::gpu::vulkan {
#define GEN_PASS_DEF_TESSERASPIRVFINALIZEMODULE
#include "lowering/gpu/spirv/Passes.h.inc"
} // namespace tessera::gpu::vulkan

using namespace mlir;

/// Bytes a Workgroup variable of `type` occupies. SPIR-V gives Workgroup
/// structs no explicit layout, so members are counted packed (the driver may
/// pad them; this is the size the kernel asked for).
static std::optional<uint64_t> workgroupBytes(Type type) {
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  if (auto vector = dyn_cast<VectorType>(type)) {
    std::optional<uint64_t> element = workgroupBytes(vector.getElementType());
    return element ? std::optional<uint64_t>(*element * vector.getNumElements()) : std::nullopt;
  }
  if (auto array = dyn_cast<spirv::ArrayType>(type)) {
    std::optional<uint64_t> element = workgroupBytes(array.getElementType());
    if (!element)
      return std::nullopt;
    uint64_t stride = array.getArrayStride() ? array.getArrayStride() : *element;
    return stride * array.getNumElements();
  }
  if (auto structType = dyn_cast<spirv::StructType>(type)) {
    uint64_t total = 0;
    for (Type member : structType.getElementTypes()) {
      std::optional<uint64_t> bytes = workgroupBytes(member);
      if (!bytes)
        return std::nullopt;
      total += *bytes;
    }
    return total;
  }
  return std::nullopt;
}

std::optional<uint64_t> tessera::gpu::vulkan::workgroupMemoryBytes(spirv::ModuleOp module) {
  uint64_t total = 0;
  for (auto variable : module.getOps<spirv::GlobalVariableOp>()) {
    auto pointer = cast<spirv::PointerType>(variable.getType());
    if (pointer.getStorageClass() != spirv::StorageClass::Workgroup)
      continue;
    std::optional<uint64_t> bytes = workgroupBytes(pointer.getPointeeType());
    if (!bytes)
      return std::nullopt;
    total += *bytes;
  }
  return total;
}

namespace {

/// spirv-update-vce derives capabilities from instructions only; a built-in
/// variable may need one too (SubgroupLocalInvocationId, from gpu.lane_id,
/// needs GroupNonUniform). Adds the first one the target allows, unless one
/// of the alternatives is declared already.
LogicalResult addBuiltInCapabilities(spirv::ModuleOp module, spirv::TargetEnvAttr targetEnv,
                                     SmallVectorImpl<spirv::Capability> &capabilities) {
  spirv::TargetEnv env(targetEnv);
  for (auto variable : module.getOps<spirv::GlobalVariableOp>()) {
    std::optional<StringRef> name = variable.getBuiltIn();
    std::optional<spirv::BuiltIn> builtIn = name ? spirv::symbolizeBuiltIn(*name) : std::nullopt;
    if (!builtIn)
      continue;
    std::optional<ArrayRef<spirv::Capability>> needed = spirv::getCapabilities(*builtIn);
    if (!needed || needed->empty() ||
        llvm::any_of(*needed, [&](spirv::Capability c) { return llvm::is_contained(capabilities, c); }))
      continue;
    const spirv::Capability *allowed =
        llvm::find_if(*needed, [&](spirv::Capability c) { return env.allows(c); });
    if (allowed == needed->end())
      return variable.emitOpError() << "the built-in " << *name
                                    << " needs a capability the target lacks";
    capabilities.push_back(*allowed);
  }
  return success();
}

struct FinalizeModulePass
    : tessera::gpu::vulkan::impl::TesseraSpirvFinalizeModuleBase<FinalizeModulePass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    auto targetEnv = module->getAttrOfType<spirv::TargetEnvAttr>(spirv::getTargetEnvAttrName());
    if (!targetEnv) {
      module.emitOpError() << "has no spirv.target_env (run tessera-spirv-prepare-kernel first)";
      return signalPassFailure();
    }
    std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
    if (!triple) {
      module.emitOpError() << "has no version/capability triple (run spirv-update-vce first)";
      return signalPassFailure();
    }
    SmallVector<spirv::Capability> capabilities = llvm::to_vector(triple->getCapabilities());
    if (failed(addBuiltInCapabilities(module, targetEnv, capabilities)))
      return signalPassFailure();
    module.setVceTripleAttr(spirv::VerCapExtAttr::get(targetEnv.getVersion(), capabilities,
                                                      llvm::to_vector(triple->getExtensions()),
                                                      &getContext()));

    std::optional<uint64_t> shared = tessera::gpu::vulkan::workgroupMemoryBytes(module);
    int64_t limit = targetEnv.getResourceLimits().getMaxComputeSharedMemorySize();
    if (!shared) {
      module.emitOpError() << "has a Workgroup variable of unknown size";
      return signalPassFailure();
    }
    if (*shared > uint64_t(limit)) {
      module.emitOpError() << "uses " << *shared << " bytes of workgroup memory; the target has "
                           << limit;
      return signalPassFailure();
    }
  }
};

} // namespace

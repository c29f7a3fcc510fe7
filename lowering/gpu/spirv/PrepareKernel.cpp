// tessera-spirv-prepare-kernel: everything the SPIR-V lowering cannot express
// is reported here, on the op, with the target's name; then the target
// environment and the entry-point ABI are attached.
#include "lowering/gpu/ArithmeticOps.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/spirv/KernelPatterns.h"
#include "lowering/gpu/spirv/Passes.h"
#include "lowering/gpu/spirv/VulkanFeatures.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

namespace tessera::gpu::vulkan {
#define GEN_PASS_DEF_TESSERASPIRVPREPAREKERNEL
#include "lowering/gpu/spirv/Passes.h.inc"
} // namespace tessera::gpu::vulkan

using namespace mlir;
using tessera::gpu::GpuTarget;
using tessera::gpu::vulkan::VulkanFeatures;

namespace {

/// Dialects whose ops the conversion lowers; anything else (nvvm, rocdl,
/// nvgpu, vector, ...) has no SPIR-V lowering here.
bool isConvertibleDialect(StringRef dialect) {
  return llvm::is_contained({"gpu", "arith", "math", "scf", "cf", "memref", "index", "ub"},
                            dialect);
}

/// Whether `op` computes with 8-bit floats, rather than moving them.
bool computesWithFloat8(Operation *op) {
  auto isFloat8 = [](Type type) {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    return element && element.getWidth() == 8;
  };
  return tessera::gpu::isArithmetic(op) &&
         llvm::any_of(llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()),
                      isFloat8);
}

/// Math ops whose GLSL.std.450 instructions, or the polynomial expansions
/// tessera-spirv-convert-gpu-kernel writes for them, take 16 or 32-bit
/// floats only.
bool isSinglePrecisionMath(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp, math::Log2Op, math::Log10Op,
             math::Log1pOp, math::SinOp, math::CosOp, math::TanOp, math::AsinOp, math::AcosOp,
             math::AtanOp, math::Atan2Op, math::SinhOp, math::CoshOp, math::TanhOp,
             math::AsinhOp, math::AcoshOp, math::AtanhOp, math::PowFOp, math::ErfOp,
             math::ErfcOp, math::CbrtOp>(op);
}

/// Where a value of some type lives, which decides the features it needs.
enum class Storage { Register, StorageBuffer, Workgroup, PushConstant };

class KernelChecker {
public:
  KernelChecker(const GpuTarget &target, const VulkanFeatures &features)
      : target(target), features(features), targetName(target.str()) {}

  LogicalResult check(gpu::GPUFuncOp kernel);

private:
  /// Why a value of `type` in `storage` has no lowering on the target; empty
  /// when it has one.
  std::string whyUnsupported(Type type, Storage storage) const;
  LogicalResult checkType(Operation *op, Type type, Storage storage);
  LogicalResult checkArgument(gpu::GPUFuncOp kernel, BlockArgument arg);
  LogicalResult checkOp(Operation *op);
  LogicalResult checkShuffle(gpu::ShuffleOp shuffle);
  LogicalResult checkAtomic(memref::AtomicRMWOp atomic);
  LogicalResult checkGenericAtomic(memref::GenericAtomicRMWOp atomic);
  /// 64-bit atomics need the device's int64 atomics in that storage class.
  LogicalResult checkAtomicWidth(Operation *atomic, Type element, bool shared);
  InFlightDiagnostic fail(Operation *op) {
    return op->emitOpError() << "(target " << targetName << "): ";
  }

  const GpuTarget &target;
  const VulkanFeatures &features;
  std::string targetName;
  llvm::StringSet<> reported;
};

Storage storageOf(MemRefType type) {
  if (auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace()))
    return space.getValue() == gpu::AddressSpace::Workgroup ? Storage::Workgroup
                                                            : Storage::Register;
  return Storage::StorageBuffer;
}

std::string needsFeature(StringRef what, StringRef feature) {
  return (what + " needs the Vulkan feature " + feature + ", which the device lacks").str();
}

std::string KernelChecker::whyUnsupported(Type type, Storage storage) const {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.getRank() != 1 || vector.getNumElements() < 2 || vector.getNumElements() > 4 ||
        vector.isScalable())
      return "SPIR-V vectors hold 2 to 4 elements, not " + std::to_string(vector.getNumElements());
    return whyUnsupported(vector.getElementType(), storage);
  }
  if (auto matrix = dyn_cast<gpu::MMAMatrixType>(type)) {
    if (!target.cooperativeMatrix)
      return "cooperative matrices need a target with :coopmat";
    if (!features.cooperativeMatrix)
      return needsFeature("a cooperative matrix", "cooperativeMatrix (VK_KHR_cooperative_matrix)");
    return whyUnsupported(matrix.getElementType(), storage);
  }
  std::string name;
  llvm::raw_string_ostream(name) << type;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    // 8-bit floats are bytes to SPIR-V (its type converter emulates them as
    // i8): they may be moved and stored, as i8 may (checkOp refuses
    // arithmetic on them).
    if (floatType.getWidth() == 8)
      return whyUnsupported(IntegerType::get(type.getContext(), 8), storage);
    if (type.isBF16())
      return "bf16 has no SPIR-V lowering for Vulkan (no SPV_KHR_bfloat16 support)";
    if (!type.isF16() && !type.isF32() && !type.isF64())
      return name + " has no SPIR-V lowering";
    if (type.isF64() && !features.float64)
      return needsFeature("f64", "shaderFloat64");
    if (type.isF16() && !features.float16)
      return needsFeature("f16", "shaderFloat16");
  } else if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    if (!llvm::is_contained({1u, 8u, 16u, 32u, 64u}, width))
      return name + " has no SPIR-V lowering (integers are 8, 16, 32 or 64 bits)";
    if (width == 64 && !features.int64)
      return needsFeature("i64", "shaderInt64");
    if (width == 16 && !features.int16)
      return needsFeature("i16", "shaderInt16");
    if (width == 8 && !features.int8)
      return needsFeature("i8", "shaderInt8");
  } else if (!isa<IndexType>(type)) {
    return "values of type " + name + " have no SPIR-V lowering";
  }
  unsigned bits = type.isIndex() ? 32 : type.getIntOrFloatBitWidth();
  if (bits == 1)
    bits = 8; // i1 in memory is stored as a byte.
  if (storage == Storage::StorageBuffer && bits == 16 && !features.storageBuffer16BitAccess)
    return needsFeature("a buffer of " + name, "storageBuffer16BitAccess");
  if (storage == Storage::StorageBuffer && bits == 8 && !features.storageBuffer8BitAccess)
    return needsFeature("a buffer of " + name, "storageBuffer8BitAccess");
  if (storage == Storage::PushConstant && bits == 16 && !features.storagePushConstant16)
    return needsFeature("a scalar argument of type " + name, "storagePushConstant16");
  if (storage == Storage::PushConstant && bits == 8 && !features.storagePushConstant8)
    return needsFeature("a scalar argument of type " + name, "storagePushConstant8");
  return {};
}

LogicalResult KernelChecker::checkType(Operation *op, Type type, Storage storage) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return checkType(op, memref.getElementType(), storageOf(memref));
  std::string why = whyUnsupported(type, storage);
  if (why.empty())
    return success();
  // Once per reason: a type the target lacks is usually used by many ops.
  if (reported.insert(why).second)
    fail(op) << why;
  return failure();
}

LogicalResult KernelChecker::checkArgument(gpu::GPUFuncOp kernel, BlockArgument arg) {
  Type type = arg.getType();
  auto describe = [&]() {
    return kernel.emitOpError() << "(target " << targetName << "): argument "
                                << arg.getArgNumber() << " of type " << type << ": ";
  };
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (memref.getRank() != 1 || !memref.isDynamicDim(0) || !memref.getLayout().isIdentity() ||
        memref.getMemorySpace()) {
      describe() << "pointer arguments must be memref<?xT> in the default memory space";
      return failure();
    }
    std::string why = whyUnsupported(memref.getElementType(), Storage::StorageBuffer);
    if (!why.empty()) {
      describe() << why;
      return failure();
    }
    return success();
  }
  if (type.isInteger(1) || type.isIndex()) {
    describe() << "scalar arguments are passed as i32 or i64, not " << type;
    return failure();
  }
  if (!type.isIntOrFloat()) {
    describe() << "kernel arguments are memref<?xT> or scalars";
    return failure();
  }
  std::string why = whyUnsupported(type, Storage::PushConstant);
  if (!why.empty()) {
    describe() << why;
    return failure();
  }
  return success();
}

LogicalResult KernelChecker::checkShuffle(gpu::ShuffleOp shuffle) {
  APInt width;
  if (!matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) ||
      width.getZExtValue() != target.warpSize) {
    fail(shuffle) << "the shuffle width must be the constant subgroup size " << target.warpSize
                  << " (SPIR-V subgroup shuffles cannot select fewer lanes)";
    return failure();
  }
  bool relative = shuffle.getMode() == gpu::ShuffleMode::UP ||
                  shuffle.getMode() == gpu::ShuffleMode::DOWN;
  if (relative && !features.subgroupShuffleRelative) {
    fail(shuffle) << "shuffle up/down needs subgroup relative shuffles, which the device lacks";
    return failure();
  }
  if (!relative && !features.subgroupShuffle) {
    fail(shuffle) << "shuffles need subgroup shuffle operations, which the device lacks";
    return failure();
  }
  return success();
}

LogicalResult KernelChecker::checkAtomicWidth(Operation *atomic, Type element, bool shared) {
  if (element.isInteger(64) &&
      (shared ? !features.sharedInt64Atomics : !features.bufferInt64Atomics)) {
    fail(atomic) << needsFeature("a 64-bit atomic", shared ? "shaderSharedInt64Atomics"
                                                           : "shaderBufferInt64Atomics");
    return failure();
  }
  return success();
}

LogicalResult KernelChecker::checkAtomic(memref::AtomicRMWOp atomic) {
  Type element = atomic.getMemRefType().getElementType();
  bool shared = storageOf(atomic.getMemRefType()) == Storage::Workgroup;
  arith::AtomicRMWKind kind = atomic.getKind();
  using Kind = arith::AtomicRMWKind;
  if (kind == Kind::addf) {
    if (!element.isF32()) {
      fail(atomic) << "atomic float add is supported on f32 only, not " << element;
      return failure();
    }
    if (shared ? !features.sharedFloat32AtomicAdd : !features.bufferFloat32AtomicAdd) {
      fail(atomic) << needsFeature("atomic f32 add",
                                            shared ? "shaderSharedFloat32AtomicAdd"
                                                   : "shaderBufferFloat32AtomicAdd");
      return failure();
    }
    return success();
  }
  if (!llvm::is_contained({Kind::assign, Kind::addi, Kind::andi, Kind::ori, Kind::xori, Kind::maxs,
                           Kind::mins, Kind::maxu, Kind::minu},
                          kind)) {
    fail(atomic) << "atomic '" << arith::stringifyAtomicRMWKind(kind)
                 << "' has no SPIR-V lowering (supported: addf on f32, assign, addi, andi, ori, "
                    "xori, maxs, mins, maxu, minu)";
    return failure();
  }
  if (!element.isInteger(32) && !element.isInteger(64) &&
      !(kind == Kind::assign && element.isF32())) {
    fail(atomic) << "atomics act on 32 or 64-bit integers, not " << element;
    return failure();
  }
  return checkAtomicWidth(atomic, element, shared);
}

LogicalResult KernelChecker::checkGenericAtomic(memref::GenericAtomicRMWOp atomic) {
  if (!tessera::gpu::vulkan::matchCompareAndSwap(atomic)) {
    fail(atomic) << "SPIR-V has no general atomic read-modify-write; only compare-and-swap is "
                    "supported";
    return failure();
  }
  Type element = cast<MemRefType>(atomic.getMemref().getType()).getElementType();
  if (!element.isInteger(32) && !element.isInteger(64)) {
    fail(atomic) << "compare-and-swap acts on 32 or 64-bit integers (OpAtomicCompareExchange), "
                    "not "
                 << element;
    return failure();
  }
  bool shared = storageOf(cast<MemRefType>(atomic.getMemref().getType())) == Storage::Workgroup;
  return checkAtomicWidth(atomic, element, shared);
}

LogicalResult KernelChecker::checkOp(Operation *op) {
  if (!isConvertibleDialect(op->getName().getDialectNamespace())) {
    fail(op) << "this op has no SPIR-V lowering";
    return failure();
  }
  if (isa<gpu::DynamicSharedMemoryOp>(op)) {
    fail(op) << "Vulkan has no dynamic shared memory; use workgroup attributions";
    return failure();
  }
  if (isa<gpu::SubgroupReduceOp, gpu::AllReduceOp>(op) && !features.subgroupArithmetic) {
    fail(op) << "needs subgroup arithmetic operations, which the device lacks";
    return failure();
  }
  LogicalResult result = success();
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (failed(checkType(op, type, Storage::Register)))
      return failure();
  if (computesWithFloat8(op)) {
    fail(op) << "8-bit floats have no SPIR-V arithmetic (tile-emulate-float8-arithmetic and "
                "tile-expand-float8-conversions compute them in f32 before distribution)";
    return failure();
  }
  if (isSinglePrecisionMath(op) &&
      llvm::any_of(op->getOperandTypes(),
                   [](Type type) { return getElementTypeOrSelf(type).isF64(); })) {
    fail(op) << "f64 " << op->getName().stripDialect()
             << " has no SPIR-V lowering: GLSL.std.450's exponential, logarithmic, "
                "trigonometric, hyperbolic and power functions take 16 or 32-bit floats";
    return failure();
  }
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
    result = checkShuffle(shuffle);
  else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
    result = checkAtomic(atomic);
  else if (auto generic = dyn_cast<memref::GenericAtomicRMWOp>(op))
    result = checkGenericAtomic(generic);
  return result;
}

LogicalResult KernelChecker::check(gpu::GPUFuncOp kernel) {
  bool ok = true;
  if (!kernel.getKnownBlockSize()) {
    fail(kernel) << "the kernel needs known_block_size (the workgroup size)";
    ok = false;
  }
  if (auto dynamicShared = kernel->getAttrOfType<IntegerAttr>("tessera.shared_memory_bytes");
      dynamicShared && dynamicShared.getInt() != 0) {
    fail(kernel) << "Vulkan has no dynamic shared memory (tessera.shared_memory_bytes = "
                 << dynamicShared.getInt() << "); use workgroup attributions";
    ok = false;
  }
  for (unsigned i = 0, e = kernel.getFunctionType().getNumInputs(); i < e; ++i)
    ok &= succeeded(checkArgument(kernel, kernel.getArgument(i)));

  uint64_t workgroupBytes = 0;
  for (BlockArgument attribution : kernel.getWorkgroupAttributions()) {
    auto memref = cast<MemRefType>(attribution.getType());
    if (!memref.hasStaticShape() || !memref.getElementType().isIntOrFloat()) {
      fail(kernel) << "workgroup memory must be a static memref of scalars, not " << memref;
      ok = false;
      continue;
    }
    ok &= succeeded(checkType(kernel, memref, Storage::Workgroup));
    workgroupBytes += memref.getNumElements() *
                      llvm::divideCeil(memref.getElementType().getIntOrFloatBitWidth(), 8);
  }
  if (workgroupBytes > target.maxSharedMemoryBytes) {
    fail(kernel) << "the kernel's workgroup memory (" << workgroupBytes
                 << " bytes) exceeds the target's " << target.maxSharedMemoryBytes << " bytes";
    ok = false;
  }
  kernel.getBody().walk([&](Operation *op) { ok &= succeeded(checkOp(op)); });
  return success(ok);
}

spirv::TargetEnvAttr buildTargetEnv(MLIRContext *ctx, const GpuTarget &target,
                                    const VulkanFeatures &features) {
  spirv::Version version = target.chip == "vulkan1.2" ? spirv::Version::V_1_5
                                                      : spirv::Version::V_1_6;
  VulkanFeatures allowed = features;
  allowed.cooperativeMatrix = features.cooperativeMatrix && target.cooperativeMatrix;
  SmallVector<spirv::Capability> capabilities;
  for (const std::string &name : allowed.capabilities())
    if (std::optional<spirv::Capability> capability = spirv::symbolizeCapability(name))
      capabilities.push_back(*capability);
  SmallVector<spirv::Extension> extensions;
  for (const std::string &name : allowed.extensions())
    if (std::optional<spirv::Extension> extension = spirv::symbolizeExtension(name))
      extensions.push_back(*extension);
  auto triple = spirv::VerCapExtAttr::get(version, capabilities, extensions, ctx);
  Builder builder(ctx);
  // Vulkan's limits vary by device; these are the common desktop values, and
  // the runtime checks a launch against the device's own.
  auto limits = spirv::ResourceLimitsAttr::get(
      ctx, target.maxSharedMemoryBytes, /*max_compute_workgroup_invocations=*/1024,
      builder.getI32ArrayAttr({1024, 1024, 64}), target.warpSize, std::nullopt, std::nullopt,
      ArrayAttr(), ArrayAttr());
  return spirv::TargetEnvAttr::get(triple, limits, spirv::ClientAPI::Vulkan);
}

struct PrepareKernelPass
    : tessera::gpu::vulkan::impl::TesseraSpirvPrepareKernelBase<PrepareKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::Expected<GpuTarget> parsed = GpuTarget::parse(target);
    if (!parsed) {
      module.emitError() << llvm::toString(parsed.takeError());
      return signalPassFailure();
    }
    if (parsed->vendor != tessera::gpu::GpuVendor::Vulkan) {
      module.emitError() << "the SPIR-V lowering targets Vulkan, not " << parsed->str();
      return signalPassFailure();
    }
    VulkanFeatures features;
    for (const std::string &name : without) {
      if (llvm::Error err = features.disable(name)) {
        module.emitError() << llvm::toString(std::move(err));
        return signalPassFailure();
      }
    }

    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.size() != 1) {
      module.emitError() << "expected one gpu.module (the distributed form of one kernel), found "
                         << gpuModules.size();
      return signalPassFailure();
    }
    gpu::GPUModuleOp gpuModule = gpuModules.front();
    SmallVector<gpu::GPUFuncOp> kernels;
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.isKernel())
        kernels.push_back(func);
    if (kernels.size() != 1) {
      gpuModule.emitError() << "expected one kernel gpu.func, found " << kernels.size();
      return signalPassFailure();
    }
    gpu::GPUFuncOp kernel = kernels.front();
    if (failed(KernelChecker(*parsed, features).check(kernel)))
      return signalPassFailure();

    gpuModule->setAttr(spirv::getTargetEnvAttrName(),
                       buildTargetEnv(&getContext(), *parsed, features));
    kernel->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(&getContext(), *kernel.getKnownBlockSize()));
  }
};

} // namespace

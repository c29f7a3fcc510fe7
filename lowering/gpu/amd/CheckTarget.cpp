// tessera-amd-check-target: what one AMD chip cannot run, reported before
// lowering with the op's location and the chip's name.
#include "lowering/gpu/ArithmeticOps.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/amd/KernelInterface.h"
#include "lowering/gpu/amd/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

namespace tessera::gpu::amd {
#define GEN_PASS_DEF_AMDCHECKTARGET
#include "lowering/gpu/amd/Passes.h.inc"
} // namespace tessera::gpu::amd

using namespace mlir;

namespace tessera::gpu::amd {
namespace {

bool isNarrowFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() < 16;
}

/// The chip's verdict on a float type narrower than 16 bits: empty when the
/// chip has instructions for it.
std::string narrowFloatProblem(Type type, const GpuTarget &target) {
  bool fnuz8 = isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(type);
  if (target.chip == "gfx942" && fnuz8)
    return {};
  if (target.chip == "gfx942")
    return "gfx942 has instructions for the FNUZ 8-bit floats (f8E4M3FNUZ, f8E5M2FNUZ) only";
  return "floats narrower than 16 bits need gfx942 (FNUZ 8-bit floats)";
}

/// Whether `op` computes with its float operands: narrow floats that are
/// only loaded, stored, selected and shuffled are bytes to the chip (the
/// tile passes compute OCP fp8 in f32 and convert it with integer
/// arithmetic before distribution).
bool computesWithFloats(Operation *op) {
  return isArithmetic(op) ||
         isa<amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect>(op->getDialect());
}

Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

class AmdCheckTargetPass : public impl::AmdCheckTargetBase<AmdCheckTargetPass> {
public:
  using AmdCheckTargetBase::AmdCheckTargetBase;

  void runOnOperation() override {
    llvm::Expected<GpuTarget> parsed = GpuTarget::parse("hip:" + chip);
    if (!parsed) {
      getOperation().emitError() << llvm::toString(parsed.takeError());
      return signalPassFailure();
    }
    target = *parsed;
    spec = target.str();

    FailureOr<KernelInterface> interface = readKernelInterface(getOperation());
    if (failed(interface) || failed(checkInterface(*interface)))
      return signalPassFailure();
    WalkResult walk = getOperation().walk([&](Operation *op) {
      return failed(checkOp(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }

private:
  LogicalResult checkInterface(const KernelInterface &interface) {
    mlir::gpu::GPUFuncOp kernel = interface.kernel;
    if (interface.blockThreads != interface.numWarps * target.warpSize)
      return kernel.emitError()
             << "kernel '" << kernel.getName() << "' was distributed for "
             << interface.blockThreads << " threads in " << interface.numWarps
             << " warps, but a wave of " << spec << " has " << target.warpSize
             << " threads (distribute it for this target)";
    if (interface.blockThreads > 1024)
      return kernel.emitError() << "kernel '" << kernel.getName() << "' uses "
                                << interface.blockThreads << " threads per workgroup; "
                                << spec << " allows at most 1024";
    uint64_t lds = interface.staticSharedMemoryBytes + interface.dynamicSharedMemoryBytes;
    if (lds > target.maxSharedMemoryBytes)
      return kernel.emitError() << "kernel '" << kernel.getName() << "' needs " << lds
                                << " bytes of workgroup memory (LDS); " << spec << " has "
                                << target.maxSharedMemoryBytes;
    return success();
  }

  LogicalResult checkOp(Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    StringRef name = op->getName().getStringRef();
    if (dialect == "nvvm" || dialect == "nvgpu")
      return op->emitOpError() << "is an NVIDIA operation; " << spec << " cannot run it";
    if (dialect == "spirv")
      return op->emitOpError() << "is a SPIR-V operation; " << spec << " cannot run it";
    bool mfma = isa<amdgpu::MFMAOp>(op) ||
                (name.starts_with("rocdl.mfma.") && !name.starts_with("rocdl.mfma.scale."));
    if (mfma && !target.hasMfma())
      return op->emitOpError() << "needs MFMA matrix cores (CDNA: gfx90a, gfx942); " << spec
                               << " has none";
    bool sparseMfma = isa<amdgpu::SparseMFMAOp>(op) || name.starts_with("rocdl.smfmac.");
    if (sparseMfma && target.chip != "gfx942")
      return op->emitOpError() << "needs sparse MFMA (gfx942); " << spec << " has none";
    bool scaledMfma = isa<amdgpu::ScaledMFMAOp>(op) || name.starts_with("rocdl.mfma.scale.");
    if (scaledMfma)
      return op->emitOpError() << "needs scaled MFMA (gfx950); " << spec << " has none";
    bool wmma = isa<amdgpu::WMMAOp>(op) || name.starts_with("rocdl.wmma.");
    if (wmma && !target.hasWmma())
      return op->emitOpError() << "needs WMMA matrix instructions (RDNA3: gfx1100); " << spec
                               << " has none";
    if (auto shuffle = dyn_cast<mlir::gpu::ShuffleOp>(op)) {
      APInt width;
      if (matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) &&
          width.getZExtValue() > target.warpSize)
        return op->emitOpError() << "exchanges values across " << width.getZExtValue()
                                 << " lanes, but a wave of " << spec << " has "
                                 << target.warpSize;
    }
    if (!computesWithFloats(op))
      return success();
    for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      Type element = elementTypeOf(type);
      if (!isNarrowFloat(element))
        continue;
      std::string problem = narrowFloatProblem(element, target);
      if (!problem.empty())
        return op->emitOpError() << "uses " << element << ": " << problem << "; the target is "
                                 << spec;
    }
    return success();
  }

  GpuTarget target;
  std::string spec;
};

} // namespace
} // namespace tessera::gpu::amd

#include "lowering/gpu/amd/KernelInterface.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace tessera::gpu::amd {

namespace {
FailureOr<unsigned> readUnsignedAttr(mlir::gpu::GPUFuncOp kernel, StringRef name) {
  auto attr = kernel->getAttrOfType<IntegerAttr>(name);
  if (!attr)
    return kernel.emitError() << "kernel '" << kernel.getName() << "' has no '" << name
                              << "' integer attribute (the distributed GPU form sets it)";
  if (attr.getValue().isNegative() || attr.getValue().getActiveBits() > 32)
    return kernel.emitError() << "'" << name << "' of kernel '" << kernel.getName()
                              << "' is out of range: " << attr;
  return static_cast<unsigned>(attr.getValue().getZExtValue());
}
} // namespace

FailureOr<mlir::gpu::GPUModuleOp> findKernelModule(ModuleOp module) {
  auto gpuModules = module.getOps<mlir::gpu::GPUModuleOp>();
  if (std::distance(gpuModules.begin(), gpuModules.end()) != 1)
    return module.emitError() << "expected exactly one gpu.module (the distributed GPU form "
                                 "holds one kernel per module)";
  return *gpuModules.begin();
}

FailureOr<KernelInterface> readKernelInterface(mlir::gpu::GPUModuleOp module) {
  KernelInterface interface;
  for (auto func : module.getOps<mlir::gpu::GPUFuncOp>()) {
    if (!func.isKernel())
      continue;
    if (interface.kernel)
      return module.emitError() << "gpu.module @" << module.getName()
                                << " holds more than one kernel";
    interface.kernel = func;
  }
  if (!interface.kernel)
    return module.emitError() << "gpu.module @" << module.getName() << " holds no kernel";
  mlir::gpu::GPUFuncOp kernel = interface.kernel;

  DenseI32ArrayAttr blockSize = kernel.getKnownBlockSizeAttr();
  if (!blockSize || blockSize.size() != 3 || blockSize[0] <= 0 || blockSize[1] != 1 ||
      blockSize[2] != 1)
    return kernel.emitError() << "kernel '" << kernel.getName()
                              << "' needs known_block_size = array<i32: T, 1, 1> with T > 0";
  interface.blockThreads = static_cast<unsigned>(blockSize[0]);

  FailureOr<unsigned> numWarps = readUnsignedAttr(kernel, kNumWarpsAttr);
  FailureOr<unsigned> sharedBytes = readUnsignedAttr(kernel, kSharedMemoryBytesAttr);
  if (failed(numWarps) || failed(sharedBytes))
    return failure();
  if (*numWarps == 0)
    return kernel.emitError() << "kernel '" << kernel.getName() << "' has "
                              << kNumWarpsAttr << " = 0";
  interface.numWarps = *numWarps;
  interface.dynamicSharedMemoryBytes = *sharedBytes;

  for (BlockArgument attribution : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
      return kernel.emitError() << "workgroup attribution of type " << type
                                << " must have a static shape of integers or floats";
    interface.staticSharedMemoryBytes +=
        uint64_t(type.getNumElements()) * ((type.getElementTypeBitWidth() + 7) / 8);
  }
  return interface;
}

} // namespace tessera::gpu::amd

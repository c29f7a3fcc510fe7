// tessera-nvvm-extern-dynamic-shared-memory: the zero-sized shared-memory
// globals that stand for dynamic shared memory get external linkage.
#include "lowering/gpu/nvidia/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVVMEXTERNDYNAMICSHAREDMEMORY
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) && array &&
         array.getNumElements() == 0 && !global.getValueAttr() && global.getRegion().empty();
}

struct ExternDynamicSharedMemory
    : tessera::gpu::impl::TesseraNvvmExternDynamicSharedMemoryBase<ExternDynamicSharedMemory> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>())
      if (isDynamicSharedMemory(global))
        global.setLinkage(LLVM::Linkage::External);
  }
};

} // namespace

// tessera-nvvm-extern-dynamic-shared-memory: the zero-sized shared-memory
// globals that stand for dynamic shared memory get external linkage and the
// alignment of wgmma's swizzled operands.
#include "lowering/gpu/nvidia/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVVMEXTERNDYNAMICSHAREDMEMORY
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

/// The 1024-byte repeat of the 128-byte swizzle (kWgmmaSharedAlignment);
/// the distribution places wgmma buffers at multiples of it from the start.
constexpr uint64_t kDynamicSharedMemoryAlignment = 1024;

bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) && array &&
         array.getNumElements() == 0 && !global.getValueAttr() && global.getRegion().empty();
}

struct ExternDynamicSharedMemory
    : tessera::gpu::impl::TesseraNvvmExternDynamicSharedMemoryBase<ExternDynamicSharedMemory> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>())
      if (isDynamicSharedMemory(global)) {
        global.setLinkage(LLVM::Linkage::External);
        global.setAlignment(kDynamicSharedMemoryAlignment);
      }
  }
};

} // namespace

// Conversion patterns the upstream GPU/MemRef-to-SPIR-V sets lack, used by
// tessera-spirv-convert-gpu-kernel: f32 atomic add and atomic exchange on
// memrefs, integer compare-and-swap, exp2, population count, relative
// (up/down) subgroup shuffles.
#ifndef TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H
#define TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace tessera::gpu::vulkan {

/// The operands of a compare-and-swap written as memref.generic_atomic_rmw
/// (how tile-gpu-distribute lowers tile.atomic_cas on integers): the body is
/// `select(cmpi eq(current, comparator), value, current)`.
struct CompareAndSwap {
  mlir::Value comparator, value;
};

/// The compare-and-swap `rmw` performs, or std::nullopt when its body is
/// anything else (SPIR-V has no general atomic read-modify-write).
std::optional<CompareAndSwap> matchCompareAndSwap(mlir::memref::GenericAtomicRMWOp rmw);

void populateKernelToSpirvPatterns(const mlir::SPIRVTypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H

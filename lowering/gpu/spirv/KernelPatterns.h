// Conversion patterns the upstream GPU/MemRef-to-SPIR-V sets lack, used by
// tessera-spirv-convert-gpu-kernel: f32 atomic add and atomic exchange on
// memrefs, relative (up/down) subgroup shuffles.
#ifndef TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H
#define TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H

#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera::gpu::vulkan {

void populateKernelToSpirvPatterns(const mlir::SPIRVTypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns);

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_KERNELPATTERNS_H

// Passes shared by the vendor pipelines (lowering/gpu/Passes.td).
#ifndef TESSERA_LOWERING_GPU_PASSES_H
#define TESSERA_LOWERING_GPU_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::gpu {

#define GEN_PASS_DECL
#include "lowering/gpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/Passes.h.inc"

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_PASSES_H

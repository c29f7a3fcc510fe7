// The passes of the AMD final steps (lowering/gpu/amd/Passes.td).
#ifndef TESSERA_LOWERING_GPU_AMD_PASSES_H
#define TESSERA_LOWERING_GPU_AMD_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace tessera::gpu::amd {

#define GEN_PASS_DECL
#include "lowering/gpu/amd/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/amd/Passes.h.inc"

} // namespace tessera::gpu::amd

#endif // TESSERA_LOWERING_GPU_AMD_PASSES_H

// The passes of the SPIR-V (Vulkan) code generator (lowering/gpu/spirv/Passes.td).
#ifndef TESSERA_LOWERING_GPU_SPIRV_PASSES_H
#define TESSERA_LOWERING_GPU_SPIRV_PASSES_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <optional>

namespace tessera::gpu::vulkan {

#define GEN_PASS_DECL
#include "lowering/gpu/spirv/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/spirv/Passes.h.inc"

/// Bytes of the module's Workgroup variables (shared memory); nullopt when a
/// variable's type has no size.
std::optional<uint64_t> workgroupMemoryBytes(mlir::spirv::ModuleOp module);

} // namespace tessera::gpu::vulkan

#endif // TESSERA_LOWERING_GPU_SPIRV_PASSES_H

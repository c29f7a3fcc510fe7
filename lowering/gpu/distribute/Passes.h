// The passes of the GPU distribution (lowering/gpu/distribute/Passes.td).
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_H

#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/ir/TileGpuDialect.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tessera::gpu {

#define GEN_PASS_DECL
#include "lowering/gpu/distribute/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/distribute/Passes.h.inc"

/// Registers tile-gpu-assign-layouts, tile-gpu-widen-float8-dots,
/// tile-gpu-transpose-column-loads, tile-gpu-version-signed-remainders,
/// tile-gpu-prefetch-loads and tile-gpu-issue-loads-early.
inline void registerGpuLayoutPasses() {
  registerTileGpuAssignLayouts();
  registerTileGpuWidenFloat8Dots();
  registerTileGpuTransposeColumnLoads();
  registerTileGpuVersionSignedRemainders();
  registerTileGpuPrefetchLoads();
  registerTileGpuIssueLoadsEarly();
}

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_H

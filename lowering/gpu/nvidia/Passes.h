// The passes of the NVIDIA code generator (lowering/gpu/nvidia/Passes.td).
#ifndef TESSERA_LOWERING_GPU_NVIDIA_PASSES_H
#define TESSERA_LOWERING_GPU_NVIDIA_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::gpu {

#define GEN_PASS_DECL
#include "lowering/gpu/nvidia/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/gpu/nvidia/Passes.h.inc"

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_PASSES_H

// Attributes the distribution pass (lowering/gpu/distribute) puts on the ops
// of the distributed form for the per-target steps that follow it.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTEDFORMATTRS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTEDFORMATTRS_H

#include "llvm/ADT/StringRef.h"

namespace tessera::gpu {

/// Unit attribute on a gpu.barrier that must also order global memory
/// (tile.debug_barrier). NVIDIA's bar.sync and AMD's workgroup fences do;
/// a Vulkan workgroup barrier orders only workgroup memory unless told to.
inline constexpr llvm::StringLiteral kBarrierOrdersGlobalMemory = "tessera.orders_global_memory";

/// Unit attribute on a gpu.barrier that only ends a user of shared memory
/// (SharedMemory::endUser): it keeps the next user from writing bytes this
/// one still reads. tile-gpu-elide-barriers removes it where no access
/// after it overlaps one before it, and drops the attribute where it stays.
inline constexpr llvm::StringLiteral kBarrierEndsSharedMemoryUser =
    "tessera.ends_shared_memory_user";
/// Unit attribute on an llvm.inline_asm with side effects that touches no
/// shared memory (a predicated global load or store, opaque register copies):
/// tile-gpu-elide-barriers takes any other such asm to read and write all of
/// it. That pass drops the attribute.
inline constexpr llvm::StringLiteral kAsmTouchesNoSharedMemory = "tessera.no_shared_memory";

/// String attribute on the llvm.func declaration of a function that
/// tile.extern_elementwise calls from a bitcode library of its own (`path`):
/// the file NVIDIA's PTX emission links it from.
inline constexpr llvm::StringLiteral kBitcodeLibrary = "tessera.bitcode_library";

/// Array attribute on a kernel gpu.func whose last arguments are TMA tensor
/// maps that the launch encodes (lowering/gpu/distribute/TensorMaps.h), one
/// dictionary per map in argument order: `base`, `shape`, `strides`
/// (argument numbers of the descriptor's base pointer, extents and outer
/// strides, outermost first; -1 where the value is the constant at the same
/// place of `constant_shape`/`constant_strides`), `element` (type), `box`
/// (innermost first), `swizzle` (bytes) and `padding` ("zero" or "nan").
inline constexpr llvm::StringLiteral kTensorMapsAttrName = "tessera.tensor_maps";

/// Array attribute on a kernel gpu.func: what each tile.dot of the kernel
/// runs on, in program order, as strings "file:line:col: instruction" (a
/// TensorCoreDot::name() such as "wgmma.m64n256k16.bf16", or kFmaDot).
inline constexpr llvm::StringLiteral kDotsAttrName = "tessera.dots";
/// The instruction of a dot computed by the FMA loop.
inline constexpr llvm::StringLiteral kFmaDot = "fma";

/// Array attribute on a kernel gpu.func: how each loop the software
/// pipeliner took up was lowered, in program order, as strings
/// "file:line:col: description" (its stages and copies, or why it was not
/// pipelined).
inline constexpr llvm::StringLiteral kPipelinesAttrName = "tessera.pipelines";

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTEDFORMATTRS_H

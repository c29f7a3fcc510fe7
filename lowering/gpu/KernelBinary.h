// What a GPU code generator hands the runtime: the device binary of one
// kernel, its readable assembly, and what a launch needs to know.
#ifndef TESSERA_LOWERING_GPU_KERNELBINARY_H
#define TESSERA_LOWERING_GPU_KERNELBINARY_H

#include "lowering/gpu/GpuTarget.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu {

/// Registers, memory and spills of the compiled kernel, as the assembler
/// (ptxas -v) or the code object's metadata reports them; -1 when unknown.
struct ResourceUsage {
  int registers = -1;        ///< per thread (VGPRs on AMD)
  int scalarRegisters = -1;  ///< AMD SGPRs
  int sharedMemoryBytes = -1;///< static shared/LDS memory
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  int stackFrameBytes = -1;
  /// Why ptxas runs the kernel's wgmma instructions one after another instead
  /// of overlapped (its messages C7514, C7515, ...), empty when it does not:
  /// a performance bug of the code generator, as a spill is.
  std::string serializedWgmma;
  /// The tool's own lines (ptxas -v output, the AMDGPU metadata), verbatim.
  std::string report;
};

/// An extent or stride of a tensor map: the value of a kernel argument, or a
/// constant the kernel was compiled with.
struct TensorMapValue {
  /// The argument's number in the kernel's signature; -1 for `constant`.
  int argument = -1;
  int64_t constant = 0;
  bool operator==(const TensorMapValue &other) const = default;
};

/// A kernel parameter that is a TMA tensor map (128 bytes, passed by value)
/// which the launch encodes (cuTensorMapEncodeTiled) from other arguments of
/// the same launch: a host tensor descriptor's base, extents and strides.
/// Such parameters follow the kernel's signature, in this order.
struct TensorMapParam {
  /// The base pointer's argument number; each extent and each stride but
  /// the innermost (in elements; the innermost is 1), outermost first.
  unsigned base = 0;
  std::vector<TensorMapValue> shape, outerStrides;
  /// The element type's name ("bf16", "f16", "f32", "i8", ...) and bytes.
  std::string element;
  unsigned elementBytes = 0;
  /// The box a copy moves, innermost extent first.
  std::vector<unsigned> box;
  /// The shared-memory swizzle: 0 (none), 32, 64 or 128 bytes.
  unsigned swizzleBytes = 0;
  /// Outside the tensor a copy reads NaN (padding_option "nan"), else zeros.
  bool nanPadding = false;
};

struct KernelBinary {
  GpuTarget target;
  /// The entry point's symbol.
  std::string kernelName;
  /// cubin, HSACO (ELF code object) or SPIR-V words as bytes; NVIDIA
  /// without ptxas, the PTX and a NUL (ptxForDriverJit).
  std::vector<uint8_t> binary;
  /// NVIDIA: no ptxas was found, so `binary` is the PTX, which the driver's
  /// JIT compiles when the module is loaded (cuModuleLoadData takes either);
  /// `usage` is then unknown.
  bool ptxForDriverJit = false;
  /// PTX, AMDGCN assembly or SPIR-V disassembly.
  std::string assembly;
  /// Threads per program (num_warps * warp size).
  unsigned blockThreads = 0;
  /// Dynamic shared memory each launch must provide, in bytes.
  unsigned dynamicSharedMemoryBytes = 0;
  /// Parameters after the signature's that the launch encodes (NVIDIA).
  std::vector<TensorMapParam> tensorMaps;
  ResourceUsage usage;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_KERNELBINARY_H

// ptxas: assembles PTX into a cubin and reports the kernel's registers,
// shared memory, spills and stack (its -v output) as a ResourceUsage.
#ifndef TESSERA_LOWERING_GPU_NVIDIA_PTXAS_H
#define TESSERA_LOWERING_GPU_NVIDIA_PTXAS_H

#include "lowering/gpu/KernelBinary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu {

struct PtxasOptions {
  /// -arch: "sm_80", "sm_90a".
  std::string chip;
  /// -O0 .. -O3.
  unsigned optLevel = 3;
};

struct PtxasOutput {
  std::vector<uint8_t> cubin;
  ResourceUsage usage;
};

/// Runs `ptxas` (a path, see CudaToolkit::ptxas) on `ptx` with `-v` in a
/// subprocess; the temporary files are removed. A failure of ptxas is an
/// error carrying its messages and naming `kernelName`, as is a report
/// without the kernel's register count.
llvm::Expected<PtxasOutput> assembleWithPtxas(llvm::StringRef ptxas, llvm::StringRef ptx,
                                              llvm::StringRef kernelName,
                                              const PtxasOptions &options);

/// Reads the lines of `ptxas -v` output that describe entry `kernelName`:
///   ptxas info    : Compiling entry function 'k' for 'sm_90a'
///   ptxas info    : Function properties for k
///       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
///   ptxas info    : Used 40 registers, used 1 barriers, 8 bytes smem, 380 bytes cmem[0]
/// and, where ptxas had to serialize the kernel's wgmma instructions,
///   ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async
///   instructions are serialized due to ... in the function 'k'
/// Lines of other functions are skipped; fields not reported stay -1 (shared
/// memory is 0 when the register line omits it). `report` holds `text`.
ResourceUsage parsePtxasReport(llvm::StringRef text, llvm::StringRef kernelName);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_PTXAS_H

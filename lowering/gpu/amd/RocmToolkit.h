// The "ROCm toolkit" directory MLIR's ROCDL serializer reads: the device
// libraries from DIR/amdgcn/bitcode/{ocml,ockl}.bc and the linker from
// DIR/llvm/bin/ld.lld. Debian ships neither in that layout, so a directory of
// two symlinks is staged once per user and configuration.
#ifndef TESSERA_LOWERING_GPU_AMD_ROCMTOOLKIT_H
#define TESSERA_LOWERING_GPU_AMD_ROCMTOOLKIT_H

#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu::amd {

struct RocmToolkitSources {
  /// Holds bitcode/ocml.bc and bitcode/ockl.bc (Debian's rocm-device-libs).
  std::string deviceLibraries = "/usr/lib/x86_64-linux-gnu/amdgcn";
  /// An LLVM installation with bin/ld.lld (lld-22); default: the LLVM this
  /// build uses.
  std::string llvmRoot;
};

/// The staged directory for `sources`, created on first use under the user's
/// cache directory ($XDG_CACHE_HOME or ~/.cache; the temp directory if there
/// is none) as `tessera/rocm-toolkit-<hash of the sources>`. Safe against
/// concurrent callers and processes: the directory is built under a unique
/// name and renamed into place. The error names what is missing and which
/// package provides it.
llvm::Expected<std::string> stageRocmToolkit(const RocmToolkitSources &sources = {});

} // namespace tessera::gpu::amd

#endif // TESSERA_LOWERING_GPU_AMD_ROCMTOOLKIT_H

// Where the CUDA toolkit pieces the NVIDIA code generator needs live: the
// toolkit root, libdevice (math functions as LLVM bitcode) and ptxas.
#ifndef TESSERA_LOWERING_GPU_NVIDIA_CUDATOOLKIT_H
#define TESSERA_LOWERING_GPU_NVIDIA_CUDATOOLKIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu {

struct CudaToolkit {
  /// The toolkit directory: `root` given, else $CUDA_HOME, $CUDA_PATH,
  /// $CUDA_ROOT (the first one set), else /usr/local/cuda.
  std::string root;
  /// How `root` was chosen ("$CUDA_HOME", "the default /usr/local/cuda"),
  /// for error messages.
  std::string rootOrigin;

  static CudaToolkit locate(llvm::StringRef root = {});

  /// `<root>/nvvm/libdevice/libdevice.10.bc`, or an error saying where it was
  /// looked for and how to point Tessera at a toolkit.
  llvm::Expected<std::string> libdevice() const;

  /// ptxas: $TESSERA_PTXAS, else `<root>/bin/ptxas`, else the first ptxas on
  /// PATH; an error lists the places tried.
  llvm::Expected<std::string> ptxas() const;

  /// Whether $TESSERA_PTXAS names the ptxas to use: a missing one is then the
  /// user's mistake, not a machine without the toolkit.
  static bool ptxasNamed();
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_CUDATOOLKIT_H

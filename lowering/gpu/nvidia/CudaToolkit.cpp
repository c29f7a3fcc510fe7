#include "lowering/gpu/nvidia/CudaToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using tessera::gpu::CudaToolkit;

CudaToolkit CudaToolkit::locate(llvm::StringRef root) {
  if (!root.empty())
    return {root.str(), "the given CUDA root"};
  // CUDA_HOME first: it is what PyTorch and Triton read; CUDA_ROOT is what
  // MLIR's own NVVM target reads.
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable); value && *value)
      return {value, std::string("$") + variable};
  return {"/usr/local/cuda", "the default /usr/local/cuda"};
}

llvm::Expected<std::string> CudaToolkit::libdevice() const {
  llvm::SmallString<256> path(root);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  if (llvm::sys::fs::is_regular_file(path))
    return std::string(path);
  return llvm::createStringError(
      "libdevice (the CUDA math library the kernel's math functions are lowered to) not found at " +
      path + " (CUDA root from " + rootOrigin +
      "); install the CUDA toolkit's NVVM component or set CUDA_HOME to a toolkit that has it");
}

bool CudaToolkit::ptxasNamed() {
  const char *named = std::getenv("TESSERA_PTXAS");
  return named && *named;
}

llvm::Expected<std::string> CudaToolkit::ptxas() const {
  if (ptxasNamed()) {
    const char *explicitPath = std::getenv("TESSERA_PTXAS");
    if (llvm::sys::fs::can_execute(explicitPath))
      return std::string(explicitPath);
    return llvm::createStringError(llvm::Twine("$TESSERA_PTXAS is ") + explicitPath +
                                   ", which is not an executable file");
  }
  llvm::SmallString<256> inRoot(root);
  llvm::sys::path::append(inRoot, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(inRoot))
    return std::string(inRoot);
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  return llvm::createStringError("ptxas (the CUDA assembler that turns PTX into a cubin) not found: "
                                 "not at " +
                                 inRoot + " (CUDA root from " + rootOrigin +
                                 ") nor on PATH; install the CUDA toolkit, set CUDA_HOME, or "
                                 "set TESSERA_PTXAS to the ptxas binary");
}

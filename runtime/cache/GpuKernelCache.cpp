#include "runtime/cache/GpuKernelCache.h"

#include "runtime/cache/GpuKernelCodec.h"

#include "lowering/gpu/amd/RocmToolkit.h"
#include "lowering/gpu/nvidia/CudaToolkit.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera;
using namespace tessera::runtime;

namespace {

/// `path` as "path size mtime" (the file it links to, for a link), so that
/// a tool replaced in place changes the key; "path absent" where it is not
/// there (a compile that needs it fails, and failures are not stored).
std::string fileIdentity(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return path.str() + " absent";
  return path.str() + " " + std::to_string(status.getSize()) + " " +
         std::to_string(status.getLastModificationTime().time_since_epoch().count());
}

/// The external tools the vendor's last step runs, `; `-separated.
std::string toolchainIdentity(const gpu::GpuTarget &target,
                              const gpu::GpuCompileOptions &options) {
  std::vector<std::string> lines;
  auto file = [&](llvm::Expected<std::string> path, llvm::StringRef what) {
    if (path) {
      lines.push_back(fileIdentity(*path));
      return;
    }
    llvm::consumeError(path.takeError());
    lines.push_back(what.str() + " absent");
  };
  switch (target.vendor) {
  case gpu::GpuVendor::Nvidia: {
    gpu::CudaToolkit toolkit = gpu::CudaToolkit::locate(options.nvidia.cudaRoot);
    file(toolkit.ptxas(), "ptxas");
    file(toolkit.libdevice(), "libdevice in " + toolkit.root);
    break;
  }
  case gpu::GpuVendor::Amd: {
    std::string root = options.amd.rocmPath;
    if (root.empty()) {
      llvm::Expected<std::string> staged = gpu::amd::stageRocmToolkit();
      if (!staged) {
        llvm::consumeError(staged.takeError());
        lines.push_back("the ROCm toolkit absent");
        break;
      }
      root = *staged;
    }
    for (const char *relative : {"amdgcn/bitcode/ocml.bc", "amdgcn/bitcode/ockl.bc",
                                 "llvm/bin/ld.lld"}) {
      llvm::SmallString<256> path(root);
      llvm::sys::path::append(path, relative);
      lines.push_back(fileIdentity(path));
    }
    break;
  }
  case gpu::GpuVendor::Vulkan:
    break; // MLIR serializes SPIR-V in process: the LLVM version covers it.
  }
  return llvm::join(lines, "; ");
}

} // namespace

std::string tessera::runtime::gpuCacheKey(mlir::ModuleOp tileModule, llvm::StringRef kernel,
                                          const gpu::GpuTarget &target,
                                          const gpu::GpuCompileOptions &options) {
  const gpu::GpuLoweringOptions &lowering = options.lowering;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kernel=" << kernel << "\nstage=gpu-tile\nsource-sha256="
     << sha256Hex(keyedModuleText(tileModule)) << "\ntarget=" << target.str()
     << "\nvendor=" << static_cast<int>(target.vendor) << "\nchip=" << target.chip
     << "\ncubin-chip=" << target.cubinChip << "\nwarp-size=" << target.warpSize
     << "\nmax-shared-memory=" << target.maxSharedMemoryBytes
     << "\ncooperative-matrix=" << target.cooperativeMatrix
     << "\nnum-warps=" << lowering.numWarps << "\nnum-stages=" << lowering.numStages
     << "\ntensor-maps=" << lowering.tensorMaps << "\nwarp-specialize=" << lowering.warpSpecialize
     << "\nread-back-loads=" << static_cast<int>(lowering.readBackLoads)
     << "\nnvidia-opt-level=" << options.nvidia.optLevel
     << "\nnvidia-max-registers=" << options.nvidia.maxRegisters
     << "\nnvidia-fp-fusion=" << options.nvidia.fpFusion
     << "\nnvidia-cuda-root=" << options.nvidia.cudaRoot
     << "\namd-opt-level=" << options.amd.optLevel
     << "\namd-code-object-version=" << options.amd.codeObjectVersion
     << "\namd-rocm-path=" << options.amd.rocmPath
     << "\nvulkan-features=" << options.vulkan.str()
     << "\ntoolchain=" << toolchainIdentity(target, options)
     << "\ntessera-version=" << tesseraVersion() << "\nllvm-version=" << llvmVersion() << "\n";
  return text;
}

llvm::Expected<CachedGpuKernel> tessera::runtime::compileTileForGpuCached(
    mlir::ModuleOp tileModule, llvm::StringRef kernel, const gpu::GpuTarget &target,
    const gpu::GpuCompileOptions &options, KernelCache &cache) {
  // A cache that is off is never read nor written: no key to make (the
  // module printed with its locations, the tools stat'ed).
  std::string key;
  if (cache.enabled()) {
    key = gpuCacheKey(tileModule, kernel, target, options);
    if (std::unique_ptr<llvm::MemoryBuffer> payload = cache.lookup(key)) {
      llvm::Expected<gpu::CompiledGpuKernel> decoded =
          decodeGpuKernel(payload->getBuffer(), target);
      if (decoded)
        return CachedGpuKernel{std::move(*decoded), GpuKernelOrigin::DiskCache};
      llvm::consumeError(decoded.takeError());
      cache.reject(key);
    }
  }
  cache.noteMiss();
  llvm::Expected<gpu::CompiledGpuKernel> compiled =
      gpu::compileTileForGpu(tileModule, kernel, target, options);
  if (!compiled)
    return compiled.takeError();
  if (cache.enabled()) // else no payload to encode
    if (llvm::Error err = cache.store(key, encodeGpuKernel(*compiled)))
      llvm::consumeError(std::move(err)); // Counted in the stats; the compile still succeeds.
  return CachedGpuKernel{std::move(*compiled), GpuKernelOrigin::Compiled};
}

KernelCache &tessera::runtime::gpuKernelCache() {
  // Never destroyed: kernels may be compiled while the process exits.
  static KernelCache *cache =
      new KernelCache(KernelCache::defaultDirectory("gpu"), KernelCache::enabledByEnvironment());
  return *cache;
}

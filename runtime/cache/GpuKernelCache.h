// GPU kernels through the on-disk kernel cache: compileTileForGpu
// (lowering/gpu/Compile.h) answered from an entry where one matches, so that
// a process that launches a kernel compiled by an earlier one (a script run
// again, an autotuner's configs, the benchmark's export) skips the
// distribution, LLVM and ptxas.
//
// The key holds everything the binary depends on: the tile module's text
// (with locations, which assert messages and debug info carry), the kernel,
// every field of the target and of the compile options, the Tessera and
// LLVM versions, and the external tools the vendor's last step runs (ptxas
// and libdevice for NVIDIA, the device libraries and ld.lld for AMD), each by
// path, size and modification time (or as absent): a toolkit upgraded in
// place is a miss.
#ifndef TESSERA_RUNTIME_CACHE_GPUKERNELCACHE_H
#define TESSERA_RUNTIME_CACHE_GPUKERNELCACHE_H

#include "runtime/cache/KernelCache.h"

#include "lowering/gpu/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::runtime {

/// The key text of kernel `kernel` of `tileModule` compiled for `target`
/// with `options` (`name=value` lines).
std::string gpuCacheKey(mlir::ModuleOp tileModule, llvm::StringRef kernel,
                        const gpu::GpuTarget &target, const gpu::GpuCompileOptions &options);

enum class GpuKernelOrigin { Compiled, DiskCache };

struct CachedGpuKernel {
  gpu::CompiledGpuKernel kernel;
  GpuKernelOrigin origin = GpuKernelOrigin::Compiled;
};

/// compileTileForGpu through `cache`: a valid entry is decoded and returned
/// (an entry that does not decode is removed and counted as rejected); else
/// the kernel is compiled and stored. Compile errors are returned as
/// compileTileForGpu gives them and nothing is stored.
llvm::Expected<CachedGpuKernel> compileTileForGpuCached(mlir::ModuleOp tileModule,
                                                        llvm::StringRef kernel,
                                                        const gpu::GpuTarget &target,
                                                        const gpu::GpuCompileOptions &options,
                                                        KernelCache &cache);

/// The process's cache of GPU kernels: KernelCache::defaultDirectory("gpu"),
/// off where $TESSERA_CACHE says so (read once, at first use).
KernelCache &gpuKernelCache();

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_CACHE_GPUKERNELCACHE_H

// A compiled GPU kernel (lowering/gpu/Compile.h) as the payload of a kernel
// cache entry: JSON holding the binary (base64), the assembly and every
// launch fact, so that a kernel loaded from the cache launches, reports and
// prints exactly as the one compiled.
#ifndef TESSERA_RUNTIME_CACHE_GPUKERNELCODEC_H
#define TESSERA_RUNTIME_CACHE_GPUKERNELCODEC_H

#include "lowering/gpu/Compile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::runtime {

/// `kernel` as a payload. Its target is not written: the cache key holds it.
std::string encodeGpuKernel(const gpu::CompiledGpuKernel &kernel);

/// The kernel of `payload`, compiled for `target`; an error where the text is
/// not a payload of this format (another format version, a missing field).
llvm::Expected<gpu::CompiledGpuKernel> decodeGpuKernel(llvm::StringRef payload,
                                                       const gpu::GpuTarget &target);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_CACHE_GPUKERNELCODEC_H

// The part of the HIP runtime API Tessera calls, declared here (no ROCm
// headers are needed to build) and resolved with dlopen at run time.
#ifndef TESSERA_RUNTIME_HIP_HIPAPI_H
#define TESSERA_RUNTIME_HIP_HIPAPI_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::runtime::hip {

/// hipError_t; the values Tessera tests for.
using HipError = int;
inline constexpr HipError kHipSuccess = 0;
inline constexpr HipError kHipErrorNoDevice = 100;

using HipModule = struct ihipModule_t *;
using HipFunction = struct ihipModuleSymbol_t *;
using HipStream = struct ihipStream_t *;

/// hipMemcpyKind.
enum class HipMemcpyKind : int { HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3 };

/// hipDeviceProp_tR0600 (ROCm >= 6.0, hip_runtime_api.h, x86-64): the leading
/// fields, gcnArchName at its offset, and room for the whole struct (1472
/// bytes in ROCm 6.x) with headroom for growth.
struct HipDeviceProperties {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  unsigned char fieldsBeforeGcnArchName[1160 - 392];
  char gcnArchName[256];
  unsigned char fieldsAfterGcnArchName[4096 - 1416];
};
static_assert(offsetof(HipDeviceProperties, multiProcessorCount) == 388);
static_assert(offsetof(HipDeviceProperties, gcnArchName) == 1160);

/// The entry points, resolved from libamdhip64.
struct HipApi {
  HipError (*init)(unsigned flags);
  HipError (*getDeviceCount)(int *count);
  HipError (*setDevice)(int ordinal);
  HipError (*getDeviceProperties)(HipDeviceProperties *properties, int ordinal);
  HipError (*runtimeGetVersion)(int *version);
  HipError (*moduleLoadData)(HipModule *module, const void *image);
  HipError (*moduleUnload)(HipModule module);
  HipError (*moduleGetFunction)(HipFunction *function, HipModule module, const char *name);
  HipError (*moduleLaunchKernel)(HipFunction function, unsigned gridX, unsigned gridY,
                                 unsigned gridZ, unsigned blockX, unsigned blockY,
                                 unsigned blockZ, unsigned sharedMemoryBytes, HipStream stream,
                                 void **kernelParams, void **extra);
  HipError (*malloc)(void **pointer, size_t bytes);
  HipError (*free)(void *pointer);
  HipError (*memcpy)(void *destination, const void *source, size_t bytes, HipMemcpyKind kind);
  HipError (*memset)(void *destination, int value, size_t bytes);
  HipError (*deviceSynchronize)();
  const char *(*getErrorName)(HipError error);
  const char *(*getErrorString)(HipError error);

  /// The process-wide table: libamdhip64 is opened (and hipInit called) on
  /// the first call. The error names the libraries tried and why each failed,
  /// or the entry point missing.
  static llvm::Expected<const HipApi &> get();

  /// "hipErrorInvalidValue (invalid argument)".
  std::string describe(HipError error) const;
  /// Success, or an error "<context>: <call> failed: <describe(error)>".
  llvm::Error check(HipError error, llvm::StringRef call, const llvm::Twine &context) const;
};

} // namespace tessera::runtime::hip

#endif // TESSERA_RUNTIME_HIP_HIPAPI_H

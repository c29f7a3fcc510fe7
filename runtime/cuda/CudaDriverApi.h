// The slice of the CUDA driver API Tessera calls, declared here rather than
// taken from cuda.h. The driver is opened with dlopen, so the build needs
// no CUDA headers; and cuda.h maps names to versioned symbols with macros
// (cuMemAlloc -> cuMemAlloc_v2) whose choice changes between toolkits, while
// dlsym needs the exact symbol: declaring the ABI here pins the symbols and
// signatures Tessera was written against. tests/unit/runtime/cuda checks
// these declarations against cuda.h wherever cuda.h is installed.
#ifndef TESSERA_RUNTIME_CUDA_CUDADRIVERAPI_H
#define TESSERA_RUNTIME_CUDA_CUDADRIVERAPI_H

#include <cstddef>

namespace tessera::runtime::cuda::driver {

using CUresult = int; // cudaError_enum
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st *;
struct CUmod_st;
using CUmodule = CUmod_st *;
struct CUfunc_st;
using CUfunction = CUfunc_st *;
struct CUstream_st;
using CUstream = CUstream_st *;
struct CUevent_st;
using CUevent = CUevent_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// CUdevice_attribute values.
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute values.
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

// CUstream_flags and CUevent_flags values.
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
inline constexpr unsigned CU_EVENT_DEFAULT = 0;

/// Launches may pass up to this much dynamic shared memory without opting in.
inline constexpr unsigned kDefaultDynamicSharedMemoryLimit = 48 * 1024;

/// The driver entry points, each bound to the symbol in its comment.
struct Functions {
  CUresult (*init)(unsigned flags);                                   // cuInit
  CUresult (*driverGetVersion)(int *version);                         // cuDriverGetVersion
  CUresult (*getErrorName)(CUresult error, const char **name);        // cuGetErrorName
  CUresult (*getErrorString)(CUresult error, const char **text);      // cuGetErrorString
  CUresult (*deviceGetCount)(int *count);                             // cuDeviceGetCount
  CUresult (*deviceGet)(CUdevice *device, int ordinal);               // cuDeviceGet
  CUresult (*deviceGetName)(char *name, int length, CUdevice device); // cuDeviceGetName
  CUresult (*deviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*devicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*devicePrimaryCtxRelease)(CUdevice device);                   // _v2
  CUresult (*ctxPushCurrent)(CUcontext context);                          // _v2
  CUresult (*ctxPopCurrent)(CUcontext *context);                          // _v2
  CUresult (*memAlloc)(CUdeviceptr *pointer, size_t bytes);               // _v2
  CUresult (*memFree)(CUdeviceptr pointer);                               // _v2
  CUresult (*memcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes); // _v2
  CUresult (*memcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);       // _v2
  CUresult (*memsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes); // _v2
  CUresult (*moduleLoadData)(CUmodule *module, const void *image);
  CUresult (*moduleUnload)(CUmodule module);
  CUresult (*moduleGetFunction)(CUfunction *function, CUmodule module, const char *name);
  CUresult (*funcGetAttribute)(int *value, int attribute, CUfunction function);
  CUresult (*funcSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*launchKernel)(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ,
                           unsigned blockX, unsigned blockY, unsigned blockZ,
                           unsigned sharedMemoryBytes, CUstream stream, void **params,
                           void **extra);
  CUresult (*memAllocHost)(void **pointer, size_t bytes);                    // _v2
  CUresult (*memFreeHost)(void *pointer);
  CUresult (*memcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                              CUstream stream);                               // _v2
  CUresult (*memcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                              CUstream stream);                               // _v2
  CUresult (*streamCreate)(CUstream *stream, unsigned flags);
  CUresult (*streamDestroy)(CUstream stream);                                 // _v2
  CUresult (*streamSynchronize)(CUstream stream);
  CUresult (*eventCreate)(CUevent *event, unsigned flags);
  CUresult (*eventDestroy)(CUevent event);                                    // _v2
  CUresult (*eventRecord)(CUevent event, CUstream stream);
  CUresult (*eventSynchronize)(CUevent event);
  CUresult (*eventElapsedTime)(float *milliseconds, CUevent start, CUevent end);
  CUresult (*ctxSynchronize)();
  /// CUDA 12.4 and newer; null with older drivers.
  CUresult (*funcGetParamInfo)(CUfunction function, size_t index, size_t *offset, size_t *size);
  /// CUDA 12.0 and newer; null with older drivers. The enums are ints.
  CUresult (*tensorMapEncodeTiled)(void *tensorMap, int dataType, unsigned rank,
                                   void *globalAddress, const unsigned long long *globalDim,
                                   const unsigned long long *globalStrides,
                                   const unsigned *boxDim, const unsigned *elementStrides,
                                   int interleave, int swizzle, int l2Promotion,
                                   int oobFill); // cuTensorMapEncodeTiled
};

} // namespace tessera::runtime::cuda::driver

#endif // TESSERA_RUNTIME_CUDA_CUDADRIVERAPI_H

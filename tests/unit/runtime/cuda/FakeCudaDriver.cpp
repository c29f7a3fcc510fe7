// A stand-in for libcuda.so.1 that runs on the host: device memory is host
// memory, a "cubin" is a text naming its kernel and parameter sizes, and a
// launch runs nothing but is recorded. It lets the CUDA runtime's own logic
// (contexts, buffers, module cache, launch checks, argument packing) be
// tested without a GPU. Only the entry points the runtime binds exist.
// Streams and events are tokens; each launch advances a clock by 1 ms, which
// recorded events read, and every queued copy happens at once.
//
// Image format (NUL-terminated): "kernel=NAME;params=8,8,4;regs=40;max_threads=1024;shared=0"
#include "tests/unit/runtime/cuda/FakeCudaDriver.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNotInitialized = 3, kInvalidImage = 200,
                   kInvalidContext = 201, kInvalidHandle = 400, kNotFound = 500,
                   kOutOfResources = 701;

struct Function {
  std::string name;
  std::vector<size_t> params;
  int registers = 32;
  int maxThreads = 1024;
  int staticShared = 0;
  int maxDynamicShared = 48 * 1024;
};

struct Module {
  Function function;
};

struct Driver {
  bool initialized = false;
  int contextDepth = 0;
  std::map<unsigned long long, std::unique_ptr<char[]>> allocations;
  std::map<void *, std::unique_ptr<char[]>> hostAllocations;
  std::vector<std::unique_ptr<Module>> modules;
  FakeCudaLaunch lastLaunch;
  FakeCudaTensorMap lastTensorMap;
  std::set<std::unique_ptr<char>> streams, events;
  /// When each recorded event was recorded, in ms of launches.
  std::map<void *, double> recorded;
  double clockMs = 0;
};

Driver &driver() {
  static Driver state;
  return state;
}

Module *parseImage(const char *image) {
  auto module = std::make_unique<Module>();
  std::stringstream fields(image);
  std::string field;
  while (std::getline(fields, field, ';')) {
    size_t eq = field.find('=');
    if (eq == std::string::npos)
      return nullptr;
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    Function &f = module->function;
    if (key == "kernel") {
      f.name = value;
    } else if (key == "params") {
      std::stringstream sizes(value);
      std::string size;
      while (std::getline(sizes, size, ','))
        f.params.push_back(std::stoul(size));
    } else if (key == "regs") {
      f.registers = std::stoi(value);
    } else if (key == "max_threads") {
      f.maxThreads = std::stoi(value);
    } else if (key == "shared") {
      f.staticShared = std::stoi(value);
    } else {
      return nullptr;
    }
  }
  if (module->function.name.empty())
    return nullptr;
  driver().modules.push_back(std::move(module));
  return driver().modules.back().get();
}

CUresult needContext() {
  if (!driver().initialized)
    return kNotInitialized;
  return driver().contextDepth > 0 ? kSuccess : kInvalidContext;
}

/// A new token in `tokens`, as the driver's opaque stream or event handle.
void *newToken(std::set<std::unique_ptr<char>> &tokens) {
  return tokens.insert(std::make_unique<char>()).first->get();
}

bool holds(const std::set<std::unique_ptr<char>> &tokens, void *token) {
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](const std::unique_ptr<char> &t) { return t.get() == token; });
}

CUresult dropToken(std::set<std::unique_ptr<char>> &tokens, void *token) {
  for (auto it = tokens.begin(); it != tokens.end(); ++it)
    if (it->get() == token) {
      tokens.erase(it);
      return kSuccess;
    }
  return kInvalidHandle;
}

/// A stream the launches and copies may name: the legacy default (null) or
/// one created and not destroyed.
CUresult needStream(void *stream) {
  if (CUresult result = needContext())
    return result;
  return !stream || holds(driver().streams, stream) ? kSuccess : kInvalidHandle;
}

} // namespace

extern "C" {

const FakeCudaLaunch *tesseraFakeCudaLastLaunch() { return &driver().lastLaunch; }
int tesseraFakeCudaContextDepth() { return driver().contextDepth; }
size_t tesseraFakeCudaLiveAllocations() { return driver().allocations.size(); }
size_t tesseraFakeCudaLiveStreams() { return driver().streams.size(); }
size_t tesseraFakeCudaLiveHostAllocations() { return driver().hostAllocations.size(); }
size_t tesseraFakeCudaLiveEvents() { return driver().events.size(); }

CUresult cuInit(unsigned) {
  driver().initialized = true;
  return kSuccess;
}
CUresult cuDriverGetVersion(int *version) {
  *version = 12040;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kSuccess: *name = "CUDA_SUCCESS"; return kSuccess;
  case kInvalidValue: *name = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
  case kInvalidImage: *name = "CUDA_ERROR_INVALID_IMAGE"; return kSuccess;
  case kInvalidContext: *name = "CUDA_ERROR_INVALID_CONTEXT"; return kSuccess;
  case kInvalidHandle: *name = "CUDA_ERROR_INVALID_HANDLE"; return kSuccess;
  case kNotFound: *name = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
  case kOutOfResources: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return kSuccess;
  default: *name = nullptr; return kInvalidValue;
  }
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case kInvalidValue: *text = "invalid argument"; return kSuccess;
  case kInvalidImage: *text = "device kernel image is invalid"; return kSuccess;
  case kInvalidContext: *text = "invalid device context"; return kSuccess;
  case kInvalidHandle: *text = "invalid resource handle"; return kSuccess;
  case kNotFound: *text = "named symbol not found"; return kSuccess;
  case kOutOfResources: *text = "too many resources requested for launch"; return kSuccess;
  default: *text = nullptr; return kInvalidValue;
  }
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal != 0)
    return kInvalidValue;
  *device = 0;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "Fake H100", size_t(length));
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  switch (attribute) {
  case 5: *value = 2147483647; return kSuccess;   // MAX_GRID_DIM_X
  case 6: case 7: *value = 65535; return kSuccess; // MAX_GRID_DIM_Y/Z
  case 16: *value = 132; return kSuccess;          // MULTIPROCESSOR_COUNT
  case 75: *value = 9; return kSuccess;            // COMPUTE_CAPABILITY_MAJOR
  case 76: *value = 0; return kSuccess;            // COMPUTE_CAPABILITY_MINOR
  case 97: *value = 232448; return kSuccess;       // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  default: return kInvalidValue;
  }
}
CUresult cuDevicePrimaryCtxRetain(void **context, int) {
  *context = &driver();
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxPushCurrent_v2(void *context) {
  if (context != &driver())
    return kInvalidContext;
  ++driver().contextDepth;
  return kSuccess;
}
CUresult cuCtxPopCurrent_v2(void **context) {
  if (driver().contextDepth == 0)
    return kInvalidContext;
  --driver().contextDepth;
  if (context)
    *context = &driver();
  return kSuccess;
}
CUresult cuCtxSynchronize() { return needContext(); }
CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (CUresult result = needContext())
    return result;
  if (bytes == 0)
    return kInvalidValue;
  auto memory = std::make_unique<char[]>(bytes);
  *pointer = reinterpret_cast<unsigned long long>(memory.get());
  driver().allocations[*pointer] = std::move(memory);
  return kSuccess;
}
CUresult cuMemFree_v2(unsigned long long pointer) {
  if (CUresult result = needContext())
    return result;
  return driver().allocations.erase(pointer) ? kSuccess : kInvalidValue;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
  if (CUresult result = needContext())
    return result;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  if (CUresult result = needContext())
    return result;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return kSuccess;
}
CUresult cuMemsetD8_v2(unsigned long long dst, unsigned char value, size_t bytes) {
  if (CUresult result = needContext())
    return result;
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return kSuccess;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  if (CUresult result = needContext())
    return result;
  Module *loaded = parseImage(static_cast<const char *>(image));
  if (!loaded)
    return kInvalidImage;
  *module = loaded;
  return kSuccess;
}
CUresult cuModuleUnload(void *) { return needContext(); }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  if (CUresult result = needContext())
    return result;
  Function &f = static_cast<Module *>(module)->function;
  if (f.name != name)
    return kNotFound;
  *function = &f;
  return kSuccess;
}
CUresult cuFuncGetAttribute(int *value, int attribute, void *function) {
  auto *f = static_cast<Function *>(function);
  switch (attribute) {
  case 0: *value = f->maxThreads; return kSuccess;
  case 1: *value = f->staticShared; return kSuccess;
  case 4: *value = f->registers; return kSuccess;
  case 8: *value = f->maxDynamicShared; return kSuccess;
  default: return kInvalidValue;
  }
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  if (attribute != 8 || value < 0 || value + static_cast<Function *>(function)->staticShared > 232448)
    return kInvalidValue;
  static_cast<Function *>(function)->maxDynamicShared = value;
  return kSuccess;
}
CUresult cuFuncGetParamInfo(void *function, size_t index, size_t *offset, size_t *size) {
  auto *f = static_cast<Function *>(function);
  if (index >= f->params.size())
    return kInvalidValue;
  *offset = 0;
  for (size_t i = 0; i < index; ++i)
    *offset += f->params[i];
  *size = f->params[index];
  return kSuccess;
}
CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY, unsigned gridZ,
                        unsigned blockX, unsigned blockY, unsigned blockZ, unsigned shared,
                        void *stream, void **params, void **) {
  if (CUresult result = needStream(stream))
    return result;
  auto *f = static_cast<Function *>(function);
  if (shared > unsigned(f->maxDynamicShared))
    return kInvalidValue;
  if (int(blockX * blockY * blockZ) > f->maxThreads)
    return kOutOfResources;
  FakeCudaLaunch &launch = driver().lastLaunch;
  unsigned launches = launch.count;
  launch = FakeCudaLaunch();
  launch.count = launches + 1;
  std::strncpy(launch.kernel, f->name.c_str(), sizeof(launch.kernel) - 1);
  launch.grid[0] = gridX, launch.grid[1] = gridY, launch.grid[2] = gridZ;
  launch.block[0] = blockX, launch.block[1] = blockY, launch.block[2] = blockZ;
  launch.sharedMemoryBytes = shared;
  launch.stream = stream;
  for (size_t size : f->params) {
    std::memcpy(launch.params + launch.paramBytes, params[launch.numParams++], size);
    launch.paramBytes += size;
  }
  driver().clockMs += 1.0;
  return kSuccess;
}
CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  if (CUresult result = needContext())
    return result;
  auto memory = std::make_unique<char[]>(bytes);
  *pointer = memory.get();
  driver().hostAllocations[*pointer] = std::move(memory);
  return kSuccess;
}
CUresult cuMemFreeHost(void *pointer) {
  if (CUresult result = needContext())
    return result;
  return driver().hostAllocations.erase(pointer) ? kSuccess : kInvalidValue;
}
CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t bytes,
                              void *stream) {
  if (CUresult result = needStream(stream))
    return result;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes, void *stream) {
  if (CUresult result = needStream(stream))
    return result;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return kSuccess;
}
CUresult cuStreamCreate(void **stream, unsigned) {
  if (CUresult result = needContext())
    return result;
  *stream = newToken(driver().streams);
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void *stream) {
  if (CUresult result = needContext())
    return result;
  return dropToken(driver().streams, stream);
}
CUresult cuStreamSynchronize(void *stream) { return needStream(stream); }
CUresult cuEventCreate(void **event, unsigned) {
  if (CUresult result = needContext())
    return result;
  *event = newToken(driver().events);
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  if (CUresult result = needContext())
    return result;
  driver().recorded.erase(event);
  return dropToken(driver().events, event);
}
CUresult cuEventRecord(void *event, void *stream) {
  if (CUresult result = needStream(stream))
    return result;
  if (!holds(driver().events, event))
    return kInvalidHandle;
  driver().recorded[event] = driver().clockMs;
  return kSuccess;
}
CUresult cuEventSynchronize(void *event) {
  if (CUresult result = needContext())
    return result;
  return holds(driver().events, event) ? kSuccess : kInvalidHandle;
}
const FakeCudaTensorMap *tesseraFakeCudaLastTensorMap() { return &driver().lastTensorMap; }
CUresult cuTensorMapEncodeTiled(void *tensorMap, int dataType, unsigned rank, void *address,
                                const unsigned long long *dims,
                                const unsigned long long *strides, const unsigned *box,
                                const unsigned *elementStrides, int interleave, int swizzle,
                                int l2Promotion, int oobFill) {
  if (rank == 0 || rank > 5 || reinterpret_cast<uintptr_t>(tensorMap) % 64 != 0)
    return kInvalidValue;
  FakeCudaTensorMap &map = driver().lastTensorMap;
  map = FakeCudaTensorMap{dataType, rank, address, {}, {}, {}, {}, interleave, swizzle,
                          l2Promotion, oobFill, map.count + 1};
  for (unsigned i = 0; i < rank; ++i) {
    map.dims[i] = dims[i];
    map.box[i] = box[i];
    map.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      map.strides[i] = strides[i];
  }
  std::memset(tensorMap, 0, 128);
  std::memcpy(tensorMap, &address, sizeof(address));
  static_cast<unsigned char *>(tensorMap)[8] = static_cast<unsigned char>(rank);
  return kSuccess;
}
/// Only the _v2 symbol: the runtime takes it where the driver has it.
CUresult cuEventElapsedTime_v2(float *milliseconds, void *start, void *end) {
  if (CUresult result = needContext())
    return result;
  auto from = driver().recorded.find(start), to = driver().recorded.find(end);
  if (from == driver().recorded.end() || to == driver().recorded.end())
    return kInvalidHandle; // as the driver answers for an event never recorded
  *milliseconds = float(to->second - from->second);
  return kSuccess;
}

} // extern "C"

// What the fake driver (FakeCudaDriver.cpp) records, for tests to inspect.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_CUDA_FAKECUDADRIVER_H
#define TESSERA_TESTS_UNIT_RUNTIME_CUDA_FAKECUDADRIVER_H

#include <cstddef>

struct FakeCudaLaunch {
  char kernel[64] = {};
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned sharedMemoryBytes = 0;
  void *stream = nullptr;
  /// The parameters' bytes, back to back, as many per parameter as the
  /// kernel declares.
  unsigned char params[256] = {};
  size_t paramBytes = 0;
  size_t numParams = 0;
  /// Launches so far.
  unsigned count = 0;
};

/// The arguments of the last cuTensorMapEncodeTiled. The fake writes the
/// global address into the map's first 8 bytes and the rank into byte 8.
struct FakeCudaTensorMap {
  int dataType = -1;
  unsigned rank = 0;
  void *address = nullptr;
  unsigned long long dims[5] = {}, strides[4] = {};
  unsigned box[5] = {}, elementStrides[5] = {};
  int interleave = -1, swizzle = -1, l2Promotion = -1, oobFill = -1;
  /// Encodings so far.
  unsigned count = 0;
};

extern "C" {
const FakeCudaLaunch *tesseraFakeCudaLastLaunch();
const FakeCudaTensorMap *tesseraFakeCudaLastTensorMap();
/// Contexts pushed and not popped.
int tesseraFakeCudaContextDepth();
size_t tesseraFakeCudaLiveAllocations();
size_t tesseraFakeCudaLiveStreams();
size_t tesseraFakeCudaLiveHostAllocations();
size_t tesseraFakeCudaLiveEvents();
}

#endif // TESSERA_TESTS_UNIT_RUNTIME_CUDA_FAKECUDADRIVER_H

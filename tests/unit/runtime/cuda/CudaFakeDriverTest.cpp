// The CUDA runtime against a fake driver (FakeCudaDriver.cpp) that records
// what it is asked to do: device facts, buffers, the module cache, the
// checks before a launch, how arguments reach cuLaunchKernel, and that every
// call leaves the caller's context as it was. No GPU needed.
#include "runtime/cuda/CudaDevice.h"

#include "tests/unit/runtime/cuda/FakeCudaDriver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>

using namespace tessera::runtime;
using namespace tessera::runtime::cuda;
namespace gpu = tessera::gpu;

namespace {

/// A "cubin" for the fake driver: the kernel's name and parameter sizes.
gpu::KernelBinary fakeBinary(const std::string &name, const std::string &fields,
                             unsigned blockThreads = 128, unsigned dynamicShared = 0) {
  gpu::KernelBinary binary;
  binary.target = *gpu::GpuTarget::parse("cuda:sm_90a");
  binary.kernelName = name;
  std::string image = "kernel=" + name + ";" + fields;
  binary.binary.assign(image.begin(), image.end());
  binary.binary.push_back(0);
  binary.blockThreads = blockThreads;
  binary.dynamicSharedMemoryBytes = dynamicShared;
  return binary;
}

KernelSignature signatureOf(std::initializer_list<ArgKind> kinds) {
  KernelSignature signature;
  for (ArgKind kind : kinds) {
    KernelSignature::Param param;
    param.kind = kind;
    signature.params.push_back(param);
  }
  return signature;
}

template <typename T> T paramAt(const FakeCudaLaunch &launch, size_t offset) {
  T value;
  std::memcpy(&value, launch.params + offset, sizeof(T));
  return value;
}

class CudaFakeDriver : public ::testing::Test {
protected:
  static void SetUpTestSuite() { setenv("TESSERA_LIBCUDA", TESSERA_FAKE_CUDA_LIBRARY, 1); }

  void SetUp() override {
    std::string reason;
    ASSERT_TRUE(CudaDevice::isAvailable(0, &reason)) << reason;
    llvm::Expected<std::unique_ptr<CudaDevice>> opened = CudaDevice::open(0);
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    device = std::move(*opened);
  }

  void TearDown() override {
    EXPECT_EQ(tesseraFakeCudaContextDepth(), 0) << "a call left its context pushed";
  }

  std::string loadError(const gpu::KernelBinary &binary, const KernelSignature &signature) {
    llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
    return kernel ? "" : llvm::toString(kernel.takeError());
  }

  std::unique_ptr<CudaDevice> device;
};

TEST_F(CudaFakeDriver, DeviceFacts) {
  const CudaDeviceInfo &info = device->info();
  EXPECT_EQ(info.name, "Fake H100");
  EXPECT_EQ(info.computeCapability, 90u);
  EXPECT_EQ(info.chip(), "sm_90a");
  EXPECT_EQ(info.multiprocessors, 132u);
  EXPECT_EQ(info.maxSharedMemoryPerBlock, 232448u);
  EXPECT_EQ(info.maxGrid[1], 65535u);
  EXPECT_EQ(info.driverVersion, 12040);
  EXPECT_EQ(CudaDevice::count().get(), 1);
  std::string reason;
  EXPECT_FALSE(CudaDevice::isAvailable(1, &reason));
  EXPECT_EQ(reason, "CUDA device 1 does not exist (this machine has 1)");
}

TEST_F(CudaFakeDriver, BuffersAreZeroFilledCopiedAndFreed) {
  size_t live = tesseraFakeCudaLiveAllocations();
  {
    llvm::Expected<CudaBuffer> buffer = device->allocate(16);
    ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    EXPECT_EQ(tesseraFakeCudaLiveAllocations(), live + 1);
    uint8_t bytes[16];
    ASSERT_FALSE(bool(buffer->copyToHost(bytes, 16)));
    for (uint8_t byte : bytes)
      EXPECT_EQ(byte, 0);
    uint32_t value = 0xdeadbeef, back = 0;
    ASSERT_FALSE(bool(buffer->copyFromHost(&value, 4, 12)));
    ASSERT_FALSE(bool(buffer->copyToHost(&back, 4, 12)));
    EXPECT_EQ(back, value);
    ASSERT_FALSE(bool(buffer->fill(0xab)));
    ASSERT_FALSE(bool(buffer->copyToHost(&back, 4)));
    EXPECT_EQ(back, 0xababababu);
    EXPECT_EQ(llvm::toString(buffer->copyFromHost(&value, 4, 13)),
              "copyFromHost of 4 bytes at offset 13 overruns the 16-byte CUDA buffer");

    CudaBuffer moved = std::move(*buffer);
    EXPECT_FALSE(bool(*buffer));
    EXPECT_EQ(moved.size(), 16u);
  }
  EXPECT_EQ(tesseraFakeCudaLiveAllocations(), live) << "freed with the buffer";
}

TEST_F(CudaFakeDriver, ArgumentsReachTheKernelAsItDeclaresThem) {
  // ptr, i32, f32, i1 (passed as i32), f16, i64.
  gpu::KernelBinary binary = fakeBinary("pack", "params=8,4,4,4,2,8");
  KernelSignature signature = signatureOf(
      {ArgKind::Pointer, ArgKind::I32, ArgKind::F32, ArgKind::I1, ArgKind::F16, ArgKind::I64});
  llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<CudaBuffer> buffer = device->allocate(64);
  ASSERT_TRUE(bool(buffer));
  llvm::Expected<CudaStream> stream = device->createStream();
  ASSERT_TRUE(bool(stream)) << llvm::toString(stream.takeError());

  llvm::Error err = device->launch(*kernel, {3, 2, 1},
                                   {*buffer, 7, 2.5f, true, 1.0, int64_t(-3)},
                                   {.stream = stream->handle(), .synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  const FakeCudaLaunch &launch = *tesseraFakeCudaLastLaunch();
  EXPECT_STREQ(launch.kernel, "pack");
  EXPECT_EQ(launch.grid[0], 3u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.block[1], 1u);
  EXPECT_EQ(launch.sharedMemoryBytes, 0u);
  EXPECT_EQ(launch.stream, stream->handle());
  ASSERT_EQ(launch.numParams, 6u);
  EXPECT_EQ(paramAt<uint64_t>(launch, 0), buffer->devicePointer());
  EXPECT_EQ(paramAt<int32_t>(launch, 8), 7);
  EXPECT_EQ(paramAt<float>(launch, 12), 2.5f);
  EXPECT_EQ(paramAt<int32_t>(launch, 16), 1);
  EXPECT_EQ(paramAt<uint16_t>(launch, 20), 0x3c00) << "1.0 as f16";
  EXPECT_EQ(paramAt<int64_t>(launch, 22), -3);
}

/// A kernel as the NVIDIA lowering makes one for a host descriptor of
/// bf16 [M, K] (ptr, M, K, stride) whose blocks TMA copies: its tensor map
/// follows the signature.
gpu::KernelBinary tensorMapBinary() {
  gpu::KernelBinary binary = fakeBinary("tma", "params=8,4,4,8,128");
  gpu::TensorMapParam map;
  map.base = 0;
  map.shape = {{1, 0}, {2, 0}};
  map.outerStrides = {{3, 0}};
  map.element = "bf16";
  map.elementBytes = 2;
  map.box = {64, 128};
  map.swizzleBytes = 128;
  binary.tensorMaps.push_back(map);
  return binary;
}

/// tensorMapBinary() loaded for its arguments (pointer, i32, i32, i64), with
/// a buffer of bf16 [100, 208] for the descriptor's base.
class CudaFakeDriverTma : public CudaFakeDriver {
protected:
  void SetUp() override {
    CudaFakeDriver::SetUp();
    KernelSignature signature =
        signatureOf({ArgKind::Pointer, ArgKind::I32, ArgKind::I32, ArgKind::I64});
    llvm::Expected<CudaKernel> loaded = device->load(tensorMapBinary(), signature);
    ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    kernel = std::move(*loaded);
    llvm::Expected<CudaBuffer> allocated = device->allocate(100 * 208 * 2);
    ASSERT_TRUE(bool(allocated));
    buffer = std::move(*allocated);
  }

  std::optional<CudaKernel> kernel;
  std::optional<CudaBuffer> buffer;
};

TEST_F(CudaFakeDriverTma, TensorMapsAreEncodedFromTheDescriptorsArguments) {
  llvm::Error err = device->launch(*kernel, {4, 1, 1}, {*buffer, 100, 200, int64_t(208)},
                                   {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));

  const FakeCudaTensorMap &map = *tesseraFakeCudaLastTensorMap();
  EXPECT_EQ(map.dataType, 9) << "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  ASSERT_EQ(map.rank, 2u);
  EXPECT_EQ(reinterpret_cast<uint64_t>(map.address), buffer->devicePointer());
  EXPECT_EQ(map.dims[0], 200u) << "innermost first";
  EXPECT_EQ(map.dims[1], 100u);
  EXPECT_EQ(map.strides[0], 416u) << "bytes";
  EXPECT_EQ(map.box[0], 64u);
  EXPECT_EQ(map.box[1], 128u);
  EXPECT_EQ(map.elementStrides[0], 1u);
  EXPECT_EQ(map.swizzle, 3) << "CU_TENSOR_MAP_SWIZZLE_128B";
  EXPECT_EQ(map.interleave, 0);
  EXPECT_EQ(map.oobFill, 0) << "zeros outside";

  const FakeCudaLaunch &launch = *tesseraFakeCudaLastLaunch();
  ASSERT_EQ(launch.numParams, 5u);
  EXPECT_EQ(paramAt<uint64_t>(launch, 24), buffer->devicePointer())
      << "the encoded map is the fifth parameter";
  EXPECT_EQ(launch.params[32], 2) << "its rank byte";
}

TEST_F(CudaFakeDriverTma, ALaunchOnTheSameTensorsPassesTheMapsItEncodedBefore) {
  auto launch = [&](int64_t stride) {
    llvm::Error err = device->launch(*kernel, {4, 1, 1}, {*buffer, 100, 200, stride},
                                     {.synchronize = true});
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return paramAt<uint64_t>(*tesseraFakeCudaLastLaunch(), 24);
  };
  unsigned before = tesseraFakeCudaLastTensorMap()->count;
  EXPECT_EQ(launch(208), buffer->devicePointer());
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->count, before + 1);
  EXPECT_EQ(launch(208), buffer->devicePointer()) << "the map of the launch before, passed again";
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->count, before + 1) << "not encoded again";
  launch(200);
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->count, before + 2) << "another stride, another map";
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->strides[0], 400u);
  launch(208);
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->count, before + 3) << "only the last is kept";
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->strides[0], 416u);
}

TEST_F(CudaFakeDriverTma, TensorMapsRefuseWhatTmaCannotDescribe) {
  auto launchError = [&](std::initializer_list<Argument> args) {
    llvm::Error err = device->launch(*kernel, {1, 1, 1}, args, {.synchronize = true});
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  EXPECT_NE(launchError({*buffer, 10, 20, int64_t(21)})
                .find("argument 3 (stride 0 of a tensor descriptor) is 21 elements; TMA takes "
                      "positive multiples of 16 bytes"),
            std::string::npos);
  EXPECT_NE(launchError({*buffer, 0, 20, int64_t(24)})
                .find("argument 1 (extent 0 of a tensor descriptor) is 0"),
            std::string::npos);
  unsigned encoded = tesseraFakeCudaLastTensorMap()->count;
  llvm::Error empty =
      device->launch(*kernel, {0, 1, 1}, {*buffer, 0, 20, int64_t(24)}, {.synchronize = true});
  EXPECT_FALSE(bool(empty)) << "an empty grid launches nothing, whatever its maps would be";
  llvm::consumeError(std::move(empty));
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->count, encoded);
  EXPECT_NE(launchError({reinterpret_cast<void *>(buffer->devicePointer() + 2), 10, 20, int64_t(24)})
                .find("argument 0 (a tensor descriptor's base) is not a multiple of 16 bytes"),
            std::string::npos);
}

TEST_F(CudaFakeDriver, TensorMapStridesMayBeSignExtendedI32Arguments) {
  // tl.make_tensor_descriptor(x, [M, K], [K, 1], ...) with K an i32.
  gpu::KernelBinary binary = tensorMapBinary();
  binary.binary = fakeBinary("tma", "params=8,4,4,4,128").binary;
  KernelSignature signature =
      signatureOf({ArgKind::Pointer, ArgKind::I32, ArgKind::I32, ArgKind::I32});
  llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<CudaBuffer> buffer = device->allocate(100 * 208 * 2);
  ASSERT_TRUE(bool(buffer));
  llvm::Error err = device->launch(*kernel, {1, 1, 1}, {*buffer, 100, 200, 208},
                                   {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(tesseraFakeCudaLastTensorMap()->strides[0], 416u);
  err = device->launch(*kernel, {1, 1, 1}, {*buffer, 100, 200, -16}, {.synchronize = true});
  std::string error = err ? llvm::toString(std::move(err)) : "";
  EXPECT_NE(error.find("argument 3 (stride 0 of a tensor descriptor) is -16 elements"),
            std::string::npos)
      << error;
}

TEST_F(CudaFakeDriver, TensorMapExtentsAndStridesMayBeConstants) {
  // tl.make_tensor_descriptor(x, [M, HEAD_DIM], [HEAD_DIM, 1], ...), HEAD_DIM = 64.
  gpu::KernelBinary binary = tensorMapBinary();
  binary.binary = fakeBinary("tma", "params=8,4,128").binary;
  binary.tensorMaps[0].shape = {{1, 0}, {-1, 64}};
  binary.tensorMaps[0].outerStrides = {{-1, 64}};
  llvm::Expected<CudaKernel> kernel =
      device->load(binary, signatureOf({ArgKind::Pointer, ArgKind::I32}));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<CudaBuffer> buffer = device->allocate(100 * 64 * 2);
  ASSERT_TRUE(bool(buffer));
  llvm::Error err = device->launch(*kernel, {1, 1, 1}, {*buffer, 100}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  const FakeCudaTensorMap &map = *tesseraFakeCudaLastTensorMap();
  EXPECT_EQ(map.dims[0], 64u);
  EXPECT_EQ(map.dims[1], 100u);
  EXPECT_EQ(map.strides[0], 128u);
}

TEST_F(CudaFakeDriver, ATensorMapParameterMustTake128Bytes) {
  gpu::KernelBinary binary = tensorMapBinary();
  binary.binary = fakeBinary("tma", "params=8,4,4,8,8").binary;
  std::string error = loadError(
      binary, signatureOf({ArgKind::Pointer, ArgKind::I32, ArgKind::I32, ArgKind::I64}));
  EXPECT_NE(error.find("parameter 4 takes 8 bytes in the cubin, but a tensor map takes 128"),
            std::string::npos)
      << error;
}

TEST_F(CudaFakeDriver, EventsTimeTheWorkQueuedBetweenThem) {
  size_t streams = tesseraFakeCudaLiveStreams(), events = tesseraFakeCudaLiveEvents();
  {
    llvm::Expected<CudaKernel> kernel =
        device->load(fakeBinary("step", "params=8"), signatureOf({ArgKind::Pointer}));
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    llvm::Expected<CudaBuffer> buffer = device->allocate(4);
    llvm::Expected<CudaStream> stream = device->createStream();
    llvm::Expected<CudaEvent> start = device->createEvent(), end = device->createEvent();
    ASSERT_TRUE(buffer && stream && start && end);
    EXPECT_EQ(tesseraFakeCudaLiveStreams(), streams + 1);
    EXPECT_EQ(tesseraFakeCudaLiveEvents(), events + 2);

    ASSERT_FALSE(bool(start->record(stream->handle())));
    for (int i = 0; i < 3; ++i)
      ASSERT_FALSE(bool(device->launch(*kernel, {1}, {*buffer}, {.stream = stream->handle()})));
    ASSERT_FALSE(bool(end->record(stream->handle())));
    ASSERT_FALSE(bool(end->synchronize()));
    ASSERT_FALSE(bool(stream->synchronize()));
    // The fake driver's launches take 1 ms each.
    llvm::Expected<float> elapsed = CudaEvent::elapsedMilliseconds(*start, *end);
    ASSERT_TRUE(bool(elapsed)) << llvm::toString(elapsed.takeError());
    EXPECT_EQ(*elapsed, 3.0f);

    llvm::Expected<CudaEvent> unrecorded = device->createEvent();
    ASSERT_TRUE(bool(unrecorded));
    llvm::Expected<float> never = CudaEvent::elapsedMilliseconds(*start, *unrecorded);
    ASSERT_FALSE(bool(never));
    std::string error = llvm::toString(never.takeError());
    EXPECT_NE(error.find("cuEventElapsedTime failed"), std::string::npos) << error;
    EXPECT_NE(error.find("CUDA_ERROR_INVALID_HANDLE"), std::string::npos) << error;

    CudaEvent moved = std::move(*start);
    EXPECT_FALSE(bool(*start));
    EXPECT_EQ(llvm::toString(start->record()), "record on an empty CudaEvent");
    CudaStream movedStream = std::move(*stream);
    EXPECT_EQ(llvm::toString(stream->synchronize()), "synchronize on an empty CudaStream");
  }
  EXPECT_EQ(tesseraFakeCudaLiveStreams(), streams) << "a stream outlived its handle";
  EXPECT_EQ(tesseraFakeCudaLiveEvents(), events) << "an event outlived its handle";
}

TEST_F(CudaFakeDriver, CopiesQueuedOnAStreamFromPageLockedMemory) {
  size_t pinned = tesseraFakeCudaLiveHostAllocations();
  llvm::Expected<CudaBuffer> buffer = device->allocate(16);
  llvm::Expected<CudaStream> stream = device->createStream();
  llvm::Expected<CudaHostBuffer> host = device->allocateHost(8);
  ASSERT_TRUE(buffer && stream && host);
  EXPECT_EQ(tesseraFakeCudaLiveHostAllocations(), pinned + 1);
  EXPECT_EQ(host->size(), 8u);
  auto *words = static_cast<uint32_t *>(host->data());
  EXPECT_EQ(words[0], 0u) << "page-locked memory starts zeroed";
  words[0] = 0x12345678;
  ASSERT_FALSE(bool(buffer->copyFromHostAsync(words, 4, stream->handle(), 8)));
  ASSERT_FALSE(bool(buffer->copyToHostAsync(words + 1, 4, stream->handle(), 8)));
  ASSERT_FALSE(bool(stream->synchronize()));
  EXPECT_EQ(words[1], 0x12345678u);
  uint32_t value = 0x12345678, back = 0;
  // The legacy default stream too.
  ASSERT_FALSE(bool(buffer->copyToHostAsync(&back, 4, nullptr, 0)));
  EXPECT_EQ(back, 0u);
  EXPECT_EQ(llvm::toString(buffer->copyFromHostAsync(&value, 4, stream->handle(), 13)),
            "copyFromHostAsync of 4 bytes at offset 13 overruns the 16-byte CUDA buffer");
  *host = CudaHostBuffer();
  EXPECT_EQ(tesseraFakeCudaLiveHostAllocations(), pinned) << "freed with its handle";
}

TEST_F(CudaFakeDriver, LaunchChecksArgumentsAndGrid) {
  gpu::KernelBinary binary = fakeBinary("axpy", "params=8,4");
  llvm::Expected<CudaKernel> kernel =
      device->load(binary, signatureOf({ArgKind::Pointer, ArgKind::I32}));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<CudaBuffer> buffer = device->allocate(4);
  ASSERT_TRUE(bool(buffer));
  unsigned launches = tesseraFakeCudaLastLaunch()->count;

  EXPECT_EQ(llvm::toString(device->launch(*kernel, {1}, {*buffer})),
            "kernel 'axpy' takes 2 arguments (ptr, i32), got 1");
  EXPECT_EQ(llvm::toString(device->launch(*kernel, {1}, {*buffer, int64_t(1) << 40})),
            "kernel 'axpy': argument 1 is i32, got integer 1099511627776 (out of range)");
  EXPECT_EQ(llvm::toString(device->launch(*kernel, {1, 70000}, {*buffer, 1})),
            "kernel 'axpy': grid (1, 70000, 1) exceeds the device's (2147483647, 65535, 65535)");
  EXPECT_FALSE(bool(device->launch(*kernel, {0}, {*buffer, 1})));
  EXPECT_EQ(tesseraFakeCudaLastLaunch()->count, launches) << "nothing was launched";
}

TEST_F(CudaFakeDriver, ModuleCacheKeysOnTheCubinAndEntry) {
  KernelSignature signature = signatureOf({ArgKind::Pointer});
  size_t before = device->numLoadedModules();
  ASSERT_TRUE(bool(device->load(fakeBinary("cached", "params=8"), signature)));
  ASSERT_TRUE(bool(device->load(fakeBinary("cached", "params=8"), signature)));
  EXPECT_EQ(device->numLoadedModules(), before + 1);
  ASSERT_TRUE(bool(device->load(fakeBinary("cached", "params=8;regs=64"), signature)));
  EXPECT_EQ(device->numLoadedModules(), before + 2) << "another cubin";
}

TEST_F(CudaFakeDriver, TheCubinsParametersMustMatchTheSignature) {
  EXPECT_NE(loadError(fakeBinary("fewer", "params=8,8"),
                      signatureOf({ArgKind::Pointer, ArgKind::Pointer, ArgKind::I32}))
                .find("the kernel takes 2 parameters, its signature (ptr, ptr, i32) lists 3"),
            std::string::npos);
  EXPECT_NE(loadError(fakeBinary("more", "params=8,8,4"),
                      signatureOf({ArgKind::Pointer, ArgKind::Pointer}))
                .find("the kernel takes more than the 2 parameters of its signature (ptr, ptr)"),
            std::string::npos);
  EXPECT_NE(loadError(fakeBinary("sizes", "params=8,8"),
                      signatureOf({ArgKind::Pointer, ArgKind::I32}))
                .find("parameter 1 takes 8 bytes in the cubin, but the signature says i32"),
            std::string::npos);
  EXPECT_EQ(loadError(fakeBinary("flag", "params=1"), signatureOf({ArgKind::I1})), "")
      << "i1 may also be a byte";
}

TEST_F(CudaFakeDriver, DynamicSharedMemoryAbove48KiBIsOptedIn) {
  gpu::KernelBinary binary = fakeBinary("big_smem", "params=8", 256, 65536);
  llvm::Expected<CudaKernel> kernel = device->load(binary, signatureOf({ArgKind::Pointer}));
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  llvm::Expected<CudaBuffer> buffer = device->allocate(4);
  ASSERT_TRUE(bool(buffer));
  llvm::Error err = device->launch(*kernel, {2}, {*buffer});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(tesseraFakeCudaLastLaunch()->sharedMemoryBytes, 65536u);
  EXPECT_EQ(tesseraFakeCudaLastLaunch()->block[0], 256u);

  std::string error = loadError(fakeBinary("too_big", "params=8;shared=1024", 256, 232448),
                                signatureOf({ArgKind::Pointer}));
  EXPECT_NE(error.find("the kernel needs 233472 bytes of shared memory (1024 static, 232448 "
                       "dynamic), the device gives a block at most 232448"),
            std::string::npos)
      << error;
}

TEST_F(CudaFakeDriver, RegistersLimitTheBlock) {
  std::string error = loadError(fakeBinary("heavy", "params=8;regs=128;max_threads=512", 1024),
                                signatureOf({ArgKind::Pointer}));
  EXPECT_NE(error.find("the kernel launches 1024 threads per block, but with 128 registers per "
                       "thread the device runs at most 512"),
            std::string::npos)
      << error;
}

TEST_F(CudaFakeDriver, DriverErrorsNameKernelDeviceAndCudaError) {
  gpu::KernelBinary binary = fakeBinary("present", "params=8");
  binary.kernelName = "absent";
  EXPECT_EQ(loadError(binary, signatureOf({ArgKind::Pointer})),
            "kernel 'absent' (cuda:sm_90a) on CUDA device 0 (Fake H100, sm_90a): "
            "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found)");
  binary.binary = {'n', 'o', 't', 0};
  EXPECT_NE(loadError(binary, signatureOf({ArgKind::Pointer}))
                .find("cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image "
                      "is invalid)"),
            std::string::npos);
}

TEST_F(CudaFakeDriver, KernelsBelongToTheirDevice) {
  llvm::Expected<std::unique_ptr<CudaDevice>> other = CudaDevice::open(0);
  ASSERT_TRUE(bool(other));
  llvm::Expected<CudaKernel> kernel =
      (*other)->load(fakeBinary("elsewhere", "params=8"), signatureOf({ArgKind::Pointer}));
  ASSERT_TRUE(bool(kernel));
  llvm::Expected<CudaBuffer> buffer = device->allocate(4);
  ASSERT_TRUE(bool(buffer));
  std::string error = llvm::toString(device->launch(*kernel, {1}, {*buffer}));
  EXPECT_EQ(error, "kernel 'elsewhere' was loaded on another device than CUDA device 0 "
                   "(Fake H100, sm_90a)");
}

TEST_F(CudaFakeDriver, NonNvidiaBinariesAreRefused) {
  gpu::KernelBinary binary = fakeBinary("amd", "params=8");
  binary.target = *gpu::GpuTarget::parse("hip:gfx942");
  EXPECT_NE(loadError(binary, signatureOf({ArgKind::Pointer})).find("not an NVIDIA binary"),
            std::string::npos);
}

} // namespace

// The Vulkan runtime on a real device (lavapipe in CI): kernels compiled by
// lowering/gpu/spirv run and match host references on fresh random inputs.
// Every test skips, with the reason, where there is no Vulkan device.
#include "runtime/vulkan/VulkanDevice.h"

#include "tests/unit/lowering/gpu/spirv/VulkanTestKernels.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace tessera;
using namespace tessera::runtime::vulkan;
using namespace tessera::test::vulkan;
using gpu::vulkan::VulkanKernel;
using tessera::runtime::Grid;

namespace {

/// The device every test shares, or why there is none.
struct SharedDevice {
  std::unique_ptr<VulkanDevice> device;
  std::string unavailable;
};

SharedDevice &sharedDevice() {
  static SharedDevice shared = [] {
    SharedDevice result;
    llvm::Expected<std::unique_ptr<VulkanDevice>> device = VulkanDevice::open();
    if (device)
      result.device = std::move(*device);
    else
      result.unavailable = llvm::toString(device.takeError());
    return result;
  }();
  return shared;
}

class VulkanRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    SharedDevice &shared = sharedDevice();
    if (!shared.device) {
      if (llvm::StringRef(shared.unavailable).starts_with("Vulkan is not available"))
        GTEST_SKIP() << shared.unavailable;
      FAIL() << "a Vulkan loader exists but no device opened: " << shared.unavailable;
    }
    device = shared.device.get();
    seed = std::random_device()();
    random.seed(seed);
    context = makeContext();
  }

  /// Compiles a test kernel for the device (its subgroup size and features).
  VulkanKernel compile(const char *text) {
    auto module = parseKernel(*context, instantiate(text, device->target().warpSize));
    EXPECT_TRUE(module);
    llvm::Expected<VulkanKernel> kernel =
        gpu::vulkan::compileForVulkan(*module, device->target(), device->info().features);
    if (!kernel) {
      ADD_FAILURE() << llvm::toString(kernel.takeError());
      return {};
    }
    return std::move(*kernel);
  }

  unsigned blockThreads() const { return device->target().warpSize * kWarpsPerBlock; }

  template <typename T> VulkanBuffer upload(const std::vector<T> &values) {
    llvm::Expected<VulkanBuffer> buffer = device->allocate(values.size() * sizeof(T));
    EXPECT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    llvm::Error err = buffer->copyFromHost(values.data(), values.size() * sizeof(T));
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return std::move(*buffer);
  }

  template <typename T> std::vector<T> download(const VulkanBuffer &buffer, size_t count) {
    std::vector<T> values(count);
    llvm::Error err = buffer.copyToHost(values.data(), count * sizeof(T));
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return values;
  }

  std::vector<float> randomFloats(size_t count, float low = -1, float high = 1) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float &value : values)
      value = distribution(random);
    return values;
  }

  VulkanDevice *device = nullptr;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned seed = 0;
  std::mt19937 random;
};

#define EXPECT_LAUNCH(call)                                                                        \
  do {                                                                                             \
    llvm::Error launchError = (call);                                                              \
    ASSERT_FALSE(bool(launchError)) << llvm::toString(std::move(launchError));                     \
  } while (false)

TEST_F(VulkanRuntimeTest, ReportsTheDevice) {
  const VulkanDeviceInfo &info = device->info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.apiVersion, (1u << 22) | (2u << 12)) << "Vulkan 1.2 or newer";
  EXPECT_GT(info.subgroupSize, 0u);
  EXPECT_GE(info.maxSharedMemoryBytes, 16384u);
  EXPECT_GE(info.maxPushConstantBytes, 128u);
  gpu::GpuTarget target = device->target();
  EXPECT_EQ(target.vendor, gpu::GpuVendor::Vulkan);
  EXPECT_EQ(target.warpSize, info.subgroupSize);
  EXPECT_EQ(target.maxSharedMemoryBytes, info.maxSharedMemoryBytes);
  llvm::Expected<std::vector<VulkanDeviceInfo>> all = VulkanDevice::enumerate();
  ASSERT_TRUE(bool(all)) << llvm::toString(all.takeError());
  EXPECT_FALSE(all->empty());
  std::cout << "Vulkan device: " << info.str() << "\n";
}

TEST_F(VulkanRuntimeTest, SelectionByNameThatMatchesNothingListsDevices) {
  VulkanDeviceOptions options;
  options.select = "no-such-vulkan-device";
  llvm::Expected<std::unique_ptr<VulkanDevice>> other = VulkanDevice::open(options);
  ASSERT_FALSE(bool(other));
  std::string message = llvm::toString(other.takeError());
  EXPECT_NE(message.find("no Vulkan device matches 'no-such-vulkan-device'"), std::string::npos);
  EXPECT_NE(message.find(device->info().name), std::string::npos) << message;
}

TEST_F(VulkanRuntimeTest, BuffersStartZeroedAndCopyBothWays) {
  llvm::Expected<VulkanBuffer> buffer = device->allocate(1000);
  ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
  EXPECT_EQ(buffer->size(), 1000u);
  std::vector<uint8_t> bytes = download<uint8_t>(*buffer, 1000);
  EXPECT_TRUE(llvm::all_of(bytes, [](uint8_t b) { return b == 0; }));
  std::vector<uint8_t> pattern(100);
  for (size_t i = 0; i < pattern.size(); ++i)
    pattern[i] = uint8_t(i * 7 + seed);
  llvm::Error err = buffer->copyFromHost(pattern.data(), pattern.size(), 900);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::vector<uint8_t> back(100);
  err = buffer->copyToHost(back.data(), back.size(), 900);
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  EXPECT_EQ(back, pattern);
  llvm::Error outside = buffer->copyFromHost(pattern.data(), pattern.size(), 901);
  EXPECT_NE(llvm::toString(std::move(outside)).find("outside the 1000-byte Vulkan buffer"),
            std::string::npos);
}

/// Runs vector_add on `on`, n not a multiple of the block size.
void checkVectorAdd(VulkanDevice &on, const VulkanKernel &kernel,
                    std::mt19937 &random) {
  const unsigned n = 1000 + random() % 100;
  std::uniform_real_distribution<float> distribution(-1, 1);
  std::vector<float> x(n), y(n);
  for (unsigned i = 0; i < n; ++i) {
    x[i] = distribution(random);
    y[i] = distribution(random);
  }
  // One extra element past n must stay untouched (the mask).
  auto bx = on.allocate((n + 1) * 4), by = on.allocate((n + 1) * 4), out = on.allocate((n + 1) * 4);
  ASSERT_TRUE(bx && by && out);
  ASSERT_FALSE(bool(bx->copyFromHost(x.data(), n * 4)));
  ASSERT_FALSE(bool(by->copyFromHost(y.data(), n * 4)));
  unsigned block = kernel.binary.blockThreads;
  Grid grid{(n + 1 + block - 1) / block};
  EXPECT_LAUNCH(on.launch(kernel, grid, {*bx, *by, *out, n}));
  std::vector<float> result(n + 1);
  ASSERT_FALSE(bool(out->copyToHost(result.data(), (n + 1) * 4)));
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(result[i], x[i] + y[i]) << "at " << i;
  EXPECT_EQ(result[n], 0.0f) << "the store past n was not masked";
}

TEST_F(VulkanRuntimeTest, MaskedVectorAdd) {
  VulkanKernel kernel = compile(kVectorAdd);
  ASSERT_FALSE(kernel.binary.binary.empty());
  checkVectorAdd(*device, kernel, random);
}

TEST_F(VulkanRuntimeTest, StagingCopiesGiveTheSameResults) {
  VulkanDeviceOptions options;
  options.select = std::to_string(device->info().index);
  options.forceStaging = true;
  llvm::Expected<std::unique_ptr<VulkanDevice>> staged = VulkanDevice::open(options);
  ASSERT_TRUE(bool(staged)) << llvm::toString(staged.takeError());
  EXPECT_FALSE((*staged)->info().hostMappedBuffers);
  VulkanKernel kernel = compile(kVectorAdd);
  ASSERT_FALSE(kernel.binary.binary.empty());
  checkVectorAdd(**staged, kernel, random);
}

TEST_F(VulkanRuntimeTest, ScalarArgumentsThroughPushConstants) {
  VulkanKernel kernel = compile(kScalarArgs);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const unsigned n = 777 + random() % 50;
  std::vector<float> x = randomFloats(n);
  float alpha = std::uniform_real_distribution<float>(-4, 4)(random);
  int32_t k = int32_t(random() % 1000) - 500;
  int64_t base = int64_t(random() % 1000) + (int64_t(1) << 32); // high bits dropped by trunci
  VulkanBuffer bx = upload(x);
  llvm::Expected<VulkanBuffer> out = device->allocate(n * 4);
  ASSERT_TRUE(bool(out));
  Grid grid{(n + blockThreads() - 1) / blockThreads()};
  EXPECT_LAUNCH(device->launch(kernel, grid, {bx, alpha, *out, k, base, n}));
  std::vector<float> result = download<float>(*out, n);
  float shift = float(k + int32_t(base));
  for (unsigned i = 0; i < n; ++i)
    ASSERT_NEAR(result[i], alpha * x[i] + shift, 1e-4f * (1 + std::abs(shift))) << "at " << i;
}

TEST_F(VulkanRuntimeTest, BlockSumWithWorkgroupMemoryBarrierAndShuffles) {
  VulkanKernel kernel = compile(kBlockSum);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const unsigned block = blockThreads();
  const unsigned n = 37 * block + 11;
  std::vector<float> x = randomFloats(n);
  VulkanBuffer bx = upload(x);
  const unsigned blocks = (n + block - 1) / block;
  llvm::Expected<VulkanBuffer> out = device->allocate(blocks * 4);
  ASSERT_TRUE(bool(out));
  EXPECT_LAUNCH(device->launch(kernel, Grid{blocks}, {bx, *out, n}));
  std::vector<float> sums = download<float>(*out, blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    double expected = 0;
    for (unsigned i = b * block; i < std::min(n, (b + 1) * block); ++i)
      expected += x[i];
    ASSERT_NEAR(sums[b], expected, 1e-4) << "block " << b << " (seed " << seed << ")";
  }
}

uint16_t toHalf(float value) {
  llvm::APFloat half(value);
  bool losesInfo = false;
  half.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return uint16_t(half.bitcastToAPInt().getZExtValue());
}

float fromHalf(uint16_t bits) {
  llvm::APFloat half(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  return half.convertToFloat();
}

TEST_F(VulkanRuntimeTest, HalfPrecisionLoadsStoresAndScalar) {
  if (!device->info().features.float16 || !device->info().features.storageBuffer16BitAccess)
    GTEST_SKIP() << "the device lacks shaderFloat16 or storageBuffer16BitAccess";
  VulkanKernel kernel = compile(kHalfScale);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const unsigned n = 500 + random() % 30;
  std::vector<uint16_t> x(n);
  for (uint16_t &value : x)
    value = toHalf(std::uniform_real_distribution<float>(-8, 8)(random));
  float scale = fromHalf(toHalf(std::uniform_real_distribution<float>(0.25f, 2)(random)));
  VulkanBuffer bx = upload(x);
  llvm::Expected<VulkanBuffer> y = device->allocate(n * 2);
  ASSERT_TRUE(bool(y));
  Grid grid{(n + blockThreads() - 1) / blockThreads()};
  EXPECT_LAUNCH(device->launch(kernel, grid, {bx, *y, scale, n}));
  std::vector<uint16_t> result = download<uint16_t>(*y, n);
  for (unsigned i = 0; i < n; ++i) {
    float expected = fromHalf(toHalf(fromHalf(toHalf(fromHalf(x[i]) * scale)) + 1.0f));
    // One f16 ulp: the device may fuse the multiply and the add.
    float ulp = std::max(std::ldexp(1.0f, std::ilogb(expected) - 10), 1.0f / 1024);
    ASSERT_NEAR(fromHalf(result[i]), expected, ulp) << "at " << i;
  }
}

TEST_F(VulkanRuntimeTest, FloatAndIntegerAtomicAdds) {
  if (!device->info().features.bufferFloat32AtomicAdd)
    GTEST_SKIP() << "the device lacks shaderBufferFloat32AtomicAdd";
  VulkanKernel kernel = compile(kAtomicAdd);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const unsigned n = 3000 + random() % 100;
  std::vector<float> x = randomFloats(n, 0, 1);
  VulkanBuffer bx = upload(x);
  llvm::Expected<VulkanBuffer> sum = device->allocate(4), counts = device->allocate(16);
  ASSERT_TRUE(sum && counts);
  Grid grid{(n + blockThreads() - 1) / blockThreads()};
  EXPECT_LAUNCH(device->launch(kernel, grid, {bx, *sum, *counts, n}));
  double expected = 0;
  for (float value : x)
    expected += value;
  EXPECT_NEAR(download<float>(*sum, 1)[0], expected, 1e-5 * n);
  std::vector<int32_t> count = download<int32_t>(*counts, 4);
  for (unsigned bucket = 0; bucket < 4; ++bucket)
    EXPECT_EQ(unsigned(count[bucket]), (n - bucket + 3) / 4) << "bucket " << bucket;
}

TEST_F(VulkanRuntimeTest, SubgroupScanWithShuffleUp) {
  VulkanKernel kernel = compile(kSubgroupScan);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const unsigned subgroup = device->target().warpSize;
  const unsigned n = 5 * blockThreads();
  std::vector<int32_t> x(n);
  for (int32_t &value : x)
    value = int32_t(random() % 200) - 100;
  VulkanBuffer bx = upload(x);
  llvm::Expected<VulkanBuffer> out = device->allocate(n * 4);
  ASSERT_TRUE(bool(out));
  EXPECT_LAUNCH(device->launch(kernel, Grid{5}, {bx, *out}));
  std::vector<int32_t> result = download<int32_t>(*out, n);
  for (unsigned i = 0; i < n; ++i) {
    int32_t expected = 0;
    for (unsigned j = i - i % subgroup; j <= i; ++j)
      expected += x[j];
    ASSERT_EQ(result[i], expected) << "at " << i;
  }
}

TEST_F(VulkanRuntimeTest, ThreeDimensionalGridBoolBufferAndByteScalar) {
  VulkanKernel kernel = compile(kGridIds);
  ASSERT_FALSE(kernel.binary.binary.empty());
  const Grid grid{3, 4, 2};
  const unsigned programs = unsigned(grid.size());
  std::vector<uint8_t> flags(programs);
  for (uint8_t &flag : flags)
    flag = random() % 2;
  int8_t bias = int8_t(int(random() % 200) - 100);
  VulkanBuffer bflags = upload(flags);
  llvm::Expected<VulkanBuffer> out = device->allocate(programs * 4);
  ASSERT_TRUE(bool(out));
  EXPECT_LAUNCH(device->launch(kernel, grid, {bflags, *out, bias}));
  std::vector<int32_t> result = download<int32_t>(*out, programs);
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        unsigned p = x + grid.x * (y + grid.y * z);
        int32_t expected = int32_t(x + 100 * y + 10000 * z) + bias + (flags[p] ? 1000000 : 0);
        ASSERT_EQ(result[p], expected) << "program (" << x << ", " << y << ", " << z << ")";
      }
}

TEST_F(VulkanRuntimeTest, PipelinesAreCachedByBinaryAndEntryPoint) {
  VulkanKernel kernel = compile(kVectorAdd);
  ASSERT_FALSE(kernel.binary.binary.empty());
  llvm::Expected<VulkanBuffer> buffer = device->allocate(4 * blockThreads());
  ASSERT_TRUE(bool(buffer));
  size_t before = device->numCachedPipelines();
  EXPECT_LAUNCH(device->launch(kernel, Grid{1}, {*buffer, *buffer, *buffer, 0}));
  EXPECT_LAUNCH(device->launch(kernel, Grid{1}, {*buffer, *buffer, *buffer, 0}));
  EXPECT_LE(device->numCachedPipelines(), before + 1);
  EXPECT_GE(device->numCachedPipelines(), 1u);
}

TEST_F(VulkanRuntimeTest, LaunchErrorsNameTheKernel) {
  VulkanKernel kernel = compile(kVectorAdd);
  ASSERT_FALSE(kernel.binary.binary.empty());
  llvm::Expected<VulkanBuffer> buffer = device->allocate(64);
  ASSERT_TRUE(bool(buffer));
  auto message = [](llvm::Error err) { return llvm::toString(std::move(err)); };

  std::string tooBig = message(device->launch(
      kernel, Grid{device->info().maxWorkgroupCount[0] + 1}, {*buffer, *buffer, *buffer, 1}));
  EXPECT_NE(tooBig.find("kernel 'vector_add': grid ("), std::string::npos) << tooBig;
  EXPECT_NE(tooBig.find("maxComputeWorkGroupCount"), std::string::npos) << tooBig;

  std::string count = message(device->launch(kernel, Grid{1}, {*buffer, *buffer, 1}));
  EXPECT_NE(count.find("kernel 'vector_add': takes 4 arguments"), std::string::npos) << count;

  std::string scalarForBuffer = message(device->launch(kernel, Grid{1}, {*buffer, 3, *buffer, 1}));
  EXPECT_NE(scalarForBuffer.find("argument 1 is a buffer of f32, got integer 3"),
            std::string::npos)
      << scalarForBuffer;

  std::string floatForInt = message(device->launch(kernel, Grid{1}, {*buffer, *buffer, *buffer, 2.5}));
  EXPECT_NE(floatForInt.find("argument 3 is i32"), std::string::npos) << floatForInt;

  std::string range = message(device->launch(kernel, Grid{1},
                                             {*buffer, *buffer, *buffer, int64_t(1) << 40}));
  EXPECT_NE(range.find("out of range"), std::string::npos) << range;

  VulkanKernel wrongSubgroup = kernel;
  wrongSubgroup.binary.target.warpSize = device->info().maxSubgroupSize * 2;
  wrongSubgroup.capabilities.push_back("GroupNonUniformShuffle");
  std::string subgroup = message(device->launch(wrongSubgroup, Grid{1},
                                                {*buffer, *buffer, *buffer, 1}));
  EXPECT_NE(subgroup.find("was compiled for subgroups of"), std::string::npos) << subgroup;
}

} // namespace

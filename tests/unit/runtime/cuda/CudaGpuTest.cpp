// Kernels compiled by lowering/gpu/nvidia and run on a CUDA device, checked
// against host references. Every test skips, saying why, where no device
// can be opened (ctest label "gpu").
#include "runtime/cuda/CudaDevice.h"

#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "tests/unit/lowering/gpu/nvidia/NvidiaTestKernels.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

using namespace tessera::runtime;
using namespace tessera::runtime::cuda;
namespace gpu = tessera::gpu;
namespace kernels = tessera::gpu::testing;

namespace {

KernelSignature signatureOf(std::initializer_list<std::pair<ArgKind, const char *>> params) {
  KernelSignature signature;
  for (auto [kind, pointee] : params) {
    KernelSignature::Param param;
    param.kind = kind;
    param.pointee = pointee;
    signature.params.push_back(param);
  }
  return signature;
}

std::vector<float> randomFloats(size_t n, float low, float high, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(n);
  for (float &value : values)
    value = distribution(generator);
  return values;
}

uint16_t halfBits(float value) {
  llvm::APFloat half(value);
  bool losesInfo = false;
  half.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return uint16_t(half.bitcastToAPInt().getZExtValue());
}

float halfValue(uint16_t bits) {
  llvm::APFloat half(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  return half.convertToFloat();
}

class CudaGpu : public ::testing::Test {
protected:
  void SetUp() override {
    std::string reason;
    if (!CudaDevice::isAvailable(0, &reason))
      GTEST_SKIP() << "no CUDA device: " << reason;
    llvm::Expected<std::unique_ptr<CudaDevice>> opened = CudaDevice::open(0);
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    device = std::move(*opened);
    llvm::Expected<gpu::GpuTarget> parsed = device->info().compileTarget();
    if (!parsed)
      GTEST_SKIP() << "Tessera has no target for this device: "
                   << llvm::toString(parsed.takeError());
    target = *parsed;
  }

  gpu::KernelBinary compile(llvm::StringRef text) {
    mlir::MLIRContext context;
    mlir::OwningOpRef<mlir::ModuleOp> module = kernels::parseKernel(context, text);
    EXPECT_TRUE(module);
    if (!module)
      return {};
    llvm::Expected<gpu::KernelBinary> binary = gpu::compileForNvidia(*module, target);
    EXPECT_TRUE(bool(binary)) << llvm::toString(binary.takeError());
    return binary ? std::move(*binary) : gpu::KernelBinary();
  }

  template <typename T> CudaBuffer upload(const std::vector<T> &values) {
    llvm::Expected<CudaBuffer> buffer = device->allocate(values.size() * sizeof(T));
    EXPECT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    if (!buffer)
      return {};
    llvm::Error err = buffer->copyFromHost(values.data(), values.size() * sizeof(T));
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return std::move(*buffer);
  }

  template <typename T> std::vector<T> download(const CudaBuffer &buffer, size_t n) {
    std::vector<T> values(n);
    llvm::Error err = buffer.copyToHost(values.data(), n * sizeof(T));
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return values;
  }

  CudaBuffer zeros(size_t bytes) {
    llvm::Expected<CudaBuffer> buffer = device->allocate(bytes);
    EXPECT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    return buffer ? std::move(*buffer) : CudaBuffer();
  }

  /// kVectorAdd's (x, y, out, n).
  static KernelSignature vectorAddSignature() {
    return signatureOf({{ArgKind::Pointer, "f32"},
                        {ArgKind::Pointer, "f32"},
                        {ArgKind::Pointer, "f32"},
                        {ArgKind::I32, ""}});
  }

  std::unique_ptr<CudaDevice> device;
  gpu::GpuTarget target;
};

TEST_F(CudaGpu, VectorAddWithAMaskedTail) {
  gpu::KernelBinary binary = compile(kernels::kVectorAdd);
  ASSERT_FALSE(binary.binary.empty());
  KernelSignature signature = vectorAddSignature();
  constexpr int n = 1000; // not a multiple of the 128 threads per block
  std::vector<float> x = randomFloats(n, -1, 1, 1), y = randomFloats(n, -1, 1, 2);
  CudaBuffer dx = upload(x), dy = upload(y);
  // One float more than n: the mask must leave it alone.
  CudaBuffer out = zeros((n + 1) * sizeof(float));
  ASSERT_FALSE(bool(out.fill(0xff)));

  llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(kernel->blockThreads(), 128u);
  EXPECT_GT(kernel->registers(), 0);
  Grid grid{(n + 127) / 128};
  llvm::Error err = device->launch(*kernel, grid, {dx, dy, out, n}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));

  std::vector<float> result = download<float>(out, n + 1);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(result[i], x[i] + y[i]) << "element " << i;
  uint32_t tail;
  std::memcpy(&tail, &result[n], sizeof(tail));
  EXPECT_EQ(tail, 0xffffffffu) << "the masked tail was written";

  // The same cubin again comes from the module cache.
  size_t modules = device->numLoadedModules();
  ASSERT_TRUE(bool(device->load(binary, signature)));
  EXPECT_EQ(device->numLoadedModules(), modules);
}

TEST_F(CudaGpu, CopiesAndLaunchesOnAStreamTimedByEvents) {
  gpu::KernelBinary binary = compile(kernels::kVectorAdd);
  ASSERT_FALSE(binary.binary.empty());
  KernelSignature signature = vectorAddSignature();
  constexpr int n = 1 << 20;
  std::vector<float> x = randomFloats(n, -1, 1, 3), y = randomFloats(n, -1, 1, 4);
  CudaBuffer dx = zeros(n * sizeof(float)), dy = zeros(n * sizeof(float)),
             out = zeros(n * sizeof(float));
  llvm::Expected<CudaStream> stream = device->createStream();
  llvm::Expected<CudaEvent> start = device->createEvent(), end = device->createEvent();
  ASSERT_TRUE(stream && start && end);
  llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());

  // Page-locked staging, so that the copies run asynchronously to the host.
  llvm::Expected<CudaHostBuffer> pinned = device->allocateHost(3 * n * sizeof(float));
  ASSERT_TRUE(bool(pinned)) << llvm::toString(pinned.takeError());
  auto *px = static_cast<float *>(pinned->data()), *py = px + n, *psum = py + n;
  std::copy(x.begin(), x.end(), px);
  std::copy(y.begin(), y.end(), py);

  void *s = stream->handle();
  ASSERT_FALSE(bool(dx.copyFromHostAsync(px, n * sizeof(float), s)));
  ASSERT_FALSE(bool(dy.copyFromHostAsync(py, n * sizeof(float), s)));
  ASSERT_FALSE(bool(start->record(s)));
  llvm::Error err = device->launch(*kernel, {(n + 127) / 128}, {dx, dy, out, n}, {.stream = s});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  ASSERT_FALSE(bool(end->record(s)));
  ASSERT_FALSE(bool(out.copyToHostAsync(psum, n * sizeof(float), s)));
  ASSERT_FALSE(bool(stream->synchronize()));

  for (int i = 0; i < n; ++i)
    ASSERT_EQ(psum[i], x[i] + y[i]) << "element " << i;
  llvm::Expected<float> elapsed = CudaEvent::elapsedMilliseconds(*start, *end);
  ASSERT_TRUE(bool(elapsed)) << llvm::toString(elapsed.takeError());
  EXPECT_GT(*elapsed, 0.0f);
  EXPECT_LT(*elapsed, 1000.0f);
}

TEST_F(CudaGpu, ArgumentsAreCheckedAgainstTheSignature) {
  gpu::KernelBinary binary = compile(kernels::kVectorAdd);
  KernelSignature signature = vectorAddSignature();
  llvm::Expected<CudaKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  CudaBuffer buffer = zeros(16);

  llvm::Error tooFew = device->launch(*kernel, {1}, {buffer, buffer, buffer});
  EXPECT_EQ(llvm::toString(std::move(tooFew)),
            "kernel 'vector_add' takes 4 arguments (ptr<f32>, ptr<f32>, ptr<f32>, i32), got 3");
  llvm::Error wrongKind = device->launch(*kernel, {1}, {buffer, buffer, buffer, 2.5});
  EXPECT_NE(llvm::toString(std::move(wrongKind)).find("kernel 'vector_add': argument 3 is i32"),
            std::string::npos);

  // A signature the cubin does not have is refused where the driver tells.
  llvm::Expected<CudaKernel> wrong =
      device->load(binary, signatureOf({{ArgKind::Pointer, "f32"}, {ArgKind::I64, ""}}));
  if (device->info().driverVersion >= 12040) {
    ASSERT_FALSE(bool(wrong));
    EXPECT_NE(llvm::toString(wrong.takeError()).find("kernel 'vector_add'"), std::string::npos);
  } else {
    llvm::consumeError(wrong.takeError());
  }
}

TEST_F(CudaGpu, BlockSumWithShufflesAndABarrier) {
  gpu::KernelBinary binary = compile(kernels::kBlockSum);
  constexpr int blocks = 37;
  std::vector<float> x = randomFloats(blocks * 64, 0, 1, 3);
  CudaBuffer dx = upload(x), out = zeros(blocks * sizeof(float));
  llvm::Error err = device->launch(
      binary, signatureOf({{ArgKind::Pointer, "f32"}, {ArgKind::Pointer, "f32"}}),
      {blocks}, {dx, out}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::vector<float> sums = download<float>(out, blocks);
  for (int b = 0; b < blocks; ++b) {
    double expected = 0;
    for (int i = 0; i < 64; ++i)
      expected += x[b * 64 + i];
    EXPECT_NEAR(sums[b], expected, 1e-4) << "block " << b;
  }
}

TEST_F(CudaGpu, MathMatchesTheHost) {
  gpu::KernelBinary binary = compile(kernels::kMath);
  constexpr int n = 777;
  std::vector<float> x = randomFloats(n, -3, 3, 4);
  CudaBuffer dx = upload(x), out = zeros(n * sizeof(float));
  llvm::Error err = device->launch(
      binary, signatureOf({{ArgKind::Pointer, "f32"}, {ArgKind::Pointer, "f32"}, {ArgKind::I32, ""}}),
      {(n + 127) / 128}, {dx, out, n}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::vector<float> result = download<float>(out, n);
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    double expected = std::exp(v) + std::erf(v) + std::tanh(v) + std::log(1 + v * v) +
                      std::pow(std::fabs(v), 0.5);
    EXPECT_NEAR(result[i], expected, 1e-5 * std::max(1.0, std::fabs(expected))) << "x = " << v;
  }
}

TEST_F(CudaGpu, MmaSyncMultipliesOnTensorCores) {
  gpu::KernelBinary binary = compile(kernels::kMmaSync);
  std::vector<uint16_t> a(16 * 16), b(16 * 8);
  std::vector<float> aValues = randomFloats(a.size(), -1, 1, 5),
                     bValues = randomFloats(b.size(), -1, 1, 6);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = halfBits(aValues[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = halfBits(bValues[i]);
  CudaBuffer da = upload(a), db = upload(b), dc = zeros(16 * 8 * sizeof(float));
  llvm::Error err = device->launch(binary,
                                   signatureOf({{ArgKind::Pointer, "f16"},
                                                {ArgKind::Pointer, "f16"},
                                                {ArgKind::Pointer, "f32"}}),
                                   {1}, {da, db, dc}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::vector<float> c = download<float>(dc, 16 * 8);
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      double expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += double(halfValue(a[row * 16 + k])) * halfValue(b[k * 8 + col]);
      EXPECT_NEAR(c[row * 8 + col], expected, 1e-3) << "C[" << row << "][" << col << "]";
    }
}

TEST_F(CudaGpu, SixtyFourKiBOfDynamicSharedMemory) {
  gpu::KernelBinary binary = compile(kernels::kDynamicShared);
  ASSERT_EQ(binary.dynamicSharedMemoryBytes, 65536u);
  if (device->info().maxSharedMemoryPerBlock < 65536)
    GTEST_SKIP() << "the device gives a block " << device->info().maxSharedMemoryPerBlock
                 << " bytes of shared memory";
  constexpr int blocks = 3, perBlock = 16384;
  std::vector<float> x = randomFloats(blocks * perBlock, -1, 1, 7);
  CudaBuffer dx = upload(x), out = zeros(x.size() * sizeof(float));
  llvm::Error err = device->launch(
      binary, signatureOf({{ArgKind::Pointer, "f32"}, {ArgKind::Pointer, "f32"}}), {blocks},
      {dx, out}, {.synchronize = true});
  ASSERT_FALSE(bool(err)) << llvm::toString(std::move(err));
  std::vector<float> result = download<float>(out, x.size());
  for (int block = 0; block < blocks; ++block)
    for (int i = 0; i < perBlock; ++i)
      ASSERT_EQ(result[block * perBlock + i], x[block * perBlock + perBlock - 1 - i])
          << "block " << block << ", element " << i;
}

TEST_F(CudaGpu, BuffersCheckTheirBounds) {
  CudaBuffer buffer = zeros(16);
  std::vector<uint8_t> host(32);
  llvm::Error err = buffer.copyToHost(host.data(), 16, 8);
  EXPECT_EQ(llvm::toString(std::move(err)),
            "copyToHost of 16 bytes at offset 8 overruns the 16-byte CUDA buffer");
  ASSERT_FALSE(bool(buffer.copyToHost(host.data(), 16)));
  for (uint8_t byte : llvm::ArrayRef(host).take_front(16))
    EXPECT_EQ(byte, 0) << "allocations are zero-filled";
}

} // namespace

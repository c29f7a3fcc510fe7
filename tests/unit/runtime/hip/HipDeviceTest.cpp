// The HIP runtime on a real AMD GPU: kernels compiled by lowering/gpu/amd,
// launched and checked against host results. Without a HIP device the
// device tests skip and say why.
#include "runtime/hip/HipDevice.h"

#include "AmdTestKernels.h"
#include "lowering/gpu/amd/AmdPipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tessera;
using namespace tessera::runtime;
using namespace tessera::runtime::hip;

namespace {

KernelSignature::Param param(ArgKind kind, std::string pointee = "") {
  KernelSignature::Param p;
  p.kind = kind;
  p.pointee = std::move(pointee);
  return p;
}

TEST(HipAvailabilityTest, SaysWhyWhenThereIsNoDevice) {
  std::string whyNot;
  bool available = HipDevice::isAvailable(&whyNot);
  EXPECT_EQ(whyNot.empty(), available);
  llvm::Expected<std::unique_ptr<HipDevice>> device = HipDevice::open(0);
  EXPECT_EQ(static_cast<bool>(device), available);
  if (!device) {
    EXPECT_EQ(llvm::toString(device.takeError()), whyNot);
  }
}

class HipDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string whyNot;
    if (!HipDevice::isAvailable(&whyNot))
      GTEST_SKIP() << "no HIP device: " << whyNot;
    llvm::Expected<std::unique_ptr<HipDevice>> opened = HipDevice::open(0);
    ASSERT_TRUE(static_cast<bool>(opened)) << llvm::toString(opened.takeError());
    device = std::move(*opened);
    mlir::DialectRegistry registry;
    gpu::amd::registerAmdLoweringDependencies(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
  }

  gpu::KernelBinary compile(const std::string &source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, context.get());
    EXPECT_TRUE(module);
    llvm::Expected<gpu::KernelBinary> binary =
        gpu::amd::compileForAmd(*module, device->target());
    if (!binary) {
      ADD_FAILURE() << llvm::toString(binary.takeError());
      return {};
    }
    return std::move(*binary);
  }

  std::vector<float> randomFloats(size_t count, float low, float high) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float &value : values)
      value = distribution(random);
    return values;
  }

  HipBuffer upload(const std::vector<float> &values) {
    llvm::Expected<HipBuffer> buffer = HipBuffer::allocate(*device, values.size() * sizeof(float));
    EXPECT_TRUE(static_cast<bool>(buffer));
    EXPECT_FALSE(static_cast<bool>(buffer->copyFromHost(values.data(), buffer->size())));
    return std::move(*buffer);
  }

  std::vector<float> download(const HipBuffer &buffer) {
    std::vector<float> values(buffer.size() / sizeof(float));
    llvm::Error error = buffer.copyToHost(values.data(), buffer.size());
    EXPECT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
    return values;
  }

  std::unique_ptr<HipDevice> device;
  std::unique_ptr<mlir::MLIRContext> context;
  std::mt19937 random{20240611};
};

TEST_F(HipDeviceTest, MaskedVectorAddOnAShapeThatIsNotAMultipleOfTheBlock) {
  gpu::KernelBinary binary = compile(gpu::amd::testing::maskedVectorAdd(device->target().warpSize));
  KernelSignature signature;
  signature.params = {param(ArgKind::Pointer, "f32"), param(ArgKind::Pointer, "f32"),
                      param(ArgKind::Pointer, "f32"), param(ArgKind::I32)};
  llvm::Expected<HipKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());

  const int n = 1000;
  std::vector<float> x = randomFloats(n, -1, 1), y = randomFloats(n, -1, 1);
  HipBuffer dx = upload(x), dy = upload(y);
  // One element past n stays untouched: the mask works.
  HipBuffer out = upload(std::vector<float>(n + 1, -7.0f));
  uint32_t blocks = (n + kernel->blockThreads() - 1) / kernel->blockThreads();
  llvm::Error launched = device->launch(*kernel, {blocks}, {dx, dy, out, n});
  ASSERT_FALSE(static_cast<bool>(launched)) << llvm::toString(std::move(launched));
  std::vector<float> result = download(out);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(result[i], x[i] + y[i]) << "at " << i;
  EXPECT_EQ(result[n], -7.0f);

  llvm::Expected<HipKernel> again = device->load(binary, signature);
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(device->loadedModules(), 1u) << "the same code object is loaded once";

  llvm::Error wrong = device->launch(*kernel, {blocks}, {dx, dy, out});
  ASSERT_TRUE(static_cast<bool>(wrong));
  EXPECT_NE(llvm::toString(std::move(wrong)).find("kernel 'vector_add' takes 4 arguments"),
            std::string::npos);
}

TEST_F(HipDeviceTest, WorkgroupMemoryAndShuffles) {
  unsigned wave = device->target().warpSize;
  gpu::KernelBinary binary = compile(gpu::amd::testing::workgroupMemoryShuffle(wave));
  KernelSignature signature;
  signature.params = {param(ArgKind::Pointer, "f32"), param(ArgKind::Pointer, "f32")};
  llvm::Expected<HipKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());

  unsigned block = kernel->blockThreads(), blocks = 3;
  std::vector<float> x = randomFloats(block * blocks, -1, 1);
  HipBuffer dx = upload(x), out = upload(std::vector<float>(x.size(), 0));
  llvm::Error launched = device->launch(*kernel, {blocks}, {dx, out});
  ASSERT_FALSE(static_cast<bool>(launched)) << llvm::toString(std::move(launched));
  std::vector<float> result = download(out);
  for (unsigned program = 0; program < blocks; ++program) {
    for (unsigned t = 0; t < block; ++t) {
      // Thread t reads the mirrored element, takes it from lane t ^ 1, then
      // from lane (t + 1) % wave of its wave.
      auto mirrored = [&](unsigned thread) { return x[program * block + block - 1 - thread]; };
      auto xored = [&](unsigned thread) { return mirrored(thread ^ 1); };
      unsigned waveBase = t / wave * wave;
      float expected = xored(waveBase + (t % wave + 1) % wave);
      ASSERT_EQ(result[program * block + t], expected) << "program " << program << " thread " << t;
    }
  }
}

TEST_F(HipDeviceTest, MathFunctionsMatchTheHost) {
  gpu::KernelBinary binary = compile(gpu::amd::testing::mathFunctions(device->target().warpSize));
  KernelSignature signature;
  signature.params = {param(ArgKind::Pointer, "f32"), param(ArgKind::Pointer, "f32"),
                      param(ArgKind::I32)};
  llvm::Expected<HipKernel> kernel = device->load(binary, signature);
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  const int n = 777;
  std::vector<float> x = randomFloats(n, -3, 3);
  HipBuffer dx = upload(x), out = upload(std::vector<float>(n, 0));
  uint32_t blocks = (n + kernel->blockThreads() - 1) / kernel->blockThreads();
  llvm::Error launched = device->launch(*kernel, {blocks}, {dx, out, n});
  ASSERT_FALSE(static_cast<bool>(launched)) << llvm::toString(std::move(launched));
  std::vector<float> result = download(out);
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    double expected = std::exp(v) + 2 * std::erf(v) + std::tanh(v);
    ASSERT_NEAR(result[i], expected, 1e-5 * std::max(1.0, std::abs(expected))) << "x = " << v;
  }
}

TEST_F(HipDeviceTest, CodeForAnotherChipIsRefused) {
  std::string other = device->target().chip == "gfx942" ? "hip:gfx90a" : "hip:gfx942";
  llvm::Expected<gpu::GpuTarget> target = gpu::GpuTarget::parse(other);
  ASSERT_TRUE(static_cast<bool>(target));
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      gpu::amd::testing::maskedVectorAdd(target->warpSize), context.get());
  ASSERT_TRUE(module);
  llvm::Expected<gpu::KernelBinary> binary = gpu::amd::compileForAmd(*module, *target);
  ASSERT_TRUE(static_cast<bool>(binary)) << llvm::toString(binary.takeError());
  KernelSignature signature;
  signature.params = {param(ArgKind::Pointer), param(ArgKind::Pointer), param(ArgKind::Pointer),
                      param(ArgKind::I32)};
  llvm::Expected<HipKernel> kernel = device->load(*binary, signature);
  ASSERT_FALSE(static_cast<bool>(kernel));
  EXPECT_NE(llvm::toString(kernel.takeError()).find("compiled for " + other), std::string::npos);
}

} // namespace

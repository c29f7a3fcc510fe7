// End to end through the distribution on a real device: tile kernels shared
// with the interpreter's and CPU backend's tests (tests/unit/kernels) go
// through lowerTileToGpu (inline, assign layouts, distribute), the SPIR-V
// pipeline and the Vulkan runtime (lavapipe in CI), and must give the
// interpreter's results on the same fresh random inputs. Skips, saying why,
// where there is no Vulkan device.
#include "lowering/gpu/distribute/Passes.h"
#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/ir/TileGpuDialect.h"
#include "lowering/gpu/spirv/SpirvPipeline.h"
#include "runtime/interpreter/Interpreter.h"
#include "runtime/vulkan/VulkanDevice.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace tessera;
using namespace tessera::test_kernels;
using runtime::vulkan::VulkanArgument;
using runtime::vulkan::VulkanBuffer;
using runtime::vulkan::VulkanDevice;

namespace {

/// One kernel argument on the host: a buffer's initial bytes, or a scalar.
struct HostArgument {
  std::vector<uint8_t> bytes;
  bool isBuffer = false;
  bool isFloat = false;
  int32_t intValue = 0;
  float floatValue = 0;

  template <typename T> static HostArgument buffer(const std::vector<T> &values) {
    HostArgument arg;
    arg.isBuffer = true;
    arg.bytes.resize(values.size() * sizeof(T));
    std::memcpy(arg.bytes.data(), values.data(), arg.bytes.size());
    return arg;
  }
  static HostArgument i32(int32_t value) {
    HostArgument arg;
    arg.intValue = value;
    return arg;
  }
  static HostArgument f32(float value) {
    HostArgument arg;
    arg.isFloat = true;
    arg.floatValue = value;
    return arg;
  }
};

/// The buffers after the interpreter's run and after the device's.
struct Results {
  std::vector<std::vector<uint8_t>> reference, device;

  template <typename T> std::vector<T> values(const std::vector<uint8_t> &bytes) const {
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
  template <typename T> void expectEqual(unsigned arg) const {
    EXPECT_EQ(values<T>(device[arg]), values<T>(reference[arg])) << "buffer argument " << arg;
  }
  /// |device - reference| <= tolerance * max(1, |reference|), NaN where NaN.
  void expectClose(unsigned arg, double tolerance) const {
    std::vector<float> got = values<float>(device[arg]), want = values<float>(reference[arg]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
        continue;
      }
      EXPECT_NEAR(got[i], want[i], tolerance * std::max(1.0, std::fabs(double(want[i]))))
          << "element " << i << " of buffer argument " << arg;
    }
  }
};

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

class DistributeOnVulkan : public ::testing::Test {
protected:
  void SetUp() override {
    SharedDevice &shared = sharedDevice();
    if (!shared.device) {
      if (llvm::StringRef(shared.unavailable).starts_with("Vulkan is not available"))
        GTEST_SKIP() << shared.unavailable;
      FAIL() << "a Vulkan loader exists but no device opened: " << shared.unavailable;
    }
    device = shared.device.get();
    unsigned seed = std::random_device()();
    random.seed(seed);
    RecordProperty("seed", std::to_string(seed));
    mlir::DialectRegistry registry;
    interp::registerInterpretedDialects(registry);
    gpu::vulkan::registerSpirvLoweringDialects(registry);
    registry.insert<gpu::TileGpuDialect>();
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  /// Runs kernel `name` of `source` on the interpreter and, compiled with
  /// `options`, on the device, each on its own copy of `args`.
  Results run(llvm::StringRef source, llvm::StringRef name, std::vector<HostArgument> args,
              runtime::Grid grid, const gpu::GpuLoweringOptions &options = {}) {
    Results results;
    mlir::OwningOpRef<mlir::ModuleOp> reference =
        mlir::parseSourceString<mlir::ModuleOp>(source, context.get());
    mlir::OwningOpRef<mlir::ModuleOp> compiled =
        mlir::parseSourceString<mlir::ModuleOp>(source, context.get());
    if (!reference || !compiled) {
      ADD_FAILURE() << "the kernel does not parse";
      return results;
    }

    for (const HostArgument &arg : args)
      if (arg.isBuffer)
        results.reference.push_back(arg.bytes);
    std::vector<interp::KernelArgument> interpreterArgs;
    size_t next = 0;
    for (const HostArgument &arg : args) {
      if (arg.isBuffer) {
        std::vector<uint8_t> &bytes = results.reference[next++];
        interpreterArgs.push_back(interp::KernelArgument::buffer(bytes.data(), bytes.size()));
      } else if (arg.isFloat) {
        interpreterArgs.push_back(interp::KernelArgument::floating(arg.floatValue));
      } else {
        interpreterArgs.push_back(interp::KernelArgument::integer(arg.intValue));
      }
    }
    llvm::Error interpreted =
        interp::runKernel(*reference, name, interpreterArgs, {grid.x, grid.y, grid.z});
    if (interpreted) {
      ADD_FAILURE() << "interpreter: " << llvm::toString(std::move(interpreted));
      return results;
    }

    if (failed(gpu::lowerTileToGpu(*compiled, device->target(), options))) {
      ADD_FAILURE() << "lowerTileToGpu failed (diagnostics above)";
      return results;
    }
    results.device = runOnDevice(*compiled, args, grid);
    return results;
  }

  /// The buffers after `source` (tile IR with layouts already assigned, for
  /// the target TARGET names) is distributed alone and run on the device.
  std::vector<std::vector<uint8_t>> runDistributed(llvm::StringRef source,
                                                   const std::vector<HostArgument> &args,
                                                   runtime::Grid grid) {
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
        withReplaced(source, "TARGET", device->target().str()), context.get());
    if (!module) {
      ADD_FAILURE() << "the kernel does not parse";
      return {};
    }
    mlir::PassManager pm(context.get());
    pm.addPass(gpu::createTileGpuDistribute());
    if (failed(pm.run(*module))) {
      ADD_FAILURE() << "tile-gpu-distribute failed (diagnostics above)";
      return {};
    }
    return runOnDevice(*module, args, grid);
  }

  /// The buffers after the distributed `module` runs on the device on a copy
  /// of `args`.
  std::vector<std::vector<uint8_t>> runOnDevice(mlir::ModuleOp module,
                                                const std::vector<HostArgument> &args,
                                                runtime::Grid grid) {
    std::vector<std::vector<uint8_t>> results;
    llvm::Expected<gpu::vulkan::VulkanKernel> kernel =
        gpu::vulkan::compileForVulkan(module, device->target(), device->info().features);
    if (!kernel) {
      ADD_FAILURE() << llvm::toString(kernel.takeError());
      return results;
    }
    std::vector<VulkanBuffer> buffers;
    for (const HostArgument &arg : args) {
      if (!arg.isBuffer)
        continue;
      llvm::Expected<VulkanBuffer> buffer = device->allocate(arg.bytes.size());
      if (!buffer) {
        ADD_FAILURE() << llvm::toString(buffer.takeError());
        return results;
      }
      if (llvm::Error err = buffer->copyFromHost(arg.bytes.data(), arg.bytes.size())) {
        ADD_FAILURE() << llvm::toString(std::move(err));
        return results;
      }
      buffers.push_back(std::move(*buffer));
    }
    std::vector<VulkanArgument> deviceArgs;
    size_t next = 0;
    for (const HostArgument &arg : args) {
      if (arg.isBuffer)
        deviceArgs.emplace_back(buffers[next++]);
      else if (arg.isFloat)
        deviceArgs.emplace_back(arg.floatValue);
      else
        deviceArgs.emplace_back(arg.intValue);
    }
    if (llvm::Error err = device->launch(*kernel, grid, deviceArgs)) {
      ADD_FAILURE() << llvm::toString(std::move(err));
      return results;
    }
    for (const VulkanBuffer &buffer : buffers) {
      std::vector<uint8_t> bytes(buffer.size());
      if (llvm::Error err = buffer.copyToHost(bytes.data(), bytes.size()))
        ADD_FAILURE() << llvm::toString(std::move(err));
      results.push_back(std::move(bytes));
    }
    return results;
  }

  std::vector<float> randomFloats(size_t count, float low = -1, float high = 1) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float &value : values)
      value = distribution(random);
    return values;
  }
  std::vector<int32_t> randomInts(size_t count, int32_t low, int32_t high) {
    std::uniform_int_distribution<int32_t> distribution(low, high);
    std::vector<int32_t> values(count);
    for (int32_t &value : values)
      value = distribution(random);
    return values;
  }

  VulkanDevice *device = nullptr;
  std::unique_ptr<mlir::MLIRContext> context;
  std::mt19937 random;
};


TEST_F(DistributeOnVulkan, MaskedVectorAdd) {
  for (unsigned numWarps : {1u, 4u}) {
    SCOPED_TRACE(std::to_string(numWarps) + " warps");
    gpu::GpuLoweringOptions options;
    options.numWarps = numWarps;
    int32_t n = 1000 + random() % 100;
    Results r = run(kVectorAdd, "add",
                    {HostArgument::buffer(randomFloats(n + 1)), HostArgument::buffer(randomFloats(n + 1)),
                     HostArgument::buffer(std::vector<float>(n + 1, -1.0f)), HostArgument::i32(n)},
                    {uint32_t((n + 127) / 128)}, options);
    r.expectEqual<float>(2);
  }
}

TEST_F(DistributeOnVulkan, HalfPrecisionElementwise) {
  std::vector<uint16_t> halves(32);
  for (uint16_t &h : halves)
    h = 0x3000 + random() % 0x0c00; // 0.125 .. ~1.4
  Results r = run(kHalfOps, "halves",
                  {HostArgument::buffer(halves), HostArgument::buffer(std::vector<uint16_t>(32)),
                   HostArgument::buffer(std::vector<float>(32))},
                  {1});
  r.expectClose(2, 2e-3);
}

TEST_F(DistributeOnVulkan, ControlFlowAndScalarLoops) {
  Results r = run(kCollatz, "collatz",
                  {HostArgument::buffer(randomInts(16, 1, 1000)),
                   HostArgument::buffer(std::vector<int32_t>(16)),
                   HostArgument::buffer(std::vector<int32_t>(16))},
                  {1});
  r.expectEqual<int32_t>(1);
  r.expectEqual<int32_t>(2);
}

TEST_F(DistributeOnVulkan, SoftmaxRows) {
  const int rows = 5, cols = 77, stride = 80;
  Results r = run(kSoftmax, "softmax",
                  {HostArgument::buffer(randomFloats(rows * stride, -4, 4)),
                   HostArgument::buffer(std::vector<float>(rows * stride, -1.0f)),
                   HostArgument::i32(stride), HostArgument::i32(cols)},
                  {rows});
  r.expectClose(1, 1e-5);
}

TEST_F(DistributeOnVulkan, LayerNormRows) {
  const int rows = 5, n = 77;
  Results r = run(kLayerNorm, "layernorm",
                  {HostArgument::buffer(randomFloats(rows * n, -3, 3)),
                   HostArgument::buffer(randomFloats(n)), HostArgument::buffer(randomFloats(n)),
                   HostArgument::buffer(std::vector<float>(rows * n)), HostArgument::i32(n),
                   HostArgument::f32(1e-5f)},
                  {rows});
  r.expectClose(3, 1e-4);
}

/// Runs `check` with each of `stageCounts` (as the text STAGES takes) and
/// the loop's loads read back (read-back-loads=always, loads and shared
/// stores on Vulkan) or prefetched into registers (never), on `numWarps`.
void forStagesReadBackAndPrefetched(
    std::initializer_list<int> stageCounts, unsigned numWarps,
    llvm::function_ref<void(const std::string &, const gpu::GpuLoweringOptions &)> check) {
  for (int stages : stageCounts)
    for (gpu::ReadBackLoads readBack : {gpu::ReadBackLoads::Always, gpu::ReadBackLoads::Never}) {
      SCOPED_TRACE("stages " + std::to_string(stages) +
                   (readBack == gpu::ReadBackLoads::Always ? ", read back" : ", prefetched"));
      gpu::GpuLoweringOptions options;
      options.numWarps = numWarps;
      options.readBackLoads = readBack;
      check(std::to_string(stages), options);
    }
}

// A loop without a dot that asks for stages: with read-back-loads=always
// its rows go through a ring of STAGES - 1 stages of shared memory (loads
// and shared stores here, cp.async on NVIDIA), each thread reading back what
// it copied; with never they are prefetched into registers. Three programs
// over 37 rows of 100 columns: the programs take different numbers of
// blocks, the last one ragged in rows and every one in columns.
TEST_F(DistributeOnVulkan, PersistentRowsReadBackOrPrefetched) {
  const int rows = 37, cols = 100, programs = 3;
  std::vector<float> x = randomFloats(rows * cols, -3, 3);
  forStagesReadBackAndPrefetched(
      {2, 3, 4}, 4, [&](const std::string &stages, const gpu::GpuLoweringOptions &options) {
        Results r = run(withReplaced(kPersistentCenteredRows, "STAGES", stages), "centered_rows",
                        {HostArgument::buffer(x),
                         HostArgument::buffer(std::vector<float>(rows * cols, -1.0f)),
                         HostArgument::i32(rows), HostArgument::i32(cols)},
                        {programs}, options);
        r.expectClose(1, 1e-5);
      });
}

// The same with partial sums carried through the loop: each row of 300
// columns in chunks of 64, the last one ragged, on 1 warp (64 elements
// over 32 threads: 8 bytes each, enough to be read back).
TEST_F(DistributeOnVulkan, ChunkedSumsReadBackOrPrefetched) {
  const int rows = 5, cols = 300;
  std::vector<float> x = randomFloats(rows * cols);
  forStagesReadBackAndPrefetched(
      {2, 3}, 1, [&](const std::string &stages, const gpu::GpuLoweringOptions &options) {
        Results r = run(withReplaced(kChunkedRowSums, "STAGES", stages), "row_sums",
                        {HostArgument::buffer(x),
                         HostArgument::buffer(std::vector<float>(rows, -1.0f)),
                         HostArgument::i32(cols)},
                        {rows}, options);
        r.expectClose(1, 1e-5);
      });
}

// A gather in such a loop: the rows' values are loaded through indices
// loaded in the same iteration. The indices are prefetched into registers
// on every target (the distribution copies no load whose addresses read
// another's values ahead, nor the prefetch's load of the next iteration's
// indices), so even with read-back-loads=always nothing is read back: the
// rows must still be gathered right. 2 warps over 29 rows of 64 on 3
// programs.
TEST_F(DistributeOnVulkan, GatheredRowsWithPrefetchedIndices) {
  const int rows = 29, sources = 500;
  std::vector<float> x = randomFloats(sources);
  std::vector<int32_t> indices = randomInts(rows * 64, 0, sources - 1);
  forStagesReadBackAndPrefetched(
      {2, 3}, 2, [&](const std::string &stages, const gpu::GpuLoweringOptions &options) {
        Results r = run(withReplaced(kGatheredRows, "STAGES", stages), "gathered_rows",
                        {HostArgument::buffer(indices), HostArgument::buffer(x),
                         HostArgument::buffer(std::vector<float>(rows * 64, -1.0f)),
                         HostArgument::i32(rows)},
                        {3}, options);
        r.expectEqual<float>(2);
      });
}

// One row through a pointer tile the loop advances (its pointers carried
// ahead of the copies as a recurrence), one through the induction
// variable: with read-back-loads=always both are read back. 1 warp, 23 rows.
TEST_F(DistributeOnVulkan, WalkedRowsReadBackOrPrefetched) {
  const int rows = 23;
  std::vector<float> x = randomFloats(rows * 64), w = randomFloats(rows * 64);
  forStagesReadBackAndPrefetched(
      {2, 3}, 1, [&](const std::string &stages, const gpu::GpuLoweringOptions &options) {
        Results r = run(withReplaced(kWalkedRows, "STAGES", stages), "walked_rows",
                        {HostArgument::buffer(x), HostArgument::buffer(w),
                         HostArgument::buffer(std::vector<float>(rows * 64, -1.0f)),
                         HostArgument::i32(rows)},
                        {1}, options);
        r.expectEqual<float>(2);
      });
}

TEST_F(DistributeOnVulkan, ArgmaxIsAMultiOperandReduction) {
  const int rows = 6, n = 100;
  std::vector<float> x = randomFloats(rows * n);
  // Ties: the smallest index must win.
  x[n + 70] = x[n + 10] = 5.0f;
  Results r = run(kArgmax, "argmax",
                  {HostArgument::buffer(x), HostArgument::buffer(std::vector<float>(rows)),
                   HostArgument::buffer(std::vector<int32_t>(rows)), HostArgument::i32(n)},
                  {rows});
  r.expectEqual<float>(1);
  r.expectEqual<int32_t>(2);
}

TEST_F(DistributeOnVulkan, CumsumForwardAndReverse) {
  const int rows = 4, n = 27;
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    Results r = run(withReplaced(kCumsum, "REVERSE", reverse ? "reverse" : ""), "cumsum",
                    {HostArgument::buffer(randomFloats(rows * n)),
                     HostArgument::buffer(std::vector<float>(rows * n)), HostArgument::i32(n)},
                    {1});
    r.expectClose(1, 1e-5);
  }
}

TEST_F(DistributeOnVulkan, HistogramAtomicsCountEveryValueOnce) {
  const int n = 1000, bins = 16;
  Results r = run(kHistogram, "histogram",
                  {HostArgument::buffer(randomInts(n, 0, bins - 1)),
                   HostArgument::buffer(std::vector<int32_t>(bins)), HostArgument::i32(n)},
                  {(n + 63) / 64});
  r.expectEqual<int32_t>(1);
}

TEST_F(DistributeOnVulkan, MatmulOnTheFmaPath) {
  const int m = 37, n = 21, k = 29;
  Results r = run(withReplaced(kMatmul, "DT", "f32"), "matmul",
                  {HostArgument::buffer(randomFloats(m * k)), HostArgument::buffer(randomFloats(k * n)),
                   HostArgument::buffer(std::vector<float>(m * n, -1.0f)), HostArgument::i32(m),
                   HostArgument::i32(n), HostArgument::i32(k)},
                  {(m + 15) / 16, (n + 15) / 16});
  r.expectClose(2, k * 0x1p-22);
}

// Vulkan has no cp.async, so B's load is read back from shared memory only
// when asked to: the stages' copies (ordinary loads and shared stores, one
// iteration ahead) and reads then run for real, ragged edges included.
TEST_F(DistributeOnVulkan, LoadReadBackFromItsStagesOnTheWayToTheDot) {
  const int m = 37, n = 21, k = 29;
  std::vector<int32_t> wideB = randomInts(k * n, -128, 127);
  for (gpu::ReadBackLoads readBack : {gpu::ReadBackLoads::Always, gpu::ReadBackLoads::Never}) {
    gpu::GpuLoweringOptions options;
    options.readBackLoads = readBack;
    Results r = run(kMatmulOfWidenedB, "matmul_widened_b",
                    {HostArgument::buffer(randomFloats(m * k)),
                     HostArgument::buffer(std::vector<int8_t>(wideB.begin(), wideB.end())),
                     HostArgument::buffer(std::vector<float>(m * n, -1.0f)), HostArgument::i32(m),
                     HostArgument::i32(n), HostArgument::i32(k)},
                    {(m + 15) / 16, (n + 15) / 16}, options);
    r.expectClose(2, k * 128 * 0x1p-22);
  }
}

// The scale's load on 2 warps repeats registers within a thread: its ring
// holds each distinct register once, and every copy reads it back.
TEST_F(DistributeOnVulkan, LoadWithRepeatedRegistersReadBack) {
  const int m = 20, n = 150, k = 45;
  std::vector<int32_t> wideB = randomInts(k * n, -128, 127);
  for (gpu::ReadBackLoads readBack : {gpu::ReadBackLoads::Always, gpu::ReadBackLoads::Never}) {
    gpu::GpuLoweringOptions options;
    options.numWarps = 2;
    options.readBackLoads = readBack;
    Results r = run(kMatmulOfScaledColumns, "scaled_columns",
                    {HostArgument::buffer(randomFloats(m * k)),
                     HostArgument::buffer(std::vector<int8_t>(wideB.begin(), wideB.end())),
                     HostArgument::buffer(randomFloats(n)),
                     HostArgument::buffer(std::vector<float>(m * n, -1.0f)), HostArgument::i32(m),
                     HostArgument::i32(n), HostArgument::i32(k)},
                    {(m + 15) / 16, (n + 127) / 128}, options);
    r.expectClose(3, k * 128 * 0x1p-22);
  }
}

TEST_F(DistributeOnVulkan, DotOfInt8AccumulatesInInt32) {
  std::vector<int32_t> wideA = randomInts(512, -128, 127), wideB = randomInts(512, -128, 127);
  Results r = run(kDotI8, "dot_i8",
                  {HostArgument::buffer(std::vector<int8_t>(wideA.begin(), wideA.end())),
                   HostArgument::buffer(std::vector<int8_t>(wideB.begin(), wideB.end())),
                   HostArgument::buffer(std::vector<int32_t>(256))},
                  {1});
  r.expectEqual<int32_t>(2);
}

TEST_F(DistributeOnVulkan, DescriptorsOnARaggedShape) {
  const int m = 37, n = 21;
  Results r = run(kDescriptorScale, "scale",
                  {HostArgument::buffer(randomFloats(m * n)),
                   HostArgument::buffer(std::vector<float>(m * n, -1.0f)), HostArgument::i32(m),
                   HostArgument::i32(n)},
                  {(m + 15) / 16, (n + 15) / 16});
  r.expectEqual<float>(1);
}

TEST_F(DistributeOnVulkan, DescriptorPaddingWithZeroOrNaN) {
  const int m = 10, n = 12;
  for (bool nan : {false, true}) {
    SCOPED_TRACE(nan ? "nan padding" : "zero padding");
    Results r = run(withReplaced(kDescriptorPadding, "PADDING", nan ? "padding = nan" : ""), "pad",
                    {HostArgument::buffer(randomFloats(m * n)),
                     HostArgument::buffer(std::vector<float>(64, -1.0f)), HostArgument::i32(m),
                     HostArgument::i32(n), HostArgument::i32(5), HostArgument::i32(-3)},
                    {1});
    r.expectClose(1, 0);
  }
}

/// 32768 values moved from #FROM to #TO, layouts of 32 warps of 8 lanes
/// (lavapipe's subgroups) that share no register bit: #L's warps hold the
/// coordinate's top five bits, #T's registers. 128 KiB go through 32 KiB of
/// shared memory in four pieces whose warps take turns storing (#L to #T) or
/// loading (#T to #L).
constexpr llvm::StringLiteral kExchangeInPieces = R"mlir(
#L = #tgpu.layout<rank = 1, reg = [[1], [2], [4], [8], [16], [32], [64]],
                  lane = [[128], [256], [512]], warp = [[1024], [2048], [4096], [8192], [16384]]>
#T = #tgpu.layout<rank = 1, reg = [[256], [512], [1024], [2048], [4096], [8192], [16384]],
                  lane = [[1], [2], [4]], warp = [[8], [16], [32], [64], [128]]>
tile.func @exchange(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>)
    attributes {tgpu.num_warps = 32 : i32, tgpu.target = "TARGET"} {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32, #FROM>
  %xb = tile.splat %x : !tile.ptr<i32> -> tensor<32768x!tile.ptr<i32>, #FROM>
  %xp = tile.addptr %xb, %r : tensor<32768x!tile.ptr<i32>, #FROM>, tensor<32768xi32, #FROM>
  %v = tile.load %xp : tensor<32768x!tile.ptr<i32>, #FROM>
  %c = tgpu.convert_layout %v : tensor<32768xi32, #FROM> -> tensor<32768xi32, #TO>
  %i = tile.make_range 0 to 32768 : tensor<32768xi32, #TO>
  %ob = tile.splat %out : !tile.ptr<i32> -> tensor<32768x!tile.ptr<i32>, #TO>
  %op = tile.addptr %ob, %i : tensor<32768x!tile.ptr<i32>, #TO>, tensor<32768xi32, #TO>
  tile.store %op, %c : tensor<32768x!tile.ptr<i32>, #TO>
  tile.return
}
)mlir";

TEST_F(DistributeOnVulkan, ExchangeInPiecesWhoseWarpsTakeTurns) {
  if (device->target().warpSize != 8 || device->target().maxSharedMemoryBytes != 32768)
    GTEST_SKIP() << "the layouts are for 8-lane subgroups and 32 KiB of shared memory "
                    "(lavapipe's), not "
                 << device->target().str();
  for (auto [from, to] : {std::pair("#L", "#T"), std::pair("#T", "#L")}) {
    SCOPED_TRACE(std::string(from) + " to " + to);
    std::vector<int32_t> x = randomInts(32768, -1000000, 1000000);
    std::vector<std::vector<uint8_t>> buffers = runDistributed(
        withReplaced(withReplaced(kExchangeInPieces, "#FROM", from), "#TO", to),
        {HostArgument::buffer(x), HostArgument::buffer(std::vector<int32_t>(32768, -1))}, {1});
    ASSERT_EQ(buffers.size(), 2u);
    std::vector<int32_t> out(32768);
    std::memcpy(out.data(), buffers[1].data(), buffers[1].size());
    EXPECT_EQ(out, x);
  }
}

} // namespace

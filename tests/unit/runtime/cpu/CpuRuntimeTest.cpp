// The CPU runtime end to end on hand-written LLVM-dialect kernels: compile,
// launch over grids, argument checking, the assert hook, several devices.
#include "TestKernels.h"

#include "runtime/Runtime.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

using namespace tessera;
using namespace tessera::runtime;
using namespace tessera::testing;
using ::testing::HasSubstr;

namespace {

void runVectorAdd(CpuDevice &device, const Kernel &kernel, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  ASSERT_OK_AND_ASSIGN(bx, Buffer::allocate(device, n * sizeof(float)));
  ASSERT_OK_AND_ASSIGN(by, Buffer::allocate(device, n * sizeof(float)));
  // One guard element past the end: programs must not write beyond n.
  ASSERT_OK_AND_ASSIGN(bout, Buffer::allocate(device, (n + 1) * sizeof(float)));
  ASSERT_NO_ERR(bx.copyFromHost(x.data(), n * sizeof(float)));
  ASSERT_NO_ERR(by.copyFromHost(y.data(), n * sizeof(float)));
  const float guard = 12345.0f;
  ASSERT_NO_ERR(bout.copyFromHost(&guard, sizeof(float), n * sizeof(float)));
  Grid grid{uint32_t((n + kVectorAddBlock - 1) / kVectorAddBlock)};
  ASSERT_NO_ERR(device.launch(kernel, grid, {bx, by, bout, n}));
  std::vector<float> out(n + 1);
  ASSERT_NO_ERR(bout.copyToHost(out.data(), (n + 1) * sizeof(float)));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << "n = " << n << ", i = " << i;
  EXPECT_EQ(out[n], guard) << "wrote past the end, n = " << n;
}

struct CpuRuntimeTest : ::testing::Test {
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
};

} // namespace

TEST_F(CpuRuntimeTest, VectorAddOnRaggedRandomInputs) {
  auto module = parse(*context, kVectorAdd);
  ASSERT_TRUE(module);
  CpuDevice device(deviceOptions(0));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  EXPECT_EQ(kernel.name(), "vadd");
  EXPECT_EQ(kernel.signature().str(), "(ptr<f32>, ptr<f32>, ptr<f32>, i32)");
  EXPECT_EQ(kernel.origin(), KernelOrigin::Compiled);
  for (int n : {1, 17, 255, 256, 257, 1000, 4096, 12345, 100003})
    runVectorAdd(device, kernel, n, /*seed=*/n);
}

TEST_F(CpuRuntimeTest, EveryProgramOfTheGridRunsExactlyOnce) {
  auto module = parse(*context, kCountPrograms);
  ASSERT_TRUE(module);
  KernelSignature signature;
  signature.params = {{ArgKind::Pointer, "i32"}, {ArgKind::Pointer, "i64"}};
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    CpuDevice device(deviceOptions(threads));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "count", {signature}));
    for (Grid grid : {Grid{1, 1, 1}, Grid{7, 5, 3}, Grid{1000, 1, 1}, Grid{1, 1, 77},
                      Grid{3, 129, 2}, Grid{65536, 2, 1}}) {
      uint64_t programs = grid.size();
      std::vector<int32_t> counts(programs, 0);
      int64_t total = 0;
      ASSERT_NO_ERR(device.launch(kernel, grid, {counts.data(), &total}));
      EXPECT_EQ(total, int64_t(programs));
      for (uint64_t i = 0; i < programs; ++i)
        ASSERT_EQ(counts[i], 1) << "program " << i << " of " << grid.x << "x" << grid.y << "x"
                                << grid.z << " with " << threads << " threads";
    }
  }
}

TEST_F(CpuRuntimeTest, EmptyGridRunsNothing) {
  auto module = parse(*context, kCountPrograms);
  CpuDevice device(deviceOptions(2));
  KernelSignature signature;
  signature.params = {{ArgKind::Pointer, ""}, {ArgKind::Pointer, ""}};
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "count", {signature}));
  int32_t counts[1] = {0};
  int64_t total = 0;
  ASSERT_NO_ERR(device.launch(kernel, Grid{0, 4, 4}, {counts, &total}));
  EXPECT_EQ(total, 0);
}

TEST_F(CpuRuntimeTest, ScalarArgumentsOfEveryKind) {
  auto module = parse(*context, kScalarKinds);
  ASSERT_TRUE(module);
  CpuDevice device(deviceOptions(1));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "kinds"));
  EXPECT_EQ(kernel.signature().str(), "(ptr, i64, f32, f64, f16, i1, i8)");
  double out[6] = {};
  int64_t big = int64_t(1) << 40;
  ASSERT_NO_ERR(device.launch(kernel, {}, {out, big, 2.5f, 0.1, 1.5, true, int8_t(-7)}));
  EXPECT_EQ(out[0], double(big));
  EXPECT_EQ(out[1], 2.5);
  EXPECT_EQ(out[2], 0.1);
  EXPECT_EQ(out[3], 1.5);
  EXPECT_EQ(out[4], 1.0);
  EXPECT_EQ(out[5], -7.0);
  // Doubles convert to f32 / f16 parameters (rounded); integers widen; f16 bits pass raw.
  ASSERT_NO_ERR(device.launch(
      kernel, {}, {out, 3, 0.25, 7.0, Argument::bits(ArgKind::F16, 0xC000), false, 100}));
  EXPECT_EQ(out[0], 3.0);
  EXPECT_EQ(out[1], 0.25);
  EXPECT_EQ(out[2], 7.0);
  EXPECT_EQ(out[3], -2.0);
  EXPECT_EQ(out[4], 0.0);
  EXPECT_EQ(out[5], 100.0);
  // f16 rounds to nearest even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
  ASSERT_NO_ERR(device.launch(kernel, {}, {out, 0, 0.0, 0.0, 1.0 + 0x1p-11, true, 0}));
  EXPECT_EQ(out[3], 1.0);
}

TEST_F(CpuRuntimeTest, ArgumentCountAndKindErrorsNameTheKernelAndArgument) {
  auto module = parse(*context, kVectorAdd);
  CpuDevice device(deviceOptions(2));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  float x[4] = {}, y[4] = {}, out[4] = {};

  auto message = [](llvm::Error err) {
    return err ? llvm::toString(std::move(err)) : std::string("<success>");
  };
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out})),
            "kernel 'vadd' takes 4 arguments (ptr<f32>, ptr<f32>, ptr<f32>, i32), got 3");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out, 4, 5})),
            "kernel 'vadd' takes 4 arguments (ptr<f32>, ptr<f32>, ptr<f32>, i32), got 5");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, 3, out, 4})),
            "kernel 'vadd': argument 1 is ptr<f32>, got integer 3");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out, 2.5})),
            "kernel 'vadd': argument 3 is i32, got float 2.5 (pass an integer value)");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out, y})),
            "kernel 'vadd': argument 3 is i32, got a pointer");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out, int64_t(1) << 33})),
            "kernel 'vadd': argument 3 is i32, got integer 8589934592 (out of range)");
  EXPECT_EQ(message(device.launch(kernel, {1}, {x, y, out, ~uint64_t(0)})),
            "kernel 'vadd': argument 3 is i32, got integer 18446744073709551615 (out of range)");
  EXPECT_EQ(message(device.launch(Kernel(), {1}, {})),
            "launch of an empty Kernel handle (compile one first)");
  // Unsigned 32-bit values fit an i32 (bit pattern), as in C.
  EXPECT_EQ(message(device.launch(kernel, {0}, {x, y, out, 0xffffffffu})), "<success>");

  auto kinds = parse(*context, kScalarKinds);
  ASSERT_OK_AND_ASSIGN(kindsKernel, device.compile(*kinds, "kinds"));
  double d[6];
  EXPECT_EQ(message(device.launch(kindsKernel, {}, {d, 1, 1.0f, 1, 1.0, true, 0})),
            "kernel 'kinds': argument 3 is f64, got integer 1 (pass a floating-point value)");
  EXPECT_EQ(message(device.launch(kindsKernel, {}, {d, 1, 1.0f, 1.0, 1.0, 2, 0})),
            "kernel 'kinds': argument 5 is i1, got integer 2 (out of range)");
  EXPECT_EQ(message(device.launch(kindsKernel, {}, {d, 1, 1.0f, 1.0,
                                                    Argument::bits(ArgKind::BF16, 0), true, 0})),
            "kernel 'kinds': argument 4 is f16, got bf16 bits 0x0");
  EXPECT_EQ(message(device.launch(kindsKernel, {}, {d, 1, 1.0f, 1.0, 1.0, true, 128})),
            "<success>");
  EXPECT_EQ(message(device.launch(kindsKernel, {}, {d, 1, 1.0f, 1.0, 1.0, true, -129})),
            "kernel 'kinds': argument 6 is i8, got integer -129 (out of range)");
}

TEST_F(CpuRuntimeTest, CompileErrorsAreClear) {
  CpuDevice device(deviceOptions(1));
  auto module = parse(*context, kVectorAdd);
  auto missing = device.compile(*module, "nope");
  ASSERT_FALSE(missing);
  EXPECT_THAT(llvm::toString(missing.takeError()),
              HasSubstr("kernel 'nope': the module defines no llvm.func @nope__grid_entry"));

  // No signature attribute and none given.
  auto count = parse(*context, kCountPrograms);
  auto unsigned_ = device.compile(*count, "count");
  ASSERT_FALSE(unsigned_);
  EXPECT_THAT(llvm::toString(unsigned_.takeError()),
              HasSubstr("kernel 'count': cannot tell its signature"));

  // A wrong entry type.
  auto bad = parse(*context, R"mlir(
    llvm.func @k__grid_entry(%a: !llvm.ptr, %x: i32) { llvm.return })mlir");
  ASSERT_TRUE(bad);
  auto badKernel = device.compile(*bad, "k", {KernelSignature{}});
  ASSERT_FALSE(badKernel);
  EXPECT_THAT(llvm::toString(badKernel.takeError()),
              HasSubstr("@k__grid_entry must be (!llvm.ptr, i32, i32, i32, i32, i32, i32) -> void"));
}

TEST_F(CpuRuntimeTest, FailedAssertBecomesTheLaunchError) {
  auto module = parse(*context, kAssertKernel);
  ASSERT_TRUE(module);
  CpuDevice device(deviceOptions(4));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "check"));

  // One failing program among 64 (x == 63 >= limit 63).
  std::vector<int32_t> out(64, 0);
  llvm::Error err = device.launch(kernel, {64}, {out.data(), 63});
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "kernel 'check', program (63, 0, 0): check.py:42: device assertion failed: "
            "program id below limit");
  EXPECT_EQ(out[63], 0) << "the failing program must stop at the assert";

  // Every program fails: one error, with the count of the others.
  std::fill(out.begin(), out.end(), 0);
  err = device.launch(kernel, {64}, {out.data(), 0});
  ASSERT_TRUE(bool(err));
  std::string message = llvm::toString(std::move(err));
  EXPECT_THAT(message, HasSubstr("device assertion failed: program id below limit"));
  for (int32_t value : out)
    EXPECT_EQ(value, 0);

  // The device and the kernel remain usable.
  std::fill(out.begin(), out.end(), 0);
  ASSERT_NO_ERR(device.launch(kernel, {64}, {out.data(), 64}));
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], i + 100);
}

TEST_F(CpuRuntimeTest, TwoDevicesAndTwoKernelsInOneProcess) {
  auto add = parse(*context, kVectorAdd);
  auto count = parse(*context, kCountPrograms);
  KernelSignature countSignature;
  countSignature.params = {{ArgKind::Pointer, "i32"}, {ArgKind::Pointer, "i64"}};
  CpuDevice first(deviceOptions(2)), second(deviceOptions(3));
  EXPECT_EQ(first.numThreads(), 2u);
  EXPECT_EQ(second.numThreads(), 3u);
  ASSERT_OK_AND_ASSIGN(add1, first.compile(*add, "vadd"));
  ASSERT_OK_AND_ASSIGN(count1, first.compile(*count, "count", {countSignature}));
  ASSERT_OK_AND_ASSIGN(add2, second.compile(*add, "vadd"));
  ASSERT_OK_AND_ASSIGN(count2, second.compile(*count, "count", {countSignature}));
  EXPECT_NE(add1.entry(), add2.entry()) << "each device has its own JIT";

  // Both devices launch at the same time, from two threads, many times.
  auto work = [&](CpuDevice &device, const Kernel &add, const Kernel &count, uint32_t seed) {
    for (int round = 0; round < 20; ++round) {
      runVectorAdd(device, add, 1000 + round * 37, seed + round);
      std::vector<int32_t> counts(300, 0);
      int64_t total = 0;
      ASSERT_NO_ERR(device.launch(count, {10, 30}, {counts.data(), &total}));
      ASSERT_EQ(total, 300);
    }
  };
  std::thread a([&] { work(first, add1, count1, 1); });
  std::thread b([&] { work(second, add2, count2, 2); });
  a.join();
  b.join();

  // A kernel compiled by one device launches on another.
  runVectorAdd(second, add1, 777, 3);
}

TEST_F(CpuRuntimeTest, ConcurrentLaunchesOnOneDevice) {
  auto count = parse(*context, kCountPrograms);
  KernelSignature signature;
  signature.params = {{ArgKind::Pointer, "i32"}, {ArgKind::Pointer, "i64"}};
  CpuDevice device(deviceOptions(3));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*count, "count", {signature}));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        uint32_t n = 100 + 13 * t + round;
        std::vector<int32_t> counts(n, 0);
        int64_t total = 0;
        if (llvm::Error err = device.launch(kernel, {n}, {counts.data(), &total})) {
          llvm::consumeError(std::move(err));
          ++failures;
        }
        if (total != int64_t(n) || std::count(counts.begin(), counts.end(), 1) != int64_t(n))
          ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(CpuRuntimeTest, BuffersAreAlignedAndBoundsChecked) {
  CpuDevice device(deviceOptions(1));
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(1000)}) {
    ASSERT_OK_AND_ASSIGN(buffer, Buffer::allocate(device, bytes));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u);
    EXPECT_EQ(buffer.size(), bytes);
    std::vector<char> zeros(bytes, 1);
    ASSERT_NO_ERR(buffer.copyToHost(zeros.data(), bytes));
    EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0), int64_t(bytes)) << "zero-initialized";
  }
  ASSERT_OK_AND_ASSIGN(buffer, Buffer::allocate(device, 16));
  char data[32] = {};
  llvm::Error err = buffer.copyFromHost(data, 8, 12);
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "copyFromHost: 8 bytes at offset 12 do not fit a buffer of 16 bytes");
  err = buffer.copyToHost(data, 17);
  ASSERT_TRUE(bool(err));
  llvm::consumeError(std::move(err));
  ASSERT_NO_ERR(buffer.copyFromHost(data, 4, 12));
  Buffer moved = std::move(buffer);
  EXPECT_EQ(moved.size(), 16u);
  EXPECT_EQ(buffer.data(), nullptr);
}

TEST_F(CpuRuntimeTest, ObjectFilesForAheadOfTimeUse) {
  auto module = parse(*context, kVectorAdd);
  TempDir dir;
  std::string path = dir.str() + "/vadd.o";
  runtime::cpu::CompilerOptions options;
  ASSERT_NO_ERR(runtime::cpu::emitObjectFile(*module, options, path));
  auto file = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(file));
  EXPECT_TRUE((*file)->getBuffer().starts_with("\x7f" "ELF"));

  CpuDevice device(deviceOptions(1));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  EXPECT_TRUE(kernel.objectFile().starts_with("\x7f" "ELF"));
  ASSERT_NO_ERR(kernel.saveObjectFile(dir.str() + "/saved.o"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir.str() + "/saved.o"));

  // The optimized IR carries the host target and the preferred vector width.
  std::string ir;
  auto object = runtime::cpu::compileToObject(*module, options, &ir);
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  EXPECT_THAT(ir, HasSubstr("\"target-cpu\"=\"" + options.target.cpu + "\""));
  EXPECT_THAT(ir, HasSubstr("\"prefer-vector-width\"=\"" +
                            std::to_string(options.target.vectorBits) + "\""));
}

TEST_F(CpuRuntimeTest, HostTargetDescription) {
  TargetDescription host = TargetDescription::host();
  EXPECT_FALSE(host.triple.empty());
  EXPECT_FALSE(host.cpu.empty());
  if (llvm::StringRef(host.features).contains("+avx512f")) {
    EXPECT_EQ(host.vectorBits, 512u);
  } else if (llvm::StringRef(host.features).contains("+avx,") ||
             llvm::StringRef(host.features).ends_with("+avx")) {
    EXPECT_EQ(host.vectorBits, 256u);
  }
  EXPECT_EQ(host, TargetDescription::host()) << "deterministic (part of cache keys)";
}

TEST_F(CpuRuntimeTest, CompileTileRecordsTheTileSignatureAndLowers) {
  // A tile kernel with the signature of vadd; the test's "lowering" swaps in
  // the hand-written LLVM-dialect body.
  auto tileModule = parse(*context, R"mlir(
    tile.func @vadd(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
      tile.return
    })mlir");
  ASSERT_TRUE(tileModule);
  auto lowering = [&](mlir::ModuleOp module, const TargetDescription &) {
    auto lowered = parse(*context, kVectorAdd);
    module.getBody()->clear();
    for (mlir::Operation &op : llvm::make_early_inc_range(*lowered->getBody()))
      op.moveBefore(module.getBody(), module.getBody()->end());
    return mlir::success();
  };
  TempDir dir;
  {
    CpuDevice device(deviceOptions(2, dir.str()));
    CompileOptions options;
    options.lowering = lowering;
    ASSERT_OK_AND_ASSIGN(kernel, device.compileTile(*tileModule, "vadd", options));
    EXPECT_EQ(kernel.signature().str(), "(ptr<f32>, ptr<f32>, ptr<f32>, i32)");
    runVectorAdd(device, kernel, 3000, 9);
  }
  {
    // A second device hits the disk cache: the lowering is not run again.
    CpuDevice device(deviceOptions(2, dir.str()));
    CompileOptions options;
    bool lowered = false;
    options.lowering = [&](mlir::ModuleOp module, const TargetDescription &target) {
      lowered = true;
      return lowering(module, target);
    };
    ASSERT_OK_AND_ASSIGN(kernel, device.compileTile(*tileModule, "vadd", options));
    EXPECT_EQ(kernel.origin(), KernelOrigin::DiskCache);
    EXPECT_FALSE(lowered);
    runVectorAdd(device, kernel, 3000, 10);
  }
  if (!hasCpuLowering()) {
    CpuDevice device(deviceOptions(1));
    auto kernel = device.compileTile(*tileModule, "vadd");
    ASSERT_FALSE(kernel);
    EXPECT_THAT(llvm::toString(kernel.takeError()),
                HasSubstr("this build of Tessera has no CPU lowering"));
  }
}

TEST_F(CpuRuntimeTest, LaunchesMustKeepTheSpecializationPromises) {
  // The code may rely on `tile.equal_to_1` and `tile.divisibility`: a launch
  // that breaks either promise is refused, never run with wrong results.
  auto tileModule = parse(*context, R"mlir(
    tile.func @vadd(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>,
                    %out: !tile.ptr<f32>, %n: i32 {tile.equal_to_1}) {
      tile.return
    })mlir");
  ASSERT_TRUE(tileModule);
  ASSERT_OK_AND_ASSIGN(signature, KernelSignature::fromModule(*tileModule, "vadd"));
  EXPECT_EQ(signature.params[0].divisibility, 16u);
  EXPECT_TRUE(signature.params[3].equalToOne);

  CpuDevice device(deviceOptions(1));
  auto lowered = parse(*context, kVectorAdd);
  CompileOptions options;
  options.signature = signature;
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*lowered, "vadd", options));
  ASSERT_OK_AND_ASSIGN(x, Buffer::allocate(device, 64 * sizeof(float)));
  ASSERT_OK_AND_ASSIGN(out, Buffer::allocate(device, 64 * sizeof(float)));
  EXPECT_THAT(llvm::toString(device.launch(kernel, {1}, {x, x, out, 5})),
              HasSubstr("kernel 'vadd': argument 3 is i32, got integer 5 (the kernel was "
                        "specialized for the value 1: tile.equal_to_1)"));
  EXPECT_THAT(llvm::toString(device.launch(kernel, {1}, {x.as<float>() + 1, x, out, 1})),
              HasSubstr("(the kernel was specialized for addresses divisible by 16)"));
  EXPECT_FALSE(device.launch(kernel, {1}, {x, x, out, 1}));
}

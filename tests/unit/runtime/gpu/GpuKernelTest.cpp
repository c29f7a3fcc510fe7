#include "GpuKernelTest.h"

#include "ir/TileDialect.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tessera::gpu_testing {

constexpr DeviceKind kDeviceKinds[] = {DeviceKind::Vulkan, DeviceKind::Cuda, DeviceKind::Hip};

std::vector<GpuCase> everyDeviceAndWarpCount() {
  std::vector<GpuCase> cases;
  for (DeviceKind kind : kDeviceKinds)
    for (unsigned warps : {1u, 2u, 4u})
      cases.push_back({kind, warps});
  return cases;
}

std::vector<GpuCase> everyDevice() {
  std::vector<GpuCase> cases;
  for (DeviceKind kind : kDeviceKinds)
    cases.push_back({kind, 4});
  return cases;
}

std::string caseName(const ::testing::TestParamInfo<GpuCase> &info) {
  return llvm::formatv("{0}_{1}warp{2}", toString(info.param.device), info.param.numWarps,
                       info.param.numWarps == 1 ? "" : "s")
      .str();
}

unsigned ceilDiv(int64_t a, int64_t b) { return static_cast<unsigned>((a + b - 1) / b); }


void GpuKernelTest::SetUp() {
  const DeviceSlot &slot = sharedDevice(GetParam().device);
  if (!slot.broken.empty())
    FAIL() << toString(GetParam().device) << " runtime present but no device opened: "
           << slot.broken;
  if (!slot.device)
    GTEST_SKIP() << slot.absent;
  device = slot.device;
  RecordProperty("device", device->description());
}

std::string GpuKernelTest::compile(mlir::ModuleOp module, llvm::StringRef kernel,
                                   gpu::CompiledGpuKernel &compiled) {
  gpu::GpuCompileOptions options = device->compileOptions(numWarps());
  options.lowering.numStages = numStages;
  llvm::Expected<gpu::CompiledGpuKernel> result =
      gpu::compileTileForGpu(module, kernel, target(), options);
  if (!result)
    return llvm::toString(result.takeError());
  compiled = std::move(*result);
  return "";
}

void GpuKernelTest::runOnDevice(mlir::ModuleOp module, llvm::StringRef kernel,
                                llvm::ArrayRef<KernelArgument> args, GridSize grid) {
  SCOPED_TRACE("on " + device->description() + " with " + std::to_string(numWarps()) +
               " warps");
  gpu::CompiledGpuKernel compiled;
  ASSERT_EQ(compile(module, kernel, compiled), "");
  llvm::Expected<runtime::KernelSignature> signature =
      runtime::KernelSignature::fromModule(module, kernel);
  ASSERT_TRUE(bool(signature)) << llvm::toString(signature.takeError());
  if (llvm::Error err = device->run(compiled, *signature, args, grid))
    FAIL() << "launch: " << llvm::toString(std::move(err));
}

namespace {

/// Element `i` of a buffer of `element`s, as a double (integers sign-extended).
double elementOf(const uint8_t *data, mlir::Type element, size_t i) {
  if (element.isF32()) {
    float value;
    std::memcpy(&value, data + 4 * i, 4);
    return value;
  }
  if (element.isF64()) {
    double value;
    std::memcpy(&value, data + 8 * i, 8);
    return value;
  }
  if (element.isF16()) {
    uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return interp::testing::fromHalf(bits);
  }
  unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
  uint64_t bits = 0;
  std::memcpy(&bits, data + bytes * i, bytes);
  unsigned unused = 64 - 8 * bytes;
  return static_cast<double>(static_cast<int64_t>(bits << unused) >> unused);
}

} // namespace

void GpuKernelTest::expectSameAsInterpreter(mlir::ModuleOp module, llvm::StringRef kernel,
                                            llvm::ArrayRef<KernelArgument> args, GridSize grid,
                                            double rtol, double atol) {
  auto func = module.lookupSymbol<tile::FuncOp>(kernel);
  ASSERT_TRUE(func) << "no kernel named " << kernel.str();
  std::vector<std::vector<uint8_t>> copies;
  copies.reserve(args.size());
  std::vector<KernelArgument> interpArgs(args.begin(), args.end());
  for (KernelArgument &arg : interpArgs)
    if (arg.kind == KernelArgument::Kind::Buffer) {
      auto *bytes = static_cast<uint8_t *>(arg.data);
      copies.emplace_back(bytes, bytes + arg.bytes);
      arg.data = copies.back().data();
    }
  if (llvm::Error error = interp::runKernel(module, kernel, interpArgs, grid))
    FAIL() << "interpreter: " << llvm::toString(std::move(error));
  runOnDevice(module, kernel, args, grid);
  if (HasFatalFailure())
    return;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != KernelArgument::Kind::Buffer)
      continue;
    mlir::Type element = cast<tile::PointerType>(func.getArgumentTypes()[i]).getPointeeType();
    unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    size_t count = args[i].bytes / bytes;
    std::vector<double> onDevice(count), reference(count);
    for (size_t j = 0; j < count; ++j) {
      onDevice[j] = elementOf(static_cast<uint8_t *>(args[i].data), element, j);
      reference[j] = elementOf(static_cast<uint8_t *>(interpArgs[i].data), element, j);
      if (std::isnan(onDevice[j]) && std::isnan(reference[j]))
        onDevice[j] = reference[j] = 0;
    }
    SCOPED_TRACE("buffer argument #" + std::to_string(i) + " on " + device->description() +
                 " with " + std::to_string(numWarps()) + " warps");
    interp::testing::expectClose(onDevice, reference, rtol, atol);
  }
}

} // namespace tessera::gpu_testing

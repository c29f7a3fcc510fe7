// `tessera demo`: the main job end to end on the best device present. Each
// example kernel is traced from the C++ EDSL into tile IR, compiled for the
// CPU (tile IR -> LLVM -> machine code, JIT, cached on disk), run over a
// ragged problem (the last block masked) on all cores, and checked against a
// float64 reference. The same tile module is then compiled for one target of
// each GPU backend (PTX/cubin through ptxas, AMDGCN/HSACO, SPIR-V), showing
// the resources each binary needs; `ctest -L gpu` runs them where a GPU is.
#include "tools/tessera/Commands.h"

#include "examples/Examples.h"
#include "lowering/gpu/Compile.h"
#include "lowering/gpu/nvidia/CudaToolkit.h"
#include "runtime/Runtime.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
namespace examples = tessera::examples;
namespace runtime = tessera::runtime;
using runtime::Argument;

namespace {

// What running a kernel gave: the launch and the check against float64.
struct RunReport {
  std::string problem;
  unsigned programs = 0;
  double maxError = 0;
  double tolerance = 0;
  double firstLaunchMs = 0, warmLaunchMs = 0;
};

// Launches twice: the first launch pays for warming caches and threads, the
// second is what a program that launches repeatedly sees.
llvm::Error launchTwice(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                        runtime::Grid grid, llvm::ArrayRef<Argument> args, RunReport &report) {
  for (double *ms : {&report.firstLaunchMs, &report.warmLaunchMs}) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = device.launch(kernel, grid, args))
      return error;
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
  }
  return llvm::Error::success();
}

struct DemoKernel {
  const char *name;
  const char *what;
  OwningOpRef<ModuleOp> (*trace)(MLIRContext &context);
  llvm::Expected<RunReport> (*run)(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                                   std::mt19937 &rng);
};

std::vector<float> randomFloats(size_t count, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> values(count);
  for (float &value : values)
    value = dist(rng);
  return values;
}

double maxAbsDifference(const std::vector<float> &actual, const std::vector<double> &expected) {
  double worst = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    worst = std::max(worst, std::abs(actual[i] - expected[i]));
  return worst;
}

constexpr int kVectorBlock = 1024, kRowBlock = 256;

llvm::Expected<RunReport> runVectorAdd(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                                       std::mt19937 &rng) {
  constexpr int n = 1000003;
  std::vector<float> x = randomFloats(n, rng), y = randomFloats(n, rng), out(n);
  unsigned programs = (n + kVectorBlock - 1) / kVectorBlock;
  RunReport report;
  if (llvm::Error error = launchTwice(device, kernel, {programs}, {x.data(), y.data(), out.data(), n}, report))
    return std::move(error);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i)
    expected[i] = double(x[i]) + double(y[i]);
  report.problem = "n=" + std::to_string(n);
  report.programs = programs;
  report.maxError = maxAbsDifference(out, expected);
  report.tolerance = 1e-6;
  return report;
}

llvm::Expected<RunReport> runSoftmax(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                                     std::mt19937 &rng) {
  constexpr int rows = 4096, cols = 200;
  std::vector<float> in = randomFloats(rows * cols, rng), out(rows * cols);
  RunReport report;
  if (llvm::Error error = launchTwice(device, kernel, {rows}, {out.data(), in.data(), cols, cols, cols}, report))
    return std::move(error);
  std::vector<double> expected(rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float *row = &in[r * cols];
    double max = *std::max_element(row, row + cols), sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += std::exp(double(row[c]) - max);
    for (int c = 0; c < cols; ++c)
      expected[r * cols + c] = std::exp(double(row[c]) - max) / sum;
  }
  report.problem = std::to_string(rows) + "x" + std::to_string(cols);
  report.programs = rows;
  report.maxError = maxAbsDifference(out, expected);
  report.tolerance = 1e-5;
  return report;
}

const examples::MatmulConfig kMatmulConfig{64, 64, 64, examples::MatmulInputs::F32,
                                           /*unitInnerStrides=*/true};

llvm::Expected<RunReport> runMatmul(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                                    std::mt19937 &rng) {
  constexpr int M = 1000, N = 700, K = 500;
  std::vector<float> a = randomFloats(M * K, rng), b = randomFloats(K * N, rng), c(M * N);
  unsigned gridM = (M + kMatmulConfig.blockM - 1) / kMatmulConfig.blockM;
  unsigned gridN = (N + kMatmulConfig.blockN - 1) / kMatmulConfig.blockN;
  RunReport report;
  if (llvm::Error error = launchTwice(device, kernel, {gridM, gridN}, {a.data(), b.data(), c.data(), M, N, K, K, 1, N, 1, N, 1}, report))
    return std::move(error);
  // f32 accumulation of K products errs by at most about K ulps of the sum
  // of their magnitudes.
  std::vector<double> expected(M * N);
  double largestMagnitude = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0, magnitude = 0;
      for (int k = 0; k < K; ++k) {
        double product = double(a[i * K + k]) * double(b[k * N + j]);
        sum += product;
        magnitude += std::abs(product);
      }
      expected[i * N + j] = sum;
      largestMagnitude = std::max(largestMagnitude, magnitude);
    }
  report.problem = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  report.programs = gridM * gridN;
  report.maxError = maxAbsDifference(c, expected);
  report.tolerance = K * std::ldexp(1.0, -24) * largestMagnitude;
  return report;
}

llvm::Expected<RunReport> runLayerNorm(runtime::CpuDevice &device, const runtime::Kernel &kernel,
                                       std::mt19937 &rng) {
  constexpr int rows = 2048, cols = 300;
  constexpr float eps = 1e-5f;
  std::vector<float> x = randomFloats(rows * cols, rng), w = randomFloats(cols, rng),
                     b = randomFloats(cols, rng), y(rows * cols), mean(rows), rstd(rows);
  RunReport report;
  if (llvm::Error error = launchTwice(device, kernel, {rows}, {x.data(), y.data(), w.data(), b.data(), mean.data(),
                                         rstd.data(), cols, cols, eps}, report))
    return std::move(error);
  std::vector<double> expected(rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    double mu = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mu += row[c];
    mu /= cols;
    for (int c = 0; c < cols; ++c)
      var += (row[c] - mu) * (row[c] - mu);
    double inv = 1 / std::sqrt(var / cols + eps);
    for (int c = 0; c < cols; ++c)
      expected[r * cols + c] = (row[c] - mu) * inv * w[c] + b[c];
  }
  report.problem = std::to_string(rows) + "x" + std::to_string(cols);
  report.programs = rows;
  report.maxError = maxAbsDifference(y, expected);
  report.tolerance = 1e-4;
  return report;
}

const DemoKernel kKernels[] = {
    {"vector_add", "1-D add, BLOCK=1024",
     [](MLIRContext &context) { return examples::traceVectorAdd(context, kVectorBlock); },
     runVectorAdd},
    {"softmax", "fused row softmax, BLOCK=256",
     [](MLIRContext &context) { return examples::traceSoftmax(context, kRowBlock); }, runSoftmax},
    {"matmul", "f32 tiled GEMM, 64x64x64 tiles, k-loop",
     [](MLIRContext &context) { return examples::traceMatmul(context, kMatmulConfig); },
     runMatmul},
    {"layer_norm", "row layernorm, BLOCK=256",
     [](MLIRContext &context) { return examples::traceLayerNorm(context, kRowBlock); },
     runLayerNorm},
};

double millisecondsBetween(std::chrono::steady_clock::time_point from,
                           std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

/// The GPU targets the demo compiles every example for, one per backend.
constexpr const char *kGpuTargets[] = {"cuda:sm_90a", "hip:gfx942", "vulkan:1.3"};

/// "cuda:sm_90a 40 regs, 0 B spilled, 9216 B binary, 210 ms", or the first
/// line of the error (and `ok` cleared). NVIDIA builds are skipped, not
/// failed, where there is no CUDA toolkit (bootstrap.sh does not install one).
std::string describeGpuBuild(ModuleOp module, llvm::StringRef kernel, llvm::StringRef spec,
                             bool &ok) {
  llvm::Expected<tessera::gpu::GpuTarget> target = tessera::gpu::GpuTarget::parse(spec);
  if (!target) {
    ok = false;
    return spec.str() + " " + llvm::toString(target.takeError());
  }
  if (target->vendor == tessera::gpu::GpuVendor::Nvidia) {
    llvm::Expected<std::string> ptxas = tessera::gpu::CudaToolkit::locate().ptxas();
    if (!ptxas)
      return spec.str() + " skipped: " +
             llvm::StringRef(llvm::toString(ptxas.takeError())).split('\n').first.str();
  }
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<tessera::gpu::CompiledGpuKernel> built =
      tessera::gpu::compileTileForGpu(module, kernel, *target);
  double ms = millisecondsBetween(start, std::chrono::steady_clock::now());
  if (!built) {
    ok = false;
    std::string error = llvm::toString(built.takeError());
    return spec.str() + " FAILED: " + llvm::StringRef(error).split('\n').first.str();
  }
  const tessera::gpu::ResourceUsage &usage = built->binary.usage;
  llvm::SmallVector<std::string> facts;
  if (usage.registers >= 0)
    facts.push_back(std::to_string(usage.registers) + " regs");
  if (usage.spillStoreBytes >= 0)
    facts.push_back(std::to_string(usage.spillStoreBytes) + " B spilled");
  if (!usage.serializedWgmma.empty())
    facts.push_back("wgmma serialized by ptxas");
  facts.push_back(std::to_string(built->binary.binary.size()) + " B binary");
  facts.push_back(llvm::formatv("{0:F0} ms", ms).str());
  std::string line = spec.str() + " " + llvm::join(facts, ", ");
  return line;
}

} // namespace

int tessera::cli::runDemo(llvm::ArrayRef<llvm::StringRef> args) {
  bool printIR = false;
  for (llvm::StringRef arg : args) {
    if (arg != "--print-ir") {
      llvm::errs() << "tessera demo: unknown option '" << arg
                   << "' (usage: tessera demo [--print-ir])\n";
      return 2;
    }
    printIR = true;
  }

  DialectRegistry registry;
  tessera::interp::registerInterpretedDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  runtime::CpuDevice device;
  std::mt19937 rng(std::random_device{}());
  bool allPassed = true;

  const runtime::TargetDescription &target = device.target();
  llvm::outs() << "Tessera demo: the example kernels, compiled and run on the best device here\n"
               << "device   cpu: " << target.cpu << " (" << target.vectorBits
               << "-bit vectors), " << device.numThreads()
               << " threads; GPU binaries are built for "
               << llvm::join(llvm::ArrayRef(kGpuTargets), ", ") << " (run: ctest -L gpu)\n\n";
  for (const DemoKernel &kernel : kKernels) {
    auto start = std::chrono::steady_clock::now();
    OwningOpRef<ModuleOp> module = kernel.trace(context);
    PassManager pm(&context);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module))) {
      llvm::errs() << "tessera demo: the tile pipeline failed on " << kernel.name << "\n";
      return 1;
    }
    if (printIR)
      module->print(llvm::outs());
    llvm::Expected<runtime::Kernel> compiled = device.compileTile(*module, kernel.name);
    if (!compiled) {
      llvm::errs() << "tessera demo: " << kernel.name
                   << " failed to compile: " << llvm::toString(compiled.takeError()) << "\n";
      return 1;
    }
    auto built = std::chrono::steady_clock::now();
    llvm::Expected<RunReport> report = kernel.run(device, *compiled, rng);
    if (!report) {
      llvm::errs() << "tessera demo: " << kernel.name
                   << " failed: " << llvm::toString(report.takeError()) << "\n";
      return 1;
    }
    bool passed = report->maxError <= report->tolerance;
    allPassed &= passed;
    llvm::StringRef origin = compiled->origin() == runtime::KernelOrigin::Compiled
                                 ? "compiled"
                                 : "loaded from the kernel cache";
    llvm::outs() << "kernel   " << kernel.name << " (" << kernel.what << ")\n"
                 << "compile  C++ EDSL -> tile IR -> LLVM -> x86-64, " << origin << " in "
                 << llvm::format("%.0f", millisecondsBetween(start, built)) << " ms\n"
                 << "run      " << report->problem << ", " << report->programs
                 << " programs: " << llvm::format("%.2f", report->warmLaunchMs)
                 << " ms a launch (the first: " << llvm::format("%.2f", report->firstLaunchMs)
                 << " ms)\n"
                 << "check    vs float64 reference: max |error| = "
                 << llvm::format("%.2e", report->maxError) << " (tolerance "
                 << llvm::format("%.0e", report->tolerance) << "): "
                 << (passed ? "PASS" : "FAIL") << "\n";
    for (const char *spec : kGpuTargets)
      llvm::outs() << "gpu      " << describeGpuBuild(*module, kernel.name, spec, allPassed)
                   << "\n";
    llvm::outs() << "\n";
  }
  llvm::outs() << "`tessera bench` compares these kernels with OpenBLAS, memcpy and plain loops;\n"
                  "bench/gpu/run.py with cuBLAS, Triton and PyTorch on an NVIDIA GPU.\n";
  return allPassed ? 0 : 1;
}

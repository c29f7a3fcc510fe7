// `tessera demo`: takes the example kernels through everything that exists of
// the compiler today and says plainly what does not exist yet.
//
// Today that is: the C++ EDSL traces each kernel into tile IR, the tile
// pipeline (verify, canonicalize, CSE) simplifies it, and the tile IR
// interpreter runs it over a ragged problem (the last block masked), checked
// against a float64 reference. No compiled backend exists yet; the demo says
// so instead of pretending.
#include "tools/tessera/Commands.h"

#include "examples/Examples.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
namespace examples = tessera::examples;
namespace interp = tessera::interp;
using interp::KernelArgument;

namespace {

// What running a kernel gave: the launch and the check against float64.
struct RunReport {
  std::string problem;
  unsigned programs = 0;
  double maxError = 0;
  double tolerance = 0;
};

struct DemoKernel {
  const char *name;
  const char *what;
  OwningOpRef<ModuleOp> (*trace)(MLIRContext &context);
  llvm::Expected<RunReport> (*run)(ModuleOp module, std::mt19937 &rng);
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

llvm::Expected<RunReport> runVectorAdd(ModuleOp module, std::mt19937 &rng) {
  constexpr int n = 100003;
  std::vector<float> x = randomFloats(n, rng), y = randomFloats(n, rng), out(n);
  unsigned programs = (n + kVectorBlock - 1) / kVectorBlock;
  if (llvm::Error error = interp::runKernel(
          module, "vector_add",
          {KernelArgument::buffer<float>(x), KernelArgument::buffer<float>(y),
           KernelArgument::buffer<float>(out), KernelArgument::integer(n)},
          {programs, 1, 1}))
    return std::move(error);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i)
    expected[i] = double(x[i]) + double(y[i]);
  return RunReport{"n=" + std::to_string(n), programs, maxAbsDifference(out, expected), 1e-6};
}

llvm::Expected<RunReport> runSoftmax(ModuleOp module, std::mt19937 &rng) {
  constexpr int rows = 64, cols = 200;
  std::vector<float> in = randomFloats(rows * cols, rng), out(rows * cols);
  if (llvm::Error error = interp::runKernel(
          module, "softmax",
          {KernelArgument::buffer<float>(out), KernelArgument::buffer<float>(in),
           KernelArgument::integer(cols), KernelArgument::integer(cols),
           KernelArgument::integer(cols)},
          {rows, 1, 1}))
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
  return RunReport{std::to_string(rows) + "x" + std::to_string(cols), rows,
                   maxAbsDifference(out, expected), 1e-5};
}

const examples::MatmulConfig kMatmulConfig{64, 64, 32, examples::MatmulInputs::F32};

llvm::Expected<RunReport> runMatmul(ModuleOp module, std::mt19937 &rng) {
  constexpr int M = 100, N = 70, K = 50;
  std::vector<float> a = randomFloats(M * K, rng), b = randomFloats(K * N, rng), c(M * N);
  unsigned gridM = (M + kMatmulConfig.blockM - 1) / kMatmulConfig.blockM;
  unsigned gridN = (N + kMatmulConfig.blockN - 1) / kMatmulConfig.blockN;
  if (llvm::Error error = interp::runKernel(
          module, "matmul",
          {KernelArgument::buffer<float>(a), KernelArgument::buffer<float>(b),
           KernelArgument::buffer<float>(c), KernelArgument::integer(M), KernelArgument::integer(N),
           KernelArgument::integer(K), KernelArgument::integer(K), KernelArgument::integer(1),
           KernelArgument::integer(N), KernelArgument::integer(1), KernelArgument::integer(N),
           KernelArgument::integer(1)},
          {gridM, gridN, 1}))
    return std::move(error);
  std::vector<double> expected(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum += double(a[i * K + k]) * double(b[k * N + j]);
      expected[i * N + j] = sum;
    }
  return RunReport{std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K),
                   gridM * gridN, maxAbsDifference(c, expected), 1e-4};
}

llvm::Expected<RunReport> runLayerNorm(ModuleOp module, std::mt19937 &rng) {
  constexpr int rows = 32, cols = 300;
  constexpr float eps = 1e-5f;
  std::vector<float> x = randomFloats(rows * cols, rng), w = randomFloats(cols, rng),
                     b = randomFloats(cols, rng), y(rows * cols), mean(rows), rstd(rows);
  if (llvm::Error error = interp::runKernel(
          module, "layer_norm",
          {KernelArgument::buffer<float>(x), KernelArgument::buffer<float>(y),
           KernelArgument::buffer<float>(w), KernelArgument::buffer<float>(b),
           KernelArgument::buffer<float>(mean), KernelArgument::buffer<float>(rstd),
           KernelArgument::integer(cols), KernelArgument::integer(cols),
           KernelArgument::floating(eps)},
          {rows, 1, 1}))
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
  return RunReport{std::to_string(rows) + "x" + std::to_string(cols), rows,
                   maxAbsDifference(y, expected), 1e-4};
}

const DemoKernel kKernels[] = {
    {"vector_add", "1-D add, BLOCK=1024",
     [](MLIRContext &context) { return examples::traceVectorAdd(context, kVectorBlock); },
     runVectorAdd},
    {"softmax", "fused row softmax, BLOCK=256",
     [](MLIRContext &context) { return examples::traceSoftmax(context, kRowBlock); }, runSoftmax},
    {"matmul", "f32 tiled GEMM, 64x64x32 tiles, k-loop",
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

size_t countOps(ModuleOp module) {
  size_t count = 0;
  module.walk([&](Operation *op) { count += op != module.getOperation(); });
  return count;
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
  interp::registerInterpretedDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::mt19937 rng(std::random_device{}());
  bool allPassed = true;

  llvm::outs() << "Tessera demo: the example kernels through the compiler as it stands\n\n";
  for (const DemoKernel &kernel : kKernels) {
    auto start = std::chrono::steady_clock::now();
    OwningOpRef<ModuleOp> module = kernel.trace(context);
    size_t opsTraced = countOps(*module);
    PassManager pm(&context);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module))) {
      llvm::errs() << "tessera demo: the tile pipeline failed on " << kernel.name << "\n";
      return 1;
    }
    auto compiled = std::chrono::steady_clock::now();
    llvm::outs() << "kernel   " << kernel.name << " (" << kernel.what << ")\n"
                 << "compile  C++ EDSL -> tile IR -> canonicalize, cse: " << opsTraced << " -> "
                 << countOps(*module) << " ops in "
                 << llvm::format("%.2f", millisecondsBetween(start, compiled)) << " ms\n";
    if (printIR)
      module->print(llvm::outs());

    llvm::Expected<RunReport> report = kernel.run(*module, rng);
    if (!report) {
      llvm::errs() << "tessera demo: " << kernel.name
                   << " failed: " << llvm::toString(report.takeError()) << "\n";
      return 1;
    }
    bool passed = report->maxError <= report->tolerance;
    allPassed &= passed;
    llvm::outs() << "target   cpu, tile IR interpreter (reference mode; no compiled backend yet)\n"
                 << "run      " << report->problem << ", " << report->programs << " programs in "
                 << llvm::format("%.1f", millisecondsBetween(compiled,
                                                             std::chrono::steady_clock::now()))
                 << " ms\n"
                 << "check    vs float64 reference: max |error| = "
                 << llvm::format("%.2e", report->maxError) << " (tolerance "
                 << llvm::format("%.0e", report->tolerance) << "): "
                 << (passed ? "PASS" : "FAIL") << "\n\n";
  }
  llvm::outs() << "Not there yet: the compiled CPU backend (tile IR -> vector -> LLVM, JIT, thread\n"
                  "pool) and the GPU backends (PTX, AMDGCN, SPIR-V). The interpreter runs one\n"
                  "program at a time, checks every access, and is not meant to be fast.\n";
  return allPassed ? 0 : 1;
}

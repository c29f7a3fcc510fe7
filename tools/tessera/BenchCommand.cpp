// `tessera bench`: one Tessera kernel against the peer a user would pick
// instead, side by side in this process, on the same data. Prints a small
// table, whether the results agree, and as its last line the ratio
// (peer time / Tessera time), e.g. `gemm 2048x2048x2048 f32 threads=1: 0.93x openblas`.
#include "tools/tessera/Commands.h"

#include "bench/cpu/Peers.h"
#include "bench/cpu/TesseraWorkloads.h"
#include "bench/cpu/Timing.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

using namespace tessera;
using namespace tessera::bench;

namespace {

constexpr llvm::StringLiteral kUsage =
    "usage: tessera bench gemm --shape MxNxK [--dtype f32] [--threads N] [--vs openblas]\n"
    "                          [--block BMxBNxBK]\n"
    "       tessera bench softmax|layernorm --shape ROWSxCOLS [--threads N] [--vs memcpy|loop]\n";

struct BenchOptions {
  std::string workload;
  llvm::SmallVector<int64_t> shape;
  std::string dtype = "f32";
  unsigned threads = 0;
  std::string peer;
  /// Row-major operands, as cblas is called: unit inner strides specialized.
  examples::MatmulConfig config{.unitInnerStrides = true};
};

int usageError(const llvm::Twine &message) {
  llvm::errs() << "tessera bench: " << message << "\n" << kUsage;
  return 2;
}

// "2048x1024x512" -> {2048, 1024, 512}, each positive.
std::optional<llvm::SmallVector<int64_t>> parseDims(llvm::StringRef text, size_t count) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  if (parts.size() != count)
    return std::nullopt;
  llvm::SmallVector<int64_t> dims;
  for (llvm::StringRef part : parts) {
    int64_t value;
    if (part.getAsInteger(10, value) || value <= 0)
      return std::nullopt;
    dims.push_back(value);
  }
  return dims;
}

double maxRelativeError(const std::vector<float> &actual, const std::vector<float> &expected) {
  double scale = 0, worst = 0;
  for (float value : expected)
    scale = std::max(scale, std::abs(double(value)));
  for (size_t i = 0; i < actual.size(); ++i)
    worst = std::max(worst, std::abs(double(actual[i]) - expected[i]));
  return scale > 0 ? worst / scale : worst;
}

void printRow(llvm::StringRef name, double seconds, double work, llvm::StringRef unit) {
  llvm::outs() << "  " << llvm::left_justify(name, 10) << llvm::format("%10.3f ms", seconds * 1e3)
               << llvm::format("%10.1f ", work / seconds / 1e9) << unit << "\n";
}

int reportFailure(llvm::Error error) {
  llvm::errs() << "tessera bench: " << llvm::toString(std::move(error)) << "\n";
  return 1;
}

int benchGemm(const BenchOptions &options) {
  int64_t m = options.shape[0], n = options.shape[1], k = options.shape[2];
  runtime::CpuDevice device(options.threads);
  llvm::Expected<TesseraGemm> gemm = TesseraGemm::create(device, m, n, k, options.config);
  if (!gemm)
    return reportFailure(gemm.takeError());
  setOpenBlasThreads(static_cast<int>(device.numThreads()));
  std::vector<float> peerC(m * n);
  double peer = medianSeconds([&] { openBlasSgemm(gemm->a.data(), gemm->b.data(), peerC.data(), m, n, k); });
  llvm::Error launchError = llvm::Error::success();
  double ours = medianSeconds([&] {
    if (!launchError)
      launchError = gemm->run();
  });
  if (launchError)
    return reportFailure(std::move(launchError));
  if (llvm::Error error = gemm->fetchResult())
    return reportFailure(std::move(error));

  std::string title = llvm::formatv("gemm {0}x{1}x{2} f32 threads={3}", m, n, k,
                                    device.numThreads()).str();
  double flops = 2.0 * m * n * k;
  llvm::outs() << title << " (tiles " << options.config.blockM << "x" << options.config.blockN
               << "x" << options.config.blockK << ")\n";
  printRow("tessera", ours, flops, "GFLOP/s");
  printRow("openblas", peer, flops, "GFLOP/s");
  double error = maxRelativeError(gemm->c, peerC);
  llvm::outs() << "  results agree: max |diff| / max |c| = " << llvm::format("%.1e", error)
               << (error < 1e-4 ? "" : "  MISMATCH") << "\n";
  llvm::outs() << title << ": " << llvm::format("%.2f", peer / ours) << "x openblas\n";
  return error < 1e-4 ? 0 : 1;
}

int benchRows(const BenchOptions &options, TesseraRowKernel::Kind kind) {
  int64_t rows = options.shape[0], cols = options.shape[1];
  runtime::CpuDevice device(options.threads);
  llvm::Expected<TesseraRowKernel> row = TesseraRowKernel::create(device, kind, rows, cols);
  if (!row)
    return reportFailure(row.takeError());
  std::vector<float> copy(rows * cols), expected(rows * cols);
  double memcpyTime =
      medianSeconds([&] { std::memcpy(copy.data(), row->x.data(), copy.size() * sizeof(float)); });
  double loopTime = medianSeconds([&] {
    if (kind == TesseraRowKernel::Kind::Softmax)
      plainLoopSoftmax(row->x.data(), expected.data(), rows, cols);
    else
      plainLoopLayerNorm(row->x.data(), row->weight.data(), row->bias.data(), expected.data(),
                         rows, cols, TesseraRowKernel::kEps);
  });
  llvm::Error launchError = llvm::Error::success();
  double ours = medianSeconds([&] {
    if (!launchError)
      launchError = row->run();
  });
  if (launchError)
    return reportFailure(std::move(launchError));
  if (llvm::Error error = row->fetchResult())
    return reportFailure(std::move(error));

  llvm::StringRef name = kind == TesseraRowKernel::Kind::Softmax ? "softmax" : "layernorm";
  std::string title = llvm::formatv("{0} {1}x{2} f32 threads={3}", name, rows, cols,
                                    device.numThreads()).str();
  double bytes = static_cast<double>(row->bytesMoved());
  llvm::outs() << title << " (bytes moved: rows read + written)\n";
  printRow("tessera", ours, bytes, "GB/s");
  printRow("memcpy", memcpyTime, bytes, "GB/s");
  printRow("loop", loopTime, bytes, "GB/s");
  double error = maxRelativeError(row->y, expected);
  llvm::outs() << "  results agree with the loop: max |diff| / max |y| = "
               << llvm::format("%.1e", error) << (error < 1e-4 ? "" : "  MISMATCH") << "\n";
  bool vsLoop = options.peer == "loop";
  llvm::outs() << title << ": " << llvm::format("%.2f", (vsLoop ? loopTime : memcpyTime) / ours)
               << "x " << (vsLoop ? "loop" : "memcpy") << "\n";
  return error < 1e-4 ? 0 : 1;
}

} // namespace

int tessera::cli::runBench(llvm::ArrayRef<llvm::StringRef> args) {
  if (args.empty())
    return usageError("name a workload");
  BenchOptions options;
  options.workload = args[0].str();
  bool isGemm = options.workload == "gemm";
  if (!isGemm && options.workload != "softmax" && options.workload != "layernorm")
    return usageError("unknown workload '" + options.workload + "'");
  options.peer = isGemm ? "openblas" : "memcpy";
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef flag = args[i];
    if (i + 1 >= args.size())
      return usageError("'" + flag + "' needs a value");
    llvm::StringRef value = args[++i];
    if (flag == "--shape") {
      std::optional<llvm::SmallVector<int64_t>> dims = parseDims(value, isGemm ? 3 : 2);
      if (!dims)
        return usageError("--shape '" + value + "' must be " + (isGemm ? "MxNxK" : "ROWSxCOLS") +
                          " with positive sizes");
      options.shape = *dims;
    } else if (flag == "--dtype") {
      if (value != "f32")
        return usageError("--dtype " + value + " is not benchmarked yet (f32 is)");
    } else if (flag == "--threads") {
      if (value.getAsInteger(10, options.threads) || options.threads == 0)
        return usageError("--threads '" + value + "' must be a positive integer");
    } else if (flag == "--vs") {
      bool known = isGemm ? value == "openblas" : (value == "memcpy" || value == "loop");
      if (!known)
        return usageError("--vs " + value + " is not a peer of " + options.workload);
      options.peer = value.str();
    } else if (flag == "--block" && isGemm) {
      std::optional<llvm::SmallVector<int64_t>> dims = parseDims(value, 3);
      if (!dims || llvm::any_of(*dims, [](int64_t d) { return !llvm::isPowerOf2_64(d); }))
        return usageError("--block '" + value + "' must be BMxBNxBK, powers of two");
      options.config.blockM = (*dims)[0], options.config.blockN = (*dims)[1],
      options.config.blockK = (*dims)[2];
    } else {
      return usageError("unknown option '" + flag + "'");
    }
  }
  if (options.shape.empty())
    return usageError("--shape is required");
  if (isGemm)
    return benchGemm(options);
  return benchRows(options, options.workload == "softmax" ? TesseraRowKernel::Kind::Softmax
                                                          : TesseraRowKernel::Kind::LayerNorm);
}

// The example kernels set up for timing on a CpuDevice: inputs allocated and
// filled once, the kernel compiled once, `run()` one launch. Shared by the
// Google Benchmark binary and `tessera bench`.
#ifndef TESSERA_BENCH_CPU_TESSERAWORKLOADS_H
#define TESSERA_BENCH_CPU_TESSERAWORKLOADS_H

#include "examples/Examples.h"
#include "runtime/Runtime.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tessera::bench {

/// Uniform random floats in [-1, 1) from a fixed seed: benchmarks compare
/// implementations on the same data, not across runs.
std::vector<float> randomFloats(size_t count, unsigned seed);

/// c = a @ b with examples/matmul.cpp (f32, row-major).
struct TesseraGemm {
  static llvm::Expected<TesseraGemm> create(runtime::CpuDevice &device, int64_t m, int64_t n,
                                            int64_t k, examples::MatmulConfig config);
  llvm::Error run();
  /// Copies the device's c into `c`.
  llvm::Error fetchResult();

  int64_t m = 0, n = 0, k = 0;
  std::vector<float> a, b, c;
  runtime::CpuDevice *device = nullptr;
  runtime::Kernel kernel;
  runtime::Buffer bufA, bufB, bufC;
  runtime::Grid grid;
};

/// softmax or layer_norm of `rows` rows of `cols` floats, one program per row.
struct TesseraRowKernel {
  enum class Kind { Softmax, LayerNorm };
  static constexpr float kEps = 1e-5f;

  static llvm::Expected<TesseraRowKernel> create(runtime::CpuDevice &device, Kind kind,
                                                 int64_t rows, int64_t cols);
  llvm::Error run();
  /// Copies the device's output rows into `y`.
  llvm::Error fetchResult();
  /// Bytes a launch must move at least: the rows read and written.
  uint64_t bytesMoved() const { return 2 * uint64_t(rows) * cols * sizeof(float); }

  Kind kind = Kind::Softmax;
  int64_t rows = 0, cols = 0;
  std::vector<float> x, y, weight, bias;
  runtime::CpuDevice *device = nullptr;
  runtime::Kernel kernel;
  runtime::Buffer bufX, bufY, bufW, bufB, bufMean, bufRstd;
};

} // namespace tessera::bench

#endif // TESSERA_BENCH_CPU_TESSERAWORKLOADS_H

#include "bench/cpu/TesseraWorkloads.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MathExtras.h"

#include <random>

using namespace tessera;
using namespace tessera::bench;
using runtime::Buffer;

std::vector<float> tessera::bench::randomFloats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(count);
  for (float &value : values)
    value = dist(rng);
  return values;
}

namespace {

// A buffer holding a copy of `values`.
llvm::Expected<Buffer> upload(runtime::CpuDevice &device, const std::vector<float> &values) {
  llvm::Expected<Buffer> buffer = Buffer::allocate(device, values.size() * sizeof(float));
  if (!buffer)
    return buffer.takeError();
  if (llvm::Error error = buffer->copyFromHost(values.data(), values.size() * sizeof(float)))
    return std::move(error);
  return buffer;
}

// Traces a kernel in a context of its own and compiles it; the compiled code
// outlives the IR.
template <typename TraceFn>
llvm::Expected<runtime::Kernel> traceAndCompile(runtime::CpuDevice &device, llvm::StringRef name,
                                                TraceFn trace) {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = trace(context);
  return device.compileTile(*module, name);
}

uint32_t ceilDiv(int64_t value, int64_t divisor) {
  return static_cast<uint32_t>((value + divisor - 1) / divisor);
}

} // namespace

llvm::Expected<TesseraGemm> TesseraGemm::create(runtime::CpuDevice &device, int64_t m, int64_t n,
                                                int64_t k, examples::MatmulConfig config) {
  TesseraGemm gemm;
  gemm.device = &device;
  gemm.m = m, gemm.n = n, gemm.k = k;
  gemm.a = randomFloats(m * k, 1);
  gemm.b = randomFloats(k * n, 2);
  gemm.c.assign(m * n, 0);
  gemm.grid = {ceilDiv(m, config.blockM), ceilDiv(n, config.blockN), 1};
  llvm::Expected<runtime::Kernel> kernel = traceAndCompile(
      device, "matmul", [&](mlir::MLIRContext &ctx) { return examples::traceMatmul(ctx, config); });
  if (!kernel)
    return kernel.takeError();
  gemm.kernel = *kernel;
  for (auto [buffer, values] : {std::pair{&gemm.bufA, &gemm.a}, std::pair{&gemm.bufB, &gemm.b},
                                std::pair{&gemm.bufC, &gemm.c}}) {
    llvm::Expected<Buffer> uploaded = upload(device, *values);
    if (!uploaded)
      return uploaded.takeError();
    *buffer = std::move(*uploaded);
  }
  return std::move(gemm);
}

llvm::Error TesseraGemm::run() {
  return device->launch(kernel, grid, {bufA, bufB, bufC, m, n, k, k, 1, n, 1, n, 1});
}

llvm::Error TesseraGemm::fetchResult() {
  return bufC.copyToHost(c.data(), c.size() * sizeof(float));
}

llvm::Expected<TesseraRowKernel> TesseraRowKernel::create(runtime::CpuDevice &device, Kind kind,
                                                          int64_t rows, int64_t cols) {
  TesseraRowKernel row;
  row.device = &device;
  row.kind = kind;
  row.rows = rows, row.cols = cols;
  row.x = randomFloats(rows * cols, 3);
  row.y.assign(rows * cols, 0);
  row.weight = randomFloats(cols, 4);
  row.bias = randomFloats(cols, 5);
  // softmax holds a whole row in one block; layer_norm loops over blocks.
  int64_t block = static_cast<int64_t>(llvm::PowerOf2Ceil(cols));
  llvm::Expected<runtime::Kernel> kernel =
      kind == Kind::Softmax
          ? traceAndCompile(device, "softmax",
                            [&](mlir::MLIRContext &ctx) { return examples::traceSoftmax(ctx, block); })
          : traceAndCompile(device, "layer_norm", [&](mlir::MLIRContext &ctx) {
              return examples::traceLayerNorm(ctx, std::min<int64_t>(block, 1024));
            });
  if (!kernel)
    return kernel.takeError();
  row.kernel = *kernel;
  std::vector<float> perRow(rows, 0);
  for (auto [buffer, values] :
       {std::pair{&row.bufX, &row.x}, std::pair{&row.bufY, &row.y},
        std::pair{&row.bufW, &row.weight}, std::pair{&row.bufB, &row.bias},
        std::pair{&row.bufMean, &perRow}, std::pair{&row.bufRstd, &perRow}}) {
    llvm::Expected<Buffer> uploaded = upload(device, *values);
    if (!uploaded)
      return uploaded.takeError();
    *buffer = std::move(*uploaded);
  }
  return std::move(row);
}

llvm::Error TesseraRowKernel::run() {
  runtime::Grid grid{static_cast<uint32_t>(rows), 1, 1};
  if (kind == Kind::Softmax)
    return device->launch(kernel, grid, {bufY, bufX, cols, cols, cols});
  return device->launch(kernel, grid,
                        {bufX, bufY, bufW, bufB, bufMean, bufRstd, cols, cols, kEps});
}

llvm::Error TesseraRowKernel::fetchResult() {
  return bufY.copyToHost(y.data(), y.size() * sizeof(float));
}

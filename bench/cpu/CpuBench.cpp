// CPU benchmarks, each against the peer a user would pick instead, measured
// side by side in this process: fp32 GEMM vs OpenBLAS sgemm (same thread
// count), softmax and layernorm vs a memcpy of the same bytes and vs a plain
// C++ loop. Counters: GFLOP/s or GB/s of each, and `ratio*` = peer time /
// Tessera time (above 1: Tessera is faster). memcpy moves the same bytes
// once each way, so ratio_memcpy is the fraction of memcpy bandwidth reached.
//
//   build/bin/tessera-cpu-bench --benchmark_filter=Gemm
#include "bench/cpu/Peers.h"
#include "bench/cpu/TesseraWorkloads.h"
#include "bench/cpu/Timing.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <thread>

using namespace tessera;
using namespace tessera::bench;

namespace {

void reportError(benchmark::State &state, llvm::Error error) {
  state.SkipWithError(llvm::toString(std::move(error)).c_str());
}

// Runs `launch` as the benchmark's loop and returns the mean seconds of one
// launch (0 after an error, which is reported on `state`).
template <typename Launch> double timedLoop(benchmark::State &state, Launch &&launch) {
  using Clock = std::chrono::steady_clock;
  double total = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    if (llvm::Error error = launch()) {
      reportError(state, std::move(error));
      return 0;
    }
    total += std::chrono::duration<double>(Clock::now() - start).count();
  }
  return state.iterations() ? total / state.iterations() : 0;
}

// Args: size (M = N = K), threads.
void BM_GemmF32(benchmark::State &state) {
  int64_t size = state.range(0);
  unsigned threads = static_cast<unsigned>(state.range(1));
  runtime::CpuDevice device(threads);
  llvm::Expected<TesseraGemm> gemm =
      TesseraGemm::create(device, size, size, size,
                          examples::MatmulConfig{.unitInnerStrides = true});
  if (!gemm)
    return reportError(state, gemm.takeError());

  setOpenBlasThreads(static_cast<int>(threads));
  std::vector<float> peerC(size * size);
  double peerSeconds = medianSeconds(
      [&] { openBlasSgemm(gemm->a.data(), gemm->b.data(), peerC.data(), size, size, size); });

  double seconds = timedLoop(state, [&] { return gemm->run(); });
  if (seconds <= 0)
    return;
  double gflop = 2.0 * size * size * size / 1e9;
  state.counters["GFLOPS"] = gflop / seconds;
  state.counters["openblas_GFLOPS"] = gflop / peerSeconds;
  state.counters["ratio"] = peerSeconds / seconds;
  state.SetLabel("ratio = openblas time / tessera time");
}

void gemmArguments(benchmark::internal::Benchmark *bench) {
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  for (int64_t size : {512, 1024, 2048, 4096})
    for (unsigned threads : {1u, all})
      bench->Args({size, threads});
  bench->ArgNames({"size", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_GemmF32)->Apply(gemmArguments);

// Args: rows, cols, threads.
template <TesseraRowKernel::Kind kind> void BM_RowKernel(benchmark::State &state) {
  int64_t rows = state.range(0), cols = state.range(1);
  runtime::CpuDevice device(static_cast<unsigned>(state.range(2)));
  llvm::Expected<TesseraRowKernel> row = TesseraRowKernel::create(device, kind, rows, cols);
  if (!row)
    return reportError(state, row.takeError());

  std::vector<float> scratch(rows * cols);
  double memcpySeconds = medianSeconds(
      [&] { std::memcpy(scratch.data(), row->x.data(), scratch.size() * sizeof(float)); });
  double loopSeconds = medianSeconds([&] {
    if (kind == TesseraRowKernel::Kind::Softmax)
      plainLoopSoftmax(row->x.data(), scratch.data(), rows, cols);
    else
      plainLoopLayerNorm(row->x.data(), row->weight.data(), row->bias.data(), scratch.data(),
                         rows, cols, TesseraRowKernel::kEps);
  });

  double seconds = timedLoop(state, [&] { return row->run(); });
  if (seconds <= 0)
    return;
  double gigabytes = static_cast<double>(row->bytesMoved()) / 1e9;
  state.counters["GBps"] = gigabytes / seconds;
  state.counters["memcpy_GBps"] = gigabytes / memcpySeconds;
  state.counters["loop_GBps"] = gigabytes / loopSeconds;
  state.counters["ratio_memcpy"] = memcpySeconds / seconds;
  state.counters["ratio_loop"] = loopSeconds / seconds;
}

void rowArguments(benchmark::internal::Benchmark *bench) {
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  for (auto [rows, cols] : {std::pair{4096, 1024}, std::pair{16384, 781}, std::pair{1024, 4096}})
    for (unsigned threads : {1u, all})
      bench->Args({rows, cols, threads});
  bench->ArgNames({"rows", "cols", "threads"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}
BENCHMARK(BM_RowKernel<TesseraRowKernel::Kind::Softmax>)->Name("BM_Softmax")->Apply(rowArguments);
BENCHMARK(BM_RowKernel<TesseraRowKernel::Kind::LayerNorm>)
    ->Name("BM_LayerNorm")
    ->Apply(rowArguments);

} // namespace

BENCHMARK_MAIN();

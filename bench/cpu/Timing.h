// Wall-clock timing of a piece of work: warm up once, then the median of
// repeated runs, so that one slow run (a page fault, a context switch) does
// not decide a comparison.
#ifndef TESSERA_BENCH_CPU_TIMING_H
#define TESSERA_BENCH_CPU_TIMING_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace tessera::bench {

/// Median seconds of `work()` over at least `minRuns` runs and `minSeconds`
/// of total time, after one warm-up run.
template <typename Work>
double medianSeconds(Work &&work, int minRuns = 5, double minSeconds = 0.5) {
  using Clock = std::chrono::steady_clock;
  work();
  std::vector<double> times;
  double total = 0;
  while (static_cast<int>(times.size()) < minRuns || total < minSeconds) {
    auto start = Clock::now();
    work();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    total += times.back();
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

} // namespace tessera::bench

#endif // TESSERA_BENCH_CPU_TIMING_H

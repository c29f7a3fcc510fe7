// A persistent pool of worker threads that runs the programs of a grid.
// Owned by a CpuDevice (no process-wide singleton): two devices have two
// pools. The calling thread takes part in every parallelFor.
#ifndef TESSERA_RUNTIME_CPU_THREADPOOL_H
#define TESSERA_RUNTIME_CPU_THREADPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::runtime::cpu {

enum class Schedule {
  /// One contiguous chunk per thread (count / threads items each). Chunks are
  /// claimed from a shared counter, so a thread that is late to wake up
  /// (oversubscribed machine) has its chunk taken by one that is free.
  Static,
  /// Smaller contiguous chunks (about 4 per thread, or `grain` items) claimed
  /// from a shared counter: balances programs of uneven cost.
  Dynamic,
};

class ThreadPool {
public:
  /// `threads` threads in all, the caller included (threads - 1 workers);
  /// 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Threads that run a parallelFor, the caller included.
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs fn(begin, end) over contiguous chunks that cover [0, count) exactly
  /// once, on the workers and the calling thread, and returns when all are
  /// done. Calls from several threads are serialized (one job at a time); a
  /// call from inside a running job (nested) runs inline on the caller.
  /// `grain` (Dynamic only): items per chunk, 0 to choose.
  void parallelFor(uint64_t count, llvm::function_ref<void(uint64_t begin, uint64_t end)> fn,
                   Schedule schedule = Schedule::Dynamic, uint64_t grain = 0);

private:
  struct Job {
    llvm::function_ref<void(uint64_t, uint64_t)> fn;
    uint64_t count = 0;
    uint64_t chunk = 1;
    std::atomic<uint64_t> next{0};
  };

  void workerLoop();
  static void runChunks(Job &job);

  std::vector<std::thread> workers_;
  std::mutex submitMutex_; ///< One job at a time.

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  Job *job_ = nullptr;        ///< The job workers may join (guarded by mutex_).
  uint64_t generation_ = 0;   ///< Bumped for each new job.
  unsigned active_ = 0;       ///< Workers inside the current job.
  bool stopping_ = false;
};

} // namespace tessera::runtime::cpu

#endif // TESSERA_RUNTIME_CPU_THREADPOOL_H

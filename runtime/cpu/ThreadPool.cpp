#include "runtime/cpu/ThreadPool.h"

#include <algorithm>

using namespace tessera::runtime::cpu;

namespace {
/// The pool whose job the current thread is running (to run nested calls inline).
thread_local const ThreadPool *currentPool = nullptr;

struct PoolScope {
  const ThreadPool *saved;
  explicit PoolScope(const ThreadPool *pool) : saved(currentPool) { currentPool = pool; }
  ~PoolScope() { currentPool = saved; }
};
} // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::runChunks(Job &job) {
  for (;;) {
    uint64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.count)
      return;
    job.fn(begin, std::min(job.count, begin + job.chunk));
  }
}

void ThreadPool::workerLoop() {
  PoolScope scope(this);
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || (job_ && generation_ != seen); });
    if (stopping_)
      return;
    seen = generation_;
    Job *job = job_;
    ++active_;
    lock.unlock();
    runChunks(*job);
    lock.lock();
    if (--active_ == 0)
      idle_.notify_all();
  }
}

void ThreadPool::parallelFor(uint64_t count, llvm::function_ref<void(uint64_t, uint64_t)> fn,
                             Schedule schedule, uint64_t grain) {
  if (count == 0)
    return;
  uint64_t threads = size();
  // Serial cases: one item, one thread, or a nested call from a running job.
  if (count == 1 || threads == 1 || currentPool == this) {
    fn(0, count);
    return;
  }

  Job job;
  job.fn = fn;
  job.count = count;
  uint64_t participants = std::min<uint64_t>(threads, count);
  if (schedule == Schedule::Static)
    job.chunk = (count + participants - 1) / participants;
  else
    job.chunk = grain ? grain : std::max<uint64_t>(1, count / (participants * 4));

  std::lock_guard<std::mutex> submit(submitMutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  {
    PoolScope scope(this);
    runChunks(job);
  }
  // No worker may join once the caller has seen every chunk claimed; wait for
  // those that did to finish theirs (`job` lives on this stack frame).
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = nullptr;
  idle_.wait(lock, [&] { return active_ == 0; });
}

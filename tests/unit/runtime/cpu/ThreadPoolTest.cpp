#include "runtime/cpu/ThreadPool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <numeric>
#include <thread>
#include <vector>

using namespace tessera::runtime::cpu;

namespace {
/// Runs parallelFor and checks each index is visited exactly once and the
/// chunks cover [0, count).
void checkCover(ThreadPool &pool, uint64_t count, Schedule schedule, uint64_t grain = 0) {
  std::vector<std::atomic<int>> visits(count);
  std::atomic<uint64_t> sum{0};
  pool.parallelFor(
      count,
      [&](uint64_t begin, uint64_t end) {
        ASSERT_LT(begin, end);
        ASSERT_LE(end, count);
        uint64_t local = 0;
        for (uint64_t i = begin; i < end; ++i) {
          visits[i].fetch_add(1);
          local += i;
        }
        sum += local;
      },
      schedule, grain);
  for (uint64_t i = 0; i < count; ++i)
    ASSERT_EQ(visits[i].load(), 1) << "index " << i << " of " << count;
  EXPECT_EQ(sum.load(), count * (count - 1) / 2);
}
} // namespace

TEST(ThreadPool, SizeCountsTheCaller) {
  EXPECT_EQ(ThreadPool(1).size(), 1u);
  EXPECT_EQ(ThreadPool(4).size(), 4u);
  EXPECT_EQ(ThreadPool(0).size(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(ThreadPool, SumsAreExactForEverySizeAndSchedule) {
  for (unsigned threads : {1u, 2u, 3u, 5u, 16u}) {
    ThreadPool pool(threads);
    for (uint64_t count : {0ull, 1ull, 2ull, 3ull, 7ull, 64ull, 1000ull, 100003ull}) {
      checkCover(pool, count, Schedule::Static);
      checkCover(pool, count, Schedule::Dynamic);
      checkCover(pool, count, Schedule::Dynamic, /*grain=*/1);
      checkCover(pool, count, Schedule::Dynamic, /*grain=*/97);
    }
  }
}

TEST(ThreadPool, StaticScheduleGivesContiguousEqualChunks) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::vector<std::pair<uint64_t, uint64_t>> chunks;
  pool.parallelFor(
      1000,
      [&](uint64_t begin, uint64_t end) {
        std::lock_guard<std::mutex> lock(mutex);
        chunks.push_back({begin, end});
      },
      Schedule::Static);
  std::sort(chunks.begin(), chunks.end());
  ASSERT_EQ(chunks.size(), 4u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(chunks[i], std::make_pair(uint64_t(250 * i), uint64_t(250 * (i + 1))));
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  // Enough slow chunks that workers join even on a loaded machine.
  pool.parallelFor(
      64,
      [&](uint64_t, uint64_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::lock_guard<std::mutex> lock(mutex);
        ids.insert(std::this_thread::get_id());
      },
      Schedule::Dynamic, 1);
  EXPECT_GT(ids.size(), 1u);
}

TEST(ThreadPool, ManySmallJobsInARow) {
  ThreadPool pool(3);
  uint64_t total = 0;
  for (int job = 0; job < 20000; ++job) {
    std::atomic<uint64_t> sum{0};
    pool.parallelFor(5, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i)
        sum += i;
    });
    total += sum;
  }
  EXPECT_EQ(total, 20000u * 10u);
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(3);
  std::atomic<uint64_t> sum{0};
  pool.parallelFor(
      10,
      [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i)
          pool.parallelFor(100, [&](uint64_t b, uint64_t e) {
            for (uint64_t j = b; j < e; ++j)
              sum += j;
          });
      },
      Schedule::Dynamic, 1);
  EXPECT_EQ(sum.load(), 10u * 4950u);
}

TEST(ThreadPool, CallsFromSeveralThreadsAreSerializedAndCorrect) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        uint64_t count = 50 + t * 7 + round;
        std::atomic<uint64_t> sum{0};
        pool.parallelFor(count, [&](uint64_t begin, uint64_t end) {
          for (uint64_t i = begin; i < end; ++i)
            sum += i;
        });
        if (sum != count * (count - 1) / 2)
          ++wrong;
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ThreadPool, TwoPoolsAreIndependent) {
  ThreadPool a(2), b(3);
  std::atomic<uint64_t> sa{0}, sb{0};
  std::thread ta([&] {
    for (int i = 0; i < 500; ++i)
      a.parallelFor(100, [&](uint64_t begin, uint64_t end) { sa += end - begin; });
  });
  std::thread tb([&] {
    for (int i = 0; i < 500; ++i)
      b.parallelFor(100, [&](uint64_t begin, uint64_t end) { sb += end - begin; });
  });
  ta.join();
  tb.join();
  EXPECT_EQ(sa.load(), 50000u);
  EXPECT_EQ(sb.load(), 50000u);
}

// SPDX-License-Identifier: MIT
// Parallel block loop of the CPU executor.
#include "kernellab/block_executor.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kernellab {

void clearUpperVectorState() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx")) asm volatile("vzeroupper" ::: "memory");
#endif
}

void forEachBlock(Dim2 grid, const std::function<void(int bx, int by)>& fn, int workers) {
  const int64_t total = static_cast<int64_t>(grid.x) * grid.y;
  if (total <= 0) return;
  if (workers <= 0) workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers = static_cast<int>(std::min<int64_t>(workers, total));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto worker = [&] {
    clearUpperVectorState();
    try {
      for (int64_t b = next.fetch_add(1); b < total; b = next.fetch_add(1))
        fn(static_cast<int>(b % grid.x), static_cast<int>(b / grid.x));
    } catch (...) {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      next.store(total);
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < workers; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kernellab

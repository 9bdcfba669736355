// SPDX-License-Identifier: MIT
// parallelChunks: a pool of std::threads per call, chunks handed out by an atomic counter.
#include "kernellab/parallel.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "kernellab/block_executor.h"

namespace kernellab {

int hardwareThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void parallelChunks(int64_t n, int64_t chunks,
                    const std::function<void(int64_t, int64_t, int64_t)>& fn, int workers) {
  if (n <= 0) return;
  chunks = std::max<int64_t>(1, std::min(chunks, n));
  const int64_t step = (n + chunks - 1) / chunks;
  chunks = (n + step - 1) / step;
  if (workers <= 0) workers = hardwareThreads();
  workers = static_cast<int>(std::min<int64_t>(workers, chunks));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto worker = [&] {
    clearUpperVectorState();
    try {
      for (int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1))
        fn(c, c * step, std::min(n, (c + 1) * step));
    } catch (...) {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      next.store(chunks);
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// Host-side parallel loops of the clustering family (generator, loaders, references). Chunks are
// fixed by the problem size, not by the thread count, so sums combined chunk by chunk give the
// same doubles on every machine.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kernellab::clustering::detail {

inline int hardwareThreads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Runs fn(chunk, begin, end) for `chunks` equal pieces of [0, n) on the hardware threads.
template <class Fn>
void parallelChunks(int64_t n, int64_t chunks, Fn&& fn) {
  if (n <= 0) return;
  chunks = std::max<int64_t>(1, std::min(chunks, n));
  const int64_t step = (n + chunks - 1) / chunks;
  chunks = (n + step - 1) / step;
  const int workers = static_cast<int>(std::min<int64_t>(hardwareThreads(), chunks));
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  auto worker = [&] {
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

// Runs fn(begin, end) over [0, n) in chunks of about `grain` items.
template <class Fn>
void parallelFor(int64_t n, Fn&& fn, int64_t grain = 4096) {
  parallelChunks(n, (n + grain - 1) / std::max<int64_t>(1, grain),
                 [&](int64_t, int64_t b, int64_t e) { fn(b, e); });
}

// splitmix64: a fast, well-mixed hash of a counter; the generators draw value i from
// splitmix64(salt + i), so any point can be generated independently and in parallel.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 53 random bits.
inline double uniform01(uint64_t key) {
  return static_cast<double>(splitmix64(key) >> 11) * (1.0 / 9007199254740992.0);
}

// A small sequential generator for the few draws that must come in order (centers, shuffles).
class SeqRandom {
 public:
  explicit SeqRandom(uint64_t seed) : state_(splitmix64(seed ^ 0xA5A5A5A5DEADBEEFull)) {}
  uint64_t next() { return splitmix64(state_++); }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, bound) without modulo bias.
  uint64_t below(uint64_t bound) {
    if (bound <= 1) return 0;
    const uint64_t limit = ~uint64_t(0) - (~uint64_t(0) % bound);
    uint64_t r;
    do r = next();
    while (r >= limit);
    return r % bound;
  }

 private:
  uint64_t state_;
};

}  // namespace kernellab::clustering::detail

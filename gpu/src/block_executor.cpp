// SPDX-License-Identifier: MIT
// Parallel block loop of the CPU executor.
#include "kernellab/block_executor.h"

#include "kernellab/parallel.h"

namespace kernellab {

void clearUpperVectorState() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx")) asm volatile("vzeroupper" ::: "memory");
#endif
}

void forEachBlock(Dim2 grid, const std::function<void(int bx, int by)>& fn, int workers) {
  const int64_t total = static_cast<int64_t>(grid.x) * grid.y;
  // One block per chunk: blocks are taken in launch order by whichever thread is free.
  parallelChunks(
      total, total,
      [&](int64_t b, int64_t, int64_t) {
        fn(static_cast<int>(b % grid.x), static_cast<int>(b / grid.x));
      },
      workers);
}

}  // namespace kernellab

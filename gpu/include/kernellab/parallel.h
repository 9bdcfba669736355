// SPDX-License-Identifier: MIT
// The one host-side parallel loop of the tree: CPU references, generators, loaders and the CPU
// executor's blocks all run through parallelChunks. Chunks are fixed by the caller, not by the
// thread count, so sums combined chunk by chunk give the same doubles on every machine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

namespace kernellab {

// The hardware threads of this machine (at least 1).
int hardwareThreads();

// Calls fn(chunk, begin, end) for `chunks` equal pieces of [0, n), on at most `workers` threads
// (0: hardwareThreads()). Chunks are taken in order by whichever thread is free. The first
// exception thrown by fn stops the loop (no chunk starts after it) and is rethrown here. Every
// worker clears the upper vector state first (clearUpperVectorState, block_executor.h).
void parallelChunks(int64_t n, int64_t chunks,
                    const std::function<void(int64_t chunk, int64_t begin, int64_t end)>& fn,
                    int workers = 0);

// Calls fn(begin, end) over [0, n) in chunks of about `grain` items.
template <class Fn>
void parallelFor(int64_t n, Fn&& fn, int64_t grain = 4096) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  parallelChunks(n, (n + grain - 1) / grain,
                 [&](int64_t, int64_t begin, int64_t end) { fn(begin, end); });
}

// Calls fn(i) for every i of [0, n), one item per chunk (items of very different cost: image
// rows, pixels of a reference).
template <class Fn>
void parallelForEach(int64_t n, Fn&& fn) {
  parallelChunks(n, n, [&](int64_t, int64_t begin, int64_t) { fn(begin); });
}

}  // namespace kernellab

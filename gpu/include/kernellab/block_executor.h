// SPDX-License-Identifier: MIT
// A small CPU executor for CUDA-style kernels: blocks run in parallel on CPU threads; inside a
// block every thread runs phase 0, then (the barrier) every thread runs phase 1, and so on.
#pragma once

#include <functional>

#include "kernellab/hd.h"

namespace kernellab {

// Clears the upper halves of the AVX registers (vzeroupper) on x86-64 CPUs with AVX; nothing
// elsewhere. A thread inherits its creator's vector state: threads started from a GUI thread whose
// libraries left it dirty ran the CPU executor 25 times slower (every SSE instruction paid for
// the dirty state around glibc's VEX-encoded fmaf). Every worker of parallelChunks (parallel.h)
// calls it, so forEachBlock's and the CPU references' threads start clean.
void clearUpperVectorState();

// Calls fn(bx, by) once for every block of the grid, spread over `workers` threads
// (0 = hardware concurrency) by parallelChunks. Blocks are independent, as CUDA guarantees nothing else.
void forEachBlock(Dim2 grid, const std::function<void(int bx, int by)>& fn, int workers = 0);

// Runs `phases` barrier-separated phases of one block: fn(phase, tx, ty) for every thread of the
// block in each phase before any thread starts the next one.
template <class PhaseFn>
void runBlockPhases(Dim2 blockDim, int phases, PhaseFn&& fn) {
  for (int p = 0; p < phases; ++p)
    for (int ty = 0; ty < blockDim.y; ++ty)
      for (int tx = 0; tx < blockDim.x; ++tx) fn(p, tx, ty);
}

}  // namespace kernellab

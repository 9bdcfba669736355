// SPDX-License-Identifier: MIT
// The bandwidth ceiling of the CUDA backends (CUDA translation units only).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernellab/ceilings.h"

namespace kernellab::cuda {

// cudaMemcpyAsync device to device of `bytes` on `stream`, timed with CUDA events: the rate a
// bandwidth-bound kernel is judged against ("x memcpy" in the benchmarks).
Ceiling deviceCopyCeiling(void* to, const void* from, size_t bytes, cudaStream_t stream,
                          int warmup, int reps, const RunHooks& hooks);

}  // namespace kernellab::cuda

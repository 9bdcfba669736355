// SPDX-License-Identifier: MIT
// What the reduction runner needs from a backend: run one variant's passes (timed), hand back
// its result, and measure the copy ceiling. Implemented on the CPU executor and on CUDA.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/experiment.h"
#include "kernellab/reduction.h"
#include "kernellab/result.h"

namespace kernellab::reduction {

struct TimedVariant {
  std::vector<double> samplesMs;           // every pass of one repetition, after warm-up
  std::string clock;                       // "cuda-events" or "cpu-steady-clock"
  std::optional<ResourceUsage> resources;  // the first pass's kernel (CUDA only)
  std::string kernel;                      // the kernel that ran (cub: the library's call)
  std::string error;                       // non-empty: refused, nothing timed
};

// The variant's answer: the sum in `value`, or the maximum and its index.
struct Answer {
  float value = 0;
  int64_t index = -1;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Poisons the results with NaN, warms up, times `reps` repetitions of every pass; the answer
  // stays in the backend until answer().
  virtual TimedVariant run(Variant v, Operation op, const std::vector<Geometry>& passes, int warmup,
                           int reps, const RunHooks& hooks) = 0;
  virtual Answer answer() = 0;
  // A plain copy of the input (cudaMemcpy device to device, or memcpy), read + write bytes.
  virtual Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) = 0;
};

std::unique_ptr<Backend> makeCpuBackend(const float* in, int64_t n);
// Allocates and uploads; throws CudaError. Defined only in CUDA builds.
std::unique_ptr<Backend> makeCudaBackend(const float* in, int64_t n);

}  // namespace kernellab::reduction

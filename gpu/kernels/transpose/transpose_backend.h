// SPDX-License-Identifier: MIT
// What the transpose runner needs from a backend: run one variant (timed), hand back its output,
// and measure the plain-copy ceiling. Implemented on the CPU executor and on CUDA.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/experiment.h"
#include "kernellab/result.h"
#include "kernellab/transpose_phases.h"

namespace kernellab::transpose {

struct TimedVariant {
  std::vector<double> samplesMs;           // one per repetition, after warm-up
  std::string clock;                       // "cuda-events" or "cpu-steady-clock"
  std::optional<ResourceUsage> resources;  // CUDA only
  std::vector<BlockRecord> schedule;       // when recording was asked for
  std::vector<double> recordedSamplesMs;   // the instrumented kernel's timings
  std::string error;                       // non-empty: the launch was refused, nothing timed
  std::string kernel;                      // the kernel that ran, when it is not the variant's
                                           // table name (the best strategies' kernels)
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Poisons the output with NaN, warms up, times `reps` launches. The output stays in the
  // backend until download().
  virtual TimedVariant run(Variant v, const Geometry& g, int warmup, int reps, bool record,
                           const RunHooks& hooks) = 0;
  virtual void download(float* out) = 0;
  // Plain memory copy of the matrix (cudaMemcpy device to device, or memcpy), read + write bytes.
  virtual Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) = 0;
};

std::unique_ptr<Backend> makeCpuBackend(const float* in, int64_t width, int64_t height);
// Allocates and uploads; throws CudaError. Defined only in CUDA builds.
std::unique_ptr<Backend> makeCudaBackend(const float* in, int64_t width, int64_t height);

}  // namespace kernellab::transpose

// SPDX-License-Identifier: MIT
// What the KNN runner needs from a backend: run one variant (poisoned, warmed up, timed) and hand
// back its neighbour lists. Implemented on the CPU executor and on CUDA.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/experiment.h"
#include "kernellab/knn.h"
#include "kernellab/result.h"

namespace kernellab::knn {

struct TimedVariant {
  std::vector<double> samplesMs;           // one per repetition, after warm-up
  std::string clock;                       // "cuda-events" or "cpu-steady-clock"
  std::optional<ResourceUsage> resources;  // CUDA only: registers, shared, blocks per SM
  std::string error;                       // non-empty: nothing was timed
  bool refused = false;                    // the error is a device limit, checked before launch
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Poisons the lists (index -1, distance NaN), warms up, times `reps` launches. The lists stay in
  // the backend until download().
  virtual TimedVariant run(Variant v, const Geometry& g, int warmup, int reps,
                           const RunHooks& hooks) = 0;
  virtual void download(Lists& out) = 0;
};

std::unique_ptr<Backend> makeCpuBackend(const Image& img, int k);
// Allocates and uploads; throws CudaError. Defined only in CUDA builds.
std::unique_ptr<Backend> makeCudaBackend(const Image& img, int k, const DeviceInfo& device);

// The refusal text when a variant's shared memory exceeds a per-block limit, or empty.
std::string sharedMemoryRefusal(Variant v, const Geometry& g, uint64_t limitBytes,
                                const std::string& deviceName);

}  // namespace kernellab::knn

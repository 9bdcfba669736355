// SPDX-License-Identifier: MIT
// What the clustering runner needs from a backend: buffers for one variant, one k-centers center
// or one k-means iteration at a time (timed per kernel), the downloads, and the copy ceiling.
// Implemented on the CPU executor and on CUDA; the runner owns the loops, the stopping rule, the
// hooks and the verification, so both backends run the algorithm the same way.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/clustering.h"
#include "kernellab/experiment.h"
#include "kernellab/result.h"

namespace kernellab::clustering {

struct KCentersStep {
  std::vector<double> kernelMs;  // distance, select
  float radius = 0;              // largest squared distance to the nearest center, after center j
  int32_t next = -1;             // center j + 1 (a point index), -1 after the last center
};

struct KMeansStep {
  int64_t rechecked = -1;        // best engine: points re-decided exactly
  int64_t visited = -1;          // pruned engine: points whose coordinates were read
  int64_t distances = -1;        // pruned engine: point-center distances computed
  std::vector<double> kernelMs;  // centroids (0 in the first iteration), assign, score
  std::vector<double> clusterScore;
  std::vector<int32_t> clusterCount;
};

struct RecordedSchedule {
  std::string kernel;               // which kernel was recorded
  std::vector<BlockRecord> blocks;  // tileX = the block's index, tileY = 0
  double ms = 0;                    // the instrumented launch's time
};

// A k-centers engine's whole run (best, pruned): all K centers without a host round trip.
struct KCentersRun {
  double ms = 0;                   // the K launches (one CUDA graph), or the host run
  std::vector<int64_t> centers;    // in order
  std::vector<float> radii;        // after center j
  std::vector<int64_t> visited;    // pruned: per center, the points whose coordinates were read
                                   // (empty for best: it reads all N every time)
  std::vector<int64_t> screened;   // pruned: per center, the points whose 8-bit sketch was read
  std::vector<int64_t> distances;  // pruned: per center, the point-center distances summed
                                   // (empty where each read point sums one)
  std::vector<int> passes;         // pruned, CUDA: per center, 1 where its launch ran a pass over
                                   // the N points, 0 where the plan chose the next center without
                                   // one (empty where every center runs one)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string clock() const = 0;  // "cuda-events" or "cpu-steady-clock"

  // Allocates the variant's buffers and copies the points, arranged in the variant's layout, to
  // them. Appends the phases "arrange layout (host)", "allocate" and "host to device".
  virtual void prepare(const VariantInfo& v, Family family, int threadsPerBlock,
                       std::vector<PhaseTiming>& phases) = 0;
  // Registers, shared memory and occupancy of each kernel of the family at this launch (CUDA).
  virtual std::vector<std::optional<ResourceUsage>> resources() = 0;

  // Poisons labels, distances and center indices (NaN / -1), then sets center 0.
  virtual void kcentersBegin(int64_t firstCenter) = 0;
  // Center j: the distance kernel, then the select kernel; reads back radius j and center j + 1.
  virtual KCentersStep kcentersStep(int j, int k) = 0;

  // Poisons labels and scores, uploads the initial centers.
  virtual void kmeansBegin(const std::vector<float>& centers) = 0;
  // One Lloyd iteration: centroids (when iteration > 0), assign, score; reads back the K scores.
  virtual KMeansStep kmeansStep(int iteration) = 0;

  // Downloads; each returns its milliseconds.
  virtual double downloadLabels(std::vector<int32_t>& out) = 0;
  virtual double downloadDistances(std::vector<float>& out) = 0;  // k-centers
  virtual double downloadCentroids(std::vector<float>& out) = 0;  // k-means, K x D

  // Launches the per-point kernel once more with per-block %smid / %globaltimer records: the
  // k-means assign kernel, or the k-centers distance kernel for center `lastCenter` (both leave
  // the results as they were). Empty where blocks cannot be recorded (the CPU).
  virtual std::optional<RecordedSchedule> recordSchedule(int lastCenter) = 0;

  // Engine variants (issue 7): k-centers in one go, and each kernel's grid; the seed variants'
  // backends answer nothing here. `cancel` (RunHooks::cancel, may be null) stops a host run
  // between centers; the runner then throws Cancelled (a CUDA graph runs to its end).
  virtual std::optional<KCentersRun> kcentersRunAll(int64_t /*first*/, int /*k*/,
                                                    const std::atomic<bool>* /*cancel*/) {
    return std::nullopt;
  }
  virtual std::vector<int> engineGrids() { return {}; }
  // The engine's kernel names and its path where it chooses one on this device (else empty).
  virtual std::vector<std::string> engineKernelNames() { return {}; }
  virtual std::string engineStrategy() { return {}; }

  // Frees the variant's buffers; appends the phase "free".
  virtual void release(std::vector<PhaseTiming>& phases) = 0;

  // A plain copy of the point buffer (cudaMemcpy device to device, or memcpy), read + write bytes.
  virtual Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) = 0;
};

std::unique_ptr<Backend> makeCpuBackend(const PointSet& points, int k);
// Defined only in CUDA builds; throws CudaError.
std::unique_ptr<Backend> makeCudaBackend(const PointSet& points, int k);

}  // namespace kernellab::clustering

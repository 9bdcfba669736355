// SPDX-License-Identifier: MIT
// The fastest-possible clustering engines (issue 7) and the cuBLAS-based peer, on device
// pointers. No CUDA header here: the runner that owns the data includes this.
//
// The k-centers engine reads the points dimension-major (X[d * N + i], the "coalesced" layout);
// the k-means engines read them point-major (X[i * D + d], "interleaved"): their products take
// either, and their update and exact re-decisions walk the points one by one, each a contiguous
// row of D floats that way.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernellab/result.h"

struct CUstream_st;

namespace kernellab::clustering::best {

// k-centers, whole run: one fused launch per center (distance, running minimum, label and the
// block's farthest point; the last block to finish picks the next center on the GPU, so the
// host never waits between centers). The K launches are one CUDA graph.
class KCentersFused {
 public:
  KCentersFused(const float* d_points, int64_t n, int d, int k, CUstream_st* stream);
  ~KCentersFused();
  KCentersFused(const KCentersFused&) = delete;
  KCentersFused& operator=(const KCentersFused&) = delete;

  // Poisons distances and labels, sets center 0 and replays the graph; returns the elapsed
  // milliseconds of the K launches (CUDA events).
  double run(int64_t firstCenter);
  std::vector<int64_t> centers() const;      // K point indices, in order
  std::vector<float> radii() const;          // after center j: largest squared distance
  std::vector<int32_t> labels() const;       // index into centers()
  std::vector<float> distances() const;      // squared distance to the nearest center
  ResourceUsage resources() const;
  int grid() const;  // persistent grid: blocks launched per center

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// k-centers, pruned (issue 15): the fused engine's launches, each reading a point's coordinates
// only when neither the triangle inequality nor the point's 8-bit sketch can rule out the new
// center (kcenters_pruned.cu); the
// same centers, labels and distances as KCentersFused, bit for bit.
class KCentersPruned {
 public:
  // d_points dimension-major; d_rows the same points point-major (or null: every read from
  // d_points), for the scattered points whose floats a launch reads.
  KCentersPruned(const float* d_points, const float* d_rows, int64_t n, int d, int k,
                 CUstream_st* stream);
  ~KCentersPruned();
  KCentersPruned(const KCentersPruned&) = delete;
  KCentersPruned& operator=(const KCentersPruned&) = delete;

  double run(int64_t firstCenter);          // as KCentersFused::run
  std::vector<int64_t> centers() const;
  std::vector<float> radii() const;
  std::vector<int32_t> labels() const;
  std::vector<float> distances() const;
  std::vector<int64_t> visited() const;     // per center: points whose coordinates were read
  std::vector<int64_t> screened() const;    // per center: points whose 8-bit sketch was read
  // (a pass serves several centers: its reads count for the first center that needed them)
  std::vector<int64_t> distanceSums() const;  // per center: sketch and float distances summed
  std::vector<int> passes() const;  // per center: 1 where its launch ran a pass over the N points
  ResourceUsage resources() const;
  int grid() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct KMeansIteration {
  std::vector<double> kernelMs;        // per kernel of the engine, in kernelNames() order
  std::vector<double> clusterScore;    // sum of squared distances per cluster (double)
  std::vector<int32_t> clusterCount;
  int64_t rechecked = 0;               // points re-decided exactly (tensor-core engine)
  int64_t visited = -1;    // pruned: points whose coordinates were read (-1: not counted)
  int64_t distances = -1;  // pruned: point-center distances computed (-1: not counted)
};

// One Lloyd iteration per call: move the centers to the means of the previous iteration's
// assignment (from the second call on), assign, score, and accumulate the sums for the next move.
class KMeansEngine {
 public:
  virtual ~KMeansEngine() = default;
  virtual void begin(const std::vector<float>& centers) = 0;  // K x D point-major
  virtual KMeansIteration iterate(int iteration) = 0;
  virtual std::vector<int32_t> labels() const = 0;
  virtual std::vector<float> centers() const = 0;  // the centers the last assignment used
  virtual std::vector<std::string> kernelNames() const = 0;
  virtual std::vector<ResourceUsage> resources() const = 0;
  virtual std::vector<int> grids() const = 0;  // blocks per launch of each kernel (0: library)
  // How the engine does its work on this device and shape, when it chooses ("" otherwise).
  virtual std::string strategy() const { return std::string(); }
};

// The best engine (issue 10): the distances' cross term on the TF32 tensor cores, fused with the
// assignment (mma.sync; where that cannot run, a cuBLAS TF32 product), centers moved by their mean
// so the product's error stays small, exact labels from a proven bound on that error (points near
// a tie re-decided in double among their candidate centers), the block-private centroid update,
// and the exact score from the per-cluster sums. Throws InputError when its path needs cuBLAS and
// cuBLAS cannot be loaded (names the library and dlerror()).
std::unique_ptr<KMeansEngine> makeBestKMeans(const float* d_points, int64_t n, int d, int k,
                                             CUstream_st* stream);

// k-means, pruned (issue 15; kmeans_pruned.cu): Hamerly's bounds with proven rounding margins
// (kernellab/kmeans_pruning.h), the test of the CPU's KMeansPrunedHost (which keeps its lower bound
// per group of centers): labels equal to plain Lloyd's, coordinates read only for the points whose
// bounds overlap, the sums moved by the points that changed cluster. Reports visited and
// distances per iteration.
std::unique_ptr<KMeansEngine> makePrunedKMeans(const float* d_points, int64_t n, int d, int k,
                                               CUstream_st* stream);

// The peer built the way common libraries compute k-means (torch, cuML, FAISS): G = -2 X C^T by
// cuBLAS (fp32 SGEMM, or TF32 tensor cores when tf32), the arg-min of G + |c|^2 (approximate
// labels by nature: float cancellation), then the same block-private update as best.
// Throws InputError when cuBLAS cannot be loaded.
std::unique_ptr<KMeansEngine> makeCublasKMeans(const float* d_points, int64_t n, int d, int k,
                                               CUstream_st* stream, bool tf32);

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// Pieces shared by the best k-means engine and the cuBLAS peers: the device state both keep
// between iterations, with the block-private update and the finalize they both run.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "best_engines.h"
#include "cuda/cuda_check.h"
#include "kernellab/result.h"
#include "kmeans_update_sorted.cuh"

namespace kernellab::clustering::best {

// Compute capability of the current device (major * 10 + minor).
inline int currentComputeCapability() {
  int device = 0, major = 0, minor = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// What both k-means engines keep on the device from one iteration to the next (the centers of
// this assignment and the next, the double accumulators, the labels, |x|^2 of every point) and
// the steps they share: the first centers in, the update and finalize launches, the iteration's
// scores and counts, labels and centers out. An engine adds its assignment kernels between
// useNextCenters() and launchUpdate().
class KMeansDeviceState : public KMeansEngine {
 public:
  void begin(const std::vector<float>& centers) override;
  std::vector<int32_t> labels() const override;
  std::vector<float> centers() const override;

 protected:
  KMeansDeviceState(int64_t n, int d, int k, cudaStream_t stream);
  // Called by the engine once its own checks have passed, so a refused K or D allocates nothing.
  // Computes |x_i| and |x_i|^2 of the points (once per dataset).
  void allocateState(const float* d_points);
  // The centers of this assignment: the initial ones, or the means the last finalize wrote.
  void useNextCenters() { std::swap(centers_, next_); }
  // The centroid sums of labels_ (the caller times them): by label (SortedUpdate), or, where that
  // does not fit, block-private sums in shared memory when K x D doubles fit, else global
  // atomics. KERNELLAB_KMEANS_UPDATE=shared forces the block-private kernel (for measuring).
  void launchUpdate();
  // finalizeFromSumsKernel: scores from the sums, the next centers (the caller times it).
  void launchFinalize();
  // The update kernel's resources and grid.
  ResourceUsage updateResources() const;
  std::string updateName() const;  // the update kernel of the plan
  ResourceUsage finalizeResources() const;
  int updateGrid() const { return updateGrid_; }
  // The iteration's per-cluster scores and counts, once the finalize kernel has run.
  void readScores(KMeansIteration& it) const;

  int64_t n_;
  int d_, k_;
  cudaStream_t stream_;
  const float* x_ = nullptr;
  cuda::DeviceBuffer<float> centers_, next_, xnorm_;
  cuda::DeviceBuffer<double> sums_, sumsq_, outScores_, xsq_;
  cuda::DeviceBuffer<double> slices_;  // the update blocks' own K x D sums, reduced into sums_
  cuda::DeviceBuffer<int> counts_, outCounts_, labels_;
  enum class Update { Sorted, Shared, Global } update_ = Update::Sorted;
  SortedUpdate sorted_;
  bool sharedSums_ = false;
  int stages_ = 2;
  size_t updateSmem_ = 0;
  int updateGrid_ = 1;
  int64_t perBlock_ = 32;
};

}  // namespace kernellab::clustering::best

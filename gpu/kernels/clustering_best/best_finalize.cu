// SPDX-License-Identifier: MIT
// The device state shared by the best k-means engine and the cuBLAS peers: buffers, |x|^2 of the
// points, the update and finalize launches and the read-backs.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "best_common.cuh"
#include "cuda/kernel_resources.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {

KMeansDeviceState::KMeansDeviceState(int64_t n, int d, int k, cudaStream_t stream)
    : n_(n), d_(d), k_(k), stream_(stream) {}

void KMeansDeviceState::allocateState(const float* d_points) {
  x_ = d_points;
  centers_.allocate(size_t(k_) * d_);
  next_.allocate(size_t(k_) * d_);
  sums_.allocate(size_t(k_) * d_);
  sumsq_.allocate(size_t(k_));
  counts_.allocate(size_t(k_));
  outScores_.allocate(size_t(k_));
  outCounts_.allocate(size_t(k_));
  labels_.allocate(static_cast<size_t>(n_));
  xnorm_.allocate(static_cast<size_t>(n_));
  xsq_.allocate(static_cast<size_t>(n_));

  // The update's plan: by label when it fits (kmeans_update_sorted.cuh); else K x D double sums
  // per block in shared memory (one block per SM) with a pipeline of point rows (up to kMaxStages
  // stages, at least two) when they fit and D <= 1024, else global atomics from more blocks. The
  // last two give each block a contiguous range of points, a multiple of 32.
  const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
  const size_t optin = static_cast<size_t>(limits.sharedPerBlockOptin);
  stages_ = kMaxStages;
  while (stages_ > 2 && updateSharedBytes(k_, d_, stages_) > optin) --stages_;
  sharedSums_ = d_ <= 4 * kPartThreads && updateSharedBytes(k_, d_, stages_) <= optin;
  const char* forced = std::getenv("KERNELLAB_KMEANS_UPDATE");
  const bool forceShared = forced && std::string(forced) == "shared" && sharedSums_;
  if (SortedUpdate::fits(k_, d_) && !forceShared) {
    update_ = Update::Sorted;
    sorted_.allocate(n_, k_, d_, limits.sms);
    updateGrid_ = sorted_.sumsGrid();
  } else {
    update_ = sharedSums_ ? Update::Shared : Update::Global;
    updateSmem_ = sharedSums_ ? updateSharedBytes(k_, d_, stages_) : updateGlobalSharedBytes(k_);
    const void* kernel = sharedSums_ ? reinterpret_cast<const void*>(updateSumsKernel)
                                     : reinterpret_cast<const void*>(updateSumsGlobalKernel);
    KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(updateSmem_)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, kPartThreads,
                                                                updateSmem_));
    const int64_t blocks = std::max<int64_t>(1, int64_t(limits.sms) * std::max(1, perSM));
    perBlock_ = ((n_ + blocks - 1) / blocks + 31) / 32 * 32;
    updateGrid_ = static_cast<int>((n_ + perBlock_ - 1) / perBlock_);
    if (sharedSums_) slices_.allocate(static_cast<size_t>(updateGrid_) * k_ * d_);
  }

  const int64_t normWarps = kPartThreads / 32;  // a warp per point
  pointNormsKernel<<<static_cast<unsigned>((n_ + normWarps - 1) / normWarps), kPartThreads, 0,
                     stream_>>>(x_, n_, d_, xnorm_.get(), xsq_.get());
  KL_CUDA_CHECK_LAUNCH(stream_);
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void KMeansDeviceState::begin(const std::vector<float>& centers) {
  KL_CUDA_CHECK(cudaMemcpyAsync(next_.get(), centers.data(), next_.bytes(), cudaMemcpyHostToDevice, stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(sumsq_.get(), 0, sumsq_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), stream_));  // poison: -1
}

void KMeansDeviceState::launchUpdate() {
  if (update_ == Update::Sorted) {
    sorted_.launch(x_, labels_.get(), xsq_.get(), sums_.get(), sumsq_.get(), counts_.get(),
                   stream_);
    return;
  }
  if (update_ == Update::Global) {
    updateSumsGlobalKernel<<<updateGrid_, kPartThreads, updateSmem_, stream_>>>(
        x_, n_, d_, k_, labels_.get(), xsq_.get(), perBlock_, sums_.get(), sumsq_.get(),
        counts_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    return;
  }
  updateSumsKernel<<<updateGrid_, kPartThreads, updateSmem_, stream_>>>(
      x_, n_, d_, k_, labels_.get(), xsq_.get(), perBlock_, stages_, slices_.get(), sumsq_.get(),
      counts_.get());
  KL_CUDA_CHECK_LAUNCH(stream_);
  const int64_t kd = static_cast<int64_t>(k_) * d_;
  reduceBlockSumsKernel<<<static_cast<unsigned>((kd + 255) / 256), 256, 0, stream_>>>(
      slices_.get(), updateGrid_, kd, sums_.get());
  KL_CUDA_CHECK_LAUNCH(stream_);
}

void KMeansDeviceState::launchFinalize() {
  finalizeFromSumsKernel<<<k_, kFinalizeThreads, 0, stream_>>>(k_, d_, centers_.get(), next_.get(), sums_.get(),
                                                  sumsq_.get(), counts_.get(), outScores_.get(),
                                                  outCounts_.get());
  KL_CUDA_CHECK_LAUNCH(stream_);
}

ResourceUsage KMeansDeviceState::updateResources() const {
  if (update_ == Update::Sorted) return sorted_.resources();
  return cuda::kernelResources(sharedSums_ ? reinterpret_cast<const void*>(updateSumsKernel)
                                           : reinterpret_cast<const void*>(updateSumsGlobalKernel),
                               kPartThreads, updateSmem_);
}

std::string KMeansDeviceState::updateName() const {
  switch (update_) {
    case Update::Sorted:
      return "segmentSumsKernel (points sorted by label)";
    case Update::Shared:
      return "updateSumsKernel";
    default:
      return "updateSumsGlobalKernel";
  }
}

ResourceUsage KMeansDeviceState::finalizeResources() const {
  return cuda::kernelResources(finalizeFromSumsKernel, kFinalizeThreads, 0);
}

void KMeansDeviceState::readScores(KMeansIteration& it) const {
  it.clusterScore.resize(size_t(k_));
  it.clusterCount.resize(size_t(k_));
  KL_CUDA_CHECK(cudaMemcpy(it.clusterScore.data(), outScores_.get(), outScores_.bytes(), cudaMemcpyDeviceToHost));
  KL_CUDA_CHECK(cudaMemcpy(it.clusterCount.data(), outCounts_.get(), outCounts_.bytes(), cudaMemcpyDeviceToHost));
}

std::vector<int32_t> KMeansDeviceState::labels() const {
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<int32_t> out(static_cast<size_t>(n_));
  KL_CUDA_CHECK(cudaMemcpy(out.data(), labels_.get(), labels_.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<float> KMeansDeviceState::centers() const {
  KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<float> out(static_cast<size_t>(k_) * d_);
  KL_CUDA_CHECK(cudaMemcpy(out.data(), centers_.get(), centers_.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace kernellab::clustering::best

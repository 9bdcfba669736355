// SPDX-License-Identifier: MIT
// The k-means finalize kernel and the device state shared by the fused engine and the cuBLAS peer.
#include "best_common.cuh"

namespace kernellab::clustering::best {

__global__ void kmeansFinalizeKernel(int k, int d, const float* __restrict__ C,
                                     float* __restrict__ Cnext, double* sums, double* scores,
                                     int* counts, double* outScores, int* outCounts) {
  for (int e = threadIdx.x; e < k * d; e += blockDim.x) {
    const int cnt = counts[e / d];
    Cnext[e] = cnt > 0 ? static_cast<float>(sums[e] / cnt) : C[e];
    sums[e] = 0.0;
  }
  __syncthreads();  // every thread has read counts[] before it is zeroed
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    outScores[e] = scores[e];
    outCounts[e] = counts[e];
    scores[e] = 0.0;
    counts[e] = 0;
  }
}

KMeansDeviceState::KMeansDeviceState(int64_t n, int d, int k, cudaStream_t stream)
    : n_(n), d_(d), k_(k), stream_(stream) {}

void KMeansDeviceState::allocateState() {
  centers_.allocate(size_t(k_) * d_);
  next_.allocate(size_t(k_) * d_);
  sums_.allocate(size_t(k_) * d_);
  scores_.allocate(size_t(k_));
  counts_.allocate(size_t(k_));
  outScores_.allocate(size_t(k_));
  outCounts_.allocate(size_t(k_));
  labels_.allocate(static_cast<size_t>(n_));
}

void KMeansDeviceState::begin(const std::vector<float>& centers) {
  KL_CUDA_CHECK(cudaMemcpyAsync(next_.get(), centers.data(), next_.bytes(), cudaMemcpyHostToDevice, stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(scores_.get(), 0, scores_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_));
  KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), stream_));  // poison: -1
}

void KMeansDeviceState::launchFinalize() {
  kmeansFinalizeKernel<<<1, 1024, 0, stream_>>>(k_, d_, centers_.get(), next_.get(), sums_.get(),
                                                scores_.get(), counts_.get(), outScores_.get(),
                                                outCounts_.get());
  KL_CUDA_CHECK_LAUNCH(stream_);
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

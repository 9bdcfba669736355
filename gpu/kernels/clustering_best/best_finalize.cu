// SPDX-License-Identifier: MIT
// The k-means finalize kernel shared by the fused engine and the cuBLAS peer.
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

}  // namespace kernellab::clustering::best

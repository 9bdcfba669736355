// SPDX-License-Identifier: MIT
// Pieces shared by the fused k-means engine and the cuBLAS peer: the warp's update-and-score over
// 32 assigned points, the finalize kernel, and the device state both keep between iterations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "best_engines.h"
#include "cuda/cuda_check.h"
#include "kernellab/result.h"

namespace kernellab::clustering::best {

// One round of the warp's transpose-reduce: lanes exchange the half of their S-slot window that
// the partner keeps. Compile-time S keeps every index constant, so v stays in registers.
template <int S>
__device__ __forceinline__ void foldRound(double (&v)[32], int lane) {
  const bool upper = (lane & S) != 0;
#pragma unroll
  for (int j = 0; j < S; ++j) {
    const double send = upper ? v[j] : v[j + S];
    const double keep = upper ? v[j + S] : v[j];
    v[j] = keep + __shfl_xor_sync(0xffffffffu, send, S);
  }
}

// Update and score for the 32 points [w0, w0 + valid) of one warp, whose labels are lbl[0..31].
// Lanes split the dimensions; a run of equal labels is summed in a register before one atomic
// add (into shared partial sums when sumS is set, else into the global double sums). Each point's
// squared distance to its center (C, row pitch cPitch) is summed in double, reduced across the
// lanes, and added to its cluster's score and count in shared memory.
// `lbl(i)` returns point i's label (a shared-memory read): it is called from lanes that split
// the dimensions, so with D < 32 some lanes are idle there and a warp shuffle would be undefined.
// SumT: the shared partial sums' type (float where shared memory is scarce, double otherwise).
template <class Labels, class SumT>
__device__ __forceinline__ void accumulateWarp(const float* __restrict__ X, int64_t n, int d, bool vec,
                                      int64_t w0, int valid, Labels lbl,
                                      const float* __restrict__ C, int cPitch, SumT* sumS,
                                      double* sumsGlobal, double* scoreS, int* countS) {
  const int lane = threadIdx.x & 31;
  double dist[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) dist[i] = 0.0;
  for (int q = lane; q < d; q += 32) {
    const float* xrow = X + static_cast<int64_t>(q) * n + w0;
    float xv[32];
    if (vec && valid == 32) {
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(xrow) + c);
        xv[4 * c] = v.x;
        xv[4 * c + 1] = v.y;
        xv[4 * c + 2] = v.z;
        xv[4 * c + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 32; ++i) xv[i] = i < valid ? __ldcg(xrow + i) : 0.f;
    }
    // Runs of equal labels are summed in double: a float run of 32 points lost 3 ulp on a center
    // of the cuBLAS peer at N = 1e6 (the per-iteration check caught it on the H200).
    double run = 0.0;
    int runK = -1;
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      if (i < valid) {
        const int kk = lbl(i);
        if (kk != runK) {
          if (runK >= 0) {
            if (sumS) atomicAdd(sumS + runK * d + q, SumT(run));
            else atomicAdd(sumsGlobal + static_cast<int64_t>(runK) * d + q, run);
          }
          runK = kk;
          run = 0.0;
        }
        run += double(xv[i]);
        const double diff = double(xv[i]) - double(C[static_cast<int64_t>(kk) * cPitch + q]);
        dist[i] = fma(diff, diff, dist[i]);
      }
    }
    if (runK >= 0) {
      if (sumS) atomicAdd(sumS + runK * d + q, SumT(run));
      else atomicAdd(sumsGlobal + static_cast<int64_t>(runK) * d + q, run);
    }
  }
  // Transpose-reduce: afterwards lane i holds point i's squared distance in dist[0].
  foldRound<16>(dist, lane);
  foldRound<8>(dist, lane);
  foldRound<4>(dist, lane);
  foldRound<2>(dist, lane);
  foldRound<1>(dist, lane);
  if (lane < valid) {
    const int kk = lbl(lane);
    atomicAdd(scoreS + kk, dist[0]);
    atomicAdd(countS + kk, 1);
  }
}

// One block: the iteration's scores and counts out, the next centers (the means; an empty
// cluster keeps its center), and the accumulators zeroed for the next iteration.
__global__ void kmeansFinalizeKernel(int k, int d, const float* __restrict__ C,
                                     float* __restrict__ Cnext, double* sums, double* scores,
                                     int* counts, double* outScores, int* outCounts);

// Compute capability of the current device (major * 10 + minor).
inline int currentComputeCapability() {
  int device = 0, major = 0, minor = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// What both k-means engines keep on the device from one iteration to the next (the centers of
// this assignment and the next, the double accumulators, the labels) and the steps they share:
// the first centers in, the finalize launch, the iteration's scores and counts, labels and
// centers out. An engine adds its assignment kernels between useNextCenters() and finalize.
class KMeansDeviceState : public KMeansEngine {
 public:
  void begin(const std::vector<float>& centers) override;
  std::vector<int32_t> labels() const override;
  std::vector<float> centers() const override;

 protected:
  KMeansDeviceState(int64_t n, int d, int k, cudaStream_t stream);
  // Called by the engine once its own checks have passed, so a refused K or D allocates nothing.
  void allocateState();
  // The centers of this assignment: the initial ones, or the means the last finalize wrote.
  void useNextCenters() { std::swap(centers_, next_); }
  // kmeansFinalizeKernel on the stream (the caller times it).
  void launchFinalize();
  // The iteration's per-cluster scores and counts, once the finalize kernel has run.
  void readScores(KMeansIteration& it) const;

  int64_t n_;
  int d_, k_;
  cudaStream_t stream_;
  cuda::DeviceBuffer<float> centers_, next_;
  cuda::DeviceBuffer<double> sums_, scores_, outScores_;
  cuda::DeviceBuffer<int> counts_, outCounts_, labels_;
};

}  // namespace kernellab::clustering::best

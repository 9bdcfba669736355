// SPDX-License-Identifier: MIT
// The kernels the k-means engines are built from (issue 10), besides the cuBLAS product:
//  - pointNormsKernel: |x_i| and |x_i|^2 once per dataset (they do not change between iterations);
//  - centerPrepKernel: per iteration, |c_k|^2 and, for the best engine, the centers moved by their
//    mean (C' = C - m) with |c'_k| for the error bound;
//  - argminKernel: the GEMM form's arg-min (the peers: approximate labels by nature);
//  - assignBoundKernel + exactFixKernel: the best engine's exact labels: a proven bound on the
//    TF32 product's error decides most points; the rest are listed and re-decided in double among
//    their candidate centers only;
//  - updateSumsKernel: the centroid update, block-private: each block owns a contiguous range of
//    points and a thread per dimension sums runs of equal labels in registers into the block's
//    K x D double sums in shared memory; the per-cluster sums of |x|^2 and counts likewise;
//  - finalizeFromSumsKernel: each cluster's exact score from its sums (Q - 2 c.S + n |c|^2, in
//    double), the next centers (the means) and the accumulators zeroed.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kernellab::clustering::best {

constexpr int kPartThreads = 256;

__global__ void pointNormsKernel(const float* __restrict__ X, int64_t n, int d,
                                 float* __restrict__ xnorm, double* __restrict__ xsq);

// One block. centered: Cc = C - mean(C), cabs = |Cc_k| rounded up, Ct = C transposed (D x K, for
// the exact re-decisions); else Cc, cabs and Ct untouched. cn = |c_k|^2 (fp32, the GEMM form's).
__global__ void centerPrepKernel(const float* __restrict__ C, int k, int d, bool centered,
                                 float* __restrict__ Cc, float* __restrict__ cn,
                                 float* __restrict__ cabs, float* __restrict__ Ct);

// G column-major (G[kk * n + i]) = -2 X C^T; label = arg-min of G + cn (lowest index at equal).
__global__ void argminKernel(const float* __restrict__ G, const float* __restrict__ cn, int64_t n,
                             int k, int* __restrict__ labels);

// G = -2 X Cc^T by the TF32 product; s_k = G + cn_k differs from |x - c_k|^2 - |x|^2 + 2 x.m (the
// same for every k) by at most kappa |x| |c'_k| + 2^-23 cn_k (bound() in kmeans_parts.cu). A point
// whose best s beats every other s by more than both bounds gets its label; the others are
// appended to `unsure` (warp-aggregated counter) and labelled -1.
__global__ void assignBoundKernel(const float* __restrict__ G, const float* __restrict__ cn,
                                  const float* __restrict__ cabs, const float* __restrict__ xnorm,
                                  int64_t n, int k, float kappa, int* __restrict__ labels,
                                  int* __restrict__ unsure, int* __restrict__ unsureCount);

// One warp per listed point: every center whose bound interval reaches the best one is a
// candidate; the point is staged in shared memory and each lane computes one candidate's squared
// distance in double (the CPU reference's arithmetic) from Ct (D x K: the lanes read consecutive
// centers), copied to shared memory when ctShared; the lowest index at equal distance. Dynamic
// shared memory: fixSharedBytes(d, k, ctShared).
__global__ void exactFixKernel(const float* __restrict__ X, int64_t n, int d,
                               const float* __restrict__ Ct, int k, const float* __restrict__ G,
                               const float* __restrict__ cn, const float* __restrict__ cabs,
                               const float* __restrict__ xnorm, float kappa,
                               const int* __restrict__ unsure, const int* __restrict__ unsureCount,
                               bool ctShared, int* __restrict__ labels);

constexpr int kFixThreads = 256;
// One point per warp; with ctShared also the K x D centers (read by every candidate lane).
inline size_t fixSharedBytes(int d, int k, bool ctShared) {
  return sizeof(float) * (size_t(kFixThreads / 32) * d + (ctShared ? size_t(k) * d : 0));
}

// Block-private centroid sums: the K x D double sums in shared memory (one block per SM), the
// points streamed through a shared-memory pipeline of `stages` stages (cp.async; 16 points of
// every dimension per stage, so each warp copies whole 64-byte row pieces; stages - 1 of them in
// flight while one is summed) by a thread per dimension (D <= 512). perBlock: points per block, a
// multiple of 32. vec: n % 4 == 0 (16-byte copies; else 4-byte ones). Dynamic shared memory:
// updateSharedBytes(k, d, stages).
__global__ void updateSumsKernel(const float* __restrict__ X, int64_t n, int d, int k,
                                 const int* __restrict__ labels, const double* __restrict__ xsq,
                                 int64_t perBlock, bool vec, int stages, double* sums,
                                 double* sumsq, int* counts);
// updateSumsKernel writes each block's K x D sums to its slice of `sums` (grid x K x D doubles);
// this adds the slices into the K x D sums (one thread per entry, the blocks in order).
__global__ void reduceBlockSumsKernel(const double* __restrict__ slices, int blocks, int64_t kd,
                                      double* __restrict__ sums);
// The same where K x D doubles do not fit in shared memory: every run goes to the global sums
// with an atomic add.
__global__ void updateSumsGlobalKernel(const float* __restrict__ X, int64_t n, int d, int k,
                                       const int* __restrict__ labels,
                                       const double* __restrict__ xsq, int64_t perBlock, bool vec,
                                       int stages, double* sums, double* sumsq, int* counts);

// Shared memory of updateSumsKernel: the sums, |x|^2 sums and counts, then `stages` stages of
// points (pitch 20 floats: 16-byte aligned rows whose float4 reads do not conflict) and labels.
constexpr int kStagePoints = 16;
constexpr int kStagePitch = 20;
constexpr int kMaxStages = 4;
__host__ __device__ inline size_t updateSumsBytes(int k, int d) {
  return (sizeof(double) * (static_cast<size_t>(k) * d + k) + sizeof(int) * k + 15) / 16 * 16;
}
__host__ __device__ inline size_t updateStageBytes(int d) {
  return sizeof(float) * size_t(d) * kStagePitch + sizeof(int) * kStagePoints;
}
inline size_t updateSharedBytes(int k, int d, int stages) {
  return updateSumsBytes(k, d) + stages * updateStageBytes(d);
}
// Shared memory of updateSumsGlobalKernel: |x|^2 sums and counts only.
inline size_t updateGlobalSharedBytes(int k) { return sizeof(double) * k + sizeof(int) * k + 16; }

// One block of 1024 threads.
__global__ void finalizeFromSumsKernel(int k, int d, const float* __restrict__ C,
                                       float* __restrict__ Cnext, double* sums, double* sumsq,
                                       int* counts, double* outScores, int* outCounts);

// The bound's factor for D dimensions (see kmeans_parts.cu).
float tf32BoundFactor(int d);

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// The kernels the k-means engines are built from (issue 10), besides the distance products.
// Every engine reads the points point-major (X[i * D + q], the "interleaved" layout): the
// product does not care (cuBLAS takes either; the TF32 assign stages whole point rows), and the
// two passes that walk the points one by one (the centroid update and the exact re-decisions)
// then read each point as one contiguous run of D floats.
//  - pointNormsKernel: |x_i| and |x_i|^2 once per dataset (they do not change between iterations);
//  - centerPrepKernel: per iteration, |c_k|^2 and, for the best engine, the centers moved by their
//    mean (C' = C - m) with |c'_k| for the error bound;
//  - argminKernel: the GEMM form's arg-min (the peers: approximate labels by nature);
//  - assignBoundKernel: the best engine's labels from a cuBLAS TF32 product (its default path):
//    a proven bound on the product's error decides most points; the rest are listed, with their
//    candidate centers as a bit mask where K <= 32 kMaskWords;
//  - exactFixKernel: the listed points re-decided in double among their candidate centers only;
//  - updateSumsKernel: the centroid update, block-private: each block owns a contiguous range of
//    points, streams it through shared memory (cp.async, whole point rows) and a thread per
//    dimension sums runs of equal labels in registers into the block's K x D double sums in
//    shared memory; the per-cluster sums of |x|^2 and counts likewise;
//  - finalizeFromSumsKernel: each cluster's exact score from its sums (Q - 2 c.S + n |c|^2, in
//    double), the next centers (the means) and the accumulators zeroed.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernellab/result.h"

namespace kernellab::clustering::best {

constexpr int kPartThreads = 256;
constexpr int kMaskWords = 4;  // candidate masks: up to 128 centers

// A warp per point: lanes over dimensions (a warp reads the point's D floats contiguously).
__global__ void pointNormsKernel(const float* __restrict__ X, int64_t n, int d,
                                 float* __restrict__ xnorm, double* __restrict__ xsq);

// The centers as the assign kernel keeps them in shared memory: the centred centers rounded to
// TF32 (to nearest, ties away), in the order of its B fragments: for k-step pair p, tile nt and
// lane L, four words (b0, b1 of k-step 2p, b0, b1 of k-step 2p + 1), zero where the center
// (K padded to 8 nTiles) or the dimension (D padded to 16 pairs) does not exist. Whoever writes
// the centred centers writes these too (centerPrepKernel, the pruned engine's geometry and
// score-move kernels), so each block of the assign copies them with 16-byte cp.async, where it
// converted the 93 KB itself in ~12 L2 round trips (K = 100, D = 200; ~12 us of every launch,
// the larger part of the pruned engine's short-list decisions; Nsight Compute, H100, 2026-12-06).
struct Tf32CenterFragments {
  uint32_t* words = nullptr;  // null: none kept
  int nTiles = 0;
};

#ifdef __CUDACC__
// Center kk's dimension q (kk < K, q < D) into its fragment word.
__device__ __forceinline__ void putTf32Fragment(const Tf32CenterFragments& f, int kk, int q,
                                                float v) {
  if (!f.words) return;
  const int r = q & 15;
  const int w = ((r >> 3) << 1) | ((r >> 2) & 1);
  const int lane = ((kk & 7) << 2) | (r & 3);
  const int64_t at = ((int64_t(q >> 4) * f.nTiles + (kk >> 3)) * 32 + lane) * 4 + w;
  uint32_t bits;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(v));
#else
  bits = __float_as_uint(v);  // never read: the TF32 assign needs compute capability 8.0
#endif
  f.words[at] = bits;
}
#endif

// centered: Cc = C - mean(C), cabs = |Cc_k| rounded up, and the fragments of Cc where given;
// else Cc, cabs and the fragments untouched. cn = |c_k|^2 (fp32, the GEMM form's). A warp per
// center, kPrepThreads / 32 centers per block; launch it through launchCenterPrep (meanSmem = D
// floats when centered).
constexpr int kPrepThreads = 1024;
__global__ void centerPrepKernel(const float* __restrict__ C, int k, int d, bool centered,
                                 float* __restrict__ Cc, float* __restrict__ cn,
                                 float* __restrict__ cabs, Tf32CenterFragments fragments);
void launchCenterPrep(const float* C, int k, int d, bool centered, float* Cc, float* cn,
                      float* cabs, size_t meanSmem, cudaStream_t stream,
                      Tf32CenterFragments fragments = {});

// G column-major (G[kk * n + i]) = -2 X C^T; label = arg-min of G + cn (lowest index at equal).
__global__ void argminKernel(const float* __restrict__ G, const float* __restrict__ cn, int64_t n,
                             int k, int* __restrict__ labels);

// The error bound of s_k = -2 x.c'_k + |c_k|^2 from a TF32 product (kmeans_parts.cu derives it):
// kappa |x| |c'_k| + 2^-22 |c_k|^2. The assign kernels and the re-decisions use this one function,
// so a point's candidates are the same centers wherever they are counted.
__device__ __forceinline__ float tf32Bound(float kappa, float xnorm, float cabs, float cn) {
  return fmaf(kappa * xnorm, cabs, cn * (1.0f / 4194304.0f));
}

// G = -2 X Cc^T by the cuBLAS TF32 product; a point whose best s beats every other s by more than
// both bounds gets its label; the others are appended to `unsure` (warp-aggregated counter) and
// labelled -1. With `masks` (K <= 32 kMaskWords), each listed point's candidates (every center
// whose interval reaches the best one's upper end) are written there at its list index, so the
// re-decision need not read the point's K products, N floats apart, from G again.
__global__ void assignBoundKernel(const float* __restrict__ G, const float* __restrict__ cn,
                                  const float* __restrict__ cabs, const float* __restrict__ xnorm,
                                  int64_t n, int k, float kappa, int* __restrict__ labels,
                                  int* __restrict__ unsure, int* __restrict__ unsureCount,
                                  uint32_t* __restrict__ masks);

// Where a listed point's candidate centers come from: a bit mask per listed point written by the
// assign (kMaskWords words, K <= 32 * kMaskWords), or the product G itself (every center whose
// bound interval reaches the best one).
struct Candidates {
  const uint32_t* masks;  // [unsure index][kMaskWords], or null: scan G
  const float* G;         // column-major N x K (with cn, cabs, xnorm, kappa)
  const float* cn;
  const float* cabs;
  const float* xnorm;
  float kappa;
};

// The next batch of up to B candidate centers from a word of candidate bits (bit j: center
// k0 + j), lowest first, -1 past the word's last; they are cleared from `bits`.
template <int B>
__device__ __forceinline__ void takeCandidates(uint32_t& bits, int k0, int (&kb)[B]) {
#pragma unroll
  for (int b = 0; b < B; ++b) {
    kb[b] = bits ? k0 + __ffs(bits) - 1 : -1;
    bits &= bits - 1u;
  }
}

// The squared distances in double of point x to the batch's centers (rows of C, point-major;
// kb[b] < 0: none), the lanes over the dimensions: one pass over x serves the whole batch (the x
// reads shared, the centers' reads independent) and the butterflies are independent chains,
// where one candidate at a time waited on its loads and its reduction before the next began.
// S > 0: the first S dimensions per lane (D <= 32 S) are all loaded before any is used, so a
// batch is one memory round trip, where the loop over the dimensions (S = 0) waits for each 32 of
// them in turn (7 round trips at D = 200): best's exactFixKernel 0.0505 -> 0.0484 ms per iteration
// (H100, 2026-12-05). The pruned near ties keep S = 0: their kernel is bound by issuing the
// conversions, and the staged registers halved its warps (2.74 -> 3.07 ms per run, Nsight Compute,
// H100). Either way each lane adds its dimensions in increasing order: the same sums, bit for bit.
// Every lane ends with the same sums (each butterfly step adds the same two numbers).
constexpr int kStagedDims = 8;
template <int B, int S = kStagedDims>
__device__ __forceinline__ void warpExactDistances(const float* __restrict__ x,
                                                   const float* __restrict__ C, int d,
                                                   const int (&kb)[B], int lane, double (&v)[B]) {
#pragma unroll
  for (int b = 0; b < B; ++b) v[b] = 0.0;
  if constexpr (S > 0) {
    float xs[S];
    float cs[B][S];
#pragma unroll
    for (int t = 0; t < S; ++t) {
      const int q = lane + 32 * t;
      xs[t] = q < d ? x[q] : 0.f;
#pragma unroll
      for (int b = 0; b < B; ++b)
        cs[b][t] = q < d && kb[b] >= 0 ? C[static_cast<int64_t>(kb[b]) * d + q] : 0.f;
    }
#pragma unroll
    for (int t = 0; t < S; ++t) {
      if (lane + 32 * t >= d) break;
      const double xv = double(xs[t]);
#pragma unroll
      for (int b = 0; b < B; ++b)
        if (kb[b] >= 0) {
          const double dv = xv - double(cs[b][t]);
          v[b] = fma(dv, dv, v[b]);
        }
    }
  }
  for (int q = lane + 32 * S; q < d; q += 32) {
    const double xv = double(x[q]);
#pragma unroll
    for (int b = 0; b < B; ++b)
      if (kb[b] >= 0) {
        const double dv = xv - double(C[static_cast<int64_t>(kb[b]) * d + q]);
        v[b] = fma(dv, dv, v[b]);
      }
  }
#pragma unroll
  for (int b = 0; b < B; ++b) {
    if (kb[b] < 0) break;  // warp-uniform
    for (int o = 16; o > 0; o >>= 1) v[b] += __shfl_xor_sync(0xffffffffu, v[b], o);
  }
}

// One warp per listed point: for each candidate center (lowest index first), the squared distance
// in double with the lanes over the dimensions (the CPU reference's arithmetic; its summation order
// differs by far less than the verification's tie tolerance), reduced across the warp; the lowest
// index at equal distance. C is the true centers, point-major K x D.
// kFixBatch candidates share one pass over the point's dimensions (4: the default, 1: one at a
// time, KERNELLAB_FIX_BATCH=1, for measuring one against the other). Launched by launchExactFix.
constexpr int kFixThreads = 256;
void launchExactFix(int batch, int grid, cudaStream_t stream, const float* X, int64_t n, int d,
                    const float* C, int k, const Candidates& cand, const int* unsure,
                    const int* unsureCount, int* labels);
ResourceUsage exactFixResources(int batch);

// Block-private centroid sums: the K x D double sums in shared memory (one block per SM), the
// block's contiguous range of points streamed through a shared-memory pipeline of `stages`
// stages (cp.async; kStagePoints whole point rows per stage, stages - 1 in flight while one is
// summed). A thread takes four consecutive dimensions of a point (one 16-byte shared read), so
// ceil(D / 4) threads cover a point and the block sums several points at once ("slots", each
// every slots-th point of a stage); each thread keeps its open run of equal labels in four double
// registers and adds it to the shared sums (an atomic add: slots may share a cluster) when the
// label changes. D <= 4 * kPartThreads. perBlock: points per block, a multiple of 32. Each block
// writes its sums to its own slice of `slices` (grid x K x D doubles); dynamic shared memory:
// updateSharedBytes(k, d, stages).
__global__ void updateSumsKernel(const float* __restrict__ X, int64_t n, int d, int k,
                                 const int* __restrict__ labels, const double* __restrict__ xsq,
                                 int64_t perBlock, int stages, double* slices, double* sumsq,
                                 int* counts);
// Adds the slices into the K x D sums (one thread per entry, the blocks in a fixed order).
__global__ void reduceBlockSumsKernel(const double* __restrict__ slices, int blocks, int64_t kd,
                                      double* __restrict__ sums);
// The same where K x D doubles do not fit in shared memory: every run goes to the global sums
// with an atomic add.
__global__ void updateSumsGlobalKernel(const float* __restrict__ X, int64_t n, int d, int k,
                                       const int* __restrict__ labels,
                                       const double* __restrict__ xsq, int64_t perBlock,
                                       double* sums, double* sumsq, int* counts);

// Shared memory of updateSumsKernel: the sums, |x|^2 sums and counts, then `stages` stages of
// kStagePoints point rows (each padded to a multiple of 4 floats: 16-byte aligned) and their
// labels.
constexpr int kStagePoints = 16;
constexpr int kMaxStages = 8;
__host__ __device__ inline int updateRowPitch(int d) { return (d + 3) / 4 * 4; }
__host__ __device__ inline size_t updateSumsBytes(int k, int d) {
  return (sizeof(double) * (static_cast<size_t>(k) * d + k) + sizeof(int) * k + 15) / 16 * 16;
}
__host__ __device__ inline size_t updateStageBytes(int d) {
  return (sizeof(float) * size_t(updateRowPitch(d)) * kStagePoints + sizeof(int) * kStagePoints +
          15) / 16 * 16;
}
inline size_t updateSharedBytes(int k, int d, int stages) {
  return updateSumsBytes(k, d) + stages * updateStageBytes(d);
}
// Shared memory of updateSumsGlobalKernel: |x|^2 sums and counts only.
inline size_t updateGlobalSharedBytes(int k) { return sizeof(double) * k + sizeof(int) * k + 16; }

// One block of kFinalizeThreads per cluster (K blocks): a single block for all K x D entries took
// 18 us per iteration on the H200, 2 % of the best engine's.
constexpr int kFinalizeThreads = 256;
__global__ void finalizeFromSumsKernel(int k, int d, const float* __restrict__ C,
                                       float* __restrict__ Cnext, double* sums, double* sumsq,
                                       int* counts, double* outScores, int* outCounts);

// How the TF32 operands were rounded: cuBLAS may truncate both (2^-10 relative); the fused assign
// feeds the points' fp32 bits to the tensor cores, which truncate them, and rounds the centers to
// nearest itself (cvt.rna: 2^-11).
enum class Tf32Rounding { TruncateBoth, TruncatePointsRoundCenters };
// The bound's factor kappa for D dimensions (see kmeans_parts.cu).
float tf32BoundFactor(int d, Tf32Rounding rounding);

// Appends the lanes whose `pred` holds to a list with one atomic per warp, not per item; returns
// the lane's slot (or -1). Every lane of the warp must call it (the ballot needs all 32).
__device__ __forceinline__ int warpAppendSlot(bool pred, int* counter) {
  const unsigned mask = __ballot_sync(0xffffffffu, pred);
  if (mask == 0u) return -1;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(mask));
  base = __shfl_sync(0xffffffffu, base, leader);
  return pred ? base + __popc(mask & ((1u << lane) - 1u)) : -1;
}

// cp.async (sm_80+) copies global to shared memory without passing through registers, so a
// stage's loads stay in flight while an earlier stage is used; `srcBytes` < `size` zero-fills the
// rest. Turing (sm_75, in the default build's architectures) has no cp.async: there the copy is a
// plain load and store, done before the call returns, so commit and wait have nothing left to do.
__device__ __forceinline__ void copyAsync(void* dst, const void* src, int srcBytes, int size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (size == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                 "r"(srcBytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
                 "r"(srcBytes));
#else
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  for (int i = 0; i < size; ++i) to[i] = i < srcBytes ? from[i] : char(0);
#endif
}
__device__ __forceinline__ void commitAsync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most `pending` groups are in flight (0 <= pending < 8).
__device__ __forceinline__ void waitAsync(int pending) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::); break;
  }
#else
  (void)pending;
#endif
}

}  // namespace kernellab::clustering::best

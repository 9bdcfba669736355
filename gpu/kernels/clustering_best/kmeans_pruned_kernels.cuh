// SPDX-License-Identifier: MIT
// The pruned k-means engine's small kernels (issue 15): moving the centers, the bounds test, the
// tightening of the points that fail it, the sums of the points that changed cluster and the
// score. kmeans_pruned.cu says how they fit together. Included by kmeans_pruned.cu only (the
// kernels are defined here, in an anonymous namespace, so they stay private to that file).
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdint>

#include "kernellab/kmeans_pruning.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {
namespace {

constexpr int kSmallThreads = 256;  // every small kernel's block
constexpr unsigned kFullMask = 0xffffffffu;

// Writes the centers (K x D, point-major) transposed into Ct (D rows of kpad floats): the layout
// the decide kernels read, a row of consecutive centers per dimension. Used once per begin().
__global__ void prunedTransposeKernel(const float* __restrict__ C, int k, int d, int kpad,
                                      float* __restrict__ Ct) {
  const int64_t total = static_cast<int64_t>(k) * d;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = e / d, q = e - c * d;
    Ct[q * kpad + c] = C[e];
  }
}

constexpr int kHalfBatch = 4;  // other centers measured per pass over a center's row

// Center i's squared distance to its nearest other (moved) center, in double, on every thread of
// the block: each warp takes kHalfBatch other centers at a time with the lanes over the
// dimensions (their loads in flight together), the minimum over the warps. NaN distances never
// win (fmin, as std::min leaves a NaN out on the CPU); without another center, +inf. K = 100,
// D = 200: 1e6 fused multiply-adds over K blocks; 16 x 16 pair tiles (a thread per pair walking
// the dimensions) took 17 us.
__device__ __forceinline__ double nearestOtherSq(const float* __restrict__ C, int k, int d, int i,
                                                 double* warpMin) {
  const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  const int warps = static_cast<int>(blockDim.x >> 5);
  const float* ci = C + static_cast<int64_t>(i) * d;
  double mn = INFINITY;
  for (int j0 = warp * kHalfBatch; j0 < k; j0 += warps * kHalfBatch) {  // warp-uniform
    double acc[kHalfBatch];
#pragma unroll
    for (int u = 0; u < kHalfBatch; ++u) acc[u] = 0.0;
    for (int q = lane; q < d; q += 32) {
      const double xi = ci[q];
#pragma unroll
      for (int u = 0; u < kHalfBatch; ++u) {
        const int j = j0 + u;
        if (j < k && j != i) {
          const double dv = xi - double(C[static_cast<int64_t>(j) * d + q]);
          acc[u] = fma(dv, dv, acc[u]);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kHalfBatch; ++u) {
      double v = acc[u];
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
      const int j = j0 + u;
      if (j < k && j != i) mn = fmin(mn, v);
    }
  }
  __syncthreads();  // warpMin free from an earlier use
  if (lane == 0) warpMin[warp] = mn;
  __syncthreads();
  mn = warpMin[0];
  for (int w = 1; w < warps; ++w) mn = fmin(mn, warpMin[w]);  // a fixed order
  return mn;
}

// The largest drift (its center `top`, the first such index, as the CPU's loop picks) and the
// largest among the other centers (`second`), the same on every thread of the block. Drifts are
// >= 0 and the CPU's second starts at 0; a NaN drift (NaN points) takes the CPU's comparisons one
// by one.
struct DriftTop {
  int top;
  float topDrift, secondDrift;
};
__device__ __forceinline__ DriftTop driftTop(int k, const float* __restrict__ drift) {
  __shared__ float warpBest[32], warpSecond[32];
  __shared__ int warpTop[32];
  __shared__ DriftTop out;
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int warps = static_cast<int>(blockDim.x >> 5);
  bool nan = false;
  for (int c = tid; c < k; c += blockDim.x) nan = nan || isnan(drift[c]);
  if (__syncthreads_or(nan)) {
    if (tid == 0) {
      int t = -1;
      float td = 0.f, sd = 0.f;
      for (int c = 0; c < k; ++c) {
        const float v = drift[c];
        if (t < 0 || v > td) {
          sd = td;
          td = v;
          t = c;
        } else if (v > sd) {
          sd = v;
        }
      }
      out = DriftTop{t, td, sd};
    }
    __syncthreads();
    return out;
  }
  float v = -1.f;
  int at = INT_MAX;
  for (int c = tid; c < k; c += blockDim.x)
    if (drift[c] > v) {  // c grows: the lowest index at equal
      v = drift[c];
      at = c;
    }
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(kFullMask, v, o);
    const int oa = __shfl_xor_sync(kFullMask, at, o);
    if (ov > v || (ov == v && oa < at)) {
      v = ov;
      at = oa;
    }
  }
  if (lane == 0) {
    warpBest[warp] = v;
    warpTop[warp] = at;
  }
  __syncthreads();
  float bv = warpBest[0];
  int ba = warpTop[0];
  for (int w = 1; w < warps; ++w)
    if (warpBest[w] > bv || (warpBest[w] == bv && warpTop[w] < ba)) {
      bv = warpBest[w];
      ba = warpTop[w];
    }
  float sv = 0.f;
  for (int c = tid; c < k; c += blockDim.x)
    if (c != ba) sv = fmaxf(sv, drift[c]);
  for (int o = 16; o > 0; o >>= 1) sv = fmaxf(sv, __shfl_xor_sync(kFullMask, sv, o));
  if (lane == 0) warpSecond[warp] = sv;
  __syncthreads();
  for (int w = 0; w < warps; ++w) sv = fmaxf(sv, warpSecond[w]);
  return DriftTop{ba, bv, sv};
}

// One block per center i, before an iteration's decisions where the centers' geometry is
// measured: iteration 0 and the warm iterations (prep), the start (both), every iteration of the
// CUDA-core path (withMoves). One launch where three took ~33 us (a block per center for the
// half distances, one block for the drifts' maxima, K / 32 blocks for the TF32 decision's centred
// copy; Nsight Compute, H100, 2026-12-05). The pruned iterations of the TF32 path skip it:
// prunedScoreMoveKernel carries the half distances over and centres with the start's mean.
//  - withMoves: moves[i] = (drift, otherDrift, half, 0) for the bounds test: otherDrift the
//    largest drift of the other centers, half = sqrt(nearest other)/2 rounded down with the CPU
//    version's margin (also to halfOut[i], where given: the bound the later iterations carry
//    over). Each block finds the drifts' maxima itself (K floats, a fixed order).
//  - prep (the TF32 decision): the centers' mean m (each block sums it itself, in double, in a
//    fixed order; block 0 also writes it to meanOut, where given), the TF32 fragments of
//    c_i - m (float), cn[i] = |c_i|^2 and cabs[i] = |c_i - m| rounded up: centerPrepKernel's
//    outputs (kmeans_parts.cu) for this center, less its centred copy (the decision reads the
//    fragments only).
__global__ void __launch_bounds__(kSmallThreads)
    prunedCenterGeometryKernel(const float* __restrict__ C, int k, int d, bool withMoves,
                               const float* __restrict__ drift, float4* __restrict__ moves,
                               float* __restrict__ halfOut, bool prep, float* __restrict__ cn, float* __restrict__ cabs,
                               Tf32CenterFragments fragments, float* __restrict__ meanOut) {
  extern __shared__ float mean[];  // d floats with prep
  __shared__ double warpMin[kSmallThreads / 32];
  const int i = static_cast<int>(blockIdx.x);
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31;
  if (prep) {
    for (int q = tid; q < d; q += blockDim.x) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;  // four chains: the loads overlap
      int kk = 0;
      for (; kk + 3 < k; kk += 4) {
        s0 += C[static_cast<int64_t>(kk) * d + q];
        s1 += C[static_cast<int64_t>(kk + 1) * d + q];
        s2 += C[static_cast<int64_t>(kk + 2) * d + q];
        s3 += C[static_cast<int64_t>(kk + 3) * d + q];
      }
      for (; kk < k; ++kk) s0 += C[static_cast<int64_t>(kk) * d + q];
      mean[q] = static_cast<float>(((s0 + s1) + (s2 + s3)) / k);
      if (meanOut && i == 0) meanOut[q] = mean[q];
    }
    __syncthreads();
    if (tid < 32) {
      double sn = 0.0, sc = 0.0;
      for (int q = lane; q < d; q += 32) {
        const float c = C[static_cast<int64_t>(i) * d + q];
        sn = fma(double(c), double(c), sn);
        const float cc = c - mean[q];
        putTf32Fragment(fragments, i, q, cc);
        sc = fma(double(cc), double(cc), sc);
      }
      for (int o = 16; o > 0; o >>= 1) {
        sn += __shfl_xor_sync(kFullMask, sn, o);
        sc += __shfl_xor_sync(kFullMask, sc, o);
      }
      if (lane == 0) {
        cn[i] = static_cast<float>(sn);
        cabs[i] = __double2float_ru(sqrt(sc) * (1.0 + 1e-12));
      }
    }
  }
  if (!withMoves) return;  // the whole block
  const double nearestSq = nearestOtherSq(C, k, d, i, warpMin);
  const DriftTop t = driftTop(k, drift);
  if (tid == 0) {
    const float half = floatDown(0.5 * sqrt(nearestSq) * (1.0 - 1e-12));
    moves[i] = make_float4(drift[i], i == t.top ? t.secondDrift : t.topDrift, half, 0.f);
    if (halfOut) halfOut[i] = half;
  }
}

// Sums of N doubles over the block (every thread gets them): one pass of barriers for all N.
// `scratch` holds 32 N doubles.
template <int N>
__device__ __forceinline__ void blockSums(double (&v)[N], double* scratch) {
#pragma unroll
  for (int j = 0; j < N; ++j)
    for (int o = 16; o > 0; o >>= 1) v[j] += __shfl_xor_sync(kFullMask, v[j], o);
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31u);
  const int warps = static_cast<int>((blockDim.x + 31) >> 5);
  __syncthreads();  // scratch free from an earlier use
  if (lane == 0)
#pragma unroll
    for (int j = 0; j < N; ++j) scratch[j * 32 + warp] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < N; ++j) {
    double t = 0.0;
    for (int w = 0; w < warps; ++w) t += scratch[j * 32 + w];  // a fixed order: every thread
    v[j] = t;
  }
}

// The end of an iteration, a block per cluster, one launch where two took ~11 us per iteration
// (prunedScoreKernel 5.1, prunedMoveKernel 5.9 at the start of the next one; Nsight Compute,
// H100, 2026-12-05): the cluster's score with the centers this iteration's assignment used,
// then the center moved for the next iteration, written to the other buffer (the assignment's
// centers stay readable: centers() returns them). With the TF32 decision the moved center's
// centred TF32 fragments and norms follow in the same pass, and the last block to finish derives every
// cluster's move for the next bounds test. Counts and sums are this iteration's final ones.
struct ScoreMoveArgs {
  int k, d, kpad;
  const float* C;  // K x D: this iteration's centers
  float* next;     // K x D: the moved centers (float(S / n); an empty cluster keeps its center)
  float* Ct;       // D x kpad: the moved centers, transposed (the CUDA-core decide reads them)
  const double* sums;
  const double* sumsq;
  const int* counts;
  double* outScores;  // max(0, Q - 2 c.S + n |c|^2) in double (an empty cluster: 0)
  int* outCounts;
  float* drift;  // |c_old - c_new| in double, rounded up with the CPU version's 1e-12 margin
  // The TF32 decision's view of the moved centers (with prep only): the fragments of c - m with
  // the fixed centering vector m, cn = |c|^2, cabs = |c - m| rounded up
  // (prunedCenterGeometryKernel's prep).
  bool prep;
  const float* mean;
  float* cn;
  float* cabs;
  Tf32CenterFragments fragments;
  // The next bounds test's moves (null: not derived here, prunedCenterGeometryKernel measures
  // them): moves[c] = (drift, otherDrift, half bound, 0) with the half bound carried over from
  // the last measured one, half[c] >= half_prev - (drift + otherDrift) / 2 (no center came
  // closer to c than the two moves allow), written back to half. `done` counts finished blocks
  // (zero between launches: the last block resets it).
  float* half;
  float4* moves;
  unsigned* done;
};

constexpr int kMovesMaxK = 1024;  // the last block's copy of the drifts

__global__ void __launch_bounds__(kSmallThreads) prunedScoreMoveKernel(ScoreMoveArgs a) {
  __shared__ double scratch[5 * 32];
  const int c = static_cast<int>(blockIdx.x), tid = static_cast<int>(threadIdx.x);
  const int count = a.counts[c];
  const bool prep = a.prep;
  double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};  // c.S, |c|^2, |drift|^2, |c_next|^2, |c_next - m|^2
  for (int q = tid; q < a.d; q += blockDim.x) {
    const int64_t e = static_cast<int64_t>(c) * a.d + q;
    const float old = a.C[e];
    const double s = a.sums[e];
    v[0] = fma(double(old), s, v[0]);
    v[1] = fma(double(old), double(old), v[1]);
    const float moved = count > 0 ? static_cast<float>(s / double(count)) : old;
    const double diff = double(moved) - double(old);
    v[2] = fma(diff, diff, v[2]);
    a.next[e] = moved;
    a.Ct[static_cast<int64_t>(q) * a.kpad + c] = moved;
    if (prep) {
      const float cc = moved - a.mean[q];
      putTf32Fragment(a.fragments, c, q, cc);
      v[3] = fma(double(moved), double(moved), v[3]);
      v[4] = fma(double(cc), double(cc), v[4]);
    }
  }
  blockSums<5>(v, scratch);
  if (tid == 0) {
    const double score = a.sumsq[c] - 2.0 * v[0] + double(count) * v[1];
    // Never below 0: the cancellation of a tight cluster far from the origin can round there.
    a.outScores[c] = count > 0 ? (score > 0.0 ? score : 0.0) : 0.0;
    a.outCounts[c] = count;
    a.drift[c] = floatUp(sqrt(v[2]) * (1.0 + 1e-12));
    if (prep) {
      a.cn[c] = static_cast<float>(v[3]);
      a.cabs[c] = __double2float_ru(sqrt(v[4]) * (1.0 + 1e-12));
    }
  }
  if (!a.moves) return;  // the whole block
  __shared__ bool last;
  if (tid == 0) {
    __threadfence();  // this block's drift is visible before it counts itself done
    last = atomicAdd(a.done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __shared__ float drifts[kMovesMaxK];
  for (int j = tid; j < a.k; j += blockDim.x) drifts[j] = __ldcg(a.drift + j);  // not via L1
  __syncthreads();
  const DriftTop t = driftTop(a.k, drifts);
  for (int j = tid; j < a.k; j += blockDim.x) {
    const float dj = drifts[j], other = j == t.top ? t.secondDrift : t.topDrift;
    const double h = double(a.half[j]) - 0.5 * (double(dj) + double(other));
    const float bound = h > 0.0 ? floatDown(h * (1.0 - 1e-12)) : 0.f;  // NaN: 0
    a.half[j] = bound;
    a.moves[j] = make_float4(dj, other, bound, 0.f);
  }
  if (tid == 0) *a.done = 0u;
}

// Whether the points are tame: every |x|^2 finite and below 1e30 (tame stays 1 where they are).
// With tame points and tame centers every TF32 product, float screen sum and double distance is
// finite, so the near ties always end with a label and prunedExactKernel has nothing to do.
__global__ void pointsTameKernel(const double* __restrict__ xsq, int64_t n, int* __restrict__ tame) {
  bool wild = false;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    wild = wild || !(xsq[i] < 1e30);  // NaN too
  if (__syncthreads_or(wild) && threadIdx.x == 0) *tame = 0;
}

// acc plus the squared differences of four coordinates, in order.
__device__ __forceinline__ float addSquares4(float4 a, float4 b, float acc) {
  float t = a.x - b.x;
  acc = fmaf(t, t, acc);
  t = a.y - b.y;
  acc = fmaf(t, t, acc);
  t = a.z - b.z;
  acc = fmaf(t, t, acc);
  t = a.w - b.w;
  return fmaf(t, t, acc);
}

// The float squared distances of P points to P centers (D floats each, both rows read
// contiguously), the lanes over the dimensions, summed across the warp: every lane gets the same
// values (each butterfly step adds the same two numbers on both lanes). The first 256 dimensions
// of every pair are loaded before any is used, so a pass is one memory round trip for all P,
// where one pair at a time waited on its loads and its reduction before the next began.
template <int P>
__device__ __forceinline__ void warpSquaredDistances(const float* const (&x)[P],
                                                     const float* const (&c)[P], int d, bool vec4,
                                                     int lane, float (&f)[P]) {
#pragma unroll
  for (int p = 0; p < P; ++p) f[p] = 0.f;
  if (vec4) {
    const int d4 = d / 4;
    float4 xs[P][2], cs[P][2];
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const int v = lane + 32 * t;
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
        xs[p][t] = v < d4 ? reinterpret_cast<const float4*>(x[p])[v] : z;
        cs[p][t] = v < d4 ? __ldg(reinterpret_cast<const float4*>(c[p]) + v) : z;
      }
    }
#pragma unroll
    for (int t = 0; t < 2; ++t)
#pragma unroll
      for (int p = 0; p < P; ++p) f[p] = addSquares4(xs[p][t], cs[p][t], f[p]);
    for (int v = lane + 64; v < d4; v += 32)
#pragma unroll
      for (int p = 0; p < P; ++p)
        f[p] = addSquares4(reinterpret_cast<const float4*>(x[p])[v],
                           __ldg(reinterpret_cast<const float4*>(c[p]) + v), f[p]);
  } else {
    float xs[P][8], cs[P][8];
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      const int q = lane + 32 * t;
#pragma unroll
      for (int p = 0; p < P; ++p) {
        xs[p][t] = q < d ? x[p][q] : 0.f;
        cs[p][t] = q < d ? __ldg(c[p] + q) : 0.f;
      }
    }
#pragma unroll
    for (int t = 0; t < 8; ++t)
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float u = xs[p][t] - cs[p][t];
        f[p] = fmaf(u, u, f[p]);
      }
    for (int q = lane + 256; q < d; q += 32)
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float u = x[p][q] - __ldg(c[p] + q);
        f[p] = fmaf(u, u, f[p]);
      }
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
    for (int o = 16; o > 0; o >>= 1) f[p] += __shfl_xor_sync(kFullMask, f[p], o);
}

// A warp round's own distances: lane j holds round point j (p, its label a); the warp measures
// the points two at a time (the rows read contiguously, both pairs' loads in flight) and point
// j's float squared distance to its center ends on lane j. An unlabelled point (a NaN row's) is
// measured against itself, and its caller never trusts it.
__device__ __forceinline__ float roundOwnDistances(const float* __restrict__ X,
                                                  const float* __restrict__ C, int d, int k,
                                                  bool vec4, int round, int p, int a, int lane) {
  float f = 0.f;
  for (int j = 0; j < round; j += 2) {  // warp-uniform
    const int j1 = j + 1 < round ? j + 1 : j;
    const int p0 = __shfl_sync(kFullMask, p, j), p1 = __shfl_sync(kFullMask, p, j1);
    const int a0 = __shfl_sync(kFullMask, a, j), a1 = __shfl_sync(kFullMask, a, j1);
    const float* const xs[2] = {X + static_cast<int64_t>(p0) * d,
                                X + static_cast<int64_t>(p1) * d};
    const float* const cs[2] = {a0 >= 0 && a0 < k ? C + static_cast<int64_t>(a0) * d : xs[0],
                                a1 >= 0 && a1 < k ? C + static_cast<int64_t>(a1) * d : xs[1]};
    float two[2];
    warpSquaredDistances<2>(xs, cs, d, vec4, lane, two);
    if (lane == j) f = two[0];
    if (lane == j1 && j1 != j) f = two[1];
  }
  return f;
}

// The start (the first iteration after warm ones, which kept no bounds): every point's own
// distance, up to 32 points to a warp round: lane j loads round point j's label, its center's
// move and its gap at once; then the warp re-measures the points' own centers two at a time (the
// rows read contiguously, both pairs' loads in flight), and lane j decides point j: it keeps its
// label with the tightened upper bound when prunedTightenedHolds, else it is listed for the full
// decision with bounds (upper, lower bound of its own distance), which the TF32 decision turns
// into Hamerly bounds (decideSliceRowsPruned). One point at a time, with its loads one after
// another, the same measuring of a list took 27-65 us for 40,000-96,000 points (Nsight Compute,
// H200, 2026-12-04). The lower bound comes from the gap the last warm iteration proved,
// d^2(second) - d^2(label) >= gap with its centers: d_old(x, c_label) >= own - drift, so every
// other center was at least sqrt((own - drift)^2 + gap) away, and is now at least that minus the
// largest drift of the others.
__global__ void __launch_bounds__(kSmallThreads)
    prunedTightenKernel(const float* __restrict__ X, int d, int k, const float* __restrict__ C,
                        bool vec4, int64_t n,
                        const float* __restrict__ gaps, const int* __restrict__ labels,
                        float2* __restrict__ bounds, const float4* __restrict__ moves,
                        double gamma, double slack, int* __restrict__ undecided,
                        int* __restrict__ undecidedCount) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int64_t count = n;
  int64_t per = (count + warps - 1) / warps;
  per = per < 1 ? 1 : per > 32 ? 32 : per;
  for (int64_t base = warp * per; base < count; base += warps * per) {
    const int round = static_cast<int>(count - base < per ? count - base : per);
    const bool mine = lane < round;
    int p = 0, a = -1;
    float4 m = make_float4(0.f, 0.f, 0.f, 0.f);
    float prior = 0.f;  // the gap
    if (mine) {
      p = static_cast<int>(base + lane);
      a = labels[p];
    }
    const bool labelled = a >= 0 && a < k;
    if (mine && labelled) {
      m = __ldg(moves + a);
      prior = gaps[p];
    }
    const float f = roundOwnDistances(X, C, d, k, vec4, round, p, a, lane);
    bool undecide = false;
    if (mine) {
      bool holds = false;
      float own = INFINITY, ownLow = 0.f, lower = 0.f;
      if (labelled) {
        own = floatUp(upperDistance(f, gamma, slack));
        ownLow = floatDown(lowerDistance(f, gamma, slack));
        const double before = fmax(0.0, double(ownLow) - double(m.x));
        const double second = sqrt(before * before + double(prior)) * (1.0 - 1e-12);
        lower = floatDown(second - double(m.y));
        holds = prunedTightenedHolds(own, PrunedPointBounds{own, lower},
                                     PrunedCenterMove{m.x, m.y, m.z});
      }
      undecide = !holds;
      bounds[p] = holds ? make_float2(own, lower) : make_float2(own, ownLow);
    }
    const int slot = warpAppendSlot(undecide, undecidedCount);
    if (undecide) undecided[slot] = p;
  }
}

// The bounds test and the tightening of the points that fail it, in one launch where two took
// ~50 us per pruned iteration (Nsight Compute, H100, 2026-12-05: the test 13-16 us, a thread per
// point, then the tightening of its list 34-45 us). A block takes 32-point units dealt to the
// blocks in turn (unit b, b + G, ...; a run of failing points, a cluster whose bounds all broke,
// spreads over many blocks) in rounds of kRoundUnits units: each lane tests one point
// (prunedBoundsHold, the bounds written back), the failures of the round go to a list in shared
// memory with their label, move and lower bound, and the block's warps share the list: two
// points' own distances per pass (warpSquaredDistances), lane j deciding point j as
// prunedTightenKernel does. `visited` counts the failures, `undecided` lists the points still
// open, with bounds (upper, lower bound of their own distance) for the TF32 decision.
constexpr int kRoundUnits = 32;  // units of 32 points per block and round: 1024 points
constexpr int kTestUnits = kRoundUnits / (kSmallThreads / 32);  // per warp and round: 4
struct FailedPoint {
  int point, label;
  float drift, otherDrift, half, lower;
};
__global__ void __launch_bounds__(kSmallThreads)
    prunedBoundsTightenKernel(const float* __restrict__ X, int64_t n, int d, int k,
                              const float* __restrict__ C, bool vec4,
                              const int* __restrict__ labels, float2* __restrict__ bounds,
                              const float4* __restrict__ moves, double gamma, double slack,
                              int* __restrict__ visited, int* __restrict__ undecided,
                              int* __restrict__ undecidedCount) {
  __shared__ FailedPoint list[kRoundUnits * 32];
  __shared__ int listCount;
  const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  const int warps = static_cast<int>(blockDim.x >> 5);
  const int64_t units = (n + 31) / 32;
  const int64_t blockUnits =
      units > blockIdx.x ? (units - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  for (int64_t r0 = 0; r0 < blockUnits; r0 += kRoundUnits) {  // block-uniform
    if (threadIdx.x == 0) listCount = 0;
    __syncthreads();
    // The test: warp w takes the round's units w, w + warps, ... (kTestUnits of them), every
    // unit's label and bounds loaded before the first is used: one unit at a time, each waited on
    // its label, then its bounds, eight memory round trips per round.
    int at[kTestUnits];  // the unit's point of this lane (N <= INT_MAX), or -1
    int lab[kTestUnits];
    float2 bnd[kTestUnits];
#pragma unroll
    for (int u = 0; u < kTestUnits; ++u) {
      const int64_t ru = r0 + warp + u * warps;
      const int64_t i = (blockIdx.x + ru * gridDim.x) * 32 + lane;
      at[u] = ru < r0 + kRoundUnits && ru < blockUnits && i < n ? static_cast<int>(i) : -1;
      lab[u] = at[u] >= 0 ? labels[at[u]] : -1;
      bnd[u] = at[u] >= 0 ? bounds[at[u]] : make_float2(0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < kTestUnits; ++u) {
      const int i = at[u];
      bool fail = false;
      FailedPoint f{i, -1, 0.f, 0.f, 0.f, 0.f};
      if (i >= 0) {
        const int a = lab[u];
        f.label = a;
        if (a < 0 || a >= k) {
          fail = true;  // never decided (an iteration > 0 without iteration 0): decide it
        } else {
          const float4 m = __ldg(moves + a);
          PrunedPointBounds pb{bnd[u].x, bnd[u].y};
          fail = !prunedBoundsHold(pb, PrunedCenterMove{m.x, m.y, m.z});
          bounds[i] = make_float2(pb.upper, pb.lower);
          f = FailedPoint{i, a, m.x, m.y, m.z, pb.lower};
        }
      }
      const unsigned mask = __ballot_sync(kFullMask, fail);
      if (mask) {  // warp-uniform
        int base = 0;
        const int leader = __ffs(mask) - 1;
        if (lane == leader) base = atomicAdd(&listCount, __popc(mask));
        base = __shfl_sync(kFullMask, base, leader);
        if (fail) list[base + __popc(mask & ((1u << lane) - 1u))] = f;
      }
    }
    __syncthreads();
    const int count = listCount;
    if (threadIdx.x == 0 && count > 0) atomicAdd(visited, count);
    // The tightening: the list in even shares, up to 32 points to a warp round.
    int per = (count + warps - 1) / warps;
    per = per < 1 ? 1 : per > 32 ? 32 : per;
    for (int base = warp * per; base < count; base += warps * per) {  // warp-uniform
      const int round = count - base < per ? count - base : per;
      const bool mine = lane < round;
      const FailedPoint f = mine ? list[base + lane] : FailedPoint{0, -1, 0.f, 0.f, 0.f, 0.f};
      const bool labelled = f.label >= 0 && f.label < k;
      const float dist = roundOwnDistances(X, C, d, k, vec4, round, f.point, f.label, lane);
      bool undecide = false;
      if (mine) {
        bool holds = false;
        float own = INFINITY, ownLow = 0.f;
        if (labelled) {
          own = floatUp(upperDistance(dist, gamma, slack));
          ownLow = floatDown(lowerDistance(dist, gamma, slack));
          holds = prunedTightenedHolds(own, PrunedPointBounds{own, f.lower},
                                       PrunedCenterMove{f.drift, f.otherDrift, f.half});
        }
        undecide = !holds;
        bounds[f.point] = holds ? make_float2(own, f.lower) : make_float2(own, ownLow);
      }
      const int slot = warpAppendSlot(undecide, undecidedCount);
      if (undecide) undecided[slot] = f.point;
    }
    __syncthreads();  // the list is refilled next round
  }
}

// The TF32 decision's near ties, a warp each: the candidates' squared distances in double (as
// exactFixKernel: lanes over the dimensions, up to kTieBatch candidates per pass over the point,
// lowest index at equal distance), then the point's bounds, so that a near tie is not measured
// again in every iteration: u from its own distance; l from the other candidates' distances and,
// for the other centers, d^2(tieBest) + gapNc (kmeans_assign_decide.cuh). d^2 in double is
// within D 2^-53 of the exact value: the 1e-12 margins cover it. A changed label is listed with
// the old one. A point with no finite candidate distance (NaN coordinates) gets its old label
// back and goes to `hard`, for prunedExactKernel and the CPU's rules.
struct TieArgs {
  const float* X;
  int d, k;
  const float* C;  // K x D, point-major
  const int* ties;
  const int* tieOld;
  const int* tieBest;
  const float* tieGapNc;
  uint32_t* masks;  // cut by the screen to the candidates left for the double decision
  const int* tieCount;
  int* labels;
  float2* bounds;
  float* gaps;
  int2* changed;  // or null
  int* changedCount;
  int* hard;
  int* hardCount;
  // The float screen's leftovers (prunedTieScreenKernel): tie slots for the double decision,
  // with their masks cut to the candidates the screen could not tell apart, and per slot a lower
  // bound of d^2 for the other candidates (loRest, +inf) and of d^2(tieBest) (loTop, NaN).
  int* exact;
  int* exactCount;
  float* loRest;
  float* loTop;
};

// A decided near tie: its label and bounds (lane 0). best: an upper bound of d^2(label) (its
// double value, or the screen's upper bound); second: a lower bound of d^2 for the other
// candidates; atTop: d^2(tieBest) or a lower bound of it (NaN: none). A tie with no finite
// candidate (label < 0) keeps its old label and goes to `hard`.
__device__ __forceinline__ void finishTie(const TieArgs& a, int64_t w, int p, int label,
                                          double best, double second, double atTop) {
  const int old = a.tieOld[w];
  if (label < 0) {
    a.labels[p] = old;
    a.hard[atomicAdd(a.hardCount, 1)] = p;
    return;
  }
  a.labels[p] = label;
  // Every other center: a candidate (second, which holds tieBest when it is not the label)
  // or not (at least d^2(tieBest) + gapNc).
  const double others = isfinite(atTop) ? atTop + double(a.tieGapNc[w]) : 0.0;
  const double lowSq = fmin(second, others) * (1.0 - 1e-12);
  const double ownSq = best * (1.0 + 1e-12);
  a.bounds[p] = make_float2(floatUp(sqrt(ownSq) * (1.0 + 1e-15)),
                            floatDown(sqrt(fmax(0.0, lowSq)) * (1.0 - 1e-15)));
  a.gaps[p] = floatDown(fmax(0.0, lowSq - ownSq));
  if (a.changed && label != old) a.changed[atomicAdd(a.changedCount, 1)] = make_int2(p, old);
}

constexpr int kTieBatch = 4;

// The float screen before the double re-decision (D <= 32 kScreenDims): each candidate's squared
// distance in float, lanes over the dimensions (lane adds its dimensions in increasing order,
// then the butterfly). Every term passes through at most 8 + 5 float additions and its two
// roundings (the difference, the square): the sum is within gamma_15 < 2^-20 of the exact one,
// relative, plus (D + 2) 2^-126 for terms that underflow. kScreenRel = 2^-19 leaves room for the
// double sums' own error (D 2^-53), so a candidate the screen drops is one the double decision
// would not have chosen either.
constexpr int kScreenDims = 8;
constexpr float kScreenRel = 1.0f / 524288.0f;
constexpr int kScreenBatch = 2;  // candidates per pass: 16 loads in flight per lane

// kStaged: C is the block's copy of the centers in shared memory (plain loads), else global
// memory (read-only loads).
template <int B, bool kStaged>
__device__ __forceinline__ void warpFloatDistances(const float (&xs)[kScreenDims],
                                                   const float* __restrict__ C, int d,
                                                   const int (&kb)[B], int lane, float (&v)[B]) {
  float cs[B][kScreenDims];
#pragma unroll
  for (int b = 0; b < B; ++b) {
    const float* row = C + static_cast<int64_t>(kb[b] >= 0 ? kb[b] : 0) * d + lane;
#pragma unroll
    for (int t = 0; t < kScreenDims; ++t)  // past D (or no candidate): the point's own 0
      cs[b][t] = kb[b] >= 0 && lane + 32 * t < d ? (kStaged ? row[32 * t] : __ldg(row + 32 * t))
                                                  : xs[t];
  }
#pragma unroll
  for (int b = 0; b < B; ++b) {
    v[b] = 0.f;
#pragma unroll
    for (int t = 0; t < kScreenDims; ++t) {
      if (32 * t >= d) break;  // warp-uniform
      const float u = xs[t] - cs[b][t];
      v[b] = fmaf(u, u, v[b]);
    }
  }
#pragma unroll
  for (int b = 0; b < B; ++b) {
    if (kb[b] < 0) break;  // warp-uniform
    for (int o = 16; o > 0; o >>= 1) v[b] += __shfl_xor_sync(kFullMask, v[b], o);
  }
}

// What the float screen proves about one near tie: `exact`, the candidates it could not tell
// apart (none when it found the nearest alone: `label`, with `ownHi` an upper bound of its d^2);
// loRest, a lower bound of d^2 for the candidates outside `exact` other than `label`; loTop, a
// lower bound of d^2(tieBest) (NaN without one). ok false: a distance was not finite (NaN or
// overflow), and every candidate goes to the double decision as before.
struct TieScreen {
  bool ok = false;
  uint32_t exact[kMaskWords];
  int label = -1;
  float ownHi = INFINITY, loRest = INFINITY, loTop = NAN;
};

template <bool kStaged>
__device__ __forceinline__ TieScreen screenTie(const float* __restrict__ x,
                                               const float* __restrict__ C, int d, int top,
                                               const uint32_t (&cand)[kMaskWords], int lane,
                                               float* __restrict__ sv) {
  TieScreen r;
  float xs[kScreenDims];
#pragma unroll
  for (int t = 0; t < kScreenDims; ++t) xs[t] = lane + 32 * t < d ? x[lane + 32 * t] : 0.f;
  bool finite = true;
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) {
    uint32_t bits = cand[w];
    while (bits) {  // warp-uniform
      int kb[kScreenBatch];
      takeCandidates(bits, 32 * w, kb);
      float v[kScreenBatch];
      warpFloatDistances<kScreenBatch, kStaged>(xs, C, d, kb, lane, v);
#pragma unroll
      for (int b = 0; b < kScreenBatch; ++b) {
        if (kb[b] < 0) break;  // warp-uniform
        finite = finite && isfinite(v[b]);
        if (lane == 0) sv[kb[b]] = v[b];
      }
    }
  }
  __syncwarp();
  if (!finite) {  // every lane has the same sums, so the same verdict
#pragma unroll
    for (int w = 0; w < kMaskWords; ++w) r.exact[w] = cand[w];
    return r;
  }
  r.ok = true;
  const float tiny = static_cast<float>(d + 2) * 2.3509887e-38f;  // (D + 2) 2^-125
  float lo[kMaskWords], hi[kMaskWords];
  float minHi = INFINITY;
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) {
    const bool in = (cand[w] >> lane) & 1u;
    const float f = in ? sv[32 * w + lane] : 0.f;
    lo[w] = in ? __fsub_rd(__fmul_rd(f, 1.0f - kScreenRel), tiny) : INFINITY;
    hi[w] = in ? __fadd_ru(__fmul_ru(f, 1.0f + kScreenRel), tiny) : INFINITY;
    minHi = fminf(minHi, hi[w]);
  }
  for (int o = 16; o > 0; o >>= 1) minHi = fminf(minHi, __shfl_xor_sync(kFullMask, minHi, o));
  int survivors = 0;
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) {
    r.exact[w] = __ballot_sync(kFullMask, ((cand[w] >> lane) & 1u) && lo[w] <= minHi);
    survivors += __popc(r.exact[w]);
  }
  if (survivors == 1) {  // the nearest, alone: no double distance needed
#pragma unroll
    for (int w = 0; w < kMaskWords; ++w)
      if (r.exact[w]) r.label = 32 * w + __ffs(r.exact[w]) - 1;
    r.ownHi = minHi;
#pragma unroll
    for (int w = 0; w < kMaskWords; ++w) r.exact[w] = 0u;
  }
  // The lowest lower bound of the candidates left out of the double decision, but the label.
  float rest = INFINITY;
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) {
    const int kk = 32 * w + lane;
    const bool inExact = (r.exact[w] >> lane) & 1u;
    if (!inExact && kk != r.label) rest = fminf(rest, lo[w]);
    if (kk == top) r.loTop = lo[w] == INFINITY ? NAN : lo[w];
  }
  for (int o = 16; o > 0; o >>= 1) rest = fminf(rest, __shfl_xor_sync(kFullMask, rest, o));
  r.loRest = rest;
  r.loTop = __shfl_sync(kFullMask, r.loTop, top >= 0 ? (top & 31) : 0);
  if (top < 0) r.loTop = NAN;
  __syncwarp();  // every lane has read sv before the next tie's sums overwrite it
  return r;
}

// The float screen of every near tie, a warp each: a tie it decides alone is finished here; the
// others (several candidates within the float sums' error, or a sum not finite, or D above
// 32 kScreenDims) go to prunedTieKernel's list. Two kernels, not one: together they needed 98
// registers, two blocks per SM, and took longer than the double decision alone (2.75 -> 3.47 ms
// per run, Nsight Compute, H100, 2026-12-05). Apart, with 2 candidates a pass (4 a pass spilled at the
// 64 registers that let four blocks share an SM), the pair took 2.74 ms against the double
// decision's 2.90 (H200, same call; the double kernel's share 3-12 us per iteration): the screen
// costs a warp's chain of passes per tie, not the conversions it saved.
//
// kStaged (the K x D centers fit in a block's shared memory beside the sums): each block first
// copies every center into shared memory (16-byte cp.async where D % 4 == 0), so a tie's ~10
// passes over its candidates each wait on shared memory, not on L2: reading the candidates'
// rows from L2, the screen took 21-47 us per iteration at ~10,000 ties (Nsight Compute, H100,
// 2026-12-06), a warp's chain of ~11 L2 round trips per tie. Blocks of 16 warps share one copy,
// as many as fit at once (two per SM at K = 100, D = 200), so a warp takes two or three ties of
// ~10,000 where the unstaged grid gave it one or two. Measured (H100, 2026-12-06, same call): the
// screen 2.35 -> 2.05 ms per run to the fixed point (Nsight Compute), the run 9.89 -> 9.66 ms;
// less than the ~0.8 ms predicted: the copy itself (80 KB per block) is now part of every launch.
constexpr int screenThreads(bool staged) { return staged ? 2 * kSmallThreads : kSmallThreads; }
template <bool kStaged>
__global__ void __launch_bounds__(screenThreads(kStaged), kStaged ? 2 : 4)
    prunedTieScreenKernel(TieArgs a) {
  __shared__ float screenSums[screenThreads(kStaged) / 32][kMaskWords * 32];
  extern __shared__ __align__(16) float stagedCenters[];  // K x D with kStaged
  const int lane = static_cast<int>(threadIdx.x & 31u);
  float* sv = screenSums[threadIdx.x >> 5];
  const int count = *a.tieCount;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const float* C = a.C;
  if constexpr (kStaged) {
    // A block whose first warp has no tie has none at all: it copies nothing (block-uniform).
    if ((static_cast<int64_t>(blockIdx.x) * blockDim.x >> 5) >= count) return;
    const int64_t total = static_cast<int64_t>(a.k) * a.d;
    if ((a.d & 3) == 0 && (reinterpret_cast<uintptr_t>(a.C) & 15u) == 0) {
      for (int64_t e = threadIdx.x; e < total / 4; e += blockDim.x)
        copyAsync(stagedCenters + 4 * e, a.C + 4 * e, 16, 16);
    } else {
      for (int64_t e = threadIdx.x; e < total; e += blockDim.x)
        copyAsync(stagedCenters + e, a.C + e, 4, 4);
    }
    commitAsync();
    waitAsync(0);
    __syncthreads();
    C = stagedCenters;
  }
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; w < count;
       w += warps) {
    const int p = a.ties[w];
    const int top = a.tieBest[w];
    uint32_t cand[kMaskWords];
#pragma unroll
    for (int q = 0; q < kMaskWords; ++q) cand[q] = a.masks[w * kMaskWords + q];
    TieScreen sc;
    if (a.d <= 32 * kScreenDims) {
      sc = screenTie<kStaged>(a.X + static_cast<int64_t>(p) * a.d, C, a.d, top, cand, lane, sv);
    } else {
#pragma unroll
      for (int q = 0; q < kMaskWords; ++q) sc.exact[q] = cand[q];
    }
    if (lane != 0) continue;
    if (sc.ok && sc.label >= 0) {
      finishTie(a, w, p, sc.label, double(sc.ownHi), double(sc.loRest), double(sc.loTop));
    } else {
#pragma unroll
      for (int q = 0; q < kMaskWords; ++q) a.masks[w * kMaskWords + q] = sc.exact[q];
      a.loRest[w] = sc.ok ? sc.loRest : INFINITY;
      a.loTop[w] = sc.ok ? sc.loTop : NAN;
      a.exact[atomicAdd(a.exactCount, 1)] = static_cast<int>(w);
    }
  }
}

// The double decision of the ties the screen left, among the candidates it left: the session-8
// form, measured against two others (Nsight Compute, H100, 2026-12-05, 40 iterations to the fixed
// point, ~10,000 near ties of ~20 candidates each per iteration, no screen): this one 2.74 ms per
// run; staged loads (warpExactDistances' S = 8) 3.07; the point widened once and the centers read
// from a widened copy, two blocks per SM, 2.91. It is bound by issuing (the float-to-double
// conversions run on the narrow XU pipe), and both others cost it warps.
__global__ void __launch_bounds__(kSmallThreads) prunedTieKernel(TieArgs a) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int count = *a.exactCount;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < count;
       i += warps) {
    const int64_t w = a.exact[i];
    const int p = a.ties[w];
    const int top = a.tieBest[w];
    const float* x = a.X + static_cast<int64_t>(p) * a.d;
    double best = INFINITY, second = double(a.loRest[w]), atTop = double(a.loTop[w]);
    int label = -1;
#pragma unroll 1
    for (int q = 0; q < kMaskWords; ++q) {
      const int k0 = 32 * q;
      uint32_t bits = a.masks[w * kMaskWords + q];
      while (bits) {  // the same bits on every lane: warp-uniform
        int kb[kTieBatch];
        takeCandidates(bits, k0, kb);
        double v[kTieBatch];
        warpExactDistances<kTieBatch, 0>(x, a.C, a.d, kb, lane, v);
#pragma unroll
        for (int b = 0; b < kTieBatch; ++b) {
          if (kb[b] < 0) break;  // warp-uniform
          if (kb[b] == top) atTop = v[b];
          if (v[b] < best) {  // increasing index: the lowest at equal distance
            second = fmin(second, best);
            best = v[b];
            label = kb[b];
          } else {
            second = fmin(second, v[b]);
          }
        }
      }
    }
    if (lane == 0) finishTie(a, w, p, label, best, second, atTop);
  }
}

constexpr int kSumsBatch = 32;  // changed points staged at a time
constexpr int kDirectSumsMax = 1024;  // changed points up to which the sums take global atomics

// Shared memory of prunedSumsKernel: a K x slab table of double sums, K |x|^2 sums, K counts, K
// touched flags, then the batch (point, old label, new label).
__host__ __device__ inline size_t prunedSumsSharedBytes(int k, int slab) {
  return sizeof(double) * (static_cast<size_t>(k) * slab + k) + sizeof(int) * 2 * size_t(k) +
         sizeof(int) * 3 * kSumsBatch;
}

// The sums S (K x D), Q and counts follow the points whose label changed: S[old] -= x,
// S[new] += x (every point, old = -1, in iteration 0: `changed` null). Block (b, y) takes a
// contiguous share of the changed list and the dimensions [y slab, (y + 1) slab): a thread owns
// a dimension, so it adds the block's points into its column of the K x slab table in shared
// memory without atomics (a warp reads each point's slab contiguously, 32 points in flight per
// thread), then the touched clusters' rows go to the global sums with one double atomicAdd per
// entry per block, instead of one per (point, dimension) (7-10 ms at N = 1e6, D = 200).
// Expected limiter: the shared read-modify-write chain per point (about 40 cycles), then DRAM.
__global__ void __launch_bounds__(kSmallThreads)
    prunedSumsKernel(const float* __restrict__ X, int64_t n, int d, int k,
                     const int* __restrict__ labels, const double* __restrict__ xsq,
                     const int2* __restrict__ changed, const int* __restrict__ changedCount,
                     int slab, int minPerBlock, double* __restrict__ sums,
                     double* __restrict__ sumsq, int* __restrict__ counts) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* table = reinterpret_cast<double*>(smem);
  double* sqS = table + static_cast<size_t>(k) * slab;
  int* cntS = reinterpret_cast<int*>(sqS + k);
  int* touched = cntS + k;
  int* batchPoint = touched + k;
  int* batchOld = batchPoint + kSumsBatch;
  int* batchNew = batchOld + kSumsBatch;

  const int64_t count = changed ? static_cast<int64_t>(*changedCount) : n;
  if (changed && count <= kDirectSumsMax) {
    // Few changes (the later iterations: tens to hundreds): each (point, dimension) straight
    // into the global sums, no table to clear and flush (that cost ~20 us per iteration).
    if (blockIdx.y != 0) return;
    const int64_t total = count * d;
    for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const int64_t j = e / d;
      const int q = static_cast<int>(e - j * d);
      const int2 ch = changed[j];
      const int p = ch.x, old = ch.y, now = labels[p];
      const double v = X[static_cast<int64_t>(p) * d + q];
      const bool hasOld = old >= 0 && old < k, hasNow = now >= 0 && now < k;
      if (hasOld) atomicAdd(sums + static_cast<int64_t>(old) * d + q, -v);
      if (hasNow) atomicAdd(sums + static_cast<int64_t>(now) * d + q, v);
      if (q == 0) {
        if (hasOld) {
          atomicAdd(sumsq + old, -xsq[p]);
          atomicAdd(counts + old, -1);
        }
        if (hasNow) {
          atomicAdd(sumsq + now, xsq[p]);
          atomicAdd(counts + now, 1);
        }
      }
    }
    return;
  }
  int64_t per = (count + gridDim.x - 1) / gridDim.x;
  if (per < minPerBlock) per = minPerBlock;  // few changes: few blocks, few rows to flush
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * per;
  const int64_t end = begin + per < count ? begin + per : count;
  if (begin >= end) return;  // the whole block
  const int q0 = static_cast<int>(blockIdx.y) * slab;
  const int dims = d - q0 < slab ? d - q0 : slab;
  const bool firstSlab = blockIdx.y == 0;  // the |x|^2 sums and counts: once per point
  const int tid = static_cast<int>(threadIdx.x);

  for (int64_t e = tid; e < static_cast<int64_t>(k) * slab; e += blockDim.x) table[e] = 0.0;
  for (int c = tid; c < k; c += blockDim.x) {
    sqS[c] = 0.0;
    cntS[c] = 0;
    touched[c] = 0;
  }
  __syncthreads();

  for (int64_t b0 = begin; b0 < end; b0 += kSumsBatch) {
    const int nb = end - b0 < kSumsBatch ? static_cast<int>(end - b0) : kSumsBatch;
    if (tid < kSumsBatch) {
      // Past the block's share: the share's first point again, with no labels (read, not added),
      // so the loads below need no bounds test.
      const int64_t e = tid < nb ? b0 + tid : begin;
      int p = static_cast<int>(e), old = -1;
      if (changed) {
        const int2 ch = changed[e];
        p = ch.x;
        old = ch.y;
      }
      int now = labels[p];
      if (old < 0 || old >= k || tid >= nb) old = -1;
      if (now < 0 || now >= k || tid >= nb) now = -1;  // left out: the count check reports it
      batchPoint[tid] = p;
      batchOld[tid] = old;
      batchNew[tid] = now;
      if (old >= 0) touched[old] = 1;  // every thread writes 1: no race on the value
      if (now >= 0) touched[now] = 1;
      if (firstSlab) {
        const double s = xsq[p];
        if (old >= 0) {
          atomicAdd(sqS + old, -s);
          atomicAdd(cntS + old, -1);
        }
        if (now >= 0) {
          atomicAdd(sqS + now, s);
          atomicAdd(cntS + now, 1);
        }
      }
    }
    __syncthreads();
    for (int t = tid; t < dims; t += blockDim.x) {
      float v[kSumsBatch];  // every load first: 32 in flight per thread
#pragma unroll
      for (int u = 0; u < kSumsBatch; ++u)
        v[u] = __ldg(X + static_cast<int64_t>(batchPoint[u]) * d + q0 + t);
#pragma unroll
      for (int u = 0; u < kSumsBatch; ++u) {
        const int old = batchOld[u], now = batchNew[u];
        if (old >= 0) table[static_cast<size_t>(old) * slab + t] -= double(v[u]);
        if (now >= 0) table[static_cast<size_t>(now) * slab + t] += double(v[u]);
      }
    }
    __syncthreads();  // the batch is refilled next
  }

  for (int c = 0; c < k; ++c) {
    if (!touched[c]) continue;  // the same flag on every thread: uniform
    for (int t = tid; t < dims; t += blockDim.x) {
      const double v = table[static_cast<size_t>(c) * slab + t];
      if (v != 0.0) atomicAdd(sums + static_cast<int64_t>(c) * d + q0 + t, v);
    }
  }
  if (firstSlab)
    for (int c = tid; c < k; c += blockDim.x)
      if (touched[c]) {
        atomicAdd(sumsq + c, sqS[c]);
        atomicAdd(counts + c, cntS[c]);
      }
}

}  // namespace
}  // namespace kernellab::clustering::best

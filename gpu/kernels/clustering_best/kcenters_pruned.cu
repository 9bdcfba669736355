// SPDX-License-Identifier: MIT
// k-centers, pruned variant (issue 15): the best engine's fused launch per center, reading a
// point's coordinates only when the triangle inequality cannot prove that the new center leaves
// it where it is; since session 25 one pass over the points serves several centers (a plan launch
// per center names the next one from the points listed above a threshold while it provably can:
// see "Several centers a pass" below). On the seed's data at N = 1e6, K = 100, D = 200: 18 passes
// for 100 centers, 8.40 -> 6.56 ms, 0.252 x best (H100, session 25).
//
// A point x at squared distance r = dist[x] from its center a can only move to the new center c
// if d(x, c) < d(x, a); since d(x, c) >= d(a, c) - d(x, a), that is impossible when
// d(a, c) >= 2 d(x, a), i.e. d^2(a, c) >= 4 r. A whole cluster whose radius (its largest r) is at
// most d(a, c) / 2 is skipped without reading a coordinate; the test is made per point, with the
// point's own r (so a cluster is skipped point by point, and the other clusters' near points too),
// reading 8 bytes (label and distance) instead of 4 D. The test keeps a margin (kcentersSkips in
// clustering_pruning.h) larger than the float rounding of both distances, so a skipped point is one
// the unpruned kernel would not have moved either: the centers, labels and distances are the same
// bits as the best variant's. Skipped and visited points both join the farthest-point reduction.
//
// A point the triangle test cannot skip is next tested on its 8-bit sketch (clustering_pruning.h):
// 16 bytes hold 16 dimensions, a quarter of the float coordinates' bytes, and the sketch's error
// bound e(x) proves most points of the clusters still without a center out of the new center's
// reach. Only the points both tests keep read their float coordinates (`visited`); the points that
// read their sketch are counted too (`screened`). The sketch is built in every run, inside the
// timed graph: its grid from the ranges of every 8th run of 128 points, its codes and e(x) by the
// first center's launch, which reads every point's floats anyway.
//
// The triangle test's distance from the new center to each earlier one is at least the squared
// distance that chose it (its distance to its own nearest center); the last block of the previous
// launch, which also copies the new center's coordinates into a K x D table of the chosen centers,
// measures the exact ones while K x D is small (clustering_pruning.h). Each launch counts the
// points it visited (the share of coordinates read, per center).
//
// The floats of the points both tests keep come from one of two layouts: the dimension-major
// points (32 consecutive points, a lane each, read a 128-byte line per instruction: the seed's
// clusters) or, for chunks of scattered points (one broad cloud's near ties, where each 4-byte
// float cost a 32-byte sector), the point-major points as uploaded, which the caller keeps
// beside them (denseChunk decides per chunk of 32). One broad cloud at N = 1e6, K = 100, D = 200:
// 20.50 -> 10.30 ms; the seed's data 9.14 -> 8.73 ms (H100, 2026-12-06, session 16).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <cstdlib>
#include <vector>

#include "best_engines.h"
#include "farthest.cuh"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/clustering_pruning.h"
#include "kernellab/errors.h"

namespace kernellab::clustering::best {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

struct State {
  int* centers;          // K point indices; [0] set by the host, [j + 1] by launch j
  float* radius;         // K
  float* blockValue;     // one candidate per block of the grid
  int* blockIndex;
  unsigned* arrivals;    // ticket counter, reset by the last block
  float* centerRows;     // K x D: the chosen centers' coordinates, row j written by launch j - 1
  float* centerDist;     // batchMost x K: row u, d^2(center b + u, center a) for a < b + u
  unsigned long long* visited;  // K: points whose coordinates launch j read
  unsigned long long* screened; // K: points whose sketch launch j read
  unsigned long long* distances; // K: sketch and float distances summed for center j
  const uint4* codes;           // sketchWords(d) x N words of 16 codes
  const float* sketchErr;       // N: e(x), rounded up
  const float2* scales;         // sketchWords(d) * 16: (lo, step), zeros past D
  const double* slack;          // the sketch's arithmetic slack (sketchArithmeticSlack)
  uint4* encodeCodes;           // the same buffers as codes and sketchErr, written by launch 0
  float* encodeErr;
  const float* rangeBound;      // the sum of the grid's squared ranges (the first histogram's top)
  // Several centers a pass (below): the batch's first center, whether launch j runs a pass, the
  // threshold and its histogram, the listed points, the plan's per-block farthest and ticket.
  int* batchStart;
  int* active;                  // K
  float* tau;
  unsigned* hist;               // kHistBins
  int* candIndex;               // kCandidateCap
  float* candValue;
  unsigned* candCount;
  float* planValue;
  int* planIndex;
  unsigned* planArrivals;
  int batchMost;                // centers a pass at most (kBatchMost, fewer where shared memory is short)
  int planRows;                 // listed rows a plan block stages in shared memory (0: none)
  // N x D: the points point-major as uploaded (null where the caller has none), for the chunks
  // of scattered points (denseChunk).
  const float* rows;
};

constexpr int kRangeBlocks = 64;  // blocks per dimension of the range pass
// The range pass reads every kSketchRangeSample-th run of 32 loads (128 points where 16-byte
// loads): the grid needs only about the data's range, and a point beyond it gets the end code,
// with an e(x) that says so (exact errors: the test stays exact, that point is just harder to rule
// out). On the seed's data at N = 1e6, D = 200: 254 -> 41 us, a run 0.22 ms faster (H100, session
// 23).

// Folds x into the finite range [lo, hi].
__device__ __forceinline__ void foldRange(float x, float& lo, float& hi) {
  if (sketchFinite(x)) {
    lo = fminf(lo, x);
    hi = fmaxf(hi, x);
  }
}

// The sketch's first pass: block (b, q) folds the finite minimum and maximum of its share of
// dimension q (one contiguous row of the dimension-major points), every kSketchRangeSample-th run
// of 32 loads, each warp a run at a time, 16-byte loads four runs at a time where the rows are
// 16-byte aligned (N % 4 == 0): one float at a time the whole pass ran at 2.1 TB/s (376.8 us at
// N = 1e6, D = 200; Nsight Compute, H100, 2026-12-06), 16 bytes at a time 254 us.
__global__ void __launch_bounds__(kThreads)
    sketchRangeKernel(const float* __restrict__ X, int64_t n, int d, float2* __restrict__ partial) {
  __shared__ float2 w[kWarps];
  const bool vec = n % 4 == 0 && (reinterpret_cast<uintptr_t>(X) & 15u) == 0;
  const int lane = threadIdx.x % 32;
  const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const int64_t runStride =
      static_cast<int64_t>(gridDim.x) * kWarps * kSketchRangeSample;  // in runs
  for (int q = blockIdx.y; q < d; q += gridDim.y) {  // (grid.y stops at 65535 dimensions)
    const float* row = X + static_cast<int64_t>(q) * n;
    float lo = INFINITY, hi = -INFINITY;
    if (vec) {
      const float4* row4 = reinterpret_cast<const float4*>(row);
      const int64_t n4 = n / 4;
      for (int64_t r = warp0 * kSketchRangeSample; r * 32 < n4; r += 4 * runStride) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int64_t e = (r + u * runStride) * 32 + lane;
          v[u] = e < n4 ? __ldcs(row4 + e) : make_float4(NAN, NAN, NAN, NAN);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          foldRange(v[u].x, lo, hi);
          foldRange(v[u].y, lo, hi);
          foldRange(v[u].z, lo, hi);
          foldRange(v[u].w, lo, hi);
        }
      }
    } else {
      for (int64_t r = warp0 * kSketchRangeSample; r * 32 < n; r += runStride) {
        const int64_t e = r * 32 + lane;
        if (e < n) foldRange(__ldcs(row + e), lo, hi);
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, o));
      hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, o));
    }
    __syncthreads();  // w's previous dimension is folded
    if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = make_float2(lo, hi);
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int k = 1; k < kWarps; ++k) {
        lo = fminf(lo, w[k].x);
        hi = fmaxf(hi, w[k].y);
      }
      partial[static_cast<int64_t>(q) * gridDim.x + blockIdx.x] = make_float2(lo, hi);
    }
  }
}

// One block: every dimension's grid from its partial ranges (zeros past D), and the arithmetic
// slack and the first pass's histogram top from the sum of the squared ranges.
__global__ void __launch_bounds__(kThreads)
    sketchScaleKernel(const float2* __restrict__ partial, int d, int padded,
                      float2* __restrict__ scales, double* __restrict__ slack,
                      float* __restrict__ rangeBound) {
  double ranges = 0.0;
  for (int q = threadIdx.x; q < padded; q += kThreads) {
    SketchScale s;
    if (q < d) {
      float lo = INFINITY, hi = -INFINITY;
      for (int b = 0; b < kRangeBlocks; ++b) {
        const float2 p = partial[static_cast<int64_t>(q) * kRangeBlocks + b];
        lo = fminf(lo, p.x);
        hi = fmaxf(hi, p.y);
      }
      s = sketchScale(lo, hi);
      if (lo <= hi) ranges += (double(hi) - double(lo)) * (double(hi) - double(lo));
    }
    scales[q] = make_float2(s.lo, s.step);
  }
  for (int o = 16; o > 0; o >>= 1) ranges += __shfl_xor_sync(0xffffffffu, ranges, o);
  __shared__ double w[kWarps];
  if (threadIdx.x % 32 == 0) w[threadIdx.x / 32] = ranges;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < kWarps; ++k) ranges += w[k];
    *slack = sketchArithmeticSlack(ranges);
    *rangeBound = static_cast<float>(ranges);
  }
}

// Code b (0..3) of a word as a float: 0x4B0000bb is 2^23 + code, exactly.
__device__ __forceinline__ float codeOf(unsigned word, int b) {
  return __int_as_float(static_cast<int>(__byte_perm(word, 0x4B000000u, 0x7440u + b))) -
         8388608.0f;
}

// A point's squared distance to the center from the dimension-major points, the best variant's
// arithmetic (dimension 0 first, one FMA each): a lane per point, so 32 consecutive points read
// whole 128-byte lines.
__device__ __forceinline__ float columnDistance(const float* __restrict__ X, int64_t n, int64_t p,
                                                int d, const float* center) {
  float sum = 0.f;
#pragma unroll 16
  for (int q = 0; q < d; ++q) {
    const float t = center[q] - __ldcs(X + static_cast<int64_t>(q) * n + p);
    sum = fmaf(t, t, sum);
  }
  return sum;
}

// columnDistance for the first center, which reads every point's floats: the same sum, and the
// point's sketch with it (its codes on the grid `scales`, and e(x) from the exact squared errors
// summed in double in dimension order). A separate encode read every float again: at N = 1e6,
// D = 200 it and the error pass took 564 us, while the first launch grew 307 -> 768 us (H100,
// session 23).
__device__ __forceinline__ float columnDistanceEncode(const float* __restrict__ X, int64_t n,
                                                      int64_t p, int d, const float* center,
                                                      const State& st) {
  float sum = 0.f;
  double e2 = 0.0;
  bool finite = true;
  const int words = sketchWords(d);
  for (int w = 0; w < words; ++w) {
    float x[kSketchDims];
#pragma unroll
    for (int t = 0; t < kSketchDims; ++t) {
      const int q = w * kSketchDims + t;
      x[t] = q < d ? __ldcs(X + static_cast<int64_t>(q) * n + p) : 0.f;
    }
    unsigned packed[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int t = 0; t < kSketchDims; ++t) {
      const int q = w * kSketchDims + t;
      if (q < d) {
        const float diff = center[q] - x[t];  // the best variant's arithmetic, dimension order
        sum = fmaf(diff, diff, sum);
        const float2 sc = __ldg(st.scales + q);
        const SketchScale s{sc.x, sc.y};
        const unsigned c = sketchCode(x[t], s);
        finite = finite && sketchFinite(x[t]);
        e2 += sketchSquaredError(x[t], c, s);
        packed[t / 4] |= c << (8 * (t % 4));
      }
    }
    st.encodeCodes[static_cast<int64_t>(w) * n + p] =
        make_uint4(packed[0], packed[1], packed[2], packed[3]);
  }
  st.encodeErr[p] = sketchErrorBound(e2, *st.slack, finite);
  return sum;
}

// Whether a warp's chunk of queued points (p, -1 past the queue's end; each warp's part of the
// queue is in point order) reads fewer bytes from the dimension-major points than from the
// point-major rows: a dimension costs one 32-byte sector per run of 8 points the chunk touches
// (counted as the lanes where that run changes), a row D / 8 sectors. Contiguous points (the
// seed's clusters) read the columns, whole lines per instruction; scattered ones (one broad
// cloud's survivors), where each 4-byte float cost a sector, their rows. Warp-uniform.
__device__ __forceinline__ bool denseChunk(int p, bool haveRows) {
  const int lane = threadIdx.x % 32;
  const int before = __shfl_up_sync(0xffffffffu, p, 1);
  const unsigned live = __ballot_sync(0xffffffffu, p >= 0);
  const unsigned runs = __ballot_sync(0xffffffffu, p >= 0 && (lane == 0 || before / 8 != p / 8));
  // Up to twice the sectors of the rows still read the columns: a line per instruction there
  // against a line per lane.
  return !haveRows || 4 * __popc(runs) <= __popc(live);
}

// A point's squared distance to the center from its point-major row, in the best variant's
// arithmetic (dimension 0 first, one FMA each): 16-byte loads, 8 in flight (7 round trips at
// D = 200, where the dimension-major floats took 13 and a scattered point's 4 bytes cost a 32-byte
// sector each).
__device__ __forceinline__ float rowDistance(const float* __restrict__ row, int d,
                                             const float* center) {
  float sum = 0.f;
  if (d % 4 == 0) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    const int d4 = d / 4;
    for (int q4 = 0; q4 < d4; q4 += 8) {
      float4 v[8];
#pragma unroll
      for (int m = 0; m < 8; ++m)
        v[m] = q4 + m < d4 ? __ldcg(r4 + q4 + m) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
      for (int m = 0; m < 8; ++m) {
        if (q4 + m >= d4) break;
        const float* c = center + 4 * (q4 + m);
        float t = c[0] - v[m].x;
        sum = fmaf(t, t, sum);
        t = c[1] - v[m].y;
        sum = fmaf(t, t, sum);
        t = c[2] - v[m].z;
        sum = fmaf(t, t, sum);
        t = c[3] - v[m].w;
        sum = fmaf(t, t, sum);
      }
    }
  } else {
#pragma unroll 16
    for (int q = 0; q < d; ++q) {
      const float t = center[q] - __ldcs(row + q);
      sum = fmaf(t, t, sum);
    }
  }
  return sum;
}

// Several centers a pass (session 24). The farthest-first traversal picks center j + 1 as the
// farthest point after center j; distances only shrink, so with every point above a threshold tau
// listed (the candidates, at most kCandidateCap, each with its distance brought up to date with
// the centers chosen so far), the farthest candidate is the farthest point whenever it is strictly
// above tau. A small plan launch per center brings the candidates up to date with that center and
// picks the next one while that proof holds (and the batch has room); when it fails, the pass over
// all N points runs once for the whole batch: each point's triangle and sketch tests for every
// center of the batch, its sketch read once and its floats once, then the updates in center order,
// the same comparisons as one center at a time (below), so the same bits. tau comes from a
// histogram of the pass's final distances (kHistBins bins of 1/64 octave below the largest
// distance the pass could leave), the lowest bin edge with at most kCandidateCap points above it.
// A CPU count on the seed's data (N = 1e6, D = 200, K = 100; scripts/experiments/
// kcenters_batch_tests.cpp): 18 passes instead of 100, 9.6 M sketches read instead of 49.5 M.
constexpr int kBatchMost = 8;        // centers a pass at most (each a sum in registers)
constexpr int kCandidateCap = 4096;  // points listed for the plan
constexpr int kHistBins = 512;
constexpr int kHistShift = 17;       // 2^23 float ulps an octave: 64 bins an octave
constexpr int kPlanThreads = 256;

// The bin of a distance v below the histogram's top (bit patterns of non-negative floats order as
// their values; anything at or above the top, NaN and infinities included, is bin 0); kHistBins
// when below the histogram.
__device__ __forceinline__ unsigned histBin(float v, unsigned top) {
  const unsigned bits = __float_as_uint(v);
  const unsigned key = bits >= top ? 0u : top - bits;
  const unsigned bin = key >> kHistShift;
  return bin < kHistBins ? bin : kHistBins;
}

// Shared memory of kcentersPrunedKernel: the sketch's steps, then per center of the batch its
// coordinates minus the grid's lows and its coordinates, then its bounds on the distances to the
// earlier centers (K each), then each thread's labels and distances for a batch of rounds (loaded
// at once) and the queue of points whose floats the batch must read (index, old distance, which
// centers need them).
#ifndef KL_KCP_ROUNDS
#define KL_KCP_ROUNDS 4  // (8 before session 25: with 3 blocks per SM)
#endif
constexpr int kRoundsPerBatch = KL_KCP_ROUNDS;
constexpr int kQueue = kRoundsPerBatch * kThreads;

__host__ __device__ constexpr size_t prunedSmemBytes(int padded, int k, int batch) {
  return static_cast<size_t>(padded) * sizeof(float) * (1 + 2 * static_cast<size_t>(batch)) +
         static_cast<size_t>(batch) * k * sizeof(float) + 4ull * kQueue * 4 + kQueue;
}

// The batch's per-center values of one dimension, B consecutive floats of shared memory (the
// center tables are dimension-major, B centers per dimension): one 16-byte load per four centers.
template <int B>
__device__ __forceinline__ void loadCenters(const float* p, float (&v)[B]) {
  if constexpr (B >= 4) {
#pragma unroll
    for (int g = 0; g < B / 4; ++g) {
      const float4 t = reinterpret_cast<const float4*>(p)[g];
      v[4 * g] = t.x;
      v[4 * g + 1] = t.y;
      v[4 * g + 2] = t.z;
      v[4 * g + 3] = t.w;
    }
  } else if constexpr (B == 2) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    v[0] = t.x;
    v[1] = t.y;
  } else {
    v[0] = p[0];
  }
}

// The float sums of squared differences between each of the batch's B centers and a point's
// sketch: what the sketch test bounds (every center summed: the arithmetic is cheaper than
// predicating it per center). W words are loaded before any is used (the time per pass is a
// chain of memory round trips per warp).
template <int B, int W>
__device__ __forceinline__ void addWordsBatch(const uint4* __restrict__ codes, int64_t n,
                                              int64_t i, int w, int words, const float* clB,
                                              const float* stepS, float (&s)[B]) {
  uint4 v[W];
#pragma unroll
  for (int b = 0; b < W; ++b)
    v[b] = w + b < words ? __ldcs(codes + static_cast<int64_t>(w + b) * n + i)
                         : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
  for (int b = 0; b < W; ++b) {
    if (w + b >= words) break;
    const unsigned part[4] = {v[b].x, v[b].y, v[b].z, v[b].w};
#pragma unroll
    for (int t = 0; t < kSketchDims; ++t) {
      const int q = (w + b) * kSketchDims + t;
      const float code = codeOf(part[t / 4], t % 4);
      const float step = stepS[q];
      float c[B];
      loadCenters<B>(clB + q * B, c);
#pragma unroll
      for (int u = 0; u < B; ++u) {
        const float diff = fmaf(-step, code, c[u]);  // (c - lo) - step code
        s[u] = fmaf(diff, diff, s[u]);
      }
    }
  }
}

// One or two centers: words in batches of 8, 4, then one (3 round trips at D = 200); more: of 4
// (8 words beside 8 sums would not fit the registers).
template <int B>
__device__ __forceinline__ void sketchDistances(const uint4* __restrict__ codes, int64_t n,
                                                int64_t i, int words, const float* clB,
                                                const float* stepS, float (&s)[B]) {
#pragma unroll
  for (int u = 0; u < B; ++u) s[u] = 0.f;
  int w = 0;
  if constexpr (B <= 2) {
    for (; w + 8 <= words; w += 8) addWordsBatch<B, 8>(codes, n, i, w, words, clB, stepS, s);
    if (w + 4 <= words) {
      addWordsBatch<B, 4>(codes, n, i, w, words, clB, stepS, s);
      w += 4;
    }
    for (; w < words; ++w) addWordsBatch<B, 1>(codes, n, i, w, words, clB, stepS, s);
  } else {
    for (; w < words; w += 4) addWordsBatch<B, 4>(codes, n, i, w, words, clB, stepS, s);
  }
}

// The squared distances from a point to the batch's B centers, from the dimension-major points:
// each the best variant's arithmetic (dimension 0 first, one FMA each), 16 loads in flight.
template <int B>
__device__ __forceinline__ void columnDistances(const float* __restrict__ X, int64_t n, int64_t p,
                                                int d, const float* centerB, float (&s)[B]) {
#pragma unroll
  for (int u = 0; u < B; ++u) s[u] = 0.f;
  for (int q0 = 0; q0 < d; q0 += 16) {
    float x[16];
#pragma unroll
    for (int t = 0; t < 16; ++t)
      x[t] = q0 + t < d ? __ldcs(X + static_cast<int64_t>(q0 + t) * n + p) : 0.f;
#pragma unroll
    for (int t = 0; t < 16; ++t) {
      if (q0 + t >= d) break;
      float c[B];
      loadCenters<B>(centerB + (q0 + t) * B, c);
#pragma unroll
      for (int u = 0; u < B; ++u) {
        const float diff = c[u] - x[t];
        s[u] = fmaf(diff, diff, s[u]);
      }
    }
  }
}

// The same from the point's point-major row (scattered points, denseChunk): 16-byte loads, 4 in
// flight where D % 4 == 0.
template <int B>
__device__ __forceinline__ void rowDistances(const float* __restrict__ row, int d,
                                             const float* centerB, float (&s)[B]) {
#pragma unroll
  for (int u = 0; u < B; ++u) s[u] = 0.f;
  const auto add = [&](int q, float x) {
    float c[B];
    loadCenters<B>(centerB + q * B, c);
#pragma unroll
    for (int u = 0; u < B; ++u) {
      const float diff = c[u] - x;
      s[u] = fmaf(diff, diff, s[u]);
    }
  };
  if (d % 4 == 0) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    const int d4 = d / 4;
    for (int q4 = 0; q4 < d4; q4 += 4) {
      float4 v[4];
#pragma unroll
      for (int m = 0; m < 4; ++m)
        v[m] = q4 + m < d4 ? __ldcs(r4 + q4 + m) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        if (q4 + m >= d4) break;
        const int q = 4 * (q4 + m);
        add(q, v[m].x);
        add(q + 1, v[m].y);
        add(q + 2, v[m].z);
        add(q + 3, v[m].w);
      }
    }
  } else {
    for (int q = 0; q < d; ++q) add(q, __ldcs(row + q));
  }
}

// Center ju's row of the chosen centers' table, from point `index` (NaN for an invalid index, so
// nothing is skipped against it), then, while the K x D values are few (clustering_pruning.h),
// its squared distances to centers 0..ju-1 into row `slot` of the batch's table: a warp per
// earlier center, float (a bound only: the tests' margin covers its rounding, in any order). Every
// thread of the block calls it.
__device__ void chooseCenterRow(const float* __restrict__ X, int64_t n, int d, int k, int ju,
                                int index, int slot, const State& st) {
  const bool valid = index >= 0 && index < n;
  float* row = st.centerRows + static_cast<int64_t>(ju) * d;
  for (int q = threadIdx.x; q < d; q += blockDim.x)
    row[q] = valid ? X[static_cast<int64_t>(q) * n + index] : __int_as_float(0x7fffffff);
  if (!kcentersExactCenterDistances(ju, d)) return;
  __syncthreads();
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int a = warp; a < ju; a += warps) {
    float s = 0.f;
    for (int q = lane; q < d; q += 32) {
      const float t = __ldcg(row + q) - __ldcg(st.centerRows + static_cast<int64_t>(a) * d + q);
      s = fmaf(t, t, s);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) st.centerDist[static_cast<int64_t>(slot) * k + a] = s;
  }
}

// 4 blocks of 256 threads per SM: 64 registers (ptxas: 184 bytes of spill stores, in the widest
// instances) and 4 rounds a batch (37 KB of shared memory a block, so four fit). Against 3 blocks at
// 80 registers with 8 rounds (28 bytes of spills): 6.56 / 6.08 ms against 6.58 / 6.16 on the seed's
// data / one broad cloud (H100, session 25; the seed's within noise).
//
// Launch e runs the pass for the batch of centers b..e (b = *batchStart) when the plan could not
// pick center e + 1 (st.active[e]); otherwise it returns at once. Its rounds deal 32-point units
// to the blocks in turn (a cluster near a new center, a contiguous run of points in the seed's
// data, spreads over many blocks). In a batch of rounds each warp tests its points on its own:
// for each center of the batch the triangle test (with the point's label and distance before the
// pass: a point it rules out is farther from that center than its distance then, so farther than
// anything the batch leaves it), for the centers it keeps the sketch test (the sketch read once),
// and it queues the points some center still needs, with those centers. Then each warp takes
// whole chunks of 32 queued points, a lane per point, reads the floats once and sums each needed
// center's distance in the best variant's arithmetic, and applies them in center order (a center
// takes the point when strictly nearer): the updates one center at a time would make. Each point's
// final distance joins the farthest-point reduction and the histogram that sets the next tau.
// Encode: the first center's instance, which also codes the sketch (its own registers: the
// coding's few spills stay out of the other launches).
#ifndef KL_KCP_MIN_BLOCKS
#define KL_KCP_MIN_BLOCKS 4
#endif
template <bool Encode>
__global__ void __launch_bounds__(kThreads, KL_KCP_MIN_BLOCKS)
    kcentersPrunedKernel(const float* __restrict__ X, int64_t n, int d, int e, int k,
                         float margin, float* __restrict__ dist, int* __restrict__ labels,
                         State st) {
  if (!Encode && !st.active[e]) return;  // the plan chose center e + 1: no pass yet
  extern __shared__ float smemF[];
  const int words = sketchWords(d);
  const int padded = words * kSketchDims;
  const int b = Encode ? 0 : *st.batchStart;
  const int batch = e - b + 1;  // <= st.batchMost
  // The center tables hold `width` centers per dimension (batch rounded up to 1, 2, 4 or 8, at
  // most st.batchMost, a power of two): each width is its own instance of the pass below.
  const int width = batch <= 1 ? 1 : batch <= 2 ? 2 : batch <= 4 ? 4 : 8;
  float* stepS = smemF;                            // padded
  float* clB = stepS + padded;                     // padded x width: c - lo
  float* centerB = clB + width * padded;           // padded x width
  float* ccB = centerB + width * padded;           // width x k
  int* queueIndex = reinterpret_cast<int*>(ccB + width * k);  // kQueue
  float* queueOld = reinterpret_cast<float*>(queueIndex + kQueue);
  float* preOld = queueOld + kQueue;
  int* preLabel = reinterpret_cast<int*>(preOld + kQueue);
  unsigned char* queueMask = reinterpret_cast<unsigned char*>(preLabel + kQueue);
  __shared__ float wv[kWarps];
  __shared__ int wi[kWarps];
  __shared__ unsigned long long visitedS[kBatchMost], screenedS[kBatchMost], distS[kBatchMost];
  __shared__ unsigned histS[kHistBins];
  __shared__ int queued;
  __shared__ bool lastBlock;
  __shared__ unsigned histTop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // The batch's centers: from the chosen centers' table (written by whoever chose them) after the
  // first; the first's from the points (NaN for an invalid index: nothing is skipped against it).
  for (int t = threadIdx.x; t < width * padded; t += blockDim.x) {
    const int q = t / width, u = t % width, ju = b + u;
    float x = 0.f;
    if (q < d && u < batch) {
      if (ju > 0) {
        x = __ldcg(st.centerRows + static_cast<int64_t>(ju) * d + q);
      } else {
        const int c = st.centers[0];
        x = c >= 0 && c < n ? X[static_cast<int64_t>(q) * n + c] : __int_as_float(0x7fffffff);
      }
    }
    centerB[t] = x;
  }
  for (int t = threadIdx.x; t < batch * k; t += blockDim.x) {  // the triangle test's distances
    const int u = t / k, a = t % k, ju = b + u;
    if (ju == 0 || a >= ju) continue;
    const bool measured = kcentersExactCenterDistances(ju, d);
    ccB[t] = kcentersCenterBound(measured ? __ldcg(st.centerDist + t) : 0.f, measured,
                                 __ldcg(st.radius + ju - 1));
  }
  for (int t = threadIdx.x; t < kHistBins; t += blockDim.x) histS[t] = 0u;
  if (threadIdx.x < kBatchMost)
    visitedS[threadIdx.x] = screenedS[threadIdx.x] = distS[threadIdx.x] = 0ull;
  if (threadIdx.x == 0) {
    queued = 0;
    // The histogram's top: no distance the pass leaves exceeds the farthest before it (the sum
    // of the grid's squared ranges for the first, about the largest squared distance there is).
    histTop = __float_as_uint(b > 0 ? __ldcg(st.radius + b - 1) : *st.rangeBound);
  }
  __syncthreads();
  for (int q = threadIdx.x; q < padded; q += blockDim.x) {
    const float2 sc = st.scales[q];
    stepS[q] = sc.y;
    for (int u = 0; u < width; ++u) clB[q * width + u] = centerB[q * width + u] - sc.x;
  }
  __syncthreads();
  const unsigned top = histTop;

  float bestV = -1.0f;
  int bestI = INT_MAX;
  const int64_t units = (n + 31) / 32;
  const int64_t rounds = (units + static_cast<int64_t>(gridDim.x) * kWarps - 1) /
                         (static_cast<int64_t>(gridDim.x) * kWarps);
  // A point's final distance (lanes where `on`; every lane of the warp calls it): into the
  // farthest-point reduction and the histogram, one shared atomic per bin a warp touches (a
  // warp's 32 points mostly share a bin: one atomic per point was 32 on one address).
  const auto settle = [&](bool on, float v, int p) {
    if (on && farther(v, p, bestV, bestI)) {
      bestV = v;
      bestI = p;
    }
    const unsigned bin = on ? histBin(v, top) : static_cast<unsigned>(kHistBins);
    const bool counted = bin < kHistBins;
    const unsigned lanes = __ballot_sync(0xffffffffu, counted);
    if (counted) {
      const unsigned peers = __match_any_sync(lanes, bin);
      if (lane == __ffs(peers) - 1) atomicAdd(&histS[bin], static_cast<unsigned>(__popc(peers)));
    }
  };
  // The pass, one instance per width (the batch's sums in registers, the center tables read 16
  // bytes at a time).
  const auto pass = [&](auto widthTag) {
    constexpr int B = decltype(widthTag)::value;
    for (int64_t r0 = 0; r0 < rounds; r0 += kRoundsPerBatch) {  // block-uniform
      const int64_t r1 = r0 + kRoundsPerBatch < rounds ? r0 + kRoundsPerBatch : rounds;
      // Every round's label and distance at once (one round trip where a round at a time took one
      // each), kept in this thread's own slots of shared memory.
      if (!Encode) {
        float o[kRoundsPerBatch];
        int a[kRoundsPerBatch];
  #pragma unroll
        for (int r = 0; r < kRoundsPerBatch; ++r) {
          const int64_t i = ((r0 + r) * kWarps + warp) * gridDim.x * 32 + blockIdx.x * 32 + lane;
          const bool in = r0 + r < r1 && i < n;
          o[r] = in ? dist[i] : 0.f;
          a[r] = in ? labels[i] : -1;
        }
  #pragma unroll
        for (int r = 0; r < kRoundsPerBatch; ++r) {
          preOld[r * kThreads + threadIdx.x] = o[r];
          preLabel[r * kThreads + threadIdx.x] = a[r];
        }
      }
      // The tests, each warp on its own units; every lane takes part in the ballots.
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t unit = (r * kWarps + warp) * gridDim.x + blockIdx.x;
        const int64_t i = unit * 32 + lane;
        unsigned need = 0u, sketched = 0u;  // centers whose floats, whose sketch, the point needs
        float old = 0.f;
        if (i < n) {
          if (Encode) {
            need = 1u;
          } else {
            const int slot = static_cast<int>(r - r0) * kThreads + threadIdx.x;
            old = preOld[slot];
            const int a = preLabel[slot];
  #pragma unroll
            for (int u = 0; u < B; ++u) {
              if (u < batch) {
                const int ju = b + u;
                const bool keep = a < 0 || a >= ju || !kcentersSkips(ccB[u * k + a], old, margin);
                sketched |= static_cast<unsigned>(keep) << u;
              }
            }
            if (sketched) {  // the triangle could not decide: the sketch, once for the batch
              float s[B];
              sketchDistances<B>(st.codes, n, i, words, clB, stepS, s);
              const float err = st.sketchErr[i];
  #pragma unroll
              for (int u = 0; u < B; ++u)
                if ((sketched >> u & 1u) && !kcentersSketchSkips(s[u], err, old, margin))
                  need |= 1u << u;
            }
          }
        }
        settle(i < n && !need, old, static_cast<int>(i));
        // Reads counted for the first center of the batch that needed them.
        const int firstSketch = sketched ? __ffs(sketched) - 1 : -1;
  #pragma unroll
        for (int u = 0; u < B; ++u) {
          const unsigned m = __ballot_sync(0xffffffffu, firstSketch == u);
          const unsigned sums = __ballot_sync(0xffffffffu, sketched >> u & 1u);
          if (lane == 0 && m) atomicAdd(&screenedS[u], static_cast<unsigned long long>(__popc(m)));
          if (lane == 0 && sums) atomicAdd(&distS[u], static_cast<unsigned long long>(__popc(sums)));
        }
        const unsigned want = __ballot_sync(0xffffffffu, need != 0u);
        if (want) {
          int base = 0;
          if (lane == 0) base = atomicAdd(&queued, __popc(want));
          base = __shfl_sync(0xffffffffu, base, 0);
          if (need) {
            const int q = base + __popc(want & ((1u << lane) - 1u));
            queueIndex[q] = static_cast<int>(i);
            queueOld[q] = old;
            queueMask[q] = static_cast<unsigned char>(need);
          }
        }
      }
      __syncthreads();
      const int count = queued;
      const int chunks = (count + 31) / 32;
      for (int chunk = warp; chunk < chunks; chunk += kWarps) {  // warp-uniform
        const int q = chunk * 32 + lane;
        const int p = q < count ? queueIndex[q] : -1;
        const bool dense = Encode || denseChunk(p, st.rows != nullptr);
        const unsigned need = p < 0 ? 0u : Encode ? 1u : queueMask[q];
        // The float distances summed, per center, and the points read, for the first center that
        // needed them: one shared atomic per warp and center (a 64-bit shared add is a
        // compare-and-swap loop; a lane each on one address serialised the first pass, where
        // every point is read).
        const int firstNeed = need ? __ffs(need) - 1 : -1;
  #pragma unroll
        for (int u = 0; u < B; ++u) {
          const unsigned sums = __ballot_sync(0xffffffffu, need >> u & 1u);
          const unsigned reads = __ballot_sync(0xffffffffu, firstNeed == u);
          if (lane == 0 && sums) atomicAdd(&distS[u], static_cast<unsigned long long>(__popc(sums)));
          if (lane == 0 && reads)
            atomicAdd(&visitedS[u], static_cast<unsigned long long>(__popc(reads)));
        }
        const float old = p < 0 ? 0.f : queueOld[q];
        float cur = old;
        int taken = -1;
        if (p >= 0 && Encode) {
          cur = columnDistanceEncode(X, n, p, d, centerB, st);
          taken = 0;
        } else if (p >= 0) {
          float s[B];
          if (dense)
            columnDistances<B>(X, n, p, d, centerB, s);
          else
            rowDistances<B>(st.rows + static_cast<int64_t>(p) * d, d, centerB, s);
  #pragma unroll
          for (int u = 0; u < B; ++u) {
            if ((need >> u & 1u) && s[u] < cur) {  // in center order, strictly nearer
              cur = s[u];
              taken = u;
            }
          }
        }
        if (taken >= 0) {
          dist[p] = cur;
          labels[p] = b + taken;
        }
        settle(p >= 0, cur, p);
      }
      __syncthreads();
      if (threadIdx.x == 0) queued = 0;
      __syncthreads();
    }
  };
  if (Encode || width == 1) {
    pass(std::integral_constant<int, 1>{});
  } else if (width == 2) {
    pass(std::integral_constant<int, 2>{});
  } else if (width == 4) {
    pass(std::integral_constant<int, 4>{});
  } else {
    pass(std::integral_constant<int, 8>{});
  }
  blockFarthest<kWarps>(bestV, bestI, wv, wi);  // (its barrier also orders the counters)
  for (int t = threadIdx.x; t < kHistBins; t += blockDim.x)
    if (histS[t]) atomicAdd(st.hist + t, histS[t]);
  if (threadIdx.x < batch) {
    if (visitedS[threadIdx.x]) atomicAdd(st.visited + b + threadIdx.x, visitedS[threadIdx.x]);
    if (screenedS[threadIdx.x]) atomicAdd(st.screened + b + threadIdx.x, screenedS[threadIdx.x]);
    if (distS[threadIdx.x]) atomicAdd(st.distances + b + threadIdx.x, distS[threadIdx.x]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    st.blockValue[blockIdx.x] = bestV;
    st.blockIndex[blockIdx.x] = bestI;
    __threadfence();
    lastBlock = atomicAdd(st.arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;
  __threadfence();

  float bv = -1.0f;
  int bi = INT_MAX;
  for (int t = threadIdx.x; t < gridDim.x; t += blockDim.x) {
    const float ov = __ldcg(st.blockValue + t);
    const int oi = __ldcg(st.blockIndex + t);
    if (farther(ov, oi, bv, bi)) {
      bv = ov;
      bi = oi;
    }
  }
  __syncthreads();
  blockFarthest<kWarps>(bv, bi, wv, wi);
  __shared__ int nextS;
  // The next tau: the lowest bin edge with at most kCandidateCap points above it (warp 0: each
  // lane 16 bins, their counts scanned across the warp). The histogram is cleared for the next pass.
  if (warp == 0) {
    constexpr int per = kHistBins / 32;
    unsigned c[per];
    unsigned sum = 0;
#pragma unroll
    for (int t = 0; t < per; ++t) {
      c[t] = __ldcg(st.hist + lane * per + t);
      sum += c[t];
    }
    unsigned before = sum;  // inclusive scan, then made exclusive
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned y = __shfl_up_sync(0xffffffffu, before, o);
      if (lane >= o) before += y;
    }
    before -= sum;
    int lastBin = -1;
    unsigned run = before;
#pragma unroll
    for (int t = 0; t < per; ++t) {
      run += c[t];
      if (run <= static_cast<unsigned>(kCandidateCap)) lastBin = lane * per + t;
    }
    for (int o = 16; o > 0; o >>= 1) lastBin = max(lastBin, __shfl_xor_sync(0xffffffffu, lastBin, o));
    if (lane == 0) {
      const unsigned edge = (static_cast<unsigned>(lastBin) + 1u) << kHistShift;
      *st.tau = lastBin < 0 ? INFINITY : edge >= top ? 0.f : __uint_as_float(top - edge);
      st.radius[e] = bv;
      if (e + 1 < k) st.centers[e + 1] = bi;
      *st.batchStart = e + 1;
      *st.candCount = 0u;
      *st.arrivals = 0u;
      nextS = bi;
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < kHistBins; t += blockDim.x) st.hist[t] = 0u;
  if (Encode)  // the first center's row, for the distances to the next ones
    for (int q = threadIdx.x; q < d; q += blockDim.x) st.centerRows[q] = centerB[q];
  if (e + 1 >= k) return;
  __syncthreads();
  chooseCenterRow(X, n, d, k, e + 1, nextS, 0, st);  // row 0: the first of the next batch
}

// The plan launch for center j (j >= 1): at the batch's first center, every point above tau is
// listed with its distance brought up to date with center j; later, the listed points are brought
// up to date. The farthest listed point is center j + 1 when it is strictly above tau (every point
// above tau is listed) and the batch has room; else launch j runs the pass (st.active[j]).
__global__ void __launch_bounds__(kPlanThreads)
    kcentersPlanKernel(const float* __restrict__ X, int64_t n, int d, int j, int k,
                       const float* __restrict__ dist, State st) {
  extern __shared__ float planCenter[];  // padded floats
  __shared__ float wv[kPlanThreads / 32];
  __shared__ int wi[kPlanThreads / 32];
  __shared__ bool lastBlock, chosen;
  __shared__ int nextS;
  const int b = *st.batchStart;
  const float tau = *st.tau;
  for (int q = threadIdx.x; q < d; q += blockDim.x)
    planCenter[q] = __ldcg(st.centerRows + static_cast<int64_t>(j) * d + q);
  __syncthreads();
  const auto distanceTo = [&](int p) {
    return st.rows ? rowDistance(st.rows + static_cast<int64_t>(p) * d, d, planCenter)
                   : columnDistance(X, n, p, d, planCenter);
  };
  float bestV = -1.0f;
  int bestI = INT_MAX;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j == b) {  // list the points above tau
    // Warp-uniform steps (a warp's 32 points are consecutive): one slot reservation per warp.
    const int lane = threadIdx.x % 32;
    for (int64_t i = first; i - lane < n; i += stride) {
      const float old = i < n ? __ldcg(dist + i) : 0.f;
      const bool above = i < n && old > tau;
      const unsigned listing = __ballot_sync(0xffffffffu, above);
      if (!listing) continue;
      const int leader = __ffs(listing) - 1;
      unsigned base = 0u;
      if (lane == leader) base = atomicAdd(st.candCount, static_cast<unsigned>(__popc(listing)));
      base = __shfl_sync(0xffffffffu, base, leader);
      if (!above) continue;
      const float s = distanceTo(static_cast<int>(i));
      const float v = s < old ? s : old;
      const unsigned slot = base + __popc(listing & ((1u << lane) - 1u));
      if (slot < static_cast<unsigned>(kCandidateCap)) {
        st.candIndex[slot] = static_cast<int>(i);
        st.candValue[slot] = v;
      }
      if (farther(v, static_cast<int>(i), bestV, bestI)) {
        bestV = v;
        bestI = static_cast<int>(i);
      }
    }
  } else if (st.planRows > 0) {
    // Bring the listed points up to date, planRows at a time per block: the block's threads load
    // their rows into shared memory together (every load in flight at once, where a thread
    // reading its own row waited 7 round trips at D = 200), then a thread per point sums its
    // distance from there in the best variant's arithmetic.
    const unsigned listed = __ldcg(st.candCount);
    const int count = listed < static_cast<unsigned>(kCandidateCap) ? static_cast<int>(listed)
                                                                     : kCandidateCap;
    const int rows = st.planRows, pitch = d + 1;  // odd pitch: a thread per row, no bank conflicts
    const int padded = sketchWords(d) * kSketchDims;
    float* rowsS = planCenter + padded;
    int* indexS = reinterpret_cast<int*>(rowsS + rows * pitch);
    for (int base = blockIdx.x * rows; base < count; base += gridDim.x * rows) {  // block-uniform
      for (int r = threadIdx.x; r < rows; r += blockDim.x)
        indexS[r] = base + r < count ? st.candIndex[base + r] : -1;
      __syncthreads();
      const int total = rows * d;
      for (int e0 = threadIdx.x; e0 < total; e0 += 16 * kPlanThreads) {
        float x[16];
#pragma unroll
        for (int m = 0; m < 16; ++m) {
          const int e = e0 + m * kPlanThreads;
          const int r = e / d, q = e - r * d;
          const int p = e < total ? indexS[r] : -1;
          x[m] = p >= 0 ? __ldcg(st.rows + static_cast<int64_t>(p) * d + q) : 0.f;
        }
#pragma unroll
        for (int m = 0; m < 16; ++m) {
          const int e = e0 + m * kPlanThreads;
          if (e < total) rowsS[(e / d) * pitch + e % d] = x[m];
        }
      }
      __syncthreads();
      const int r = threadIdx.x;
      if (r < rows && base + r < count) {
        float sum = 0.f;
        const float* row = rowsS + r * pitch;
        for (int q = 0; q < d; ++q) {
          const float diff = planCenter[q] - row[q];
          sum = fmaf(diff, diff, sum);
        }
        const int p = indexS[r];
        float v = st.candValue[base + r];
        if (sum < v) {
          v = sum;
          st.candValue[base + r] = v;
        }
        if (farther(v, p, bestV, bestI)) {
          bestV = v;
          bestI = p;
        }
      }
      __syncthreads();  // the stage is read before the next rows overwrite it
    }
  } else {  // bring the listed points up to date, a thread per point
    const unsigned listed = __ldcg(st.candCount);
    const int64_t count = listed < static_cast<unsigned>(kCandidateCap) ? listed : kCandidateCap;
    for (int64_t t = first; t < count; t += stride) {
      const int p = st.candIndex[t];
      float v = st.candValue[t];
      const float s = distanceTo(p);
      if (s < v) {
        v = s;
        st.candValue[t] = v;
      }
      if (farther(v, p, bestV, bestI)) {
        bestV = v;
        bestI = p;
      }
    }
  }
  blockFarthest<kPlanThreads / 32>(bestV, bestI, wv, wi);
  if (threadIdx.x == 0) {
    st.planValue[blockIdx.x] = bestV;
    st.planIndex[blockIdx.x] = bestI;
    __threadfence();
    lastBlock = atomicAdd(st.planArrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;
  __threadfence();
  float bv = -1.0f;
  int bi = INT_MAX;
  for (int t = threadIdx.x; t < gridDim.x; t += blockDim.x) {
    const float ov = __ldcg(st.planValue + t);
    const int oi = __ldcg(st.planIndex + t);
    if (farther(ov, oi, bv, bi)) {
      bv = ov;
      bi = oi;
    }
  }
  __syncthreads();
  blockFarthest<kPlanThreads / 32>(bv, bi, wv, wi);
  if (threadIdx.x == 0) {
    const unsigned listed = __ldcg(st.candCount);
    const bool ok = listed <= static_cast<unsigned>(kCandidateCap) && bv > tau && j + 1 < k &&
                    j + 1 - b < st.batchMost;
    if (ok) {
      st.radius[j] = bv;
      st.centers[j + 1] = bi;
    }
    st.active[j] = ok ? 0 : 1;
    *st.planArrivals = 0u;
    chosen = ok;
    nextS = bi;
  }
  __syncthreads();
  if (chosen) chooseCenterRow(X, n, d, k, j + 1, nextS, j + 1 - b, st);
}

}  // namespace

struct KCentersPruned::Impl {
  const float* points;
  int64_t n;
  int d;
  int k;
  cudaStream_t stream;
  int grid = 0;
  size_t smem = 0;
  float margin = 0;
  cuda::DeviceBuffer<float> dist, radius, blockValue, centerRows, centerDist;
  cuda::DeviceBuffer<int> labels, centers, blockIndex;
  cuda::DeviceBuffer<unsigned> arrivals;
  cuda::DeviceBuffer<unsigned long long> visited, screened, distanceSums;
  cuda::DeviceBuffer<uint4> codes;
  cuda::DeviceBuffer<float> sketchErr;
  const float* rows = nullptr;  // the caller's point-major points, or null
  cuda::DeviceBuffer<float2> scales, rangePartial;
  cuda::DeviceBuffer<double> slack;
  cuda::DeviceBuffer<float> rangeBound, tau, candValue, planValue;
  cuda::DeviceBuffer<int> batchStart, active, candIndex, planIndex;
  cuda::DeviceBuffer<unsigned> hist, candCount, planArrivals;
  int planGrid = 0;
  int batchMost = 1;
  cudaGraphExec_t graph = nullptr;

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
  }

  void build() {
    margin = kcentersSkipMargin(d);
    if (sketchWords(d) > 65535)  // the sketch's encode grid has a word per block row
      throw InputError("pruned k-centers: D = " + std::to_string(d) + " needs " +
                       std::to_string(sketchWords(d)) + " sketch words, at most 65535");
    const size_t padded = static_cast<size_t>(sketchWords(d)) * kSketchDims;
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    // The static shared memory (histogram, counters) beside the dynamic: about 4.5 KB.
    constexpr size_t kStatic = 5 * 1024;
    batchMost = kBatchMost;  // a power of two: the pass has instances for 1, 2, 4 and 8
    while (batchMost > 1 &&
           prunedSmemBytes(static_cast<int>(padded), k, batchMost) + kStatic > static_cast<size_t>(optin))
      batchMost /= 2;
    // KERNELLAB_KCENTERS_BATCH=B (for measuring): at most B centers a pass.
    if (const char* bs = std::getenv("KERNELLAB_KCENTERS_BATCH"))
      for (const int want = std::max(1, std::atoi(bs)); batchMost > want;) batchMost /= 2;
    smem = prunedSmemBytes(static_cast<int>(padded), k, batchMost);
    if (smem + kStatic > static_cast<size_t>(optin))
      throw InputError("pruned k-centers stages the center, its sketch grid, its distances to "
                       "the earlier centers, a queue of points and their floats in shared "
                       "memory: D = " + std::to_string(d) + ", K = " + std::to_string(k) +
                       " need " + std::to_string(smem) + " bytes, this GPU allows " +
                       std::to_string(optin) + " per block");
    int perSM = INT_MAX;
    for (const auto f : {kcentersPrunedKernel<false>, kcentersPrunedKernel<true>}) {
      if (smem > 48 * 1024)
        KL_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
      int blocks = 0;  // one grid for every launch: the fewer blocks per SM of the two
      KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, kThreads, smem));
      perSM = std::min(perSM, blocks);
    }
    const int64_t needed = (n + kThreads - 1) / kThreads;
    grid = static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>(needed, int64_t(sms) * std::max(1, perSM))));
    dist.allocate(static_cast<size_t>(n));
    labels.allocate(static_cast<size_t>(n));
    centers.allocate(static_cast<size_t>(k));
    radius.allocate(static_cast<size_t>(k));
    blockValue.allocate(static_cast<size_t>(grid));
    blockIndex.allocate(static_cast<size_t>(grid));
    centerRows.allocate(static_cast<size_t>(k) * d);
    centerDist.allocate(static_cast<size_t>(k) * batchMost);
    visited.allocate(static_cast<size_t>(k));
    screened.allocate(static_cast<size_t>(k));
    distanceSums.allocate(static_cast<size_t>(k));
    codes.allocate(static_cast<size_t>(sketchWords(d)) * static_cast<size_t>(n));
    sketchErr.allocate(static_cast<size_t>(n));
    // KERNELLAB_KCENTERS_ROWS=0 (for measuring): every chunk from the dimension-major points.
    const char* rowsSwitch = std::getenv("KERNELLAB_KCENTERS_ROWS");
    if (rowsSwitch && std::atoi(rowsSwitch) == 0) rows = nullptr;
    scales.allocate(padded);
    rangePartial.allocate(static_cast<size_t>(d) * kRangeBlocks);
    slack.allocate(1);
    arrivals.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, sizeof(unsigned), stream));
    planGrid = std::max(1, std::min(sms * 2, static_cast<int>((n + kPlanThreads - 1) / kPlanThreads)));
    rangeBound.allocate(1);
    tau.allocate(1);
    batchStart.allocate(1);
    active.allocate(static_cast<size_t>(k));
    hist.allocate(kHistBins);
    candIndex.allocate(kCandidateCap);
    candValue.allocate(kCandidateCap);
    candCount.allocate(1);
    planValue.allocate(static_cast<size_t>(planGrid));
    planIndex.allocate(static_cast<size_t>(planGrid));
    planArrivals.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(planArrivals.get(), 0, sizeof(unsigned), stream));

    State st{};
    st.centers = centers.get();
    st.radius = radius.get();
    st.blockValue = blockValue.get();
    st.blockIndex = blockIndex.get();
    st.arrivals = arrivals.get();
    st.centerRows = centerRows.get();
    st.centerDist = centerDist.get();
    st.visited = visited.get();
    st.screened = screened.get();
    st.distances = distanceSums.get();
    st.codes = codes.get();
    st.sketchErr = sketchErr.get();
    st.scales = scales.get();
    st.slack = slack.get();
    st.encodeCodes = codes.get();
    st.encodeErr = sketchErr.get();
    st.rows = rows;
    st.rangeBound = rangeBound.get();
    st.batchStart = batchStart.get();
    st.active = active.get();
    st.tau = tau.get();
    st.hist = hist.get();
    st.candIndex = candIndex.get();
    st.candValue = candValue.get();
    st.candCount = candCount.get();
    st.planValue = planValue.get();
    st.planIndex = planIndex.get();
    st.planArrivals = planArrivals.get();
    st.batchMost = batchMost;
    cudaGraph_t g = nullptr;
    const auto captured = [&](cudaError_t e) {  // a failed launch ends the capture first
      if (e == cudaSuccess) return;
      cudaStreamEndCapture(stream, &g);
      if (g) cudaGraphDestroy(g);
      KL_CUDA_CHECK(e);
    };
    KL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    // The sketch first (inside the timed graph: it is part of the pruned algorithm).
    sketchRangeKernel<<<dim3(kRangeBlocks, static_cast<unsigned>(std::min(d, 65535))), kThreads, 0,
                        stream>>>(points, n, d, rangePartial.get());
    captured(cudaGetLastError());
    sketchScaleKernel<<<1, kThreads, 0, stream>>>(rangePartial.get(), d, static_cast<int>(padded),
                                                  scales.get(), slack.get(), rangeBound.get());
    captured(cudaGetLastError());
    // Center 0's pass (it also codes the sketch); then per center a plan and, where the plan could
    // not pick the next center, the pass for the batch.
    kcentersPrunedKernel<true><<<grid, kThreads, smem, stream>>>(points, n, d, 0, k, margin,
                                                               dist.get(), labels.get(), st);
    captured(cudaGetLastError());
    // The plan's stage of listed rows (where the point-major rows exist): 32 rows of D + 1 floats
    // a block (4,096 listed points over 128 blocks; at D = 200 each thread loads 25 floats, 16 in
    // flight), fewer where the shared memory is short, none below 8 (a thread per row then).
    // KERNELLAB_KCENTERS_PLAN_ROWS=0 (for measuring): a thread reads its own row.
    int planRows = 0;
    if (rows) {
      const size_t perRow = (static_cast<size_t>(d) + 1) * sizeof(float) + sizeof(int);
      const size_t room = static_cast<size_t>(optin) - padded * sizeof(float) - 1024;
      planRows = static_cast<int>(std::min<size_t>(32, room / perRow));
      if (const char* pr = std::getenv("KERNELLAB_KCENTERS_PLAN_ROWS"))
        planRows = std::min(planRows, std::max(0, std::atoi(pr)));
      if (planRows < 8) planRows = 0;
    }
    st.planRows = planRows;
    const size_t planSmem =
        padded * sizeof(float) +
        static_cast<size_t>(planRows) * ((static_cast<size_t>(d) + 1) * sizeof(float) + sizeof(int));
    if (planSmem > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(kcentersPlanKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(planSmem)));
    for (int j = 1; j < k; ++j) {
      kcentersPlanKernel<<<planGrid, kPlanThreads, planSmem, stream>>>(points, n, d, j, k,
                                                                       dist.get(), st);
      captured(cudaGetLastError());
      kcentersPrunedKernel<false><<<grid, kThreads, smem, stream>>>(points, n, d, j, k, margin,
                                                                    dist.get(), labels.get(), st);
      captured(cudaGetLastError());
    }
    KL_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    const cudaError_t ie = cudaGraphInstantiate(&graph, g, 0);
    cudaGraphDestroy(g);
    KL_CUDA_CHECK(ie);
  }
};

KCentersPruned::KCentersPruned(const float* d_points, const float* d_rows, int64_t n, int d,
                               int k, CUstream_st* stream)
    : impl_(std::make_unique<Impl>()) {
  impl_->points = d_points;
  impl_->rows = d_rows;
  impl_->n = n;
  impl_->d = d;
  impl_->k = k;
  impl_->stream = stream;
  impl_->build();
}

KCentersPruned::~KCentersPruned() = default;

double KCentersPruned::run(int64_t firstCenter) {
  Impl& m = *impl_;
  KL_CUDA_CHECK(cudaMemsetAsync(m.dist.get(), 0xFF, m.dist.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.labels.get(), 0xFF, m.labels.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.centers.get(), 0xFF, m.centers.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.radius.get(), 0xFF, m.radius.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.centerDist.get(), 0xFF, m.centerDist.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.visited.get(), 0, m.visited.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.screened.get(), 0, m.screened.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.distanceSums.get(), 0, m.distanceSums.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.hist.get(), 0, m.hist.bytes(), m.stream));
  const int first = static_cast<int>(firstCenter);
  KL_CUDA_CHECK(
      cudaMemcpyAsync(m.centers.get(), &first, sizeof(int), cudaMemcpyHostToDevice, m.stream));
  cuda::EventPair ev;
  ev.start(m.stream);
  KL_CUDA_CHECK(cudaGraphLaunch(m.graph, m.stream));
  ev.stop(m.stream);
  return ev.elapsedMs();
}

namespace {
template <class T>
std::vector<T> download(const cuda::DeviceBuffer<T>& b) {
  std::vector<T> out(b.size());
  KL_CUDA_CHECK(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return out;
}
}  // namespace

std::vector<int64_t> KCentersPruned::centers() const {
  const std::vector<int> c = download(impl_->centers);
  return std::vector<int64_t>(c.begin(), c.end());
}
std::vector<float> KCentersPruned::radii() const { return download(impl_->radius); }
std::vector<int32_t> KCentersPruned::labels() const { return download(impl_->labels); }
std::vector<float> KCentersPruned::distances() const { return download(impl_->dist); }
std::vector<int64_t> KCentersPruned::visited() const {
  const std::vector<unsigned long long> v = download(impl_->visited);
  return std::vector<int64_t>(v.begin(), v.end());
}
std::vector<int64_t> KCentersPruned::screened() const {
  const std::vector<unsigned long long> v = download(impl_->screened);
  return std::vector<int64_t>(v.begin(), v.end());
}
std::vector<int64_t> KCentersPruned::distanceSums() const {
  const std::vector<unsigned long long> v = download(impl_->distanceSums);
  return std::vector<int64_t>(v.begin(), v.end());
}
std::vector<int> KCentersPruned::passes() const {
  // Launch 0 always runs its pass (it also codes the sketch); launch j >= 1 ran one where its
  // plan could not pick center j + 1 (st.active[j], written by every run).
  std::vector<int> p = download(impl_->active);
  if (!p.empty()) p[0] = 1;
  return p;
}
int KCentersPruned::grid() const { return impl_->grid; }
ResourceUsage KCentersPruned::resources() const {
  return cuda::kernelResources(kcentersPrunedKernel<false>, kThreads, impl_->smem);
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// k-centers, pruned variant (issue 15): the best engine's fused launch per center, reading a
// point's coordinates only when the triangle inequality cannot prove that the new center leaves
// it where it is.
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
  float* centerDist;     // K: d^2(center j, center a) for a < j, written by launch j - 1
  unsigned long long* visited;  // K: points whose coordinates launch j read
  unsigned long long* screened; // K: points whose sketch launch j read
  const uint4* codes;           // sketchWords(d) x N words of 16 codes
  const float* sketchErr;       // N: e(x), rounded up
  const float2* scales;         // sketchWords(d) * 16: (lo, step), zeros past D
  const double* slack;          // the sketch's arithmetic slack (sketchArithmeticSlack)
  uint4* encodeCodes;           // the same buffers as codes and sketchErr, written by launch 0
  float* encodeErr;
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
// slack from the sum of the squared ranges.
__global__ void __launch_bounds__(kThreads)
    sketchScaleKernel(const float2* __restrict__ partial, int d, int padded,
                      float2* __restrict__ scales, double* __restrict__ slack) {
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
  }
}

// Code b (0..3) of a word as a float: 0x4B0000bb is 2^23 + code, exactly.
__device__ __forceinline__ float codeOf(unsigned word, int b) {
  return __int_as_float(static_cast<int>(__byte_perm(word, 0x4B000000u, 0x7440u + b))) -
         8388608.0f;
}

// Adds one word's 16 squared differences between the center (as c - lo per dimension, from `cl`)
// and the point's codes to s.
__device__ __forceinline__ float addWord(uint4 v, const float2* cl, float s) {
  const unsigned part[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int t = 0; t < kSketchDims; ++t) {
    const float2 c = cl[t];  // (c - lo, step)
    const float diff = fmaf(-c.y, codeOf(part[t / 4], t % 4), c.x);
    s = fmaf(diff, diff, s);
  }
  return s;
}

// B words loaded before any is used, from word w on.
template <int B>
__device__ __forceinline__ float addWords(const uint4* __restrict__ codes, int64_t n, int64_t i,
                                          int w, const float2* cl, float s) {
  uint4 v[B];
#pragma unroll
  for (int b = 0; b < B; ++b) v[b] = __ldcs(codes + static_cast<int64_t>(w + b) * n + i);
#pragma unroll
  for (int b = 0; b < B; ++b) s = addWord(v[b], cl + (w + b) * kSketchDims, s);
  return s;
}

// The float sum of squared differences between the center and a point's sketch: what the
// sketch test bounds. The time per center is a chain of memory round trips per warp (the
// point's label and distance, its sketch, maybe its coordinates), so the words go in batches
// of 8, then 4, then one at a time: 3 round trips at D = 200 (13 words). With one word in flight
// the screen ran at 0.8 TB/s (H200, 2026-12-02), with 4 at about twice that.
__device__ __forceinline__ float sketchDistance(const uint4* __restrict__ codes, int64_t n,
                                                int64_t i, int words, const float2* cl) {
  float s = 0.f;
  int w = 0;
  for (; w + 8 <= words; w += 8) s = addWords<8>(codes, n, i, w, cl, s);
  if (w + 4 <= words) {
    s = addWords<4>(codes, n, i, w, cl, s);
    w += 4;
  }
  for (; w < words; ++w) s = addWords<1>(codes, n, i, w, cl, s);
  return s;
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
        v[m] = q4 + m < d4 ? __ldcs(r4 + q4 + m) : make_float4(0.f, 0.f, 0.f, 0.f);
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

// Shared memory of kcentersPrunedKernel beyond the center, its sketch grid and the K center
// distances: each thread's labels and distances for a batch of rounds (loaded at once), the queue
// of points whose floats the batch must read (index and old distance each), and two stages of
// kSlice dimensions x 32 points of those floats (the last block's exact center distances reuse
// the prefetch and stage arrays: kKCentersExactBudget floats).
constexpr int kRoundsPerBatch = 8;
constexpr int kQueue = kRoundsPerBatch * kThreads;
constexpr int kSlice = 64;
constexpr int kSliceLoads = kSlice / kWarps;  // a lane's loads per stage
static_assert(kSliceLoads % 4 == 0, "a lane's stage loads are whole 16-byte pieces");
// Up to this many chunks of 32 queued points, the whole block reads each chunk (about 4 round
// trips of all its warps per chunk); more, and each warp reads whole chunks of its own, a lane
// per point (13 round trips per chunk at D = 200, 16 loads in flight, no barrier). Through the
// block every point, center 0 took 567 against 280 us, centers 1-4 1,174 against 940 (Nsight
// Compute, H100, 2026-12-06); a warp per unit of 32 consecutive points (before the queue), the
// last centers waited 13 round trips on the warps holding the new center's own cluster.
constexpr int kBlockChunks = 2;
static_assert(2 * kQueue + 2 * kSlice * 32 >= kKCentersExactBudget,
              "the prefetch and stage arrays hold the exact distances' terms");

__host__ __device__ constexpr size_t prunedSmemBytes(int padded, int k) {
  return static_cast<size_t>(padded) * (sizeof(float2) + sizeof(float)) +
         static_cast<size_t>(k) * sizeof(float) + 4ull * kQueue * 4 +
         2ull * kSlice * 32 * sizeof(float);
}

// 4 blocks of 256 threads per SM: up to 64 registers, for the loads in flight.
//
// Each launch adds center j. Its rounds deal 32-point units to the blocks in turn (a cluster near
// the new center, a contiguous run of points in the seed's data, spreads over many blocks). In a
// batch of rounds each warp tests its points (triangle, then sketch) on its own and queues the
// ones both tests keep. Then the block reads the queued points' floats: where they are many,
// each warp takes whole chunks of 32 of them, a lane per point (every lane busy, where a unit's
// lanes were 40 % busy at centers 1-4); where they are few (the later centers: the new center's
// own cluster and scattered near ties), the whole block reads each chunk together, every warp a
// slice of the dimensions, through shared memory, and one lane per point sums its distance in
// dimension order from there. Either way each distance is the best variant's arithmetic, so the
// bits are the same. Before (each lane reading its own point's 200 floats, 16 loads in flight),
// a warp holding such a point waited 13 round trips while the rest of its block waited on the
// barrier after the loop: at center 60, 2,222 of the 6,500 stall samples were that barrier, the
// average SM active 70 % of the launch (Nsight Compute, H100, 2026-12-06).
// Encode: the first center's instance, which also codes the sketch (its own registers: the
// coding's few spills stay out of the other launches).
template <bool Encode>
__global__ void __launch_bounds__(kThreads, 4)
    kcentersPrunedKernel(const float* __restrict__ X, int64_t n, int d, int j, int k,
                         float margin, float* __restrict__ dist, int* __restrict__ labels,
                         State st) {
  extern __shared__ float2 smem2[];
  const int words = sketchWords(d);
  const int padded = words * kSketchDims;
  float2* cl = smem2;                                    // padded (c - lo, step) pairs
  float* center = reinterpret_cast<float*>(smem2 + padded);  // padded floats
  float* cc = center + padded;                           // k floats
  int* queueIndex = reinterpret_cast<int*>(cc + k);      // kQueue
  float* queueOld = reinterpret_cast<float*>(queueIndex + kQueue);  // kQueue
  float* preOld = queueOld + kQueue;                     // kRoundsPerBatch x kThreads
  int* preLabel = reinterpret_cast<int*>(preOld + kQueue);  // kRoundsPerBatch x kThreads
  float* stage = reinterpret_cast<float*>(preLabel + kQueue);  // 2 x kSlice x 32
  float* terms = preOld;  // the last block's exact distances: kKCentersExactBudget floats
  __shared__ float wv[kWarps];
  __shared__ int wi[kWarps];
  __shared__ unsigned long long visitedS, screenedS;
  __shared__ int queued;
  __shared__ bool lastBlock;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int c = st.centers[j];
  const bool valid = c >= 0 && c < n;
  // The center's coordinates: from the chosen centers' table (contiguous, written by the last
  // launch, NaN for an invalid index as below) after the first; the first's from the points.
  const float* row = j > 0 ? st.centerRows + static_cast<int64_t>(j) * d : nullptr;
  for (int q = threadIdx.x; q < padded; q += blockDim.x)
    center[q] = q >= d ? 0.f
                : row  ? __ldcg(row + q)
                : (valid ? X[static_cast<int64_t>(q) * n + c] : __int_as_float(0x7fffffff));
  if (j > 0) {  // the triangle test's distances (clustering_pruning.h)
    const bool measured = kcentersExactCenterDistances(j, d);
    const float rho2 = __ldcg(st.radius + j - 1);
    for (int a = threadIdx.x; a < j; a += blockDim.x)
      cc[a] = kcentersCenterBound(measured ? __ldcg(st.centerDist + a) : 0.f, measured, rho2);
  }
  if (threadIdx.x == 0) {
    visitedS = screenedS = 0ull;
    queued = 0;
  }
  __syncthreads();
  for (int q = threadIdx.x; q < padded; q += blockDim.x) {
    const float2 sc = st.scales[q];
    cl[q] = make_float2(center[q] - sc.x, sc.y);  // past D: 0 - 0, step 0
  }
  __syncthreads();

  float bestV = -1.0f;
  int bestI = INT_MAX;
  unsigned visited = 0, screened = 0;
  const int64_t units = (n + 31) / 32;
  const int64_t rounds = (units + static_cast<int64_t>(gridDim.x) * kWarps - 1) /
                         (static_cast<int64_t>(gridDim.x) * kWarps);
  const int slices = (d + kSlice - 1) / kSlice;
  for (int64_t r0 = 0; r0 < rounds; r0 += kRoundsPerBatch) {  // block-uniform
    const int64_t r1 = r0 + kRoundsPerBatch < rounds ? r0 + kRoundsPerBatch : rounds;
    // Every round's label and distance at once (one round trip where a round at a time took one
    // each: 8 per launch at N = 1e6 even where the triangle test skips every point), kept in this
    // thread's own slots of shared memory.
    if (j > 0) {
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
      bool read = false;
      float old = 0.f;
      if (i < n) {
        const int slot = static_cast<int>(r - r0) * kThreads + threadIdx.x;
        old = j > 0 ? preOld[slot] : 0.f;
        const int a = j > 0 ? preLabel[slot] : 0;
        read = j == 0 || a < 0 || a >= j || !kcentersSkips(cc[a], old, margin);
        if (read && j > 0) {  // the triangle could not decide: the sketch
          ++screened;
          read = !kcentersSketchSkips(sketchDistance(st.codes, n, i, words, cl),
                                      st.sketchErr[i], old, margin);
        }
        if (!read && farther(old, static_cast<int>(i), bestV, bestI)) {
          bestV = old;
          bestI = static_cast<int>(i);
        }
      }
      const unsigned want = __ballot_sync(0xffffffffu, read);
      if (want) {
        int base = 0;
        if (lane == 0) base = atomicAdd(&queued, __popc(want));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (read) {
          const int e = base + __popc(want & ((1u << lane) - 1u));
          queueIndex[e] = static_cast<int>(i);
          queueOld[e] = old;
        }
      }
    }
    __syncthreads();
    const int count = queued;
    const int chunks = (count + 31) / 32;
    if (chunks > kBlockChunks || Encode) {  // many (or the sketch to code): a warp per chunk
      for (int chunk = warp; chunk < chunks; chunk += kWarps) {  // warp-uniform
        const int e = chunk * 32 + lane;
        const int p = e < count ? queueIndex[e] : -1;
        const bool dense = Encode || denseChunk(p, st.rows != nullptr);
        if (p < 0) continue;
        const float sum = Encode  ? columnDistanceEncode(X, n, p, d, center, st)
                          : dense ? columnDistance(X, n, p, d, center)
                                  : rowDistance(st.rows + static_cast<int64_t>(p) * d, d, center);
        const float old = queueOld[e];
        float m = old;
        if (j == 0 || sum < old) {
          dist[p] = sum;
          labels[p] = j;
          m = sum;
        }
        ++visited;
        if (farther(m, p, bestV, bestI)) {
          bestV = m;
          bestI = p;
        }
      }
    }
    // Few: step s reads slice s % slices of chunk s / slices (32 queued points) into stage
    // s & 1, a lane per point: from the columns every warp kSliceLoads dimensions kWarps apart
    // (whole lines for contiguous points), from the rows (scattered points, denseChunk) every warp
    // kSliceLoads consecutive ones; chunk c's distances are summed by warp c % kWarps while the
    // next step's loads are in flight.
    const int steps = chunks > kBlockChunks || Encode ? 0 : chunks * slices;
    float v[kSliceLoads];
    bool vDense = true;  // how v was loaded (the same in every warp: the chunk decides)
    const auto load = [&](int s) {
      const int e = s / slices * 32 + lane;
      const int q0 = s % slices * kSlice;
      const int qb = q0 + warp * kSliceLoads;
      const int p = e < count ? queueIndex[e] : -1;
      vDense = denseChunk(p, st.rows != nullptr);
      const float* r = st.rows + static_cast<int64_t>(p < 0 ? 0 : p) * d;
      if (vDense) {
#pragma unroll
        for (int m = 0; m < kSliceLoads; ++m) {
          const int q = q0 + warp + kWarps * m;
          v[m] = p >= 0 && q < d ? __ldcs(X + static_cast<int64_t>(q) * n + p) : 0.f;
        }
      } else if (d % 4 == 0) {  // qb and d multiples of 4: whole 16-byte pieces
#pragma unroll
        for (int m = 0; m < kSliceLoads; m += 4) {
          const float4 t = p >= 0 && qb + m < d ? __ldcs(reinterpret_cast<const float4*>(r + qb + m))
                                                : make_float4(0.f, 0.f, 0.f, 0.f);
          v[m] = t.x;
          v[m + 1] = t.y;
          v[m + 2] = t.z;
          v[m + 3] = t.w;
        }
      } else {
#pragma unroll
        for (int m = 0; m < kSliceLoads; ++m)
          v[m] = p >= 0 && qb + m < d ? __ldcs(r + qb + m) : 0.f;
      }
    };
    const auto store = [&](int s) {
      float* buf = stage + (s & 1) * (kSlice * 32);
#pragma unroll
      for (int m = 0; m < kSliceLoads; ++m)
        buf[(vDense ? warp + kWarps * m : warp * kSliceLoads + m) * 32 + lane] = v[m];
    };
    if (steps > 0) {
      load(0);
      store(0);
    }
    __syncthreads();
    float sum = 0.f;
    for (int s = 0; s < steps; ++s) {
      const bool more = s + 1 < steps;
      if (more) load(s + 1);
      const int chunk = s / slices, slice = s % slices;
      if (warp == chunk % kWarps) {
        const float* buf = stage + (s & 1) * (kSlice * 32);
        const int q0 = slice * kSlice;
        const int qn = d - q0 < kSlice ? d - q0 : kSlice;
        if (slice == 0) sum = 0.f;
#pragma unroll 8
        for (int t = 0; t < qn; ++t) {  // the best variant's arithmetic: one FMA per dimension
          const float diff = center[q0 + t] - buf[t * 32 + lane];
          sum = fmaf(diff, diff, sum);
        }
        const int e = chunk * 32 + lane;
        if (slice == slices - 1 && e < count) {
          const int p = queueIndex[e];
          const float old = queueOld[e];
          float m = old;
          if (j == 0 || sum < old) {
            dist[p] = sum;
            labels[p] = j;
            m = sum;
          }
          ++visited;
          if (farther(m, p, bestV, bestI)) {
            bestV = m;
            bestI = p;
          }
        }
      }
      if (more) store(s + 1);
      __syncthreads();
    }
    if (threadIdx.x == 0) queued = 0;
    __syncthreads();
  }
  for (int o = 16; o > 0; o >>= 1) {
    visited += __shfl_xor_sync(0xffffffffu, visited, o);
    screened += __shfl_xor_sync(0xffffffffu, screened, o);
  }
  if (lane == 0 && visited) atomicAdd(&visitedS, static_cast<unsigned long long>(visited));
  if (lane == 0 && screened) atomicAdd(&screenedS, static_cast<unsigned long long>(screened));

  blockFarthest<kWarps>(bestV, bestI, wv, wi);  // (its barrier also orders visitedS)
  if (threadIdx.x == 0) {
    st.blockValue[blockIdx.x] = bestV;
    st.blockIndex[blockIdx.x] = bestI;
    if (visitedS) atomicAdd(st.visited + j, visitedS);
    if (screenedS) atomicAdd(st.screened + j, screenedS);
    __threadfence();
    lastBlock = atomicAdd(st.arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;

  float bv = -1.0f;
  int bi = INT_MAX;
  for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    const float ov = __ldcg(st.blockValue + b);
    const int oi = __ldcg(st.blockIndex + b);
    if (farther(ov, oi, bv, bi)) {
      bv = ov;
      bi = oi;
    }
  }
  __syncthreads();
  blockFarthest<kWarps>(bv, bi, wv, wi);
  __shared__ int nextS;
  if (threadIdx.x == 0) {
    st.radius[j] = bv;
    if (j + 1 < k) st.centers[j + 1] = bi;
    nextS = bi;
    *st.arrivals = 0u;
  }
  __syncthreads();
  if (j == 0)  // the first center's row, for the distances below
    for (int q = threadIdx.x; q < d; q += blockDim.x) st.centerRows[q] = center[q];
  if (j + 1 >= k) return;
  // The next center's coordinates (into `center`: this block is done with it) and, while the
  // K x D values are few (clustering_pruning.h), its squared distances to centers 0..j.
  const int next = nextS;
  const bool nextValid = next >= 0 && next < n;
  __syncthreads();
  for (int q = threadIdx.x; q < d; q += blockDim.x) {
    const float x = nextValid ? X[static_cast<int64_t>(q) * n + next] : __int_as_float(0x7fffffff);
    center[q] = x;
    st.centerRows[static_cast<int64_t>(j + 1) * d + q] = x;
  }
  if (!kcentersExactCenterDistances(j + 1, d)) return;
  __syncthreads();
  // Every difference at once (element e = a D + q of the contiguous table, 16 loads in flight per
  // thread), into the stages; then one thread per center sums its D squares in dimension order
  // (float, like the points' distances: the test's margin covers its rounding).
  const int total = (j + 1) * d;
  for (int e0 = threadIdx.x; e0 < total; e0 += kThreads * 16) {
    float u[16];
#pragma unroll
    for (int m = 0; m < 16; ++m) {
      const int e = e0 + kThreads * m;
      u[m] = e < total ? __ldcg(st.centerRows + e) : 0.f;
    }
#pragma unroll
    for (int m = 0; m < 16; ++m) {
      const int e = e0 + kThreads * m;
      if (e < total) terms[e] = center[e % d] - u[m];
    }
  }
  __syncthreads();
  for (int a = threadIdx.x; a <= j; a += blockDim.x) {
    float s = 0.f;
    for (int q = 0; q < d; ++q) {
      const float t = terms[a * d + q];
      s = fmaf(t, t, s);
    }
    st.centerDist[a] = s;
  }
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
  cuda::DeviceBuffer<unsigned long long> visited, screened;
  cuda::DeviceBuffer<uint4> codes;
  cuda::DeviceBuffer<float> sketchErr;
  const float* rows = nullptr;  // the caller's point-major points, or null
  cuda::DeviceBuffer<float2> scales, rangePartial;
  cuda::DeviceBuffer<double> slack;
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
    smem = prunedSmemBytes(static_cast<int>(padded), k);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    if (smem + 256 > static_cast<size_t>(optin))
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
    centerDist.allocate(static_cast<size_t>(k));
    visited.allocate(static_cast<size_t>(k));
    screened.allocate(static_cast<size_t>(k));
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

    const State st{centers.get(),    radius.get(),     blockValue.get(), blockIndex.get(),
                   arrivals.get(),   centerRows.get(), centerDist.get(), visited.get(),
                   screened.get(),   codes.get(),      sketchErr.get(),  scales.get(),
                   slack.get(),      codes.get(),      sketchErr.get(),  rows};
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
                                                  scales.get(), slack.get());
    captured(cudaGetLastError());
    for (int j = 0; j < k; ++j) {  // the first also codes the sketch
      (j == 0 ? kcentersPrunedKernel<true> : kcentersPrunedKernel<false>)<<<grid, kThreads, smem,
                                                                           stream>>>(
          points, n, d, j, k, margin, dist.get(), labels.get(), st);
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
int KCentersPruned::grid() const { return impl_->grid; }
ResourceUsage KCentersPruned::resources() const {
  return cuda::kernelResources(kcentersPrunedKernel<false>, kThreads, impl_->smem);
}

}  // namespace kernellab::clustering::best

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
// read their sketch are counted too (`screened`). The sketch is built at the start of every run
// (one read of the points for their ranges, one to code them), inside the timed graph.
//
// The squared distances from the new center to the earlier ones (K values, in double) are computed
// by the last block of the previous launch, which also copies the new center's coordinates into a
// K x D table of the chosen centers; each launch counts the points it visited (the share of
// coordinates read, per center).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
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
};

constexpr int kRangeBlocks = 64;  // blocks per dimension of the range pass

// The sketch's first pass: block (b, q) folds the finite minimum and maximum of its share of
// dimension q (one contiguous row of the dimension-major points).
__global__ void __launch_bounds__(kThreads)
    sketchRangeKernel(const float* __restrict__ X, int64_t n, int d, float2* __restrict__ partial) {
  __shared__ float2 w[kWarps];
  for (int q = blockIdx.y; q < d; q += gridDim.y) {  // (grid.y stops at 65535 dimensions)
    const float* row = X + static_cast<int64_t>(q) * n;
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * kThreads) {
      const float x = __ldcs(row + i);
      if (sketchFinite(x)) {
        lo = fminf(lo, x);
        hi = fmaxf(hi, x);
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

// The sketch's second pass, a thread per point: its codes, 16 to a word, and its error bound.
__global__ void __launch_bounds__(kThreads)
    sketchEncodeKernel(const float* __restrict__ X, int64_t n, int d,
                       const float2* __restrict__ scales, const double* __restrict__ slack,
                       uint4* __restrict__ codes, float* __restrict__ err) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  double e2 = 0.0;
  bool finite = true;
  const int words = sketchWords(d);
  for (int w = 0; w < words; ++w) {
    unsigned packed[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int t = 0; t < kSketchDims; ++t) {
      const int q = w * kSketchDims + t;
      if (q < d) {
        const float x = __ldcs(X + static_cast<int64_t>(q) * n + i);
        const float2 sc = scales[q];
        const SketchScale s{sc.x, sc.y};
        const unsigned c = sketchCode(x, s);
        finite = finite && sketchFinite(x);
        e2 += sketchSquaredError(x, c, s);
        packed[t / 4] |= c << (8 * (t % 4));
      }
    }
    codes[static_cast<int64_t>(w) * n + i] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
  }
  err[i] = sketchErrorBound(e2, *slack, finite);
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

// 4 blocks of 256 threads per SM: up to 64 registers, for the loads in flight above and below.
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
  __shared__ float wv[kWarps];
  __shared__ int wi[kWarps];
  __shared__ unsigned long long visitedS, screenedS;
  __shared__ bool lastBlock;
  const int c = st.centers[j];
  const bool valid = c >= 0 && c < n;
  // The center's coordinates: from the chosen centers' table (contiguous, written by the last
  // launch, NaN for an invalid index as below) after the first; the first's from the points.
  const float* row = j > 0 ? st.centerRows + static_cast<int64_t>(j) * d : nullptr;
  for (int q = threadIdx.x; q < padded; q += blockDim.x)
    center[q] = q >= d ? 0.f
                : row  ? __ldcg(row + q)
                : (valid ? X[static_cast<int64_t>(q) * n + c] : __int_as_float(0x7fffffff));
  for (int a = threadIdx.x; a < j; a += blockDim.x) cc[a] = st.centerDist[a];
  if (threadIdx.x == 0) visitedS = screenedS = 0ull;
  __syncthreads();
  for (int q = threadIdx.x; q < padded; q += blockDim.x) {
    const float2 sc = st.scales[q];
    cl[q] = make_float2(center[q] - sc.x, sc.y);  // past D: 0 - 0, step 0
  }
  __syncthreads();

  float bestV = -1.0f;
  int bestI = INT_MAX;
  unsigned visited = 0, screened = 0;
  // Units of 32 consecutive points (a warp's coalesced loads) are dealt to the blocks in turn,
  // not 256 at a time: the work is where the clusters near the new center are, contiguous runs of
  // points (the seed's clusters), and with a block's 256 consecutive points per pass a few SMs got
  // them all: at center 60 the average SM was active 56 % of the launch, the busiest 94 % (Nsight
  // Compute, H100, 2026-12-05). Dealt by 32, a run of 10,000 points spreads over 313 blocks.
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t unit = static_cast<int64_t>(threadIdx.x / 32) * gridDim.x + blockIdx.x;
  for (int64_t i = unit * 32 + threadIdx.x % 32; i < n; i += stride) {
    float m;
    const float old = j > 0 ? dist[i] : 0.f;
    const int a = j > 0 ? labels[i] : 0;
    bool read = j == 0 || a < 0 || a >= j || !kcentersSkips(cc[a], old, margin);
    if (read && j > 0) {  // the triangle could not decide: the sketch
      ++screened;
      read = !kcentersSketchSkips(sketchDistance(st.codes, n, i, words, cl), st.sketchErr[i], old,
                                  margin);
    }
    if (read) {
      ++visited;
      float s = 0.f;  // the best variant's arithmetic: dimension 0 first, one FMA per dimension
      // 16 loads in flight: a point read here is often alone in its warp (its neighbours were
      // skipped), so its 200 loads are a chain of round trips, 13 instead of 25 at unroll 8.
#pragma unroll 16
      for (int q = 0; q < d; ++q) {
        const float t = center[q] - __ldcs(X + static_cast<int64_t>(q) * n + i);
        s = fmaf(t, t, s);
      }
      if (j == 0 || s < old) {
        dist[i] = s;
        labels[i] = j;
        m = s;
      } else {
        m = old;
      }
    } else {
      m = old;
    }
    if (farther(m, static_cast<int>(i), bestV, bestI)) {
      bestV = m;
      bestI = static_cast<int>(i);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    visited += __shfl_xor_sync(0xffffffffu, visited, o);
    screened += __shfl_xor_sync(0xffffffffu, screened, o);
  }
  if ((threadIdx.x & 31) == 0 && visited) atomicAdd(&visitedS, static_cast<unsigned long long>(visited));
  if ((threadIdx.x & 31) == 0 && screened)
    atomicAdd(&screenedS, static_cast<unsigned long long>(screened));

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

  float v = -1.0f;
  int idx = INT_MAX;
  for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    const float bv = __ldcg(st.blockValue + b);
    const int bi = __ldcg(st.blockIndex + b);
    if (farther(bv, bi, v, idx)) {
      v = bv;
      idx = bi;
    }
  }
  __syncthreads();
  blockFarthest<kWarps>(v, idx, wv, wi);
  __shared__ int nextS;
  if (threadIdx.x == 0) {
    st.radius[j] = v;
    if (j + 1 < k) st.centers[j + 1] = idx;
    nextS = idx;
    *st.arrivals = 0u;
  }
  __syncthreads();
  if (j == 0)  // the first center's row, for the distances below
    for (int q = threadIdx.x; q < d; q += blockDim.x) st.centerRows[q] = center[q];
  if (j + 1 >= k) return;
  // The next center's coordinates (into `center`: this block is done with it) and its squared
  // distances to centers 0..j, in double, for launch j + 1.
  const int next = nextS;
  const bool nextValid = next >= 0 && next < n;
  __syncthreads();
  for (int q = threadIdx.x; q < d; q += blockDim.x) {
    const float x = nextValid ? X[static_cast<int64_t>(q) * n + next] : __int_as_float(0x7fffffff);
    center[q] = x;
    st.centerRows[static_cast<int64_t>(j + 1) * d + q] = x;
  }
  __threadfence_block();
  __syncthreads();
  // The whole GPU waits for this block: a warp takes one earlier center at a time with every
  // load of its first 256 dimensions in flight (one L2 round trip per center, where a loop over
  // the dimensions waited 7 times per center at D = 200, up to 13 centers per warp). Two centers
  // at a time spilled registers in the loop over the points above (the kernel's cap is 64).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int a = warp; a <= j; a += kWarps) {
    const float* row = st.centerRows + static_cast<int64_t>(a) * d;
    constexpr int kStaged = 8;
    float v[kStaged];
#pragma unroll
    for (int t = 0; t < kStaged; ++t) {
      const int q = lane + 32 * t;
      v[t] = q < d ? __ldcg(row + q) : 0.f;
    }
    double s = 0.0;  // each lane's dimensions in increasing order, as before
#pragma unroll
    for (int t = 0; t < kStaged; ++t) {
      const int q = lane + 32 * t;
      if (q < d) {
        const double u = double(center[q]) - double(v[t]);
        s = fma(u, u, s);
      }
    }
    for (int q = lane + 32 * kStaged; q < d; q += 32) {
      const double u = double(center[q]) - double(__ldcg(row + q));
      s = fma(u, u, s);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) st.centerDist[a] = static_cast<float>(s);
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
  cuda::DeviceBuffer<float2> scales, rangePartial;
  cuda::DeviceBuffer<double> slack;
  cudaGraphExec_t graph = nullptr;

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
  }

  void build() {
    margin = kcentersSkipMargin(d);
    const size_t padded = static_cast<size_t>(sketchWords(d)) * kSketchDims;
    smem = padded * sizeof(float2) + (padded + size_t(k)) * sizeof(float);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    if (smem + 256 > static_cast<size_t>(optin))
      throw InputError("pruned k-centers stages the center, its sketch grid and its distances to "
                       "the earlier centers in shared memory: D = " + std::to_string(d) + ", K = " +
                       std::to_string(k) + " need " + std::to_string(smem) +
                       " bytes, this GPU allows " + std::to_string(optin) + " per block");
    if (smem > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(kcentersPrunedKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kcentersPrunedKernel,
                                                                kThreads, smem));
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
    scales.allocate(padded);
    rangePartial.allocate(static_cast<size_t>(d) * kRangeBlocks);
    slack.allocate(1);
    arrivals.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, sizeof(unsigned), stream));

    const State st{centers.get(),    radius.get(),     blockValue.get(), blockIndex.get(),
                   arrivals.get(),   centerRows.get(), centerDist.get(), visited.get(),
                   screened.get(),   codes.get(),      sketchErr.get(),  scales.get()};
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
    sketchEncodeKernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0,
                         stream>>>(points, n, d, scales.get(), slack.get(), codes.get(),
                                   sketchErr.get());
    captured(cudaGetLastError());
    for (int j = 0; j < k; ++j) {
      kcentersPrunedKernel<<<grid, kThreads, smem, stream>>>(points, n, d, j, k, margin,
                                                              dist.get(), labels.get(), st);
      captured(cudaGetLastError());
    }
    KL_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    const cudaError_t ie = cudaGraphInstantiate(&graph, g, 0);
    cudaGraphDestroy(g);
    KL_CUDA_CHECK(ie);
  }
};

KCentersPruned::KCentersPruned(const float* d_points, int64_t n, int d, int k,
                               CUstream_st* stream)
    : impl_(std::make_unique<Impl>()) {
  impl_->points = d_points;
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
  return cuda::kernelResources(kcentersPrunedKernel, kThreads, impl_->smem);
}

}  // namespace kernellab::clustering::best

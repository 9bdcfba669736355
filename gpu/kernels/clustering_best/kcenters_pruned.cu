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
};

__global__ void __launch_bounds__(kThreads)
    kcentersPrunedKernel(const float* __restrict__ X, int64_t n, int d, int j, int k,
                         float margin, float* __restrict__ dist, int* __restrict__ labels,
                         State st) {
  extern __shared__ float smem[];
  const int padded = (d + 7) / 8 * 8;
  float* center = smem;          // padded floats
  float* cc = smem + padded;     // k floats
  __shared__ float wv[kWarps];
  __shared__ int wi[kWarps];
  __shared__ unsigned long long visitedS;
  __shared__ bool lastBlock;
  const int c = st.centers[j];
  const bool valid = c >= 0 && c < n;
  for (int q = threadIdx.x; q < padded; q += blockDim.x)
    center[q] = q >= d ? 0.f : (valid ? X[static_cast<int64_t>(q) * n + c] : __int_as_float(0x7fffffff));
  for (int a = threadIdx.x; a < j; a += blockDim.x) cc[a] = st.centerDist[a];
  if (threadIdx.x == 0) visitedS = 0ull;
  __syncthreads();

  float bestV = -1.0f;
  int bestI = INT_MAX;
  unsigned visited = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float m;
    const float old = j > 0 ? dist[i] : 0.f;
    const int a = j > 0 ? labels[i] : 0;
    if (j == 0 || !kcentersSkips(cc[a >= 0 && a < j ? a : 0], old, margin) || a < 0 || a >= j) {
      ++visited;
      float s = 0.f;  // the best variant's arithmetic: dimension 0 first, one FMA per dimension
#pragma unroll 8
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
  for (int o = 16; o > 0; o >>= 1) visited += __shfl_xor_sync(0xffffffffu, visited, o);
  if ((threadIdx.x & 31) == 0 && visited) atomicAdd(&visitedS, static_cast<unsigned long long>(visited));

  blockFarthest<kWarps>(bestV, bestI, wv, wi);  // (its barrier also orders visitedS)
  if (threadIdx.x == 0) {
    st.blockValue[blockIdx.x] = bestV;
    st.blockIndex[blockIdx.x] = bestI;
    if (visitedS) atomicAdd(st.visited + j, visitedS);
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
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int a = warp; a <= j; a += kWarps) {
    const float* row = st.centerRows + static_cast<int64_t>(a) * d;
    double s = 0.0;
    for (int q = lane; q < d; q += 32) {
      const double t = double(center[q]) - double(__ldcg(row + q));
      s = fma(t, t, s);
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
  cuda::DeviceBuffer<unsigned long long> visited;
  cudaGraphExec_t graph = nullptr;

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
  }

  void build() {
    margin = kcentersSkipMargin(d);
    smem = (static_cast<size_t>((d + 7) / 8 * 8) + size_t(k)) * sizeof(float);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    if (smem + 256 > static_cast<size_t>(optin))
      throw InputError("pruned k-centers stages the center and its distances to the earlier "
                       "centers in shared memory: D = " + std::to_string(d) + ", K = " +
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
    arrivals.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, sizeof(unsigned), stream));

    const State st{centers.get(),    radius.get(),     blockValue.get(), blockIndex.get(),
                   arrivals.get(),   centerRows.get(), centerDist.get(), visited.get()};
    cudaGraph_t g = nullptr;
    KL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int j = 0; j < k; ++j) {
      kcentersPrunedKernel<<<grid, kThreads, smem, stream>>>(points, n, d, j, k, margin,
                                                              dist.get(), labels.get(), st);
      const cudaError_t e = cudaGetLastError();
      if (e != cudaSuccess) {
        cudaStreamEndCapture(stream, &g);
        if (g) cudaGraphDestroy(g);
        KL_CUDA_CHECK(e);
      }
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
int KCentersPruned::grid() const { return impl_->grid; }
ResourceUsage KCentersPruned::resources() const {
  return cuda::kernelResources(kcentersPrunedKernel, kThreads, impl_->smem);
}

}  // namespace kernellab::clustering::best

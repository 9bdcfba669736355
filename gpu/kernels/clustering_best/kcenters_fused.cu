// SPDX-License-Identifier: MIT
// k-centers, best variant: one fused launch per center, the whole run one CUDA graph.
//
// Per launch j every point reads its D coordinates once (a warp reads 128 contiguous bytes of a
// dimension per load), adds up its squared distance to center j,
// keeps it when it is below its distance to the earlier centers, and joins the block's farthest-
// point reduction (warp shuffles). The last block to finish (a ticket counter behind a
// __threadfence, as in the CUDA samples' threadFenceReduction) folds the blocks' candidates and
// writes center j + 1 and radius j in device memory, where launch j + 1 reads them: no host
// round trip between centers. Limiter: DRAM bandwidth, K passes of N * D * 4 bytes.
//
// The distance is summed in the same order, with the same fused multiply-adds, as the seed
// kernels (dimension 0 first), so every variant sees the same floats and picks the same centers;
// ties go to the lowest point index, and a point at equal distance keeps the earlier center.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "best_engines.h"
#include "farthest.cuh"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"

namespace kernellab::clustering::best {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

struct State {
  int* centers;        // K point indices; [0] set by the host, [j + 1] by launch j
  float* radius;       // K
  float* blockValue;   // one candidate per block of the grid
  int* blockIndex;
  unsigned* arrivals;  // ticket counter, reset by the last block
};

// Keeps point i's distance `a` when below its earlier one; returns its distance now.
__device__ __forceinline__ float keepNearest(float a, float old, int64_t i, int j, int* labels,
                                             float* dist) {
  if (j == 0 || a < old) {
    dist[i] = a;
    labels[i] = j;
    return a;
  }
  return old;
}

// One point per thread at a time, grid-stride over a persistent grid: a warp reads 128
// contiguous bytes of a dimension per load. Measured on the H200 faster than four points per
// thread with 16-byte loads (18.5 vs 21.7 ms for K = 100 centers of N = 1e6 x D = 200), and
// the persistent grid faster than one block per 256 points (18.5 vs 18.9 ms).
__global__ void __launch_bounds__(kThreads) kcentersFusedKernel(const float* __restrict__ X,
                                                                int64_t n, int d, int j, int k,
                                                                float* __restrict__ dist,
                                                                int* __restrict__ labels,
                                                                State st) {
  extern __shared__ float center[];
  __shared__ float wv[kWarps];
  __shared__ int wi[kWarps];
  __shared__ bool lastBlock;
  const int c = st.centers[j];
  const bool valid = c >= 0 && c < n;  // never read outside X, even if a center went missing
  // The staged center is padded to a multiple of 8 floats: the unrolled loop below may read it
  // with 16-byte loads (compute-sanitizer caught an 8-byte overrun at D = 2 without the pad).
  const int padded = (d + 7) / 8 * 8;
  for (int q = threadIdx.x; q < padded; q += blockDim.x)
    center[q] = q >= d ? 0.f : (valid ? X[static_cast<int64_t>(q) * n + c] : __int_as_float(0x7fffffff));
  __syncthreads();

  float bestV = -1.0f;  // below every squared distance: a thread without points never wins
  int bestI = INT_MAX;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float a = 0.f;
#pragma unroll 8
    for (int q = 0; q < d; ++q) {
      const float t = center[q] - __ldcs(X + static_cast<int64_t>(q) * n + i);  // streamed once
      a = fmaf(t, t, a);
    }
    const float m = keepNearest(a, j > 0 ? dist[i] : 0.f, i, j, labels, dist);
    if (farther(m, static_cast<int>(i), bestV, bestI)) {
      bestV = m;
      bestI = static_cast<int>(i);
    }
  }

  blockFarthest<kWarps>(bestV, bestI, wv, wi);
  if (threadIdx.x == 0) {
    st.blockValue[blockIdx.x] = bestV;
    st.blockIndex[blockIdx.x] = bestI;
    __threadfence();  // the candidate is visible device-wide before the ticket is taken
    lastBlock = atomicAdd(st.arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;

  // The last block: every other block's candidate is written (their fences preceded their
  // tickets). Read them from L2 (__ldcg), not a possibly stale L1.
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
  __syncthreads();  // wv/wi are reused
  blockFarthest<kWarps>(v, idx, wv, wi);
  if (threadIdx.x == 0) {
    st.radius[j] = v;
    if (j + 1 < k) st.centers[j + 1] = idx;
    *st.arrivals = 0u;  // ready for launch j + 1
  }
}

}  // namespace

struct KCentersFused::Impl {
  const float* points;
  int64_t n;
  int d;
  int k;
  cudaStream_t stream;
  int grid = 0;
  size_t smem = 0;
  cuda::DeviceBuffer<float> dist;
  cuda::DeviceBuffer<int> labels;
  cuda::DeviceBuffer<int> centers;
  cuda::DeviceBuffer<float> radius;
  cuda::DeviceBuffer<float> blockValue;
  cuda::DeviceBuffer<int> blockIndex;
  cuda::DeviceBuffer<unsigned> arrivals;
  cudaGraphExec_t graph = nullptr;

  using Kernel = void (*)(const float*, int64_t, int, int, int, float*, int*, State);
  static Kernel kernel() { return kcentersFusedKernel; }

  ~Impl() {
    if (graph) cudaGraphExecDestroy(graph);
  }

  void build() {
    smem = static_cast<size_t>((d + 7) / 8 * 8) * sizeof(float);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    if (smem + 64 > static_cast<size_t>(optin))
      throw InputError("best k-centers stages the center in shared memory: D = " +
                       std::to_string(d) + " needs " + std::to_string(smem) +
                       " bytes, this GPU allows " + std::to_string(optin) + " per block");
    if (smem > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel(), kThreads, smem));
    // A persistent grid: every resident block streams a share of the points.
    const int64_t needed = (n + kThreads - 1) / kThreads;
    grid = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(needed, int64_t(sms) * std::max(1, perSM))));
    dist.allocate(static_cast<size_t>(n));
    labels.allocate(static_cast<size_t>(n));
    centers.allocate(static_cast<size_t>(k));
    radius.allocate(static_cast<size_t>(k));
    blockValue.allocate(static_cast<size_t>(grid));
    blockIndex.allocate(static_cast<size_t>(grid));
    arrivals.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, sizeof(unsigned), stream));

    // Capture the K launches once; run() replays them.
    const State st{centers.get(), radius.get(), blockValue.get(), blockIndex.get(), arrivals.get()};
    cudaGraph_t g = nullptr;
    KL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int j = 0; j < k; ++j) {
      kernel()<<<grid, kThreads, smem, stream>>>(points, n, d, j, k, dist.get(), labels.get(), st);
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

KCentersFused::KCentersFused(const float* d_points, int64_t n, int d, int k, CUstream_st* stream)
    : impl_(std::make_unique<Impl>()) {
  impl_->points = d_points;
  impl_->n = n;
  impl_->d = d;
  impl_->k = k;
  impl_->stream = stream;
  impl_->build();
}

KCentersFused::~KCentersFused() = default;

double KCentersFused::run(int64_t firstCenter) {
  Impl& m = *impl_;
  // Poison: NaN distances and radii, -1 labels and centers; a launch that wrote nothing shows.
  KL_CUDA_CHECK(cudaMemsetAsync(m.dist.get(), 0xFF, m.dist.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.labels.get(), 0xFF, m.labels.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.centers.get(), 0xFF, m.centers.bytes(), m.stream));
  KL_CUDA_CHECK(cudaMemsetAsync(m.radius.get(), 0xFF, m.radius.bytes(), m.stream));
  const int first = static_cast<int>(firstCenter);
  KL_CUDA_CHECK(cudaMemcpyAsync(m.centers.get(), &first, sizeof(int), cudaMemcpyHostToDevice, m.stream));
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

std::vector<int64_t> KCentersFused::centers() const {
  const std::vector<int> c = download(impl_->centers);
  return std::vector<int64_t>(c.begin(), c.end());
}
std::vector<float> KCentersFused::radii() const { return download(impl_->radius); }
std::vector<int32_t> KCentersFused::labels() const { return download(impl_->labels); }
std::vector<float> KCentersFused::distances() const { return download(impl_->dist); }

int KCentersFused::grid() const { return impl_->grid; }

ResourceUsage KCentersFused::resources() const {
  return cuda::kernelResources(reinterpret_cast<const void*>(impl_->kernel()), kThreads, impl_->smem);
}

}  // namespace kernellab::clustering::best

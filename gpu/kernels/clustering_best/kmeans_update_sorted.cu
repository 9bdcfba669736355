// SPDX-License-Identifier: MIT
// The centroid update by label (kmeans_update_sorted.cuh says what and why).
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "kernellab/errors.h"
#include "cuda/kernel_resources.h"
#include "kmeans_update_sorted.cuh"

namespace kernellab::clustering::best {
namespace {

constexpr int kSortThreads = 1024;
constexpr int kMaxChunk = 2048;  // points per work item of the sums, at most
constexpr size_t kScanStageBytes = 160 * 1024;  // counts scanned in shared memory up to this size

// Counts per label of the block's contiguous range of points (shared-memory atomics), written
// label-major: hist[l * blocks + b].
__global__ void __launch_bounds__(kSortThreads)
    labelHistogramKernel(const int* __restrict__ labels, int64_t n, int k, int64_t perBlock,
                         int* __restrict__ hist) {
  extern __shared__ int h[];
  for (int l = threadIdx.x; l < k; l += blockDim.x) h[l] = 0;
  __syncthreads();
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * perBlock;
  const int64_t end = begin + perBlock < n ? begin + perBlock : n;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const int l = __ldg(labels + i);
    if (l >= 0 && l < k) atomicAdd(h + l, 1);
  }
  __syncthreads();
  for (int l = threadIdx.x; l < k; l += blockDim.x) hist[static_cast<int64_t>(l) * gridDim.x + blockIdx.x] = h[l];
}

// Exclusive prefix sum of a[0..len) in place by one block; returns the total on every thread.
__device__ int64_t blockScanInPlace(int* a, int64_t len, int64_t* warpSums) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = blockDim.x >> 5;
  const int64_t piece = (len + blockDim.x - 1) / blockDim.x;
  const int64_t b = min(len, tid * piece), e = min(len, b + piece);
  int64_t mine = 0;
  for (int64_t i = b; i < e; ++i) mine += a[i];
  int64_t incl = mine;  // inclusive scan of the threads' sums: within the warp, then across warps
  for (int o = 1; o < 32; o <<= 1) {
    const int64_t v = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += v;
  }
  if (lane == 31) warpSums[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    int64_t w = lane < warps ? warpSums[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      const int64_t v = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += v;
    }
    if (lane < warps) warpSums[lane] = w;  // inclusive, per warp
  }
  __syncthreads();
  int64_t run = incl - mine + (warp > 0 ? warpSums[warp - 1] : 0);
  for (int64_t i = b; i < e; ++i) {
    const int v = a[i];
    a[i] = static_cast<int>(run);
    run += v;
  }
  const int64_t total = warpSums[warps - 1];
  __syncthreads();  // warpSums is reused by the next call
  return total;
}

// One block: hist (label-major) becomes every (label, block)'s first place in the order; the
// chunk list gets up to `chunk` points of one label per entry: (label, first, end), the count last.
// With `staged`, the K x blocks counts are scanned in shared memory (copied in and out with
// coalesced accesses) rather than in place in global memory, where each thread's serial run of
// reads and writes waited on global latency.
__global__ void __launch_bounds__(kSortThreads)
    labelScanKernel(int* __restrict__ hist, int k, int blocks, int* __restrict__ chunks,
                    int64_t maxChunks, int chunk, int* __restrict__ labelChunks, bool staged) {
  __shared__ int64_t warpSums[32];
  extern __shared__ int stage[];
  const int64_t len = static_cast<int64_t>(k) * blocks;
  int64_t total = 0;
  if (staged) {
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) stage[i] = hist[i];
    __syncthreads();
    total = blockScanInPlace(stage, len, warpSums);
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) hist[i] = stage[i];
    __syncthreads();  // the segments below read hist
  } else {
    total = blockScanInPlace(hist, len, warpSums);
  }
  // Each label's segment is [hist[l * blocks], hist[(l + 1) * blocks]) (the last ends at total).
  auto segment = [&](int l, int64_t& first, int64_t& end) {
    first = hist[static_cast<int64_t>(l) * blocks];
    end = l + 1 < k ? hist[static_cast<int64_t>(l + 1) * blocks] : total;
  };
  for (int l = threadIdx.x; l < k; l += blockDim.x) {
    int64_t first, end;
    segment(l, first, end);
    labelChunks[l] = static_cast<int>((end - first + chunk - 1) / chunk);
  }
  __syncthreads();
  const int64_t count = blockScanInPlace(labelChunks, k, warpSums);
  for (int l = threadIdx.x; l < k; l += blockDim.x) {
    int64_t first, end;
    segment(l, first, end);
    int64_t at = labelChunks[l];
    for (int64_t p = first; p < end && at < maxChunks; p += chunk, ++at) {
      chunks[3 * at] = l;
      chunks[3 * at + 1] = static_cast<int>(p);
      chunks[3 * at + 2] = static_cast<int>(min(end, p + chunk));
    }
  }
  if (threadIdx.x == 0) chunks[3 * maxChunks] = static_cast<int>(min(count, maxChunks));
}

// Every point's place: its (label, block)'s first place plus its rank there (shared-memory
// atomics: the order within one label and block is not fixed, which only reorders the sums).
__global__ void __launch_bounds__(kSortThreads)
    labelScatterKernel(const int* __restrict__ labels, int64_t n, int k, int64_t perBlock,
                       const int* __restrict__ hist, int* __restrict__ order) {
  extern __shared__ int cursor[];
  for (int l = threadIdx.x; l < k; l += blockDim.x)
    cursor[l] = hist[static_cast<int64_t>(l) * gridDim.x + blockIdx.x];
  __syncthreads();
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * perBlock;
  const int64_t end = begin + perBlock < n ? begin + perBlock : n;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const int l = __ldg(labels + i);
    if (l >= 0 && l < k) order[atomicAdd(cursor + l, 1)] = static_cast<int>(i);
  }
}

// Per chunk (points first..end of one label, in sorted order): a thread per four dimensions, the
// block's 256 / ceil(D / 4) slots on every slots-th point, in double registers; the slots' sums are
// added in shared memory and go to the global sums with one atomic add per dimension.
template <bool kVec>
__global__ void __launch_bounds__(SortedUpdate::kThreads)
    segmentSumsKernel(const float* __restrict__ X, int d, const double* __restrict__ xsq,
                      const int* __restrict__ order, const int* __restrict__ chunks,
                      int64_t maxChunks, double* sums, double* sumsq, int* counts) {
  extern __shared__ double part[];  // slots x 4 * perPoint, then slots |x|^2 sums
  const int perPoint = (d + 3) / 4;
  const int slots = static_cast<int>(blockDim.x) / perPoint;
  const int slot = static_cast<int>(threadIdx.x) / perPoint;
  const int v = static_cast<int>(threadIdx.x) - slot * perPoint;
  const int q = 4 * v;
  const int pitch = 4 * perPoint;
  double* sqPart = part + static_cast<size_t>(slots) * pitch;
  const int count = chunks[3 * maxChunks];
  for (int c = blockIdx.x; c < count; c += gridDim.x) {
    const int label = chunks[3 * c], first = chunks[3 * c + 1], end = chunks[3 * c + 2];
    double r0 = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0, sq = 0.0;
    if (slot < slots) {
#pragma unroll 4
      for (int p = first + slot; p < end; p += slots) {
        const int64_t i = __ldg(order + p);
        const float* x = X + i * d + q;
        if constexpr (kVec) {
          const float4 x4 = __ldg(reinterpret_cast<const float4*>(x));
          r0 += double(x4.x);
          r1 += double(x4.y);
          r2 += double(x4.z);
          r3 += double(x4.w);
        } else {
          r0 += double(__ldg(x));
          if (q + 1 < d) r1 += double(__ldg(x + 1));
          if (q + 2 < d) r2 += double(__ldg(x + 2));
          if (q + 3 < d) r3 += double(__ldg(x + 3));
        }
        if (v == 0) sq += __ldg(xsq + i);
      }
      double* mine = part + static_cast<size_t>(slot) * pitch + q;
      mine[0] = r0;
      mine[1] = r1;
      mine[2] = r2;
      mine[3] = r3;
      if (v == 0) sqPart[slot] = sq;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < d; e += blockDim.x) {
      double t = 0.0;
      for (int s = 0; s < slots; ++s) t += part[static_cast<size_t>(s) * pitch + e];
      atomicAdd(sums + static_cast<int64_t>(label) * d + e, t);
    }
    if (threadIdx.x == 0) {
      double t = 0.0;
      for (int s = 0; s < slots; ++s) t += sqPart[s];
      atomicAdd(sumsq + label, t);
      atomicAdd(counts + label, end - first);
    }
    __syncthreads();  // the partial sums are read before the next chunk writes them
  }
}

size_t sumsShared(int d) {
  const int perPoint = (d + 3) / 4;
  const int slots = SortedUpdate::kThreads / perPoint;
  return sizeof(double) * (static_cast<size_t>(slots) * 4 * perPoint + slots);
}

}  // namespace

void SortedUpdate::allocate(int64_t n, int k, int d, int sms) {
  if (n > INT_MAX)
    throw InputError("the k-means engines sort the points by label with int positions: N = " +
                     std::to_string(n) + " is above " + std::to_string(INT_MAX));
  n_ = n;
  k_ = k;
  d_ = d;
  blocks_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(sms, (n + kSortThreads - 1) / kSortThreads)));
  perBlock_ = (n + blocks_ - 1) / blocks_;
  sumsGrid_ = std::max(1, sms * 8);
  // Chunks sized so that all of them (N / chunk, plus up to one partial chunk per label) are in
  // flight at once, about the same number on every SM: with 2048-point chunks at N = 1e6 the SMs
  // got 4 or 5 each, and the fifth set the time.
  int perSM = 1;
  KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &perSM, segmentSumsKernel<true>, kThreads, sumsShared(d)));
  const int64_t slots = static_cast<int64_t>(std::max(1, sms)) * std::max(1, perSM);
  const int64_t spare = std::max<int64_t>(slots / 2, slots - k);
  chunk_ = static_cast<int>(std::clamp<int64_t>((n + spare - 1) / spare, 256, kMaxChunk));
  chunk_ = (chunk_ + 63) / 64 * 64;
  if (const char* v = std::getenv("KERNELLAB_SUMS_CHUNK"))  // for measuring one size against another
    chunk_ = std::max(32, std::atoi(v));
  maxChunks_ = n / chunk_ + k + 1;
  // The label counts are scanned in shared memory where they fit one block (past 48 KB with the
  // opt-in); scanBytes_ = 0 scans them in place in global memory.
  const size_t histBytes = sizeof(int) * static_cast<size_t>(k) * blocks_;
  cudaFuncAttributes attr{};
  KL_CUDA_CHECK(cudaFuncGetAttributes(&attr, labelScanKernel));
  const size_t optin = static_cast<size_t>(cuda::currentLaunchLimits().sharedPerBlockOptin);
  scanBytes_ = histBytes <= kScanStageBytes && histBytes + attr.sharedSizeBytes <= optin
                   ? histBytes
                   : 0;
  if (scanBytes_ > 0 && scanBytes_ + attr.sharedSizeBytes > 48 * 1024)
    KL_CUDA_CHECK(cudaFuncSetAttribute(labelScanKernel,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(scanBytes_)));
  hist_.allocate(static_cast<size_t>(k) * blocks_ + size_t(k));  // + the per-label chunk counts
  order_.allocate(static_cast<size_t>(std::max<int64_t>(1, n)));
  chunks_.allocate(static_cast<size_t>(3 * maxChunks_ + 1));
}

void SortedUpdate::launch(const float* X, const int* labels, const double* xsq, double* sums,
                          double* sumsq, int* counts, cudaStream_t stream) {
  const size_t labelBytes = sizeof(int) * static_cast<size_t>(k_);
  int* labelChunks = hist_.get() + static_cast<size_t>(k_) * blocks_;
  labelHistogramKernel<<<blocks_, kSortThreads, labelBytes, stream>>>(labels, n_, k_, perBlock_,
                                                                      hist_.get());
  KL_CUDA_CHECK_LAUNCH(stream);
  labelScanKernel<<<1, kSortThreads, scanBytes_, stream>>>(
      hist_.get(), k_, blocks_, chunks_.get(), maxChunks_, chunk_, labelChunks, scanBytes_ > 0);
  KL_CUDA_CHECK_LAUNCH(stream);
  labelScatterKernel<<<blocks_, kSortThreads, labelBytes, stream>>>(labels, n_, k_, perBlock_,
                                                                    hist_.get(), order_.get());
  KL_CUDA_CHECK_LAUNCH(stream);
  const size_t smem = sumsShared(d_);
  if (d_ % 4 == 0)
    segmentSumsKernel<true><<<sumsGrid_, kThreads, smem, stream>>>(
        X, d_, xsq, order_.get(), chunks_.get(), maxChunks_, sums, sumsq, counts);
  else
    segmentSumsKernel<false><<<sumsGrid_, kThreads, smem, stream>>>(
        X, d_, xsq, order_.get(), chunks_.get(), maxChunks_, sums, sumsq, counts);
  KL_CUDA_CHECK_LAUNCH(stream);
}

ResourceUsage SortedUpdate::resources() const {
  const size_t smem = sumsShared(d_);
  return d_ % 4 == 0 ? cuda::kernelResources(segmentSumsKernel<true>, kThreads, smem)
                     : cuda::kernelResources(segmentSumsKernel<false>, kThreads, smem);
}

}  // namespace kernellab::clustering::best

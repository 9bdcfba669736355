// SPDX-License-Identifier: MIT
// Window-KNN family on CUDA (seed 002): global memory, the whole window in shared memory, one
// window row at a time in shared memory, and the rectangular row window; their launcher with the
// shared-memory opt-in, occupancy from the CUDA API, and timing with CUDA events.
//
// Every kernel calls the same __host__ __device__ phase functions as the CPU executor
// (kernellab/knn_phases.h); only the memory policy and the barriers differ. K (list slots) and
// CMAX (feature slots) are compile-time so the per-thread arrays live in registers.
#include <cuda_runtime.h>

#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/knn_phases.h"
#include "kernellab/text.h"
#include "knn_backend.h"

namespace kernellab::knn {
namespace {

// The kernels' memory policy: the image and the lists in global memory, the block's shared array.
struct DeviceMem {
  const float* __restrict__ image;
  int32_t* __restrict__ index;
  float* __restrict__ distance;
  float* shared;
  __device__ __forceinline__ float loadGlobal(int64_t i) const { return image[i]; }
  __device__ __forceinline__ void storeIndex(int64_t i, int32_t v) const { index[i] = v; }
  __device__ __forceinline__ void storeDistance(int64_t i, float v) const { distance[i] = v; }
  __device__ __forceinline__ float loadShared(int i) const { return shared[i]; }
  __device__ __forceinline__ void storeShared(int i, float v) const { shared[i] = v; }
};

using KernelFn = void (*)(const float*, int32_t*, float*, Geometry);

__device__ __forceinline__ BlockCoord thisBlock() {
  return BlockCoord{static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y)};
}

// Global: each thread walks its W * cols candidates in global memory. At every step the lanes of
// a warp read consecutive pixels of each component plane (coalesced 128-byte rows); the window
// overlap between neighbouring threads and blocks is served by L1/L2. No shared memory, so
// occupancy is bounded by registers and threads only. Limiter: load/FMA issue, L1 bandwidth.
template <int K, int CMAX>
__global__ void knnGlobalKernel(const float* __restrict__ d_image, int32_t* __restrict__ d_index,
                                float* __restrict__ d_distance, Geometry g) {
  DeviceMem m{d_image, d_index, d_distance, nullptr};
  ThreadState<K, CMAX> s;
  globalPhase(g, thisBlock(), threadIdx.x, threadIdx.y, s, m);
}

// Shared window: the block copies the union of its threads' windows (W * cols + block extent
// pixels, about W + 1 rows) into shared memory once, coalesced, then every read hits shared
// memory (consecutive lanes, consecutive banks). The tile is large (seed: 19 KB for 377 x 329,
// W = 14; megabytes for wide images, refused above the opt-in limit), so few blocks fit on an SM.
// Limiter: occupancy (shared memory per SM), then shared-memory bandwidth.
template <int K, int CMAX>
__global__ void knnSharedWindowKernel(const float* __restrict__ d_image,
                                      int32_t* __restrict__ d_index,
                                      float* __restrict__ d_distance, Geometry g) {
  extern __shared__ float smem[];
  DeviceMem m{d_image, d_index, d_distance, smem};
  ThreadState<K, CMAX> s;
  const BlockCoord b = thisBlock();
  sharedWindowPhase(g, 0, b, threadIdx.x, threadIdx.y, s, m);
  __syncthreads();  // the whole window is staged before anyone reads it
  sharedWindowPhase(g, 1, b, threadIdx.x, threadIdx.y, s, m);
}

// Shared row: one image row (cols x C floats, 1.3 KB in the seed) in shared memory at a time; all
// threads stage it together, scan it, and meet at a barrier before the next row overwrites it.
// Small tile, many resident blocks; the first and last rows of a per-pixel window are partial,
// so lanes run different trip counts there (divergence). Limiter: FMA/compare issue, barriers.
template <int K, int CMAX>
__global__ void knnSharedRowKernel(const float* __restrict__ d_image, int32_t* __restrict__ d_index,
                                   float* __restrict__ d_distance, Geometry g) {
  extern __shared__ float smem[];
  DeviceMem m{d_image, d_index, d_distance, smem};
  ThreadState<K, CMAX> s;
  const BlockCoord b = thisBlock();
  const int phases = phaseCount(Variant::SharedRow, g, b);  // the same for every thread
  for (int ph = 0; ph < phases; ++ph) {
    if (ph > 0) __syncthreads();  // staged row complete / previous row no longer read
    sharedRowPhase<false>(g, ph, b, threadIdx.x, threadIdx.y, s, m);
  }
}

// Shared row, rectangular window: as shared-row, but every pixel of an image row scans the same
// whole rows, so all lanes of a warp in one image row run the same loop and read the same shared
// word (a broadcast). One more row of candidates per pixel; neighbours may differ from the
// per-pixel window (nearer pixels outside it, or another pixel among equal distances).
template <int K, int CMAX>
__global__ void knnSharedRowRectKernel(const float* __restrict__ d_image,
                                       int32_t* __restrict__ d_index,
                                       float* __restrict__ d_distance, Geometry g) {
  extern __shared__ float smem[];
  DeviceMem m{d_image, d_index, d_distance, smem};
  ThreadState<K, CMAX> s;
  const BlockCoord b = thisBlock();
  const int phases = phaseCount(Variant::SharedRowRect, g, b);
  for (int ph = 0; ph < phases; ++ph) {
    if (ph > 0) __syncthreads();
    sharedRowPhase<true>(g, ph, b, threadIdx.x, threadIdx.y, s, m);
  }
}

template <int K, int CMAX>
KernelFn pickFor(Variant v) {
  switch (v) {
    case Variant::Global: return knnGlobalKernel<K, CMAX>;
    case Variant::SharedWindow: return knnSharedWindowKernel<K, CMAX>;
    case Variant::SharedRow: return knnSharedRowKernel<K, CMAX>;
    case Variant::SharedRowRect: return knnSharedRowRectKernel<K, CMAX>;
  }
  return nullptr;
}

KernelFn pickKernel(Variant v, int k, int components) {
  const int slots = listSlotsFor(k), feats = featureSlotsFor(components);
  if (slots == 8) {
    if (feats == 1) return pickFor<8, 1>(v);
    if (feats == 8) return pickFor<8, 8>(v);
    return pickFor<8, kMaxComponents>(v);
  }
  if (feats == 1) return pickFor<kMaxK, 1>(v);
  if (feats == 8) return pickFor<kMaxK, 8>(v);
  return pickFor<kMaxK, kMaxComponents>(v);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Image& img, int k, const DeviceInfo& device)
      : device_(device),
        k_(k),
        image_(img.planes.size()),
        index_(static_cast<size_t>(img.pixels() * k)),
        distance_(static_cast<size_t>(img.pixels() * k)) {
    KL_CUDA_CHECK(cudaMemcpy(image_.get(), img.planes.data(), image_.bytes(), cudaMemcpyHostToDevice));
  }

  TimedVariant run(Variant v, const Geometry& g, int warmup, int reps,
                   const RunHooks& hooks) override {
    TimedVariant t;
    t.clock = "cuda-events";
    const KernelFn kernel = pickKernel(v, g.k, g.components);
    const uint64_t smem = sharedBytes(g);
    const int threads = g.blockX * g.blockY;
    const std::string kernelName = info(v).kernel;

    // Device limits first, with the real numbers: nothing that cannot launch is ever timed.
    t.error = sharedMemoryRefusal(v, g, device_.sharedPerBlockOptin, device_.name);
    if (!t.error.empty()) {
      t.refused = true;
      return t;
    }
    try {
      t.resources = cuda::compiledResources(kernel, threads, static_cast<size_t>(smem));
      const ResourceUsage& a = *t.resources;
      if (threads > a.maxThreadsPerBlock) {
        t.error = kernelName + " uses " + std::to_string(a.registersPerThread) +
                  " registers per thread, so at most " + std::to_string(a.maxThreadsPerBlock) +
                  " threads per block; the block is " + std::to_string(g.blockX) + "x" +
                  std::to_string(g.blockY) + " = " + std::to_string(threads);
        t.refused = true;
        return t;
      }
      // Above 48 KiB a kernel must opt in to more dynamic shared memory (Volta and later).
      if (smem > kDefaultSharedBytes)
        KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
      int blocks = 0;
      KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads,
                                                                  static_cast<size_t>(smem)));
      t.resources->maxActiveBlocksPerSM = blocks;
      if (blocks == 0) {
        t.error = kernelName + ": no block of " + std::to_string(threads) + " threads with " +
                  std::to_string(smem) + " B of shared memory and " + std::to_string(a.registersPerThread) +
                  " registers per thread fits on an SM of " + device_.name;
        t.refused = true;
        return t;
      }
    } catch (const CudaError& e) {
      if (e.sticky()) throw;
      t.error = e.what();
      t.refused = true;
      return t;
    }

    // Poison: 0xFF bytes are index -1 and a NaN distance, so a kernel that writes nothing fails.
    KL_CUDA_CHECK(cudaMemsetAsync(index_.get(), 0xFF, index_.bytes(), stream_.get()));
    KL_CUDA_CHECK(cudaMemsetAsync(distance_.get(), 0xFF, distance_.bytes(), stream_.get()));
    const dim3 grid(static_cast<unsigned>(g.gridX), static_cast<unsigned>(g.gridY));
    const dim3 block(static_cast<unsigned>(g.blockX), static_cast<unsigned>(g.blockY));
    try {
      for (int i = 0; i < warmup; ++i) {
        hooks.throwIfCancelled();
        kernel<<<grid, block, smem, stream_.get()>>>(image_.get(), index_.get(), distance_.get(), g);
        KL_CUDA_CHECK_LAUNCH(stream_.get());
      }
      KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      cuda::EventPair ev;
      for (int i = 0; i < reps; ++i) {
        hooks.throwIfCancelled();
        ev.start(stream_.get());
        kernel<<<grid, block, smem, stream_.get()>>>(image_.get(), index_.get(), distance_.get(), g);
        KL_CUDA_CHECK_LAUNCH(stream_.get());
        ev.stop(stream_.get());
        t.samplesMs.push_back(ev.elapsedMs());
      }
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is gone; the runner stops using CUDA
      t.error = e.what();     // refused launch: report it, time nothing
      t.refused = true;
      t.samplesMs.clear();
    }
    return t;
  }

  void download(Lists& out) override {
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    out.k = k_;
    out.index.resize(index_.size());
    out.squaredDistance.resize(distance_.size());
    KL_CUDA_CHECK(cudaMemcpy(out.index.data(), index_.get(), index_.bytes(), cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(out.squaredDistance.data(), distance_.get(), distance_.bytes(),
                             cudaMemcpyDeviceToHost));
  }

 private:
  DeviceInfo device_;
  int k_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<float> image_;
  cuda::DeviceBuffer<int32_t> index_;
  cuda::DeviceBuffer<float> distance_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const Image& img, int k, const DeviceInfo& device) {
  return std::make_unique<CudaBackend>(img, k, device);
}

}  // namespace kernellab::knn

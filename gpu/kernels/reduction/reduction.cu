// SPDX-License-Identifier: MIT
// The reduction kernels and their CUDA backend. Every kernel is the same program over the shared
// phase functions (reduction_phases.h): load, the shared levels with a barrier after each, then
// thread 0's store, or (variants 5 to 7) warp 0's shuffles. A variant's passes run back to back
// on one stream and are timed together with CUDA events; cub::DeviceReduce is the peer.
//
// Access patterns and limiters (the access lens shows them warp by warp):
//  - interleaved-divergent: coalesced loads; at level s only lanes with tid % 2s == 0 work, so
//    every warp executes both sides of the branch until s reaches 32: issue-bound, ~1/2 to 1/32
//    of each warp's lanes active.
//  - interleaved-strided: all lanes of a warp active, but lane t uses slot 2 s t: 2s-way bank
//    conflicts (shared memory serializes the warp's requests).
//  - sequential: consecutive slots, conflict-free; half the block idles from the first level.
//  - first-add: two loads per thread, half the blocks: twice the bytes per thread in flight.
//  - warp-shuffle / unrolled: the last 32 values in registers (__shfl_down_sync), no barrier;
//    unrolled also resolves every level at compile time (the block size a template constant).
//  - grid-stride: one wave of blocks, each thread a register sum over many elements: the loads
//    dominate, the kernel runs at the memory's rate (the copy ceiling's read half).
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>
#include <vector>

#include "cuda/copy_ceiling.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/reduction.h"
#include "reduction_backend.h"

namespace kernellab::reduction {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// The kernels' memory policy: the first pass reads the floats (value and index), later passes
// the partial values of the previous pass.
template <class Op, bool kFirst>
struct DeviceMem {
  using T = typename Op::T;
  const float* input;
  const T* partials;
  T* shared;
  __device__ __forceinline__ T loadInput(int64_t i, int64_t) const {
    if constexpr (kFirst)
      return Op::fromInput(__ldg(input + i), i);
    else
      return partials[i];
  }
  __device__ __forceinline__ T loadShared(int i, int64_t) const { return shared[i]; }
  __device__ __forceinline__ void storeShared(int i, T v, int64_t) const { shared[i] = v; }
};

__device__ __forceinline__ float shuffleDown(float v, int offset) {
  return __shfl_down_sync(kFullMask, v, offset);
}
__device__ __forceinline__ ValueIndex shuffleDown(ValueIndex v, int offset) {
  return ValueIndex{__shfl_down_sync(kFullMask, v.value, offset),
                    __shfl_down_sync(kFullMask, v.index, offset)};
}

// One pass of a variant, the body of its kernel. kBlock > 0: the block size as a template
// constant (kernels 6 and 7), every level unrolled.
template <class Op, bool kFirst, Variant kVariant, int kBlock>
__device__ __forceinline__ void reduceBlock(const float* input, const typename Op::T* partials,
                                            typename Op::T* out, Geometry g) {
  using T = typename Op::T;
  extern __shared__ __align__(8) unsigned char smem[];
  T* shared = reinterpret_cast<T*>(smem);
  const DeviceMem<Op, kFirst> m{input, partials, shared};
  if constexpr (kBlock > 0) g.tpb = kBlock;  // a constant from here on
  const int tid = threadIdx.x;
  shared[tid] = loadPhase<Op>(g, blockIdx.x, tid, m);
  __syncthreads();
  if constexpr (kBlock > 0) {
    constexpr int kLevels = sharedLevels(kVariant, kBlock);
    KL_UNROLL
    for (int level = 0; level < kLevels; ++level) {
      treeStep<Op>(kVariant, kBlock, level, tid, m);
      __syncthreads();
    }
  } else {
    const int levels = sharedLevels(kVariant, g.tpb);
    for (int level = 0; level < levels; ++level) {
      treeStep<Op>(kVariant, g.tpb, level, tid, m);
      __syncthreads();
    }
  }
  if constexpr (warpStageOf(kVariant)) {
    // Warp 0 alone, all 32 lanes: the shuffles' full mask is exact.
    if (tid < kWarp) {
      T v = warpEntry<Op>(g.tpb, tid, m);
      KL_UNROLL
      for (int step = 0; step < kWarpSteps; ++step)
        v = warpStep<Op>(v, shuffleDown(v, warpOffset(step)));
      if (tid == 0) out[blockIdx.x] = v;
    }
  } else if (tid == 0) {
    out[blockIdx.x] = shared[0];
  }
}

// Each variant is a kernel function of its own, named as the variant table names it
// (reduceSequentialKernel, ...): Nsight Compute and Nsight Systems print a kernel's function name,
// so the profiled counters meet the variant's kernel by name (kernellab-cli profile).
#define KL_REDUCTION_KERNEL(name, variant)                                                      \
  template <class Op, bool kFirst, int kBlock>                                                  \
  __global__ void name(const float* input, const typename Op::T* partials, typename Op::T* out, \
                       Geometry g) {                                                            \
    reduceBlock<Op, kFirst, variant, kBlock>(input, partials, out, g);                          \
  }
KL_REDUCTION_KERNEL(reduceInterleavedDivergentKernel, Variant::InterleavedDivergent)
KL_REDUCTION_KERNEL(reduceInterleavedStridedKernel, Variant::InterleavedStrided)
KL_REDUCTION_KERNEL(reduceSequentialKernel, Variant::Sequential)
KL_REDUCTION_KERNEL(reduceFirstAddKernel, Variant::FirstAdd)
KL_REDUCTION_KERNEL(reduceWarpShuffleKernel, Variant::WarpShuffle)
KL_REDUCTION_KERNEL(reduceUnrolledKernel, Variant::Unrolled)
KL_REDUCTION_KERNEL(reduceGridStrideKernel, Variant::GridStride)
#undef KL_REDUCTION_KERNEL

template <class Op, bool kFirst>
using KernelFn = void (*)(const float*, const typename Op::T*, typename Op::T*, Geometry);

#define KL_BY_SIZE(kernel)                \
  switch (tpb) {                          \
    case 32:                              \
      return kernel<Op, kFirst, 32>;      \
    case 64:                              \
      return kernel<Op, kFirst, 64>;      \
    case 128:                             \
      return kernel<Op, kFirst, 128>;     \
    case 256:                             \
      return kernel<Op, kFirst, 256>;     \
    case 512:                             \
      return kernel<Op, kFirst, 512>;     \
    case 1024:                            \
      return kernel<Op, kFirst, 1024>;    \
    default:                              \
      return nullptr;                     \
  }

template <class Op, bool kFirst>
KernelFn<Op, kFirst> pick(Variant v, int tpb) {
  switch (v) {
    case Variant::InterleavedDivergent:
      return reduceInterleavedDivergentKernel<Op, kFirst, 0>;
    case Variant::InterleavedStrided:
      return reduceInterleavedStridedKernel<Op, kFirst, 0>;
    case Variant::Sequential:
      return reduceSequentialKernel<Op, kFirst, 0>;
    case Variant::FirstAdd:
      return reduceFirstAddKernel<Op, kFirst, 0>;
    case Variant::WarpShuffle:
      return reduceWarpShuffleKernel<Op, kFirst, 0>;
    case Variant::Unrolled:
      KL_BY_SIZE(reduceUnrolledKernel)
    case Variant::GridStride:
      KL_BY_SIZE(reduceGridStrideKernel)
    default:
      return nullptr;
  }
}
#undef KL_BY_SIZE

class CudaBackend final : public Backend {
 public:
  CudaBackend(const float* in, int64_t n) : n_(n), in_(static_cast<size_t>(n)) {
    KL_CUDA_CHECK(cudaMemcpy(in_.get(), in, in_.bytes(), cudaMemcpyHostToDevice));
  }

  TimedVariant run(Variant v, Operation op, const std::vector<Geometry>& passes, int warmup,
                   int reps, const RunHooks& hooks) override {
    op_ = op;
    try {
      if (v == Variant::Cub) return runCub(op, warmup, reps, hooks);
      return op == Operation::Sum ? runPasses<SumOp>(v, passes, warmup, reps, hooks)
                                  : runPasses<MaxOp>(v, passes, warmup, reps, hooks);
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is gone; the runner stops using CUDA
      TimedVariant t;
      t.error = e.what();  // refused launch: report it, time nothing
      return t;
    }
  }

  Answer answer() override {
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    Answer a;
    if (op_ == Operation::Sum) {
      KL_CUDA_CHECK(cudaMemcpy(&a.value, final_, sizeof(float), cudaMemcpyDeviceToHost));
    } else if (cubIndex_) {
      KL_CUDA_CHECK(cudaMemcpy(&a.value, final_, sizeof(float), cudaMemcpyDeviceToHost));
      KL_CUDA_CHECK(cudaMemcpy(&a.index, cubIndex_, sizeof(int64_t), cudaMemcpyDeviceToHost));
    } else {
      ValueIndex m{};
      KL_CUDA_CHECK(cudaMemcpy(&m, final_, sizeof(ValueIndex), cudaMemcpyDeviceToHost));
      a.value = m.value;
      a.index = m.index;
    }
    return a;
  }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    if (!copy_.get()) copy_.allocate(static_cast<size_t>(n_));
    return cuda::deviceCopyCeiling(copy_.get(), in_.get(), in_.bytes(), stream_.get(), warmup, reps,
                                   hooks);
  }

 private:
  template <class Op>
  TimedVariant runPasses(Variant v, const std::vector<Geometry>& passes, int warmup, int reps,
                         const RunHooks& hooks) {
    using T = typename Op::T;
    TimedVariant t;
    t.clock = "cuda-events";
    t.kernel = info(v).kernel;
    const int tpb = passes.front().tpb;
    const KernelFn<Op, true> first = pick<Op, true>(v, tpb);
    const KernelFn<Op, false> later = pick<Op, false>(v, tpb);
    if (!first || !later) {
      t.error = "no CUDA kernel for this variant and block size";
      return t;
    }
    const size_t smem = sizeof(T) * size_t(tpb);
    t.resources = cuda::kernelResources(first, tpb, smem);
    // Two partial buffers, ping-pong; 0xFF bytes are NaN (and index -1): a kernel that writes
    // nothing fails verification.
    const size_t slots = static_cast<size_t>(passes.front().grid);
    if (partialA_.size() < slots) {
      partialA_.allocate(slots);
      partialB_.allocate(slots);
    }
    KL_CUDA_CHECK(cudaMemsetAsync(partialA_.get(), 0xFF, partialA_.bytes(), stream_.get()));
    KL_CUDA_CHECK(cudaMemsetAsync(partialB_.get(), 0xFF, partialB_.bytes(), stream_.get()));
    T* buffers[2] = {reinterpret_cast<T*>(partialA_.get()), reinterpret_cast<T*>(partialB_.get())};
    auto launchAll = [&] {
      const T* from = nullptr;
      for (size_t p = 0; p < passes.size(); ++p) {
        T* to = buffers[p % 2];
        const Geometry& g = passes[p];
        if (p == 0)
          first<<<g.grid, tpb, smem, stream_.get()>>>(in_.get(), nullptr, to, g);
        else
          later<<<g.grid, tpb, smem, stream_.get()>>>(nullptr, from, to, g);
        KL_CUDA_CHECK_LAUNCH(stream_.get());
        from = to;
      }
      final_ = from;
    };
    t.samplesMs = timed(launchAll, warmup, reps, hooks);
    cubIndex_ = nullptr;
    return t;
  }

  TimedVariant runCub(Operation op, int warmup, int reps, const RunHooks& hooks) {
    TimedVariant t;
    t.clock = "cuda-events";
    t.kernel = op == Operation::Sum ? "cub::DeviceReduce::Sum" : "cub::DeviceReduce::ArgMax";
    if (!cubValue_.get()) {
      cubValue_.allocate(1);
      cubIndexBuffer_.allocate(1);
    }
    KL_CUDA_CHECK(cudaMemsetAsync(cubValue_.get(), 0xFF, sizeof(float), stream_.get()));
    KL_CUDA_CHECK(cudaMemsetAsync(cubIndexBuffer_.get(), 0xFF, sizeof(int64_t), stream_.get()));
    // Temporary storage sized and allocated once, outside the timing.
    size_t bytes = 0;
    if (op == Operation::Sum)
      KL_CUDA_CHECK(
          cub::DeviceReduce::Sum(nullptr, bytes, in_.get(), cubValue_.get(), n_, stream_.get()));
    else
      KL_CUDA_CHECK(cub::DeviceReduce::ArgMax(nullptr, bytes, in_.get(), cubValue_.get(),
                                              cubIndexBuffer_.get(), n_, stream_.get()));
    if (cubTemp_.size() < bytes) cubTemp_.allocate(bytes);
    auto call = [&] {
      size_t size = bytes;
      if (op == Operation::Sum)
        KL_CUDA_CHECK(cub::DeviceReduce::Sum(cubTemp_.get(), size, in_.get(), cubValue_.get(), n_,
                                             stream_.get()));
      else
        KL_CUDA_CHECK(cub::DeviceReduce::ArgMax(cubTemp_.get(), size, in_.get(), cubValue_.get(),
                                                cubIndexBuffer_.get(), n_, stream_.get()));
      KL_CUDA_CHECK_LAUNCH(stream_.get());
    };
    t.samplesMs = timed(call, warmup, reps, hooks);
    final_ = cubValue_.get();
    cubIndex_ = op == Operation::Sum ? nullptr : cubIndexBuffer_.get();
    return t;
  }

  template <class Launch>
  std::vector<double> timed(Launch&& launch, int warmup, int reps, const RunHooks& hooks) {
    for (int i = 0; i < warmup; ++i) {
      hooks.beforeLaunch(i, warmup, reps);
      launch();
    }
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    cuda::EventPair ev;
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      hooks.beforeLaunch(warmup + i, warmup, reps);
      ev.start(stream_.get());
      launch();
      ev.stop(stream_.get());
      samples.push_back(ev.elapsedMs());
    }
    return samples;
  }

  int64_t n_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<float> in_;
  cuda::DeviceBuffer<float> copy_;
  cuda::DeviceBuffer<ValueIndex> partialA_, partialB_;
  cuda::DeviceBuffer<float> cubValue_;
  cuda::DeviceBuffer<int64_t> cubIndexBuffer_;
  cuda::DeviceBuffer<unsigned char> cubTemp_;
  Operation op_ = Operation::Sum;
  const void* final_ = nullptr;
  const int64_t* cubIndex_ = nullptr;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const float* in, int64_t n) {
  return std::make_unique<CudaBackend>(in, n);
}

}  // namespace kernellab::reduction

// SPDX-License-Identifier: MIT
// Transpose family on CUDA: the five seed kernels (copy ceiling, naive, shared tile, padded tile,
// diagonal order), their launcher, timing with CUDA events and optional per-block schedules.
//
// Every kernel calls the same __host__ __device__ phase functions as the CPU executor
// (kernellab/transpose_phases.h); only the memory policy and the barrier differ.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda/copy_ceiling.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "cuda/schedule_record.cuh"
#include "kernellab/errors.h"
#include "kernellab/transpose.h"
#include "kernellab/transpose_best_phases.h"
#include "transpose_backend.h"
#include "transpose_device.h"
#include "transpose_parts.h"

namespace kernellab::transpose {
namespace {

// The kernels' memory policy: global pointers and this block's shared tile.
struct DeviceMem {
  const float* __restrict__ in;
  float* __restrict__ out;
  float* shared;
  __device__ __forceinline__ float loadGlobal(int64_t i) const { return in[i]; }
  __device__ __forceinline__ void storeGlobal(int64_t i, float v) const { out[i] = v; }
  // 16-byte accesses; the phases call them only at element indices that are
  // multiples of 4.
  __device__ __forceinline__ Vec4 loadGlobal4(int64_t i) const {
    const float4 v = *reinterpret_cast<const float4*>(in + i);
    return Vec4{v.x, v.y, v.z, v.w};
  }
  __device__ __forceinline__ void storeGlobal4(int64_t i, Vec4 v) const {
    *reinterpret_cast<float4*>(out + i) = make_float4(v.x, v.y, v.z, v.w);
  }
  __device__ __forceinline__ float loadShared(int i) const { return shared[i]; }
  __device__ __forceinline__ void storeShared(int i, float v) const { shared[i] = v; }
};

// Fixing tile, rows and pitch at compile time lets nvcc unroll the per-thread loops, so each
// thread issues all its global loads before the first use (more bytes in flight: on the H200 a
// runtime trip count left the padded kernel at 0.65 of cudaMemcpy). The values are the same ones
// the host computed into `g`.
template <int TILE, int ROWS, int PITCH>
__device__ __forceinline__ Geometry fixed(Geometry g) {
  g.tile = TILE;
  g.blockRows = ROWS;
  g.pitch = PITCH;
  return g;
}

using KernelFn = void (*)(const float*, float*, Geometry, cuda::BlockSlot*);

// Copy: row-major read and write, both coalesced. Limiter: DRAM bandwidth. The in-run ceiling
// for the transposes, which move the same bytes.
template <int TILE, int ROWS, bool kRecord>
__global__ void copyKernel(const float* __restrict__ d_in, float* __restrict__ d_out, Geometry g,
                           cuda::BlockSlot* d_slots) {
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<TILE, ROWS, TILE>(g);
  const BlockCoord t = cartesianTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  DeviceMem m{d_in, d_out, nullptr};
  copyPhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Naive: reads coalesced, writes strided by `height`: each warp store touches 32 sectors of
// 32 bytes for 128 useful bytes. Limiter: write transactions (~1/8 sector efficiency).
template <int TILE, int ROWS, bool kRecord>
__global__ void transposeNaiveKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                     Geometry g, cuda::BlockSlot* d_slots) {
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<TILE, ROWS, TILE>(g);
  const BlockCoord t = cartesianTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  DeviceMem m{d_in, d_out, nullptr};
  naivePhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Shared tile: coalesced reads into shared memory, barrier, coalesced writes from a tile column.
// The column read makes all 32 lanes hit one bank (32-way conflict). Limiter: shared-memory
// replays, then DRAM.
template <int TILE, int ROWS, bool kRecord>
__global__ void transposeTiledKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                     Geometry g, cuda::BlockSlot* d_slots) {
  __shared__ float tile[TILE * TILE];
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<TILE, ROWS, TILE>(g);
  const BlockCoord t = cartesianTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  DeviceMem m{d_in, d_out, tile};
  tileLoadPhase(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  tileStorePhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Padded tile: as tiled with a row pitch of TILE + 1, so a column's 32 floats fall in 32
// different banks. Limiter: DRAM bandwidth, like the copy.
template <int TILE, int ROWS, bool kRecord>
__global__ void transposePaddedKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                      Geometry g, cuda::BlockSlot* d_slots) {
  __shared__ float tile[TILE * (TILE + 1)];
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<TILE, ROWS, TILE + 1>(g);
  const BlockCoord t = cartesianTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  DeviceMem m{d_in, d_out, tile};
  tileLoadPhase(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  tileStorePhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Diagonal: the padded kernel with blockIdx read as (diagonal, position) so that concurrently
// resident blocks write to different memory partitions. Helped on GT200 (8 partitions of
// 256 bytes); since compute capability 2.0 addresses are hashed and it should not beat padded.
template <int TILE, int ROWS, bool kRecord>
__global__ void transposeDiagonalKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                        Geometry g, cuda::BlockSlot* d_slots) {
  __shared__ float tile[TILE * (TILE + 1)];
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<TILE, ROWS, TILE + 1>(g);
  const BlockCoord t = diagonalTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  DeviceMem m{d_in, d_out, tile};
  tileLoadPhase(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  tileStorePhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Best: the padded tile with 4 rows of threads (8 elements per thread, all loads in flight before
// the barrier) and the grouped launch order: consecutive blocks walk down a stripe 4 tiles wide,
// so the blocks resident at one time read AND write long runs of DRAM pages. Measured on the
// H200 at 0.92 of cudaMemcpy D2D (padded in Cartesian order: 0.87). Limiter: DRAM bandwidth.
template <bool kRecord>
__global__ void __launch_bounds__(128) transposeBestKernel(const float* __restrict__ d_in,
                                                           float* __restrict__ d_out, Geometry g,
                                                           cuda::BlockSlot* d_slots) {
  __shared__ float tile[32 * 33];
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<32, 4, 33>(g);
  const BlockCoord t = groupedTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, g.group);
  DeviceMem m{d_in, d_out, tile};
  tileLoadPhase(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  tileStorePhase(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// ---- the best variant's other strategies (transpose_best_phases.h says why
// each exists) --------

// Odd sizes: the tile with sector-aligned output row pieces; 40 input rows
// staged.
template <bool kRecord>
__global__ void __launch_bounds__(128)
    transposeAlignedTileKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                               Geometry g, cuda::BlockSlot* d_slots) {
  __shared__ float tile[(32 + kAlignShift) * 33];
  const auto start = cuda::blockStart<kRecord>();
  g = fixed<32, 4, 33>(g);
  const BlockCoord t = groupedTile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, g.group);
  DeviceMem m{d_in, d_out, tile};
  alignedTileLoad(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  alignedTileStore(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Threads an SM can hold, per target architecture, for the minimum-blocks hints below (asking
// for more than an SM holds is ignored with a warning).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
constexpr int kSmThreads = 2048;
#elif __CUDA_ARCH__ >= 860
constexpr int kSmThreads = 1536;
#else
constexpr int kSmThreads = 1024;
#endif
constexpr int minBlocks(int wanted, int threads) {
  return wanted * threads <= kSmThreads ? wanted : kSmThreads / threads;
}

// Odd sizes, the rule's choice: sector-aligned output pieces over a 64 x 64 stripe in two steps
// (transpose_best_phases.h). 32 registers with 32-bit indices: 8 blocks of 256 threads per SM.
template <class I, bool kRecord>
__global__ void __launch_bounds__(256, minBlocks(sizeof(I) == 4 ? 8 : 4, 256))
    transposeAlignedStripeKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                 Geometry g, cuda::BlockSlot* d_slots) {
  __shared__ float stage[kStripeWidth * kStripePitch];
  const auto start = cuda::blockStart<kRecord>();
  const BlockCoord t = groupedTile<I>(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, g.group);
  DeviceMem m{d_in, d_out, stage};
  alignedStripePhase<I>(0, g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  alignedStripePhase<I>(1, g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  alignedStripePhase<I>(2, g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Widths that are a multiple of 40: 40 x 64 tiles, 20 elements per thread (48 registers: 10
// blocks of 128 threads per SM, the best of 8..16 measured).
template <class I, bool kRecord>
__global__ void __launch_bounds__(128, minBlocks(sizeof(I) == 4 ? 10 : 8, 128))
    transposeTile40Kernel(const float* __restrict__ d_in, float* __restrict__ d_out, Geometry g,
                          cuda::BlockSlot* d_slots) {
  __shared__ float tile[kTile40Width * kTile40Pitch];
  const auto start = cuda::blockStart<kRecord>();
  const BlockCoord t = groupedTile<I>(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, g.group);
  DeviceMem m{d_in, d_out, tile};
  tile40Phase<I>(0, g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  tile40Phase<I>(1, g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// ---- bulk rows (cc >= 9.0): the bulk copy and its mbarrier in PTX -------------------------------
// Only sm_90 and later have these instructions; for the older targets of a multi-architecture
// build the kernel below compiles to an empty body, and the host never launches it there
// (bulkRowsRunsOn checks the device, requireBulkCopyCode the code the device would run).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t sharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// An mbarrier whose phase completes on one arrival plus the bytes that arrival announced.
__device__ __forceinline__ void initStageBarrier(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(bar)), "r"(1u)
               : "memory");
  // The copy engine (the async proxy) signals the barrier: make the initialisation visible to it.
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The one arrival: the phase now also waits for `bytes` transferred bytes.
__device__ __forceinline__ void arriveExpectingBytes(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(bar)),
               "r"(bytes)
               : "memory");
}

// Global -> shared by the copy engine: `bytes` a multiple of 16, both addresses 16-byte aligned;
// the transferred bytes count down `bar`'s expected transaction count.
__device__ __forceinline__ void bulkCopyToShared(void* dst, const void* src, uint32_t bytes,
                                                 uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      :
      : "r"(sharedAddress(dst)), "l"(src), "r"(bytes), "r"(sharedAddress(bar))
      : "memory");
}

// Waits until the barrier's phase with this parity has completed. A phase that never completes
// would hang the process; after about 2^26 polls (seconds) the kernel traps instead, which the
// host reports as a CUDA error.
__device__ __forceinline__ void waitStagePhase(uint64_t* bar, uint32_t parity) {
  const uint32_t address = sharedAddress(bar);
  for (uint32_t polls = 0;; ++polls) {
    uint32_t done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
    if (done) return;
    if (polls > (1u << 26)) __trap();
  }
}
#endif

// Narrow, tall matrices on cc >= 9.0 (transpose_best_phases.h): warp 8's first lane fetches the
// block's 64 whole input rows with one bulk copy; warps 0..7 wait for the bytes, then write
// 128-byte pieces of every output row. 288 threads, 4 blocks per SM (51 KB of stage each at
// W = 200), as measured (scripts/experiments/transpose_skinny.cu, pipeK<kBulk, kNaive, 64, 8, 1>).
template <class I, bool kRecord>
__global__ void __launch_bounds__(kBulkRowsThreads, minBlocks(4, kBulkRowsThreads))
    transposeBulkRowsKernel(const float* __restrict__ d_in, float* __restrict__ d_out, Geometry g,
                            cuda::BlockSlot* d_slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Dynamic shared memory follows the static mbarrier, so it may start only 16 bytes into a
  // 128-byte line; the stage starts on the next whole line (the launch adds the slack).
  extern __shared__ __align__(16) unsigned char bulkShared[];
  __shared__ __align__(8) uint64_t stageFull;
  float* bulkStage = reinterpret_cast<float*>(
      (reinterpret_cast<uintptr_t>(bulkShared) + kBulkRowsStageAlign - 1) &
      ~static_cast<uintptr_t>(kBulkRowsStageAlign - 1));
  const auto start = cuda::blockStart<kRecord>();
  const BlockCoord t{static_cast<int>(blockIdx.x), 0};
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (tx == 0 && ty == 0) initStageBarrier(&stageFull);
  __syncthreads();  // the barrier is initialised before anyone arrives or waits
  if (ty == kBulkRowsWriterWarps) {
    if (tx == 0) {
      const RowGroup group = bulkRowsGroup(g, t);
      const uint32_t bytes = static_cast<uint32_t>(group.rows * g.width * sizeof(float));
      arriveExpectingBytes(&stageFull, bytes);
      bulkCopyToShared(bulkStage, d_in + group.first * g.width, bytes, &stageFull);
    }
  } else {
    waitStagePhase(&stageFull, 0);  // the stage's one use: phase 0
    DeviceMem m{d_in, d_out, bulkStage};
    bulkRowsStore<I>(g, t, tx, ty, m);
  }
  cuda::blockEnd<kRecord>(d_slots, start, t);
#endif
}

// Narrow matrices in registers: D is the short side, a compile-time constant.
template <int D, bool kRecord>
__global__ void __launch_bounds__(256)
    transposeNarrowWidthKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                               Geometry g, cuda::BlockSlot* d_slots) {
  const auto start = cuda::blockStart<kRecord>();
  g.blockRows = 8;
  const BlockCoord t{static_cast<int>(blockIdx.x), 0};
  DeviceMem m{d_in, d_out, nullptr};
  narrowWidthPhase<D>(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

template <int D, bool kRecord>
__global__ void __launch_bounds__(256)
    transposeNarrowHeightKernel(const float* __restrict__ d_in, float* __restrict__ d_out,
                                Geometry g, cuda::BlockSlot* d_slots) {
  const auto start = cuda::blockStart<kRecord>();
  g.blockRows = 8;
  const BlockCoord t{static_cast<int>(blockIdx.x), 0};
  DeviceMem m{d_in, d_out, nullptr};
  narrowHeightPhase<D>(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

// Point-cloud layouts up to 256 wide or high, staged in (dynamic) shared
// memory.
template <bool kRecord>
__global__ void __launch_bounds__(256)
    transposeStagedRowsKernel(const float* __restrict__ d_in, float* __restrict__ d_out, Geometry g,
                              cuda::BlockSlot* d_slots) {
  extern __shared__ float staged[];
  const auto start = cuda::blockStart<kRecord>();
  g.blockRows = 8;
  const BlockCoord t{static_cast<int>(blockIdx.x), 0};
  DeviceMem m{d_in, d_out, staged};
  stagedRowsLoad(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  stagedRowsStore(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

template <bool kRecord>
__global__ void __launch_bounds__(256)
    transposeStagedColsKernel(const float* __restrict__ d_in, float* __restrict__ d_out, Geometry g,
                              cuda::BlockSlot* d_slots) {
  extern __shared__ float staged[];
  const auto start = cuda::blockStart<kRecord>();
  g.blockRows = 8;
  const BlockCoord t{static_cast<int>(blockIdx.x), 0};
  DeviceMem m{d_in, d_out, staged};
  stagedColsLoad(g, t, threadIdx.x, threadIdx.y, m);
  __syncthreads();
  stagedColsStore(g, t, threadIdx.x, threadIdx.y, m);
  cuda::blockEnd<kRecord>(d_slots, start, t);
}

template <bool kRecord>
KernelFn narrowKernel(Strategy s, int d) {
  KernelFn k = nullptr;
  withNarrowDim(d, [&](auto tag) {
    constexpr int D = decltype(tag)::value;
    k = s == Strategy::NarrowWidth ? transposeNarrowWidthKernel<D, kRecord>
                                   : transposeNarrowHeightKernel<D, kRecord>;
  });
  return k;
}

// A build whose targets lack sm_90 code would give a cc >= 9.0 device the empty stub of
// transposeBulkRowsKernel (from older PTX): refuse to launch it rather than write nothing.
void requireBulkCopyCode(KernelFn fn) {
  cudaFuncAttributes a{};
  KL_CUDA_CHECK(cudaFuncGetAttributes(&a, fn));
  if (a.binaryVersion < 90)
    throw CudaError(cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
                    "transposeBulkRowsKernel has no code for compute capability 9.0 or later in "
                    "this build (binary version " + std::to_string(a.binaryVersion) +
                        "); add 90 to CMAKE_CUDA_ARCHITECTURES",
                    "cudaFuncGetAttributes(transposeBulkRowsKernel).binaryVersion", __FILE__,
                    __LINE__, false);
}

// The best variant's kernel for its geometry's strategy, its name and dynamic
// shared memory.
struct BestKernel {
  KernelFn fn = nullptr;
  std::string name;
  size_t sharedBytes = 0;
};

BestKernel bestKernel(const Geometry& g, bool record) {
  BestKernel b;
  switch (g.strategy) {
    case Strategy::Tile:
      b.fn = record ? transposeBestKernel<true> : transposeBestKernel<false>;
      break;
    case Strategy::AlignedTile:
      b.fn = record ? transposeAlignedTileKernel<true> : transposeAlignedTileKernel<false>;
      break;
    case Strategy::AlignedStripe:
      if (stripeFitsInt32(g.width, g.height))
        b.fn = record ? transposeAlignedStripeKernel<int32_t, true>
                      : transposeAlignedStripeKernel<int32_t, false>;
      else
        b.fn = record ? transposeAlignedStripeKernel<int64_t, true>
                      : transposeAlignedStripeKernel<int64_t, false>;
      break;
    case Strategy::Tile40:
      if (tile40FitsInt32(g.width, g.height))
        b.fn = record ? transposeTile40Kernel<int32_t, true> : transposeTile40Kernel<int32_t, false>;
      else
        b.fn = record ? transposeTile40Kernel<int64_t, true> : transposeTile40Kernel<int64_t, false>;
      break;
    case Strategy::BulkRows:
      if (bulkRowsFitsInt32(g.width, g.height))
        b.fn = record ? transposeBulkRowsKernel<int32_t, true>
                      : transposeBulkRowsKernel<int32_t, false>;
      else
        b.fn = record ? transposeBulkRowsKernel<int64_t, true>
                      : transposeBulkRowsKernel<int64_t, false>;
      b.sharedBytes = sizeof(float) * static_cast<size_t>(sharedFloats(g)) + kBulkRowsStageAlign;
      requireBulkCopyCode(b.fn);
      break;
    case Strategy::NarrowWidth:
    case Strategy::NarrowHeight: {
      const int d = static_cast<int>(g.strategy == Strategy::NarrowWidth ? g.width : g.height);
      b.fn = record ? narrowKernel<true>(g.strategy, d) : narrowKernel<false>(g.strategy, d);
      break;
    }
    case Strategy::StagedRows:
      b.fn = record ? transposeStagedRowsKernel<true> : transposeStagedRowsKernel<false>;
      b.sharedBytes = sizeof(float) * static_cast<size_t>(sharedFloats(g));
      break;
    case Strategy::StagedCols:
      b.fn = record ? transposeStagedColsKernel<true> : transposeStagedColsKernel<false>;
      b.sharedBytes = sizeof(float) * static_cast<size_t>(sharedFloats(g));
      break;
  }
  b.name = bestKernelName(g);  // the name the access lens gives it too
  if (b.sharedBytes > 48 * 1024)  // above the default: the kernel must opt in
    KL_CUDA_CHECK(cudaFuncSetAttribute(b.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(b.sharedBytes)));
  return b;
}

template <int TILE, int ROWS, bool kRecord>
KernelFn pickExact(Variant v) {
  switch (v) {
    case Variant::Copy: return copyKernel<TILE, ROWS, kRecord>;
    case Variant::Naive: return transposeNaiveKernel<TILE, ROWS, kRecord>;
    case Variant::Tiled: return transposeTiledKernel<TILE, ROWS, kRecord>;
    case Variant::Padded: return transposePaddedKernel<TILE, ROWS, kRecord>;
    case Variant::Diagonal: return transposeDiagonalKernel<TILE, ROWS, kRecord>;
    default: return nullptr;
  }
}

// Every block shape the host accepts: ROWS divides TILE (transpose::makeGeometry checks it).
template <int TILE, bool kRecord>
KernelFn pickRows(Variant v, int rows) {
  switch (rows) {
    case 1: return pickExact<TILE, 1, kRecord>(v);
    case 2: return pickExact<TILE, 2, kRecord>(v);
    case 4: return pickExact<TILE, 4, kRecord>(v);
    case 8: return pickExact<TILE, 8, kRecord>(v);
    case 16: return pickExact<TILE, 16, kRecord>(v);
    case 32:
      if constexpr (TILE >= 32) return pickExact<TILE, 32, kRecord>(v);
      return nullptr;
    default: return nullptr;
  }
}

KernelFn pickKernel(Variant v, int tile, int rows, bool record) {
  if (tile == 16) return record ? pickRows<16, true>(v, rows) : pickRows<16, false>(v, rows);
  return record ? pickRows<32, true>(v, rows) : pickRows<32, false>(v, rows);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const float* in, int64_t width, int64_t height)
      : count_(static_cast<size_t>(width * height)), in_(count_), out_(count_) {
    KL_CUDA_CHECK(cudaMemcpy(in_.get(), in, in_.bytes(), cudaMemcpyHostToDevice));
  }

  TimedVariant run(Variant v, const Geometry& g, int warmup, int reps, bool record,
                   const RunHooks& hooks) override {
    TimedVariant t;
    t.clock = "cuda-events";
    size_t smem = 0;
    KernelFn kernel = nullptr;
    if (v == Variant::Best) {
      const BestKernel b = bestKernel(g, false);
      kernel = b.fn;
      smem = b.sharedBytes;
      t.kernel = b.name;
    } else {
      kernel = pickKernel(v, g.tile, g.blockRows, false);
    }
    if (!kernel) {
      t.error = "no CUDA kernel for this variant and block shape";
      return t;
    }
    const dim3 grid(g.gridX, g.gridY), block(g.tile, g.blockRows);
    t.resources = cuda::kernelResources(kernel, static_cast<int>(block.x * block.y), smem);

    // Poison: 0xFF bytes are a NaN in every float, so a kernel that writes nothing fails.
    KL_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream_.get()));
    try {
      t.samplesMs = timeLaunches(kernel, grid, block, smem, g, nullptr, warmup, reps, hooks);
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is gone; the runner stops using CUDA
      t.error = e.what();     // refused launch: report it, time nothing
      t.samplesMs.clear();
      return t;
    }
    if (record) {
      cuda::DeviceBuffer<cuda::BlockSlot> slots(static_cast<size_t>(g.gridX) * g.gridY);
      KernelFn recorded =
          v == Variant::Best ? bestKernel(g, true).fn : pickKernel(v, g.tile, g.blockRows, true);
      t.recordedSamplesMs =
          timeLaunches(recorded, grid, block, smem, g, slots.get(), warmup, reps, hooks);
      t.schedule = cuda::downloadSchedule(slots);
    }
    return t;
  }

  void download(float* out) override {
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    KL_CUDA_CHECK(cudaMemcpy(out, out_.get(), out_.bytes(), cudaMemcpyDeviceToHost));
  }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    return cuda::deviceCopyCeiling(out_.get(), in_.get(), in_.bytes(), stream_.get(), warmup, reps,
                                   hooks);
  }

 private:
  std::vector<double> timeLaunches(KernelFn kernel, dim3 grid, dim3 block, size_t smem,
                                   const Geometry& g, cuda::BlockSlot* slots, int warmup, int reps,
                                   const RunHooks& hooks) {
    for (int i = 0; i < warmup; ++i) {
      hooks.throwIfCancelled();
      kernel<<<grid, block, smem, stream_.get()>>>(in_.get(), out_.get(), g, slots);
      KL_CUDA_CHECK_LAUNCH(stream_.get());
    }
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    cuda::EventPair ev;
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
      hooks.throwIfCancelled();
      ev.start(stream_.get());
      kernel<<<grid, block, smem, stream_.get()>>>(in_.get(), out_.get(), g, slots);
      KL_CUDA_CHECK_LAUNCH(stream_.get());
      ev.stop(stream_.get());
      samples.push_back(ev.elapsedMs());
    }
    return samples;
  }

  size_t count_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<float> in_;
  cuda::DeviceBuffer<float> out_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const float* in, int64_t width, int64_t height) {
  return std::make_unique<CudaBackend>(in, width, height);
}

}  // namespace kernellab::transpose

namespace kernellab::transpose {
namespace {

// Whether the current device can run bulk rows on a matrix of this width at `in` (the bulk
// copy's source must be 16-byte aligned; nullptr: not known yet, only the device counts).
bool bulkCopyOnCurrentDevice(int64_t width, const float* in) {
  int device = 0, ccMajor = 0, sharedOptin = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&ccMajor, cudaDevAttrComputeCapabilityMajor, device));
  KL_CUDA_CHECK(
      cudaDeviceGetAttribute(&sharedOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const bool aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0;
  return aligned && bulkRowsRunsOn(ccMajor, static_cast<uint64_t>(sharedOptin), width);
}

}  // namespace

bool fitsOneLaunch(int64_t width, int64_t height) {
  RunRequest r;
  r.family = transpose::kFamily;
  r.section<TransposeProblem>().width = width;
  r.section<TransposeProblem>().height = height;
  try {
    makeGeometryOn(r, Variant::Best, 1024, bulkCopyOnCurrentDevice(width, nullptr));
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::string transposeOnDevice(const float* in, float* out, int64_t width, int64_t height,
                              CUstream_st* stream) {
  RunRequest r;
  r.family = transpose::kFamily;
  r.section<TransposeProblem>().width = width;
  r.section<TransposeProblem>().height = height;
  const Geometry g = makeGeometryOn(r, Variant::Best, 1024, bulkCopyOnCurrentDevice(width, in));
  const BestKernel b = bestKernel(g, false);
  b.fn<<<dim3(g.gridX, g.gridY), dim3(g.tile, g.blockRows), b.sharedBytes, stream>>>(in, out, g,
                                                                                     nullptr);
  KL_CUDA_CHECK_LAUNCH(stream);
  return toString(g.strategy);
}

}  // namespace kernellab::transpose

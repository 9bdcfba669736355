// SPDX-License-Identifier: MIT
// Per-block schedule records for any kernel family: the SM a block ran on (%smid) and when it
// started and ended (%globaltimer, nanoseconds). Instrumented kernels are separate template
// instances (kRecord = true), so the timed kernels carry no instrumentation.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "cuda/cuda_check.h"
#include "kernellab/hd.h"
#include "kernellab/result.h"

namespace kernellab::cuda {

struct BlockSlot {
  unsigned long long startNs;
  unsigned long long endNs;
  int smId;
  int tileX;
  int tileY;
  int pad;
};

__device__ __forceinline__ unsigned smId() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Thread (0,0) of each block reads the clock as the block starts.
template <bool kRecord>
__device__ __forceinline__ unsigned long long blockStart() {
  if (kRecord && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) return globalTimer();
  return 0;
}

// After every thread of the block is done, thread (0,0) writes the block's record at its linear
// launch index (blockIdx.x + gridDim.x * blockIdx.y).
template <bool kRecord>
__device__ __forceinline__ void blockEnd(BlockSlot* slots, unsigned long long start,
                                         BlockCoord tile) {
  if (!kRecord) return;
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    BlockSlot s;
    s.startNs = start;
    s.endNs = globalTimer();
    s.smId = static_cast<int>(smId());
    s.tileX = tile.x;
    s.tileY = tile.y;
    s.pad = 0;
    slots[blockIdx.x + static_cast<size_t>(gridDim.x) * blockIdx.y] = s;
  }
}

inline std::vector<BlockRecord> downloadSchedule(const DeviceBuffer<BlockSlot>& slots) {
  std::vector<BlockSlot> host(slots.size());
  KL_CUDA_CHECK(cudaMemcpy(host.data(), slots.get(), slots.bytes(), cudaMemcpyDeviceToHost));
  std::vector<BlockRecord> out;
  out.reserve(host.size());
  for (size_t i = 0; i < host.size(); ++i) {
    BlockRecord r;
    r.blockId = static_cast<int>(i);
    r.smId = host[i].smId;
    r.startNs = host[i].startNs;
    r.endNs = host[i].endNs;
    r.tileX = host[i].tileX;
    r.tileY = host[i].tileY;
    out.push_back(r);
  }
  return out;
}

}  // namespace kernellab::cuda

// SPDX-License-Identifier: MIT
// The farthest-point reduction of the k-centers engines (kcenters_fused.cu, kcenters_pruned.cu):
// the larger distance wins, the lower point index at equal distances, so any order of combining
// picks the same point as the CPU reference.
#pragma once

#include <climits>

namespace kernellab::clustering::best {

__device__ __forceinline__ bool farther(float va, int ia, float vb, int ib) {
  return va > vb || (va == vb && ia < ib);
}

__device__ __forceinline__ void warpFarthest(float& v, int& i) {
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int oi = __shfl_xor_sync(0xffffffffu, i, o);
    if (farther(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// Folds (v, i) over a block of kWarps full warps through wv / wi (kWarps slots of shared
// memory); the result is valid in thread 0. Every thread of the block must call it (a barrier).
template <int kWarps>
__device__ __forceinline__ void blockFarthest(float& v, int& i, float* wv, int* wi) {
  static_assert(kWarps >= 1 && kWarps <= 32, "a block of 1..32 warps");
  warpFarthest(v, i);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    wv[warp] = v;
    wi[warp] = i;
  }
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? wv[lane] : -1.0f;
    i = lane < kWarps ? wi[lane] : INT_MAX;
    warpFarthest(v, i);
  }
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// The fused TF32 assigns' decision for one 16-row slice of products (kmeans_tf32_assign.cu's
// mma.sync kernel and kmeans_wgmma_assign.cu's wgmma kernel share it): the products sit in the
// accumulator layout of mma.m16n8 (and of each warp's 16 rows of a wgmma.m64nN): lane (g, t) holds
// rows g and g + 8, columns 2t and 2t + 1 of every 8-center tile; the four lanes of a row agree
// by a butterfly. The rule is assignBoundKernel's.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdint>

#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {

// acc[nt][r * 2 + c2] = x_row . c'_kk (row = rowBase + r * 8, kk = nt * 8 + 2 t + c2, t = lane % 4);
// rowBase is the slice's first row plus lane / 4. cS[kk] = (|c_kk|^2, |c'_kk|), padded to NT * 8.
template <int NT>
__device__ __forceinline__ void decideSliceRows(const float (&acc)[NT][4], int64_t rowBase,
                                                int64_t n, int k, int lane,
                                                const float2* __restrict__ cS,
                                                const float* __restrict__ xnorm, float kappa,
                                                int* __restrict__ labels, int* __restrict__ unsure,
                                                int* __restrict__ unsureCount,
                                                uint32_t* __restrict__ masks) {
  const int t = lane & 3;
  // Per row: the best s and its index (pass 1, merged over the row's four lanes), its bound,
  // then the lowest s - bound of every other center (pass 2); sure when the best beats it
  // (the rule of assignBoundKernel). About seven instructions per point and center. Each pass
  // keeps two independent running minima per row (even and odd center tiles), merged at the
  // end: half the length of the dependent chain the warp waits on. Padding centers past K carry
  // |c|^2 = +inf (cS), so their s is +inf and s - bound is NaN: neither can win a minimum.
  float kx[2], b1[2][2], lower[2][2];
  int i1[2][2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int64_t row = rowBase + r * 8;
    kx[r] = row < n ? kappa * xnorm[row] : 0.f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      b1[r][h] = INFINITY;
      i1[r][h] = INT_MAX;
      lower[r][h] = INFINITY;
    }
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int c2 = 0; c2 < 2; ++c2) {
      const int kk = nt * 8 + 2 * t + c2;
      const float cn = cS[kk].x;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        // s = |c|^2 + G with G = -2 x.c' (the doubling is exact): one rounding, as cuBLAS's.
        const float sv = fmaf(-2.f, acc[nt][r * 2 + c2], cn);
        if (sv < b1[r][nt & 1]) {  // columns ascend within a chain: the lowest index at equal
          b1[r][nt & 1] = sv;
          i1[r][nt & 1] = kk;
        }
      }
    }
  float bestS[2];
  int bestK[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool odd = b1[r][1] < b1[r][0] || (b1[r][1] == b1[r][0] && i1[r][1] < i1[r][0]);
    bestS[r] = odd ? b1[r][1] : b1[r][0];
    bestK[r] = odd ? i1[r][1] : i1[r][0];
  }
  float e1[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
#pragma unroll
    for (int o = 1; o <= 2; o <<= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, bestS[r], o);
      const int oi = __shfl_xor_sync(0xffffffffu, bestK[r], o);
      if (ob < bestS[r] || (ob == bestS[r] && oi < bestK[r])) {
        bestS[r] = ob;
        bestK[r] = oi;
      }
    }
    const float2 c = cS[bestK[r] < k ? bestK[r] : 0];
    e1[r] = fmaf(kx[r], c.y, c.x * (1.0f / 4194304.0f));  // tf32Bound of the best center
  }
#pragma unroll
  for (int nt = 0; nt < NT; ++nt)
#pragma unroll
    for (int c2 = 0; c2 < 2; ++c2) {
      const int kk = nt * 8 + 2 * t + c2;
      const float2 c = cS[kk];
      const float e0 = c.x * (1.0f / 4194304.0f);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float sv = fmaf(-2.f, acc[nt][r * 2 + c2], c.x);
        const float tv = sv - fmaf(kx[r], c.y, e0);
        if (kk != bestK[r]) lower[r][nt & 1] = fminf(lower[r][nt & 1], tv);
      }
    }
  bool sure[2];
  float low[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    low[r] = fminf(lower[r][0], lower[r][1]);
    low[r] = fminf(low[r], __shfl_xor_sync(0xffffffffu, low[r], 1));
    low[r] = fminf(low[r], __shfl_xor_sync(0xffffffffu, low[r], 2));
    sure[r] = isfinite(bestS[r]) && low[r] > bestS[r] + e1[r];
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int64_t row = rowBase + r * 8;
    const bool writer = t == 0 && row < n;
    if (writer) labels[row] = sure[r] ? bestK[r] : -1;
    const unsigned list = __ballot_sync(0xffffffffu, writer && !sure[r]);
    if (!list) continue;  // warp-uniform
    // The candidates of an unsure row: every center whose interval reaches the best one.
    uint32_t m[kMaskWords] = {0u, 0u, 0u, 0u};
    if (!sure[r]) {
      const float limit = bestS[r] + e1[r];
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int c2 = 0; c2 < 2; ++c2) {
          const int kk = nt * 8 + 2 * t + c2;
          if (kk < k) {
            const float2 c = cS[kk];
            const float sv = fmaf(-2.f, acc[nt][r * 2 + c2], c.x);
            if (sv - fmaf(kx[r], c.y, c.x * (1.0f / 4194304.0f)) <= limit)
              m[nt >> 2] |= 1u << ((nt & 3) * 8 + 2 * t + c2);  // bit kk % 32 of word kk / 32
          }
        }
    }
#pragma unroll
    for (int w = 0; w < kMaskWords; ++w) {
      m[w] |= __shfl_xor_sync(0xffffffffu, m[w], 1);
      m[w] |= __shfl_xor_sync(0xffffffffu, m[w], 2);
    }
    // Warp-aggregated append of this warp's unsure rows of this set (at most 8).
    int base = 0;
    const int leader = __ffs(list) - 1;
    if (lane == leader) base = atomicAdd(unsureCount, __popc(list));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (writer && !sure[r]) {
      const int at = base + __popc(list & ((1u << lane) - 1u));
      unsure[at] = static_cast<int>(row);
#pragma unroll
      for (int w = 0; w < kMaskWords; ++w)
        masks[static_cast<int64_t>(at) * kMaskWords + w] = m[w];
    }
  }
}

}  // namespace kernellab::clustering::best

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

#include "kernellab/kmeans_pruning.h"
#include "kmeans_parts.cuh"
#include "kmeans_tf32_assign.cuh"

namespace kernellab::clustering::best {

// What the products prove about the two rows (g and g + 8) of a lane's row group, in s units
// (s_k = |c_k|^2 - 2 x.c'_k = d^2(x, c_k) - |x|^2 + 2 x.m: the same shift for every center):
// the best computed s and its center (lowest index at equal), e1 the bound of that center's s
// (its exact s is at most bestS + e1) and low, a lower bound of every other center's exact s.
// The row is sure when low > bestS + e1; low - (bestS + e1) is then a lower bound of
// d^2(second nearest) - d^2(nearest). kx[r] = kappa |x_row| (0 past the rows).
template <int NT>
__device__ __forceinline__ void sliceRowBounds(const float (&acc)[NT][4], const float (&kx)[2],
                                               int lane, const float2* __restrict__ cS,
                                               int k, float (&bestS)[2], int (&bestK)[2],
                                               float (&e1)[2], float (&low)[2]) {
  const int t = lane & 3;
  // Pass 1: the best s and its index (merged over the row's four lanes), its bound; pass 2: the
  // lowest s - bound of every other center (the rule of assignBoundKernel). About seven
  // instructions per point and center. Each pass keeps two independent running minima per row
  // (even and odd center tiles), merged at the end: half the length of the dependent chain the
  // warp waits on. Padding centers past K carry |c|^2 = +inf (cS), so their s is +inf and
  // s - bound is NaN: neither can win a minimum.
  float b1[2][2], lower[2][2];
  int i1[2][2];
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      b1[r][h] = INFINITY;
      i1[r][h] = INT_MAX;
      lower[r][h] = INFINITY;
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
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool odd = b1[r][1] < b1[r][0] || (b1[r][1] == b1[r][0] && i1[r][1] < i1[r][0]);
    bestS[r] = odd ? b1[r][1] : b1[r][0];
    bestK[r] = odd ? i1[r][1] : i1[r][0];
  }
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
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    low[r] = fminf(lower[r][0], lower[r][1]);
    low[r] = fminf(low[r], __shfl_xor_sync(0xffffffffu, low[r], 1));
    low[r] = fminf(low[r], __shfl_xor_sync(0xffffffffu, low[r], 2));
  }
}

// The candidates of an unsure row r (0: row g, 1: row g + 8): every center whose interval
// reaches the best one's upper end `limit`, as bits (bit kk % 32 of word kk / 32), the same on
// the row's four lanes; lowNc, the lowest s - bound of the other centers (a lower bound of
// their exact s; +inf when every center is a candidate). Every lane of the warp calls it (the
// shuffles); `unsure` false: no bits.
template <int NT>
__device__ __forceinline__ void candidateMask(const float (&acc)[NT][4], int r, bool unsure,
                                              float kx, float limit, int lane,
                                              const float2* __restrict__ cS, int k,
                                              uint32_t (&m)[kMaskWords], float& lowNc) {
  const int t = lane & 3;
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) m[w] = 0u;
  lowNc = INFINITY;
  if (unsure) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int c2 = 0; c2 < 2; ++c2) {
        const int kk = nt * 8 + 2 * t + c2;
        if (kk < k) {
          const float2 c = cS[kk];
          const float sv = fmaf(-2.f, acc[nt][r * 2 + c2], c.x);
          const float tv = sv - fmaf(kx, c.y, c.x * (1.0f / 4194304.0f));
          if (tv <= limit)
            m[nt >> 2] |= 1u << ((nt & 3) * 8 + 2 * t + c2);
          else
            lowNc = fminf(lowNc, tv);
        }
      }
  }
#pragma unroll
  for (int w = 0; w < kMaskWords; ++w) {
    m[w] |= __shfl_xor_sync(0xffffffffu, m[w], 1);
    m[w] |= __shfl_xor_sync(0xffffffffu, m[w], 2);
  }
  lowNc = fminf(lowNc, __shfl_xor_sync(0xffffffffu, lowNc, 1));
  lowNc = fminf(lowNc, __shfl_xor_sync(0xffffffffu, lowNc, 2));
}

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
  float kx[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int64_t row = rowBase + r * 8;
    kx[r] = row < n ? kappa * xnorm[row] : 0.f;
  }
  float bestS[2], e1[2], low[2];
  int bestK[2];
  sliceRowBounds<NT>(acc, kx, lane, cS, k, bestS, bestK, e1, low);
  bool sure[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) sure[r] = isfinite(bestS[r]) && low[r] > bestS[r] + e1[r];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int64_t row = rowBase + r * 8;
    const bool writer = t == 0 && row < n;
    if (writer) labels[row] = sure[r] ? bestK[r] : -1;
    const unsigned list = __ballot_sync(0xffffffffu, writer && !sure[r]);
    if (!list) continue;  // warp-uniform
    uint32_t m[kMaskWords];
    float lowNc;  // unused here
    candidateMask<NT>(acc, r, !sure[r], kx[r], bestS[r] + e1[r], lane, cS, k, m, lowNc);
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

// The pruned k-means engine's decision from the same products (kmeans_pruned.cu). Rows are list
// positions: o.list maps them to points (null: the points themselves), `count` of them. A sure
// row's point takes the label and its gap, low - (bestS + e1) rounded down: a lower bound of
// d^2(second nearest) - d^2(nearest), kept for the bounds of the next iteration; with o.bounds,
// which hold (u, a lower bound of d(x, c_old)) from the tightening on entry, the point gets
// Hamerly bounds at once: u stays and l = sqrt(lower^2 + gap) when the label stays; a new label
// gets (inf, 0), so the next iteration measures it again. A changed label is listed with the old
// one. An unsure row keeps its old label and is listed in o.ties with the old label, the mask of
// its candidates and what bounds the others, for prunedTieKernel (the double re-decision among
// the candidates, and the point's bounds).
template <int NT>
__device__ __forceinline__ void decideSliceRowsPruned(const float (&acc)[NT][4], int64_t posBase,
                                                      int64_t count, int k, int lane,
                                                      const float2* __restrict__ cS,
                                                      const float* __restrict__ xnorm,
                                                      float kappa, const PrunedTf32Out& o) {
  const int t = lane & 3;
  float kx[2];
  int point[2], oldLabel[2];
  float2 oldBounds[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int64_t pos = posBase + r * 8;
    point[r] = pos < count ? (o.list ? o.list[pos] : static_cast<int>(pos)) : -1;
  }
  // Every load the rows need, issued together before the first is used: read after the bounds
  // (and the row-0 label after the row-1 stores, which may alias), they were up to three round
  // trips per slice where best's decision waits one (its |x|).
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool has = point[r] >= 0;
    kx[r] = has ? kappa * xnorm[point[r]] : 0.f;
    oldLabel[r] = has && t == 0 ? o.labels[point[r]] : -1;
    oldBounds[r] = has && t == 0 && o.bounds ? o.bounds[point[r]] : make_float2(0.f, 0.f);
  }
  float bestS[2], e1[2], low[2];
  int bestK[2];
  sliceRowBounds<NT>(acc, kx, lane, cS, k, bestS, bestK, e1, low);
  // Both rows' verdicts first, so that one atomic reserves the slice's places in both lists (ties
  // and changed labels; the two counters are one 64-bit word, ties in its low half): the warp
  // waits for the atomic's answer before it writes, and with a round trip per row and list
  // (iteration 1 changes 29 % of the labels) those waits kept its next stages from being issued.
  // Measured (H100, 2026-12-07, same call): the run to the fixed point 9.59 -> 9.49 ms, the
  // decision of iteration 0 1.19 -> 1.14 ms; the pruned kernel still issues ~19 % more
  // instructions per launch than best's (Nsight Compute), so the waits were not most of its lag.
  bool rowTie[2], tie[2], moved[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool writer = t == 0 && point[r] >= 0;
    rowTie[r] = point[r] >= 0 && !(isfinite(bestS[r]) && low[r] > bestS[r] + e1[r]);
    tie[r] = writer && rowTie[r];
    moved[r] = o.changed && writer && !rowTie[r] && oldLabel[r] != bestK[r];
  }
  const unsigned tieBits[2] = {__ballot_sync(0xffffffffu, tie[0]),
                               __ballot_sync(0xffffffffu, tie[1])};
  const unsigned movedBits[2] = {__ballot_sync(0xffffffffu, moved[0]),
                                 __ballot_sync(0xffffffffu, moved[1])};
  const unsigned long long ties = __popc(tieBits[0]) + __popc(tieBits[1]);
  const unsigned long long changes = __popc(movedBits[0]) + __popc(movedBits[1]);
  unsigned long long base = 0;
  if (ties | changes) {  // warp-uniform
    if (lane == 0)
      base = atomicAdd(reinterpret_cast<unsigned long long*>(o.tieCount), (changes << 32) | ties);
    base = __shfl_sync(0xffffffffu, base, 0);
  }
  const unsigned below = (1u << lane) - 1u;
  const int tieBase = static_cast<int>(base & 0xffffffffu);
  const int changedBase = static_cast<int>(base >> 32);
  const int tieSlot[2] = {tieBase + __popc(tieBits[0] & below),
                          tieBase + __popc(tieBits[0]) + __popc(tieBits[1] & below)};
  const int changedSlot[2] = {changedBase + __popc(movedBits[0] & below),
                              changedBase + __popc(movedBits[0]) + __popc(movedBits[1] & below)};
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const bool writer = t == 0 && point[r] >= 0;
    const bool sure = writer && !rowTie[r];
    if (sure) {
      const int p = point[r], b = bestK[r];
      const int old = oldLabel[r];
      o.labels[p] = b;
      const float gap = __fsub_rd(low[r], __fadd_ru(bestS[r], e1[r]));
      o.gaps[p] = gap;
      if (o.bounds) {
        const float2 bd = oldBounds[r];
        const double lower = sqrt(double(bd.y) * double(bd.y) + double(gap)) * (1.0 - 1e-12);
        o.bounds[p] = old == b ? make_float2(bd.x, floatDown(lower)) : make_float2(INFINITY, 0.f);
      }
      if (moved[r]) o.changed[changedSlot[r]] = make_int2(p, old);
    }
    // The row's verdict on all four of its lanes (bestS and low are): each lane adds the
    // candidates among its own columns to the mask.
    if (tieBits[r]) {  // warp-uniform
      uint32_t m[kMaskWords];
      float lowNc;
      const float limit = bestS[r] + e1[r];
      candidateMask<NT>(acc, r, rowTie[r], kx[r], limit, lane, cS, k, m, lowNc);
      if (tie[r]) {
        const int p = point[r], slot = tieSlot[r];
        o.ties[slot] = p;
        o.tieOld[slot] = oldLabel[r];
        // The candidates' re-decision measures bestK exactly; with C(x) = d^2 - s (the same for
        // every center), d^2(non-candidate) >= d^2(bestK) + lowNc - (bestS + e1).
        o.tieBest[slot] = bestK[r] < k ? bestK[r] : -1;
        o.tieGapNc[slot] = isfinite(bestS[r]) ? __fsub_rd(lowNc, __fadd_ru(bestS[r], e1[r]))
                                              : 0.f;
#pragma unroll
        for (int w = 0; w < kMaskWords; ++w)
          o.masks[static_cast<int64_t>(slot) * kMaskWords + w] = m[w];
      }
    }
  }
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// The fused TF32 assign of the best k-means engine (kmeans_tf32_assign.cuh says what and why).
#include <algorithm>
#include <cfloat>
#include <climits>
#include <string>
#include <utility>

#include "best_common.cuh"
#include "cuda/cuda_check.h"
#include "kmeans_tf32_assign.cuh"

namespace kernellab::clustering::best {
namespace {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ uint32_t toTf32(float v) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

// D += A B for one 16 x 8 x 8 tile: A row-major (a0: row g, col t; a1: row g + 8, col t; a2, a3:
// col t + 4), B column-major (b0: row t, col g; b1: row t + 4), D: rows g and g + 8, columns 2t
// and 2t + 1 (g = lane / 4, t = lane % 4; PTX ISA, "mma.m16n8k8 .tf32"). The A operands are the
// points' fp32 bits: the tensor cores use their TF32 part (truncation).
__device__ __forceinline__ void mmaTf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                        uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The A fragment of one 16 x 8 tile from a row-major staged tile: four 8 x 4-float matrices
// (rows 0-7 / 8-15, columns 0-3 / 4-7), lane L giving the address of row L % 8 of matrix L / 8;
// register j is then element (row g, word t) of matrix j: exactly a0..a3.
__device__ __forceinline__ void loadA(uint32_t (&a)[4], const float* tileRow0, int lane) {
  const int m = lane >> 3, r = lane & 7;
  const float* p = tileRow0 + (r + (m & 1) * 8) * kTf32StagePitch + (m >> 1) * 4;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}
#endif

// NT: 8-center tiles; MT: 16-row tiles per warp (2: 8 warps of 32 rows; 1: 16 warps of 16 rows,
// fewer registers and twice the warps to hide latency).
template <int NT, int MT>
__global__ void __launch_bounds__(32 * 16 / MT, 1)
    kmeansTf32AssignKernel(const float* __restrict__ X, int64_t n, int d,
                           const float* __restrict__ Cc, const float* __restrict__ cn,
                           const float* __restrict__ cabs, int k, const float* __restrict__ xnorm,
                           float kappa, int pairs, int stages, bool vec, int* __restrict__ labels,
                           int* __restrict__ unsure, int* __restrict__ unsureCount,
                           uint32_t* __restrict__ masks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kStageFloats = kTf32TilePoints * kTf32StagePitch;
  constexpr int kWarpRows = 16 * MT;
  extern __shared__ __align__(16) float smem[];
  // The centers as B fragments: for k-step pair p and tile nt, lane L's 16 bytes are b0, b1 of
  // k-step 2p and b0, b1 of k-step 2p + 1 (one ld.shared.v4 a lane, 512 bytes a warp).
  uint4* Bf = reinterpret_cast<uint4*>(smem);
  float2* cS = reinterpret_cast<float2*>(Bf + size_t(pairs) * NT * 32);  // (|c_k|^2, |c'_k|)
  float* As = reinterpret_cast<float*>(cS + NT * 8);  // `stages` tiles of 256 rows
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
  constexpr int kStepsPerStage = kTf32StageDims / 8;
  const int dStages = (d + kTf32StageDims - 1) / kTf32StageDims;

  for (int e = tid; e < pairs * NT * 32 * 4; e += blockDim.x) {
    const int w = e & 3, L = (e >> 2) & 31, rest = e >> 7;
    const int nt = rest % NT, p = rest / NT;
    const int kk = nt * 8 + (L >> 2);
    const int q = p * 16 + (w >> 1) * 8 + (w & 1) * 4 + (L & 3);
    const float v = (kk < k && q < d) ? Cc[static_cast<int64_t>(kk) * d + q] : 0.f;
    reinterpret_cast<uint32_t*>(Bf)[e] = toTf32(v);
  }
  for (int kk = tid; kk < NT * 8; kk += blockDim.x)
    cS[kk] = kk < k ? make_float2(cn[kk], cabs[kk]) : make_float2(0.f, 0.f);

  // This block's stages, tile after tile, as one sequence (the pipeline runs across tiles).
  const int64_t tiles = (n + kTf32TilePoints - 1) / kTf32TilePoints;
  const int64_t myTiles =
      tiles > blockIdx.x ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int64_t total = myTiles * dStages;
  auto tileOf = [&](int64_t gs) { return blockIdx.x + (gs / dStages) * gridDim.x; };
  // A thread copies the same 16-byte piece (or the same float) of every few rows of the tile: the
  // row pointer steps by a fixed stride, one add and one compare per copy.
  const int pieces = vec ? kTf32StageDims / 4 : kTf32StageDims;  // copies per row
  const int piece = tid % pieces;
  const int rowStep = static_cast<int>(blockDim.x) / pieces;
  const int firstRow = tid / pieces;
  const int pieceQ = vec ? piece * 4 : piece;
  auto issue = [&](int64_t gs) {
    if (gs < total) {
      const int64_t i0 = tileOf(gs) * kTf32TilePoints;
      const int q = static_cast<int>(gs % dStages) * kTf32StageDims + pieceQ;
      float* dst = As + (gs % stages) * kStageFloats + firstRow * kTf32StagePitch + pieceQ;
      const float* src = X + (i0 + firstRow) * d + q;
      const int64_t rowsLeft = n - i0 - firstRow;  // rows of this thread's still inside N
      const bool inD = q < d;                     // D % 4 == 0 when vec: a piece is in or out
      const int64_t srcStep = static_cast<int64_t>(rowStep) * d;
      for (int r = 0; r < kTf32TilePoints / rowStep; ++r) {
        const bool ok = inD && r * rowStep < rowsLeft;
        if (vec)
          copyAsync(dst, ok ? src : X, ok ? 16 : 0, 16);
        else
          copyAsync(dst, ok ? src : X, ok ? 4 : 0, 4);
        dst += rowStep * kTf32StagePitch;
        src += srcStep;
      }
    }
    commitAsync();
  };

  for (int s = 0; s < stages - 1; ++s) issue(s);
  float acc[MT][NT][4];
  for (int64_t gs = 0; gs < total; ++gs) {
    issue(gs + stages - 1);
    waitAsync(stages - 1);
    __syncthreads();  // this stage landed for every thread (and the centers, the first time)
    const int s = static_cast<int>(gs % dStages);
    if (s == 0) {
#pragma unroll
      for (int m = 0; m < MT; ++m)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          acc[m][nt][0] = acc[m][nt][1] = acc[m][nt][2] = acc[m][nt][3] = 0.f;
    }
    const float* a = As + (gs % stages) * kStageFloats + warp * kWarpRows * kTf32StagePitch;
    const uint4* b = Bf + (size_t(s) * (kStepsPerStage / 2) * NT) * 32 + lane;
    // Every stage is 4 k-steps: dimensions past D are zeros on both sides (12 % more work at
    // D = 200, for a loop without a run-time bound).
#pragma unroll
    for (int pp = 0; pp < kStepsPerStage / 2; ++pp) {
      uint32_t a0[MT][4], a1[MT][4];  // [m-tile]: the pair's first and second k-step
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        loadA(a0[m], a + m * 16 * kTf32StagePitch + (pp * 16), lane);
        loadA(a1[m], a + m * 16 * kTf32StagePitch + (pp * 16 + 8), lane);
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const uint4 bb = b[(pp * NT + nt) * 32];
#pragma unroll
        for (int m = 0; m < MT; ++m) mmaTf32(acc[m][nt], a0[m], bb.x, bb.y);
#pragma unroll
        for (int m = 0; m < MT; ++m) mmaTf32(acc[m][nt], a1[m], bb.z, bb.w);
      }
    }
    if (s == dStages - 1) {
      // The tile's rows: this lane holds rows g and g + 8 of each of its warp's two 16-row tiles,
      // columns 2t, 2t + 1 of every 8-center tile; the four lanes of a row (t = 0..3) agree by a
      // butterfly.
      const int64_t rowBase = tileOf(gs) * kTf32TilePoints + warp * kWarpRows + g;
      // One 16-row tile at a time (two rows per lane): fewer registers live beside the sums.
#pragma unroll
      for (int mm = 0; mm < MT; ++mm) {
      // Per row: the best s and its index (pass 1, merged over the row's four lanes), its bound,
      // then the lowest s - bound of every other center (pass 2); sure when the best beats it
      // (the rule of assignBoundKernel). About nine instructions per point and center.
      float kx[2], b1[2], lower[2];
      int i1[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int64_t row = rowBase + mm * 16 + r * 8;
        kx[r] = row < n ? kappa * xnorm[row] : 0.f;
        b1[r] = INFINITY;
        i1[r] = INT_MAX;
        lower[r] = INFINITY;
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int c2 = 0; c2 < 2; ++c2) {
          const int kk = nt * 8 + 2 * t + c2;
          const float cn = cS[kk].x;  // (padding centers past K are skipped below)
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            // s = |c|^2 + G with G = -2 x.c' (the doubling is exact): one rounding, as cuBLAS's.
            const float sv = fmaf(-2.f, acc[mm][nt][r * 2 + c2], cn);
            if (kk < k && sv < b1[r]) {  // columns ascend: the lowest index at equal
              b1[r] = sv;
              i1[r] = kk;
            }
          }
        }
      float e1[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
#pragma unroll
        for (int o = 1; o <= 2; o <<= 1) {
          const float ob = __shfl_xor_sync(0xffffffffu, b1[r], o);
          const int oi = __shfl_xor_sync(0xffffffffu, i1[r], o);
          if (ob < b1[r] || (ob == b1[r] && oi < i1[r])) {
            b1[r] = ob;
            i1[r] = oi;
          }
        }
        const float2 c = cS[i1[r] < k ? i1[r] : 0];
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
            const float sv = fmaf(-2.f, acc[mm][nt][r * 2 + c2], c.x);
            const float tv = sv - fmaf(kx[r], c.y, e0);
            if (kk < k && kk != i1[r]) lower[r] = fminf(lower[r], tv);
          }
        }
      bool sure[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        lower[r] = fminf(lower[r], __shfl_xor_sync(0xffffffffu, lower[r], 1));
        lower[r] = fminf(lower[r], __shfl_xor_sync(0xffffffffu, lower[r], 2));
        sure[r] = isfinite(b1[r]) && lower[r] > b1[r] + e1[r];
      }
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int64_t row = rowBase + mm * 16 + r * 8;
        const bool writer = t == 0 && row < n;
        if (writer) labels[row] = sure[r] ? i1[r] : -1;
        const unsigned list = __ballot_sync(0xffffffffu, writer && !sure[r]);
        if (!list) continue;  // warp-uniform
        // The candidates of an unsure row: every center whose interval reaches the best one.
        uint32_t m[kMaskWords] = {0u, 0u, 0u, 0u};
        if (!sure[r]) {
          const float limit = b1[r] + e1[r];
#pragma unroll
          for (int nt = 0; nt < NT; ++nt)
#pragma unroll
            for (int c2 = 0; c2 < 2; ++c2) {
              const int kk = nt * 8 + 2 * t + c2;
              if (kk < k) {
                const float2 c = cS[kk];
                const float sv = fmaf(-2.f, acc[mm][nt][r * 2 + c2], c.x);
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
    }
    __syncthreads();  // every warp is done with this stage's buffer before it is refilled
  }
  waitAsync(0);
#else
  __trap();  // never launched: planTf32Assign refuses devices below compute capability 8.0
#endif
}

using AssignKernel = void (*)(const float*, int64_t, int, const float*, const float*,
                              const float*, int, const float*, float, int, int, bool, int*, int*,
                              int*, uint32_t*);

template <int MT, int... NT>
AssignKernel kernelFor(int nTiles, std::integer_sequence<int, NT...>) {
  AssignKernel out = nullptr;
  ((nTiles == NT + 1 ? (out = kmeansTf32AssignKernel<NT + 1, MT>, 0) : 0), ...);
  return out;
}

// 32 rows per warp (MT = 2). 16 rows per warp with 16 warps measured no faster on the H200 and
// spills at its 128-register cap, so it is not built.
AssignKernel assignKernel(int nTiles) {
  return kernelFor<2>(nTiles, std::make_integer_sequence<int, kTf32MaxCenters / 8>{});
}

}  // namespace

std::optional<Tf32AssignPlan> planTf32Assign(int k, int d, std::string& why) {
  if (currentComputeCapability() < 80) {
    why = "the TF32 tensor-core assign needs compute capability 8.0 or newer (mma.sync TF32)";
    return std::nullopt;
  }
  if (k > kTf32MaxCenters) {
    why = "the TF32 tensor-core assign keeps at most " + std::to_string(kTf32MaxCenters) +
          " centers on chip; K = " + std::to_string(k);
    return std::nullopt;
  }
  Tf32AssignPlan p;
  p.nTiles = (k + 7) / 8;
  const int dPad = (d + kTf32StageDims - 1) / kTf32StageDims * kTf32StageDims;
  p.pairs = dPad / 16;
  p.vec = d % 4 == 0;
  // The centers' fragments (16 bytes per lane, pair and tile) and (|c|^2, |c'|) per center.
  const size_t fixed = 16 * size_t(p.pairs) * p.nTiles * 32 + sizeof(float) * 2 * p.nTiles * 8;
  const size_t stage = sizeof(float) * size_t(kTf32TilePoints) * kTf32StagePitch;
  const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
  const size_t optin = static_cast<size_t>(limits.sharedPerBlockOptin);
  if (fixed + 2 * stage > optin) {
    why = "the TF32 tensor-core assign keeps the K x D centers on chip: K = " + std::to_string(k) +
          ", D = " + std::to_string(d) + " need " + std::to_string(fixed + 2 * stage) +
          " bytes of shared memory per block, this GPU allows " + std::to_string(optin);
    return std::nullopt;
  }
  p.stages = static_cast<int>(std::min<size_t>(3, (optin - fixed) / stage));
  p.smem = fixed + p.stages * stage;
  const AssignKernel kernel = assignKernel(p.nTiles);
  KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(p.smem)));
  int perSM = 0;
  KL_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, p.threads(), p.smem));
  p.grid = std::max(1, limits.sms * std::max(1, perSM));
  return p;
}

void launchTf32Assign(const Tf32AssignPlan& p, const float* X, int64_t n, int d, const float* Cc,
                      const float* cn, const float* cabs, int k, const float* xnorm, float kappa,
                      int* labels, int* unsure, int* unsureCount, uint32_t* masks,
                      cudaStream_t stream) {
  const int64_t tiles = (n + kTf32TilePoints - 1) / kTf32TilePoints;
  const int grid = static_cast<int>(std::min<int64_t>(p.grid, std::max<int64_t>(1, tiles)));
  assignKernel(p.nTiles)<<<grid, p.threads(), p.smem, stream>>>(
      X, n, d, Cc, cn, cabs, k, xnorm, kappa, p.pairs, p.stages, p.vec, labels, unsure,
      unsureCount, masks);
  KL_CUDA_CHECK_LAUNCH(stream);
}

ResourceUsage tf32AssignResources(const Tf32AssignPlan& p) {
  return cuda::kernelResources(assignKernel(p.nTiles), p.threads(), p.smem);
}

}  // namespace kernellab::clustering::best

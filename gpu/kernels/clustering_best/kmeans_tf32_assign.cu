// SPDX-License-Identifier: MIT
// The fused TF32 assign of the best k-means engine (kmeans_tf32_assign.cuh says what and why).
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "best_common.cuh"
#include "cuda/cuda_check.h"
#include "kmeans_assign_decide.cuh"
#include "kmeans_tf32_assign.cuh"

namespace kernellab::clustering::best {
namespace {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
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
// fewer registers and twice the warps to hide latency). kPruned: the pruned engine's kernel, its
// rows read through pr.list when there is one (pr.listCount of them) and decided by
// decideSliceRowsPruned; else best's (labels, unsure, masks).
template <int NT, int MT, bool kPruned>
__global__ void __launch_bounds__(32 * 16 / MT, 1)
    kmeansTf32AssignKernel(const float* __restrict__ X, int64_t n, int d,
                           const uint4* __restrict__ fragments, const float* __restrict__ cn,
                           const float* __restrict__ cabs, int k, const float* __restrict__ xnorm,
                           float kappa, int pairs, int stages, bool vec, int* __restrict__ labels,
                           int* __restrict__ unsure, int* __restrict__ unsureCount,
                           uint32_t* __restrict__ masks, PrunedTf32Out pr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int* list = kPruned ? pr.list : nullptr;
  if (list) n = *pr.listCount;
  constexpr int kStageFloats = kTf32TilePoints * kTf32StagePitch;
  constexpr int kWarpRows = 16 * MT;
  extern __shared__ __align__(16) float smem[];
  // The centers as B fragments: for k-step pair p and tile nt, lane L's 16 bytes are b0, b1 of
  // k-step 2p and b0, b1 of k-step 2p + 1 (one ld.shared.v4 a lane, 512 bytes a warp).
  uint4* Bf = reinterpret_cast<uint4*>(smem);
  float2* cS = reinterpret_cast<float2*>(Bf + size_t(pairs) * NT * 32);  // (|c_k|^2, |c'_k|)
  float* As = reinterpret_cast<float*>(cS + NT * 8);  // `stages` tiles of 256 rows
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2;
  constexpr int kStepsPerStage = kTf32StageDims / 8;
  const int dStages = (d + kTf32StageDims - 1) / kTf32StageDims;

  // The centers' fragments, laid out by whoever centred them (Tf32CenterFragments): 16-byte
  // copies, all in flight at once. Converting them here (eight loads in flight per thread, ~12
  // L2 round trips at K = 100, D = 200) was ~12 us of every launch (Nsight Compute, H100), most
  // of the pruned engine's decision of a short list.
  const int chunks = pairs * NT * 32;
  for (int e = tid; e < chunks; e += blockDim.x) copyAsync(Bf + e, fragments + e, 16, 16);
  commitAsync();
  for (int kk = tid; kk < NT * 8; kk += blockDim.x)
    cS[kk] = kk < k ? make_float2(cn[kk], cabs[kk]) : make_float2(INFINITY, 0.f);  // never wins
  waitAsync(0);
  __syncthreads();  // the centers are in shared memory; from here on every warp runs alone

  // Each warp streams its own units of 32 points (unit u: points 32u .. 32u + 31, units dealt to
  // the grid's warps in turn) through its own slice of the stage buffers: no block barrier, so one
  // warp's epilogue overlaps the others' copies and products.
  const int warps = static_cast<int>(blockDim.x) >> 5;
  const int64_t gridWarps = static_cast<int64_t>(gridDim.x) * warps;
  // Warp w of block b is the grid's warp w G + b: a short list's units (the pruned engine's
  // 300-3,000 of them) go to every SM's first warps before any SM's second, where block b's
  // warps took units 8b..8b+7 and a 10,000-point list kept 40 SMs busy with eight warps each.
  const int64_t myWarp = static_cast<int64_t>(warp) * gridDim.x + blockIdx.x;
  const int64_t units = (n + kWarpRows - 1) / kWarpRows;
  const int64_t myUnits = units > myWarp ? (units - myWarp + gridWarps - 1) / gridWarps : 0;
  auto unitOf = [&](int64_t u) { return myWarp + u * gridWarps; };  // this warp's u-th unit
  float* myStages = As + warp * kWarpRows * kTf32StagePitch;  // stage st at + st * kStageFloats
  // A lane copies the same 16-byte piece (or the same float) of every few rows of the unit. The
  // copies run stages - 1 stages ahead of the products with their own (unit, stage, buffer)
  // counters: no 64-bit division per stage (each is a hundred integer instructions).
  const int pieces = vec ? kTf32StageDims / 4 : kTf32StageDims;  // copies per row
  const int piece = lane % pieces;
  const int rowStep = 32 / pieces;
  const int firstRow = lane / pieces;
  const int pieceQ = vec ? piece * 4 : piece;
  int64_t copyUnit = 0;
  int copyStage = 0, copyBuf = 0;
  auto issueNext = [&]() {
    if (copyUnit < myUnits) {
      const int64_t i0 = unitOf(copyUnit) * kWarpRows;
      const int q = copyStage * kTf32StageDims + pieceQ;
      float* dst = myStages + copyBuf * kStageFloats + firstRow * kTf32StagePitch + pieceQ;
      const float* src = X + (i0 + firstRow) * d + q;
      const int64_t rowsLeft = n - i0 - firstRow;  // rows of this lane's still inside N
      const bool inD = q < d;                     // D % 4 == 0 when vec: a piece is in or out
      const int64_t srcStep = static_cast<int64_t>(rowStep) * d;
      for (int r = 0; r < kWarpRows / rowStep; ++r) {
        const bool ok = inD && r * rowStep < rowsLeft;
        const float* from = src;
        if (kPruned && list && ok)  // a listed point's row: its index from the list (L1)
          from = X + static_cast<int64_t>(list[i0 + firstRow + r * rowStep]) * d + q;
        if (vec)
          copyAsync(dst, ok ? from : X, ok ? 16 : 0, 16);
        else
          copyAsync(dst, ok ? from : X, ok ? 4 : 0, 4);
        dst += rowStep * kTf32StagePitch;
        src += srcStep;
      }
    }
    commitAsync();
    if (++copyStage == dStages) {
      copyStage = 0;
      ++copyUnit;
    }
    if (++copyBuf == stages) copyBuf = 0;
  };

  for (int s = 0; s < stages - 1; ++s) issueNext();
  float acc[MT][NT][4];
  int buf = 0;  // the products' stage buffer
  for (int64_t u = 0; u < myUnits; ++u) {
    for (int s = 0; s < dStages; ++s) {
      issueNext();
      waitAsync(stages - 1);
      __syncwarp();  // this stage landed for every lane of the warp
      if (s == 0) {
#pragma unroll
        for (int m = 0; m < MT; ++m)
#pragma unroll
          for (int nt = 0; nt < NT; ++nt)
            acc[m][nt][0] = acc[m][nt][1] = acc[m][nt][2] = acc[m][nt][3] = 0.f;
      }
      const float* a = myStages + buf * kStageFloats;
      if (++buf == stages) buf = 0;
      const uint4* b = Bf + (size_t(s) * (kStepsPerStage / 2) * NT) * 32 + lane;
      // Up to two pairs of k-steps: the last stage stops after the pair that holds dimension
      // D - 1 (dimensions past D inside it are zeros on both sides); the same on every lane.
      const int dLeft = d - s * kTf32StageDims;
#pragma unroll
      for (int pp = 0; pp < kStepsPerStage / 2; ++pp) {
        if (pp * 16 >= dLeft) break;
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
      __syncwarp();  // every lane has read this stage before the next issueNext() refills it
    }
    // The unit's rows, one 16-row tile at a time (kmeans_assign_decide.cuh): fewer registers
    // live beside the sums.
    const int64_t rowBase = unitOf(u) * kWarpRows + g;
#pragma unroll
    for (int mm = 0; mm < MT; ++mm) {
      if constexpr (kPruned)
        decideSliceRowsPruned<NT>(acc[mm], rowBase + mm * 16, n, k, lane, cS, xnorm, kappa, pr);
      else
        decideSliceRows<NT>(acc[mm], rowBase + mm * 16, n, k, lane, cS, xnorm, kappa, labels,
                            unsure, unsureCount, masks);
    }
  }
  waitAsync(0);
#else
  __trap();  // never launched: planTf32Assign refuses devices below compute capability 8.0
#endif
}

using AssignKernel = void (*)(const float*, int64_t, int, const uint4*, const float*,
                              const float*, int, const float*, float, int, int, bool, int*, int*,
                              int*, uint32_t*, PrunedTf32Out);

template <int MT, bool kPruned, int... NT>
AssignKernel kernelFor(int nTiles, std::integer_sequence<int, NT...>) {
  AssignKernel out = nullptr;
  ((nTiles == NT + 1 ? (out = kmeansTf32AssignKernel<NT + 1, MT, kPruned>, 0) : 0), ...);
  return out;
}

// 32 rows per warp (MT = 2). 16 rows per warp with 16 warps measured no faster on the H200 and
// spills at its 128-register cap, so it is not built.
AssignKernel assignKernel(int nTiles, bool pruned) {
  constexpr auto tiles = std::make_integer_sequence<int, kTf32MaxCenters / 8>{};
  return pruned ? kernelFor<2, true>(nTiles, tiles) : kernelFor<2, false>(nTiles, tiles);
}

}  // namespace

std::optional<Tf32AssignPlan> planTf32Assign(int k, int d, std::string& why, bool pruned) {
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
  p.pruned = pruned;
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
  const AssignKernel kernel = assignKernel(p.nTiles, pruned);
  KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(p.smem)));
  int perSM = 0;
  KL_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, p.threads(), p.smem));
  p.grid = std::max(1, limits.sms * std::max(1, perSM));
  return p;
}

void launchTf32Assign(const Tf32AssignPlan& p, const float* X, int64_t n, int d,
                      const uint32_t* fragments, const float* cn, const float* cabs, int k, const float* xnorm, float kappa,
                      int* labels, int* unsure, int* unsureCount, uint32_t* masks,
                      cudaStream_t stream) {
  const int64_t tiles = (n + kTf32TilePoints - 1) / kTf32TilePoints;
  const int grid = static_cast<int>(std::min<int64_t>(p.grid, std::max<int64_t>(1, tiles)));
  assignKernel(p.nTiles, false)<<<grid, p.threads(), p.smem, stream>>>(
      X, n, d, reinterpret_cast<const uint4*>(fragments), cn, cabs, k, xnorm, kappa, p.pairs,
      p.stages, p.vec, labels, unsure,
      unsureCount, masks, PrunedTf32Out{});
  KL_CUDA_CHECK_LAUNCH(stream);
}

void launchTf32PrunedDecide(const Tf32AssignPlan& p, const float* X, int64_t n, int d,
                            const uint32_t* fragments, const float* cn, const float* cabs, int k,
                            const float* xnorm, float kappa, const PrunedTf32Out& out,
                            cudaStream_t stream) {
  // decideSliceRowsPruned reserves places in both lists with one 64-bit atomic.
  if (out.changedCount != out.tieCount + 1 || reinterpret_cast<uintptr_t>(out.tieCount) % 8 != 0)
    throw std::logic_error("launchTf32PrunedDecide: the tie and changed counters must be one "
                           "8-byte-aligned word, ties first");
  // With a list, n is its capacity: the kernel reads the length and each warp stops past it.
  const int64_t tiles = (n + kTf32TilePoints - 1) / kTf32TilePoints;
  const int grid = static_cast<int>(std::min<int64_t>(p.grid, std::max<int64_t>(1, tiles)));
  assignKernel(p.nTiles, true)<<<grid, p.threads(), p.smem, stream>>>(
      X, n, d, reinterpret_cast<const uint4*>(fragments), cn, cabs, k, xnorm, kappa, p.pairs,
      p.stages, p.vec, nullptr, nullptr,
      nullptr, nullptr, out);
  KL_CUDA_CHECK_LAUNCH(stream);
}

ResourceUsage tf32AssignResources(const Tf32AssignPlan& p) {
  return cuda::kernelResources(assignKernel(p.nTiles, p.pruned), p.threads(), p.smem);
}

}  // namespace kernellab::clustering::best

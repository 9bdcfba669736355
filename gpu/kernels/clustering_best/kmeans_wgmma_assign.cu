// SPDX-License-Identifier: MIT
// The wgmma fused assign (kmeans_wgmma_assign.cuh says what and why). Compiled for sm_90a only.
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "best_common.cuh"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kmeans_assign_decide.cuh"
#include "kmeans_parts.cuh"
#include "kmeans_wgmma_assign.cuh"
#include "wgmma_tf32_ops.cuh"

namespace kernellab::clustering::best {
namespace {

constexpr int kQuarterBytes = 128;  // one core matrix: 8 rows x 4 floats (16 bytes a row)
// A stage of one warpgroup: 8 quarters (4 dimensions each) x 8 row groups x 8 rows x 4 floats.
constexpr int kStageFloats = (kWgStageDims / 4) * (kWgRows / 8) * 32;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint32_t roundTf32(float v) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

// A shared-memory matrix descriptor without swizzle: start, the byte distance between core
// matrices next to each other along K ("leading") and along M or N ("stride"), each >> 4.
__device__ __forceinline__ uint64_t smemDescriptor(const float* p, uint32_t leading,
                                                   uint32_t stride) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return static_cast<uint64_t>((a >> 4) & 0x3FFFu) |
         (static_cast<uint64_t>((leading >> 4) & 0x3FFFu) << 16) |
         (static_cast<uint64_t>((stride >> 4) & 0x3FFFu) << 32);
}

// Keeps the compiler from moving reads or writes of the accumulators across the asynchronous
// operations that own them (they are registers, not memory, so "memory" clobbers do not).
template <int NT>
__device__ __forceinline__ void fenceAccumulators(float (&acc)[NT][4]) {
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int c = 0; c < 4; ++c) asm volatile("" : "+f"(acc[j][c])::"memory");
}
#endif

template <int NT>
__global__ void __launch_bounds__(128 * kWgGroups, 1)
    kmeansWgmmaAssignKernel(const float* __restrict__ X, int64_t n, int d,
                            const float* __restrict__ Cc, const float* __restrict__ cn,
                            const float* __restrict__ cabs, int k,
                            const float* __restrict__ xnorm, float kappa, int kSteps, int stages,
                            bool swapOffsets, int* __restrict__ labels, int* __restrict__ unsure,
                            int* __restrict__ unsureCount, uint32_t* __restrict__ masks) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(128) float smem[];
  // The centers, K-major core matrices: quarter (4 dimensions) qq, 8-center group j, center r of
  // it, dimension e: Bs[((qq * NT + j) * 8 + r) * 4 + e]. A k-step is two quarters.
  float* Bs = smem;
  const int bFloats = kSteps * 2 * NT * 32;
  float2* cS = reinterpret_cast<float2*>(Bs + bFloats);  // (|c_k|^2, |c'_k|)
  float* As = reinterpret_cast<float*>(cS + NT * 8);     // groups x stages x kStageFloats
  const int tid = threadIdx.x;
  for (int e = tid; e < bFloats; e += blockDim.x) {
    const int el = e & 3, r = (e >> 2) & 7, rest = e >> 5;
    const int j = rest % NT, qq = rest / NT;
    const int kk = j * 8 + r, q = qq * 4 + el;
    const float v = (kk < k && q < d) ? Cc[static_cast<int64_t>(kk) * d + q] : 0.f;
    Bs[e] = __uint_as_float(roundTf32(v));
  }
  for (int kk = tid; kk < NT * 8; kk += blockDim.x)
    cS[kk] = kk < k ? make_float2(cn[kk], cabs[kk]) : make_float2(INFINITY, 0.f);  // never wins
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // seen by the tensor cores
  __syncthreads();

  const int wg = tid >> 7, t = tid & 127, lane = tid & 31, warpInGroup = t >> 5;
  constexpr int groups = kWgGroups;
  // Units are dealt a block at a time: round r gives this block units (b + r grid) groups + wg.
  // The round count depends on the block only, so every loop below has the same trip count on
  // all threads (a wgmma on a path the compiler cannot prove uniform is serialized); a unit past
  // N is all zeros and decides no row.
  const int64_t units = (n + kWgRows - 1) / kWgRows;
  const int64_t blockUnits = (units + groups - 1) / groups;  // groups units each
  const int64_t myRounds =
      blockUnits > blockIdx.x ? (blockUnits - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const int dStages = (d + kWgStageDims - 1) / kWgStageDims;
  auto unitOf = [&](int64_t round) {
    return (static_cast<int64_t>(blockIdx.x) + round * gridDim.x) * groups + wg;
  };
  float* myA = As + static_cast<size_t>(wg) * stages * kStageFloats;

  // A thread copies 4 pieces of 16 bytes per stage: piece p = t + 128 i is row 8 gi + r8,
  // dimensions 4 qi .. 4 qi + 3 of the stage (r8 = p % 8, qi = p / 8 % 8, gi = p / 64), stored at
  // core matrix (qi, gi), row r8. A quarter warp writes one whole 128-byte core matrix. The
  // copies run stages - 1 stages ahead of the products, with their own (round, stage, buffer)
  // counters: no 64-bit division per stage (each is a hundred integer instructions).
  const int r8 = t & 7, qi = (t >> 3) & 7, gi0 = t >> 6;
  const int dstOffset = ((qi * 8 + gi0) * 8 + r8) * 4;  // + 2 core-matrix rows of groups per i
  int64_t copyRound = 0;
  int copyStage = 0, copyBuf = 0;
  auto issueNext = [&]() {
    if (copyRound < myRounds) {
      const int64_t row0 = unitOf(copyRound) * kWgRows + gi0 * 8 + r8;
      const int q = copyStage * kWgStageDims + qi * 4;
      float* dst = myA + copyBuf * kStageFloats + dstOffset;
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // row groups gi0 + 2 i: rows 16 i further
        const int64_t row = row0 + 16 * i;
        const bool ok = row < n && q < d;  // D % 4 == 0: a piece is wholly in or out
        copyAsync(dst + i * 2 * 8 * 4, ok ? X + row * d + q : X, ok ? 16 : 0, 16);
      }
    }
    commitAsync();
    if (++copyStage == dStages) {
      copyStage = 0;
      ++copyRound;
    }
    if (++copyBuf == stages) copyBuf = 0;
  };

  // Descriptor strides: A's core matrices are 8 row groups (128 bytes apart) by quarters (1024
  // bytes apart); B's are 8-center groups (128 bytes apart) by quarters (NT x 128 bytes apart).
  const uint32_t aLead = swapOffsets ? kQuarterBytes : 8 * kQuarterBytes;
  const uint32_t aStride = swapOffsets ? 8 * kQuarterBytes : kQuarterBytes;
  const uint32_t bLead = swapOffsets ? kQuarterBytes : NT * kQuarterBytes;
  const uint32_t bStride = swapOffsets ? NT * kQuarterBytes : kQuarterBytes;

  float acc[NT][4];
#pragma unroll
  for (int j = 0; j < NT; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  for (int s = 0; s < stages - 1; ++s) issueNext();
  int buf = 0;  // the products' stage buffer
  for (int64_t round = 0; round < myRounds; ++round) {
    for (int s = 0; s < dStages; ++s) {
      waitAsync(stages - 2);  // this thread's pieces of this stage have landed
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory");  // every piece of the stage
      const float* a = myA + buf * kStageFloats;
      if (++buf == stages) buf = 0;
      // 4 k-steps (dimensions past D are zeros on both sides).
      fenceAccumulators(acc);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int ks = 0; ks < kWgStageDims / 8; ++ks) {
        const uint64_t da = smemDescriptor(a + ks * 2 * (kStageFloats / 8), aLead, aStride);
        const uint64_t db =
            smemDescriptor(Bs + static_cast<size_t>(s * 4 + ks) * 2 * NT * 32, bLead, bStride);
        wgmmaTf32<NT>(acc, da, db, (s | ks) != 0);  // the unit's first k-step starts the sums
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      // The previous stage's products are done: its buffer (the next copy's) may be refilled.
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      issueNext();
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    fenceAccumulators(acc);
    // Warp w of the group holds rows 16 w + lane / 4 (+ 8) of the unit.
    const int64_t rowBase = unitOf(round) * kWgRows + warpInGroup * 16 + (lane >> 2);
    decideSliceRows<NT>(acc, rowBase, n, k, lane, cS, xnorm, kappa, labels, unsure, unsureCount,
                        masks);
  }
  waitAsync(0);
#else
  __trap();  // never launched: planWgmmaAssign refuses devices other than compute capability 9.0
#endif
}

using WgmmaKernel = void (*)(const float*, int64_t, int, const float*, const float*, const float*,
                             int, const float*, float, int, int, bool, int*, int*, int*,
                             uint32_t*);

template <int... NT>
WgmmaKernel kernelFor(int nTiles, std::integer_sequence<int, NT...>) {
  WgmmaKernel out = nullptr;
  ((nTiles == NT + 1 ? (out = kmeansWgmmaAssignKernel<NT + 1>, 0) : 0), ...);
  return out;
}

WgmmaKernel wgmmaKernel(int nTiles) {
  return kernelFor(nTiles, std::make_integer_sequence<int, 16>{});
}

size_t fixedBytes(int nTiles, int kSteps) {
  return sizeof(float) * (size_t(kSteps) * 2 * nTiles * 32) + sizeof(float) * 2 * nTiles * 8;
}

}  // namespace

std::optional<WgmmaAssignPlan> planWgmmaAssign(int k, int d, std::string& why) {
  if (currentComputeCapability() != 90) {
    why = "the wgmma assign runs on compute capability 9.0 only (sm_90a instructions)";
    return std::nullopt;
  }
  if (k > 32 * kMaskWords) {
    why = "the wgmma assign keeps at most " + std::to_string(32 * kMaskWords) +
          " centers on chip; K = " + std::to_string(k);
    return std::nullopt;
  }
  if (d % 4 != 0) {
    why = "the wgmma assign copies the points in 16-byte pieces: D = " + std::to_string(d) +
          " is not a multiple of 4";
    return std::nullopt;
  }
  WgmmaAssignPlan p;
  p.nTiles = (k + 7) / 8;
  // Whole stages of centers (zeros past D): every stage issues its 4 k-steps, so no wgmma sits
  // on a path the compiler cannot prove uniform (it would serialize them).
  p.kSteps = (d + kWgStageDims - 1) / kWgStageDims * (kWgStageDims / 8);
  const WgmmaKernel kernel = wgmmaKernel(p.nTiles);
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it
    why = "this build has no sm_90a code for the wgmma assign";
    return std::nullopt;
  }
  const size_t fixed = (fixedBytes(p.nTiles, p.kSteps) + 127) / 128 * 128;
  const size_t stage = sizeof(float) * kStageFloats * kWgGroups;
  const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
  const size_t optin = static_cast<size_t>(limits.sharedPerBlockOptin);
  if (fixed + 2 * stage > optin) {
    why = "the wgmma assign keeps the K x D centers on chip: K = " + std::to_string(k) +
          ", D = " + std::to_string(d) + " need " + std::to_string(fixed + 2 * stage) +
          " bytes of shared memory per block, this GPU allows " + std::to_string(optin);
    return std::nullopt;
  }
  p.stages = static_cast<int>(std::min<size_t>(8, (optin - fixed) / stage));  // waitAsync: <= 8
  p.smem = fixedBytes(p.nTiles, p.kSteps) + p.stages * stage;
  p.smem = (p.smem + 15) / 16 * 16;
  if (const char* v = std::getenv("KERNELLAB_WGMMA_SWAP")) p.swapOffsets = std::strcmp(v, "1") == 0;
  KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(p.smem)));
  int perSM = 0;
  KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kernel, p.threads(), p.smem));
  p.grid = std::max(1, limits.sms * std::max(1, perSM));
  return p;
}

void launchWgmmaAssign(const WgmmaAssignPlan& p, const float* X, int64_t n, int d,
                       const float* Cc, const float* cn, const float* cabs, int k,
                       const float* xnorm, float kappa, int* labels, int* unsure,
                       int* unsureCount, uint32_t* masks, cudaStream_t stream) {
  const int64_t units = (n + kWgRows - 1) / kWgRows;
  const int64_t needed = (units + kWgGroups - 1) / kWgGroups;
  const int grid = static_cast<int>(std::min<int64_t>(p.grid, std::max<int64_t>(1, needed)));
  wgmmaKernel(p.nTiles)<<<grid, p.threads(), p.smem, stream>>>(
      X, n, d, Cc, cn, cabs, k, xnorm, kappa, p.kSteps, p.stages, p.swapOffsets, labels, unsure,
      unsureCount, masks);
  KL_CUDA_CHECK_LAUNCH(stream);
}

ResourceUsage wgmmaAssignResources(const WgmmaAssignPlan& p) {
  return cuda::kernelResources(wgmmaKernel(p.nTiles), p.threads(), p.smem);
}

}  // namespace kernellab::clustering::best

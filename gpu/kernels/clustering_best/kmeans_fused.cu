// SPDX-License-Identifier: MIT
// k-means, best variant: one fused pass per iteration that reads the points once from DRAM.
//
// A persistent block (one per SM, 8 warps) keeps all K centers in shared memory and walks tiles
// of 256 points. Per tile:
//  1. Distances: X (256 x D) times C^T (D x K) on the tensor cores (mma.sync m16n8k8, TF32
//     operands split "3xTF32" into big and small parts, fp32 accumulation: about fp32 accuracy);
//     16-dimension slices of the tile stream in with cp.async, double-buffered, while the
//     previous slice multiplies. Each warp owns 32 points.
//  2. Exact arg-min: s_k = |c_k|^2 - 2 x.c_k is within a proven bound E of its exact value
//     (the split's remainders, fp32 accumulation; see bound() below). A single TF32 pass was
//     tried first: its bound (2^-10 |x||c|) left nearly every point of the seed's data to the
//     exact path (docs/BENCHMARKS.md). When the best and
//     second-best s are more than 2E apart the label is the exact arg-min; otherwise the warp
//     re-decides that point with every distance in double, the CPU reference's arithmetic.
//  3. Update and score: the warp re-reads its 32 points (now L2 hits), adds them to per-cluster
//     sums in shared memory (a run of equal labels is summed in a register first) and sums the
//     exact squared distance to the assigned center in double.
// At the end the block adds its partial sums, scores and counts to global memory; a one-block
// finalize kernel turns the sums into the next centers. Limiter: tensor-core issue rate, with
// the point stream (N * D * 4 bytes) overlapped.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "best_common.cuh"
#include "best_engines.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"

namespace kernellab::clustering::best {
namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kTilePoints = 256;  // 32 points per warp: two m16 rows of mma tiles
constexpr int kSlice = 16;        // dimensions per pipeline stage (two k8 steps)
constexpr int kXPitch = kTilePoints + 8;  // = 8 (mod 32): A-fragment loads hit 32 banks
constexpr int kMaxNTiles = 16;            // K <= 128 clusters (16 mma tiles of 8)

// Center row pitch in floats: >= D rounded to the slice, and = 4 (mod 32) so the B-fragment
// loads (8 clusters x 4 dimensions per instruction) hit 32 different banks.
int centerPitch(int dpad) {
  int p = dpad;
  while (p % 32 != 4) ++p;
  return p;
}

struct Params {
  const float* X;     // dimension-major points
  int64_t n;
  int d;
  int dpad;           // d rounded up to kSlice
  int k;
  int kpad;           // 8 * NT
  int cPitch;
  bool vec;           // N % 4 == 0: 16-byte copies
  bool smemSums;      // the K x D partial sums fit in shared memory
  int tiles;
  const float* C;     // K x D point-major, the centers of this assignment
  double* sums;       // K x D, accumulated over the grid
  double* scores;     // K
  int* counts;        // K
  int* labels;        // N
  unsigned long long* rechecked;
};

// Shared-memory carve-up (bytes), the same on host and device.
struct Layout {
  size_t scores, centers, cnorm, xs, sums, counts, lbl, total;
};

__host__ __device__ inline size_t align16(size_t v) { return (v + 15) & ~size_t(15); }

__host__ __device__ inline Layout layoutFor(int k, int kpad, int cPitch, int d, bool smemSums) {
  Layout L{};
  size_t o = 0;
  L.scores = o;  o = align16(o + sizeof(double) * k);
  L.centers = o; o = align16(o + sizeof(float) * size_t(kpad) * cPitch);
  L.cnorm = o;   o = align16(o + sizeof(float) * (kpad + 4));  // + cmax
  L.xs = o;      o = align16(o + sizeof(float) * 2 * kSlice * kXPitch);
  L.sums = o;    o = align16(o + (smemSums ? sizeof(float) * size_t(k) * d : 0));
  L.counts = o;  o = align16(o + sizeof(int) * k);
  L.lbl = o;     o = align16(o + sizeof(int) * kTilePoints);
  L.total = o;
  return L;
}

// Everything below up to the kernel uses TF32 mma.sync and cp.async (compute capability 8.0+).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ uint32_t toTf32(float x) {
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
  return u;
}

// x = big + small + r with big, small TF32 and |r| <= 2^-22 |x|: the "3xTF32" split, so three
// TF32 products (big*big, big*small, small*big) give the product to about fp32 precision.
__device__ __forceinline__ void splitTf32(float x, uint32_t& big, uint32_t& small) {
  big = toTf32(x);
  small = toTf32(x - __uint_as_float(big));
}

__device__ __forceinline__ void mmaTf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                        uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void copyAsync16(float* dst, const float* src, int bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
}

__device__ __forceinline__ void copyAsync4(float* dst, const float* src, int bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
}

__device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void waitAsync() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Stages dimensions [slice * kSlice, +kSlice) of points [p0, p0 + kTilePoints) into xs
// (dimension-major, pitch kXPitch). Dimensions >= d and points >= n are zero-filled.
__device__ __forceinline__ void stageSlice(const Params& p, int64_t p0, int slice, float* xs) {
  if (p.vec) {
    // 16 dims x 64 chunks of 16 bytes = 1024 copies, 4 per thread.
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int e = threadIdx.x + r * kThreads;
      const int dim = e / 64, col = (e % 64) * 4;
      const int q = slice * kSlice + dim;
      const int64_t i = p0 + col;
      int bytes = 0;
      const float* src = p.X;
      if (q < p.d && i < p.n) {
        bytes = (p.n - i >= 4 ? 4 : static_cast<int>(p.n - i)) * 4;
        src = p.X + static_cast<int64_t>(q) * p.n + i;
      }
      copyAsync16(xs + dim * kXPitch + col, src, bytes);
    }
  } else {
    // Rows are not 16-byte aligned: 4-byte copies, 16 per thread.
#pragma unroll 4
    for (int r = 0; r < 16; ++r) {
      const int e = threadIdx.x + r * kThreads;
      const int dim = e / kTilePoints, col = e % kTilePoints;
      const int q = slice * kSlice + dim;
      const int64_t i = p0 + col;
      const bool ok = q < p.d && i < p.n;
      copyAsync4(xs + dim * kXPitch + col, ok ? p.X + static_cast<int64_t>(q) * p.n + i : p.X,
                 ok ? 4 : 0);
    }
  }
}

struct Best2 {
  float b1;
  int i1;
  float b2;
};

__device__ __forceinline__ void consider(Best2& b, float s, int idx) {
  if (s < b.b1 || (s == b.b1 && idx < b.i1)) {
    b.b2 = b.b1;
    b.b1 = s;
    b.i1 = idx;
  } else if (s < b.b2) {
    b.b2 = s;
  }
}

__device__ __forceinline__ Best2 mergeLanes(Best2 a, int mask) {
  const float ob1 = __shfl_xor_sync(0xffffffffu, a.b1, mask);
  const int oi1 = __shfl_xor_sync(0xffffffffu, a.i1, mask);
  const float ob2 = __shfl_xor_sync(0xffffffffu, a.b2, mask);
  Best2 r;
  if (ob1 < a.b1 || (ob1 == a.b1 && oi1 < a.i1)) {
    r.b1 = ob1;
    r.i1 = oi1;
    r.b2 = fminf(ob2, a.b1);
  } else {
    r.b1 = a.b1;
    r.i1 = a.i1;
    r.b2 = fminf(a.b2, ob1);
  }
  return r;
}

// Bound on |computed s_k - exact s_k| for a point of norm xnorm. The 3xTF32 product of one
// coordinate pair misses at most 3.02 * 2^-22 |x_d c_d| (the dropped small*small term and the
// two splits' remainders); the fp32 accumulation of 3 * dpad such products adds at most
// 3 * dpad * 2^-23 of their absolute sum (allowing truncation), and sum |x_d c_d| <= |x| |c|.
// Then the fp32 center norm and the final subtraction; everything doubled for safety.
__device__ __forceinline__ float bound(float xnorm, float cmax, int dpad) {
  const float dot = (3.02f * ldexpf(1.f, -22) + 3.f * dpad * ldexpf(1.f, -23)) * xnorm * cmax;
  const float rest = (dpad + 2) * ldexpf(1.f, -23) * (cmax * cmax + 2.f * xnorm * cmax);
  return 2.f * (2.f * dot + rest);
}

// The exact arg-min of one point, by the whole warp, in double (lowest index at equal distance).
__device__ int exactLabel(const Params& p, const float* Cs, int64_t i) {
  const int lane = threadIdx.x & 31;
  double best = INFINITY;
  int bestK = INT_MAX;
  for (int kk = lane; kk < p.k; kk += 32) {
    double s = 0;
    for (int q = 0; q < p.d; ++q) {
      const double diff = double(p.X[static_cast<int64_t>(q) * p.n + i]) - double(Cs[kk * p.cPitch + q]);
      s = fma(diff, diff, s);
    }
    if (s < best) {
      best = s;
      bestK = kk;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double ob = __shfl_xor_sync(0xffffffffu, best, o);
    const int ok = __shfl_xor_sync(0xffffffffu, bestK, o);
    if (ob < best || (ob == best && ok < bestK)) {
      best = ob;
      bestK = ok;
    }
  }
  return bestK;
}

#endif

template <int NT>
__global__ void __launch_bounds__(kThreads, 1) kmeansFusedKernel(Params p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // TF32 mma.sync and cp.async need compute capability 8.0; the host refuses older GPUs.
  __trap();
#else
  extern __shared__ __align__(16) unsigned char smem[];
  const Layout L = layoutFor(p.k, p.kpad, p.cPitch, p.d, p.smemSums);
  double* scoreS = reinterpret_cast<double*>(smem + L.scores);
  float* Cs = reinterpret_cast<float*>(smem + L.centers);
  float* cnorm = reinterpret_cast<float*>(smem + L.cnorm);
  float* Xs = reinterpret_cast<float*>(smem + L.xs);
  float* sumS = reinterpret_cast<float*>(smem + L.sums);
  int* countS = reinterpret_cast<int*>(smem + L.counts);
  int* lbl = reinterpret_cast<int*>(smem + L.lbl);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;

  // Prologue: centers (zero-padded), their norms, the largest norm; zero the partial sums.
  for (int e = threadIdx.x; e < p.kpad * p.cPitch; e += kThreads) {
    const int kk = e / p.cPitch, q = e % p.cPitch;
    Cs[e] = (kk < p.k && q < p.d) ? p.C[static_cast<int64_t>(kk) * p.d + q] : 0.f;
  }
  for (int e = threadIdx.x; e < p.k; e += kThreads) {
    scoreS[e] = 0.0;
    countS[e] = 0;
  }
  if (p.smemSums)
    for (int e = threadIdx.x; e < p.k * p.d; e += kThreads) sumS[e] = 0.f;
  __syncthreads();
  for (int kk = warp; kk < p.kpad; kk += kThreads / 32) {
    float s = 0.f;
    for (int q = lane; q < p.d; q += 32) s = fmaf(Cs[kk * p.cPitch + q], Cs[kk * p.cPitch + q], s);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) cnorm[kk] = kk < p.k ? s : INFINITY;  // padded clusters never win
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = 0.f;
    for (int kk = 0; kk < p.k; ++kk) m = fmaxf(m, cnorm[kk]);
    cnorm[p.kpad] = sqrtf(m) * 1.0001f;  // cmax, rounded up
  }
  __syncthreads();
  const float cmax = cnorm[p.kpad];
  const int slices = p.dpad / kSlice;

  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const int64_t p0 = static_cast<int64_t>(tile) * kTilePoints;
    float acc[2][NT][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) acc[mt][nt][0] = acc[mt][nt][1] = acc[mt][nt][2] = acc[mt][nt][3] = 0.f;
    float xsq[2][2] = {{0.f, 0.f}, {0.f, 0.f}};  // |x|^2 partials: [m tile][row g, row g + 8]

    // 1. Distances on the tensor cores, slices double-buffered.
    stageSlice(p, p0, 0, Xs);
    commitAsync();
    for (int sl = 0; sl < slices; ++sl) {
      if (sl + 1 < slices) stageSlice(p, p0, sl + 1, Xs + ((sl + 1) & 1) * kSlice * kXPitch);
      commitAsync();
      waitAsync<1>();  // slice sl has landed (slice sl + 1 may still be in flight)
      __syncthreads();
      const float* xs = Xs + (sl & 1) * kSlice * kXPitch;
#pragma unroll
      for (int kk = 0; kk < kSlice; kk += 8) {
        uint32_t a[2][4], as[2][4];  // big and small TF32 parts
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          const int row = warp * 32 + mt * 16 + g;
          const float v0 = xs[(kk + t) * kXPitch + row];
          const float v1 = xs[(kk + t) * kXPitch + row + 8];
          const float v2 = xs[(kk + t + 4) * kXPitch + row];
          const float v3 = xs[(kk + t + 4) * kXPitch + row + 8];
          xsq[mt][0] = fmaf(v0, v0, fmaf(v2, v2, xsq[mt][0]));
          xsq[mt][1] = fmaf(v1, v1, fmaf(v3, v3, xsq[mt][1]));
          splitTf32(v0, a[mt][0], as[mt][0]);
          splitTf32(v1, a[mt][1], as[mt][1]);
          splitTf32(v2, a[mt][2], as[mt][2]);
          splitTf32(v3, a[mt][3], as[mt][3]);
        }
        const int dim = sl * kSlice + kk;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const float* crow = Cs + (nt * 8 + g) * p.cPitch + dim + t;
          uint32_t b0, b1, bs0, bs1;
          splitTf32(crow[0], b0, bs0);
          splitTf32(crow[4], b1, bs1);
          // The small terms first: they are added to the accumulator while it is still small.
          mmaTf32(acc[0][nt], as[0], b0, b1);
          mmaTf32(acc[1][nt], as[1], b0, b1);
          mmaTf32(acc[0][nt], a[0], bs0, bs1);
          mmaTf32(acc[1][nt], a[1], bs0, bs1);
          mmaTf32(acc[0][nt], a[0], b0, b1);
          mmaTf32(acc[1][nt], a[1], b0, b1);
        }
      }
      __syncthreads();  // every warp is done with this buffer before it is refilled
    }

    // 2. Arg-min with the error bound; uncertain points re-decided exactly.
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {  // rows g and g + 8 of this m tile
        Best2 b{INFINITY, INT_MAX, INFINITY};
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const int col = nt * 8 + 2 * t;
          consider(b, cnorm[col] - 2.f * acc[mt][nt][2 * half], col);
          consider(b, cnorm[col + 1] - 2.f * acc[mt][nt][2 * half + 1], col + 1);
        }
        b = mergeLanes(b, 1);
        b = mergeLanes(b, 2);
        float x2 = xsq[mt][half];
        x2 += __shfl_xor_sync(0xffffffffu, x2, 1);
        x2 += __shfl_xor_sync(0xffffffffu, x2, 2);
        const int row = warp * 32 + mt * 16 + g + 8 * half;
        const float e = bound(sqrtf(x2) * 1.0001f, cmax, p.dpad);
        const bool sure = isfinite(b.b1) && isfinite(b.b2) && b.b2 - b.b1 > 2.f * e && b.i1 < p.k;
        if (t == 0) lbl[row] = sure ? b.i1 : -1;
        __syncwarp();  // orders these writes before lane 0's re-decided labels below
        unsigned unsure = __ballot_sync(0xffffffffu, t == 0 && !sure && p0 + row < p.n);
        while (unsure) {
          const int src = __ffs(unsure) - 1;
          unsure &= unsure - 1;
          const int r = warp * 32 + mt * 16 + (src >> 2) + 8 * half;
          const int label = exactLabel(p, Cs, p0 + r);
          if (lane == 0) {
            lbl[r] = label;
            atomicAdd(p.rechecked, 1ull);
          }
          __syncwarp();
        }
      }
    }
    __syncwarp();
    const int64_t w0 = p0 + warp * 32;
    const int64_t left = p.n - w0;
    const int valid = left <= 0 ? 0 : (left >= 32 ? 32 : static_cast<int>(left));
    if (lane < valid) p.labels[w0 + lane] = lbl[warp * 32 + lane];

    // 3. Update and score over the warp's 32 points: lanes split the dimensions.
    const int* warpLabels = lbl + warp * 32;
    accumulateWarp(p.X, p.n, p.d, p.vec, w0, valid, [warpLabels](int i) { return warpLabels[i]; }, Cs, p.cPitch,
                   p.smemSums ? sumS : static_cast<float*>(nullptr), p.sums, scoreS, countS);
    __syncthreads();  // lbl and the stage buffers are reused by the next tile
  }

  // The block's partial results into the grid's.
  __syncthreads();
  if (p.smemSums)
    for (int e = threadIdx.x; e < p.k * p.d; e += kThreads)
      if (sumS[e] != 0.f) atomicAdd(p.sums + e, double(sumS[e]));
  for (int e = threadIdx.x; e < p.k; e += kThreads) {
    if (countS[e]) {
      atomicAdd(p.scores + e, scoreS[e]);
      atomicAdd(p.counts + e, countS[e]);
    }
  }
#endif
}

using FusedFn = void (*)(Params);

FusedFn fusedKernelFor(int nt) {
  switch (nt) {
    case 1: return kmeansFusedKernel<1>;
    case 2: return kmeansFusedKernel<2>;
    case 4: return kmeansFusedKernel<4>;
    case 8: return kmeansFusedKernel<8>;
    case 10: return kmeansFusedKernel<10>;
    case 13: return kmeansFusedKernel<13>;
    case 16: return kmeansFusedKernel<16>;
    default: return nullptr;
  }
}

// The smallest instantiated tile count covering k clusters.
int tilesFor(int k) {
  for (int nt : {1, 2, 4, 8, 10, 13, 16})
    if (nt * 8 >= k) return nt;
  return 0;
}

class FusedKMeans final : public KMeansDeviceState {
 public:
  FusedKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream)
      : KMeansDeviceState(n, d, k, stream) {
    if (currentComputeCapability() < 80)
      throw InputError("best k-means uses TF32 tensor cores and cp.async: it needs compute "
                       "capability 8.0 or newer; this GPU is " +
                       std::to_string(currentComputeCapability() / 10) + "." +
                       std::to_string(currentComputeCapability() % 10));
    const int nt = tilesFor(k);
    if (nt == 0)
      throw InputError("best k-means keeps all centers in tensor-core tiles: K = " +
                       std::to_string(k) + " is above its limit of " +
                       std::to_string(kMaxNTiles * 8) + "; use the seed variants or cublas");
    kernel_ = fusedKernelFor(nt);
    p_.X = d_points;
    p_.n = n;
    p_.d = d;
    p_.dpad = (d + kSlice - 1) / kSlice * kSlice;
    p_.k = k;
    p_.kpad = nt * 8;
    p_.cPitch = centerPitch(p_.dpad);
    p_.vec = n % 4 == 0;
    p_.tiles = static_cast<int>((n + kTilePoints - 1) / kTilePoints);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    p_.smemSums = layoutFor(k, p_.kpad, p_.cPitch, d, true).total <= static_cast<size_t>(optin);
    smem_ = layoutFor(k, p_.kpad, p_.cPitch, d, p_.smemSums).total;
    if (smem_ > static_cast<size_t>(optin))
      throw InputError("best k-means keeps the K x D centers in shared memory: K = " +
                       std::to_string(k) + ", D = " + std::to_string(d) + " needs " +
                       std::to_string(smem_) + " bytes, this GPU allows " + std::to_string(optin) +
                       " per block; use the seed variants or cublas");
    KL_CUDA_CHECK(cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem_)));
    grid_ = std::max(1, std::min(p_.tiles, sms));
    allocateState();
    rechecked_.allocate(1);
  }

  KMeansIteration iterate(int /*iteration*/) override {
    useNextCenters();
    p_.C = centers_.get();
    p_.sums = sums_.get();
    p_.scores = scores_.get();
    p_.counts = counts_.get();
    p_.labels = labels_.get();
    p_.rechecked = rechecked_.get();
    KL_CUDA_CHECK(cudaMemsetAsync(rechecked_.get(), 0, sizeof(unsigned long long), stream_));
    cuda::EventPair fused, finalize;
    fused.start(stream_);
    kernel_<<<grid_, kThreads, smem_, stream_>>>(p_);
    KL_CUDA_CHECK_LAUNCH(stream_);
    fused.stop(stream_);
    finalize.start(stream_);
    launchFinalize();
    finalize.stop(stream_);
    KMeansIteration it;
    it.kernelMs = {fused.elapsedMs(), finalize.elapsedMs()};
    readScores(it);
    unsigned long long rechecked = 0;
    KL_CUDA_CHECK(cudaMemcpy(&rechecked, rechecked_.get(), sizeof rechecked, cudaMemcpyDeviceToHost));
    it.rechecked = static_cast<int64_t>(rechecked);
    return it;
  }

  std::vector<std::string> kernelNames() const override {
    return {"kmeansFusedKernel", "kmeansFinalizeKernel"};
  }
  std::vector<int> grids() const override { return {grid_, 1}; }
  std::vector<ResourceUsage> resources() const override {
    return {cuda::kernelResources(kernel_, kThreads, smem_),
            cuda::kernelResources(kmeansFinalizeKernel, 1024, 0)};
  }

 private:
  Params p_{};
  FusedFn kernel_ = nullptr;
  size_t smem_ = 0;
  int grid_ = 1;
  cuda::DeviceBuffer<unsigned long long> rechecked_;
};

}  // namespace

std::unique_ptr<KMeansEngine> makeFusedKMeans(const float* d_points, int64_t n, int d, int k,
                                              CUstream_st* stream) {
  return std::make_unique<FusedKMeans>(d_points, n, d, k, stream);
}

}  // namespace kernellab::clustering::best

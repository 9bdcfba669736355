// SPDX-License-Identifier: MIT
// The k-means engines' kernels (kmeans_parts.cuh says what each does and why).
#include <cfloat>
#include <climits>

#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {

// The error of s_k = G_ik + cn_k against the exact |c_k|^2 - 2 x.c'_k, where G is the TF32 product
// -2 X C'^T with fp32 accumulation (cuBLAS CUBLAS_COMPUTE_32F_FAST_TF32):
//  - each operand rounded to TF32 (10 mantissa bits; truncation allowed): a product x_d c_d
//    misses at most (2 * 2^-10 + 2^-20) |x_d c_d|;
//  - the fp32 accumulation of D products in any order (tensor cores may truncate): at most
//    D * 2^-23 * sum |x_d c_d| (with the 1 + 2^-9 growth of the rounded terms);
//  - sum_d |x_d c_d| <= |x| |c'| (Cauchy-Schwarz); the factor 2 of G, then the fp32 rounding of
//    C - m (2^-24 |c'| per component) and of the final sum s (2^-24 |G|): 3 * 2^-24 more;
//  - cn_k's own rounding (one fp32 rounding of a double sum) and its share of the rounding of s:
//    2^-23 cn_k, taken as 2^-22 cn_k.
// All of it doubled: kappa = 2 * (2 * (2^-9 + 2^-20 + D 2^-23 (1 + 2^-9)) + 3 * 2^-24).
float tf32BoundFactor(int d) {
  const double u = 1.0 / 1024.0, e = 1.0 / 8388608.0;
  return static_cast<float>(2.0 * (2.0 * (2.0 * u + u * u + d * e * (1.0 + 2.0 * u)) + 1.5 * e));
}

__device__ __forceinline__ float bound(float kappa, float xnorm, float cabs, float cn) {
  return fmaf(kappa * xnorm, cabs, cn * (1.0f / 4194304.0f));
}

__global__ void pointNormsKernel(const float* __restrict__ X, int64_t n, int d,
                                 float* __restrict__ xnorm, double* __restrict__ xsq) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int q = 0; q < d; ++q) {
    const double v = X[static_cast<int64_t>(q) * n + i];  // a warp reads 128 contiguous bytes
    s = fma(v, v, s);
  }
  xsq[i] = s;
  // Rounded up: the bound must not shrink.
  xnorm[i] = __double2float_ru(sqrt(s) * (1.0 + 1e-12));
}

__global__ void centerPrepKernel(const float* __restrict__ C, int k, int d, bool centered,
                                 float* __restrict__ Cc, float* __restrict__ cn,
                                 float* __restrict__ cabs, float* __restrict__ Ct) {
  extern __shared__ float mean[];  // d floats when centered
  if (centered) {
    for (int q = threadIdx.x; q < d; q += blockDim.x) {
      double s = 0.0;
      for (int kk = 0; kk < k; ++kk) s += C[static_cast<int64_t>(kk) * d + q];
      mean[q] = static_cast<float>(s / k);
    }
    __syncthreads();
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int kk = warp; kk < k; kk += warps) {
    double s = 0.0, sc = 0.0;
    for (int q = lane; q < d; q += 32) {
      const float c = C[static_cast<int64_t>(kk) * d + q];
      s = fma(double(c), double(c), s);
      if (centered) {
        const float cc = c - mean[q];
        Cc[static_cast<int64_t>(kk) * d + q] = cc;
        Ct[static_cast<int64_t>(q) * k + kk] = c;
        sc = fma(double(cc), double(cc), sc);
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      s += __shfl_xor_sync(0xffffffffu, s, o);
      sc += __shfl_xor_sync(0xffffffffu, sc, o);
    }
    if (lane == 0) {
      cn[kk] = static_cast<float>(s);
      if (centered) cabs[kk] = __double2float_ru(sqrt(sc) * (1.0 + 1e-12));
    }
  }
}

__global__ void argminKernel(const float* __restrict__ G, const float* __restrict__ cn, int64_t n,
                             int k, int* __restrict__ labels) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float best = INFINITY;
  int bestK = 0;
#pragma unroll 8
  for (int kk = 0; kk < k; ++kk) {
    const float s = G[static_cast<int64_t>(kk) * n + i] + cn[kk];
    if (s < best) {
      best = s;
      bestK = kk;
    }
  }
  labels[i] = bestK;
}

__global__ void assignBoundKernel(const float* __restrict__ G, const float* __restrict__ cn,
                                  const float* __restrict__ cabs, const float* __restrict__ xnorm,
                                  int64_t n, int k, float kappa, int* __restrict__ labels,
                                  int* __restrict__ unsure, int* __restrict__ unsureCount) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool sure = true;
  if (i < n) {
    const float xn = xnorm[i];
    float b1 = INFINITY, e1 = 0.f;  // the smallest s (lowest index at equal) and its bound
    int i1 = 0;
    float t1 = INFINITY, t2 = INFINITY;  // the two smallest s - bound
    int j1 = -1;
#pragma unroll 8
    for (int kk = 0; kk < k; ++kk) {
      const float c = cn[kk];
      const float s = G[static_cast<int64_t>(kk) * n + i] + c;
      const float e = bound(kappa, xn, cabs[kk], c);
      if (s < b1) {
        b1 = s;
        e1 = e;
        i1 = kk;
      }
      const float t = s - e;
      if (t < t1) {
        t2 = t1;
        t1 = t;
        j1 = kk;
      } else if (t < t2) {
        t2 = t;
      }
    }
    const float lower = j1 != i1 ? t1 : t2;  // the lowest any other center's s can really be
    sure = isfinite(b1) && lower > b1 + e1;
    labels[i] = sure ? i1 : -1;
  }
  // Warp-aggregated append: one atomic per warp, not per point.
  const unsigned mask = __ballot_sync(0xffffffffu, !sure);
  if (mask) {
    const int lane = threadIdx.x & 31;
    int base = 0;
    if (lane == __ffs(mask) - 1) base = atomicAdd(unsureCount, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, __ffs(mask) - 1);
    if (!sure) unsure[base + __popc(mask & ((1u << lane) - 1u))] = static_cast<int>(i);
  }
}

__global__ void __launch_bounds__(kFixThreads)
    exactFixKernel(const float* __restrict__ X, int64_t n, int d, const float* __restrict__ Ct,
                   int k, const float* __restrict__ G, const float* __restrict__ cn,
                   const float* __restrict__ cabs, const float* __restrict__ xnorm, float kappa,
                   const int* __restrict__ unsure, const int* __restrict__ unsureCount,
                   bool ctShared, int* __restrict__ labels) {
  extern __shared__ float pointS[];  // one point per warp, then (ctShared) the centers, D x K
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* xs = pointS + static_cast<size_t>(warp) * d;
  const int count = *unsureCount;
  if (static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) >= count)
    return;  // no work: skip the copy
  const float* Cts = Ct;
  if (ctShared) {
    float* c = pointS + static_cast<size_t>(blockDim.x >> 5) * d;
    for (int e = threadIdx.x; e < k * d; e += blockDim.x) c[e] = Ct[e];
    __syncthreads();
    Cts = c;
  }
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x >> 5);
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) + warp; w < count;
       w += warps) {
    const int64_t i = unsure[w];
    const float xn = xnorm[i];
    __syncwarp();  // the previous point's reads of xs are done
    for (int q = lane; q < d; q += 32) xs[q] = X[static_cast<int64_t>(q) * n + i];
    // The best s and its bound, as the assign kernel found them.
    float b = INFINITY, be = 0.f;
    int bi = INT_MAX;
    for (int kk = lane; kk < k; kk += 32) {
      const float c = cn[kk];
      const float s = G[static_cast<int64_t>(kk) * n + i] + c;
      if (s < b) {
        b = s;
        bi = kk;
        be = bound(kappa, xn, cabs[kk], c);
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      const float ob = __shfl_xor_sync(0xffffffffu, b, o);
      const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
      const float oe = __shfl_xor_sync(0xffffffffu, be, o);
      if (ob < b || (ob == b && oi < bi)) {
        b = ob;
        bi = oi;
        be = oe;
      }
    }
    const float limit = b + be;
    __syncwarp();  // xs complete
    double best = INFINITY;
    int bestK = INT_MAX;
    for (int k0 = 0; k0 < k; k0 += 32) {
      const int kk = k0 + lane;
      bool candidate = false;
      if (kk < k) {
        const float c = cn[kk];
        const float s = G[static_cast<int64_t>(kk) * n + i] + c;
        candidate = s - bound(kappa, xn, cabs[kk], c) <= limit;
      }
      if (__ballot_sync(0xffffffffu, candidate) == 0) continue;
      double acc = INFINITY;
      if (candidate) {  // this lane's center, in double over every dimension (two chains)
        double a0 = 0.0, a1 = 0.0;
        int q = 0;
#pragma unroll 4
        for (; q + 1 < d; q += 2) {
          const double d0 = double(xs[q]) - double(Cts[static_cast<int64_t>(q) * k + kk]);
          const double d1 = double(xs[q + 1]) - double(Cts[static_cast<int64_t>(q + 1) * k + kk]);
          a0 = fma(d0, d0, a0);
          a1 = fma(d1, d1, a1);
        }
        if (q < d) {
          const double d0 = double(xs[q]) - double(Cts[static_cast<int64_t>(q) * k + kk]);
          a0 = fma(d0, d0, a0);
        }
        acc = a0 + a1;
      }
      int accK = candidate ? kk : INT_MAX;
      for (int o = 16; o > 0; o >>= 1) {
        const double oa = __shfl_xor_sync(0xffffffffu, acc, o);
        const int ok = __shfl_xor_sync(0xffffffffu, accK, o);
        if (oa < acc || (oa == acc && ok < accK)) {
          acc = oa;
          accK = ok;
        }
      }
      if (acc < best || (acc == best && accK < bestK)) {
        best = acc;
        bestK = accK;
      }
    }
    if (lane == 0) labels[i] = bestK;
  }
}

namespace {

// Adds a finished run of equal labels to the block's (or the grid's) sums.
template <bool kShared>
__device__ __forceinline__ void flushRun(double* sums, int label, int d, int q, double run) {
  if (label < 0) return;
  if constexpr (kShared)
    sums[label * d + q] += run;  // this thread alone owns column q of the block's sums
  else
    atomicAdd(sums + static_cast<int64_t>(label) * d + q, run);
}

template <bool kShared>
__device__ __forceinline__ void addPoint(double* sums, int k, int d, int q, int label, float x,
                                         int& runK, double& run) {
  if (label != runK) {
    flushRun<kShared>(sums, runK, d, q, run);
    runK = (label >= 0 && label < k) ? label : -1;  // an invalid label is left out (and caught by
    run = 0.0;                                      // the count check of the verification)
  }
  run += double(x);
}

}  // namespace

// cp.async (sm_80+) copies global to shared memory without passing through registers, so a stage's
// loads stay in flight while the previous stage is used. `srcBytes` < `size` zero-fills the rest
// (cp.async's src-size operand). Turing (sm_75, in the default build's architectures) has no
// cp.async: there the copy is a plain load and store, done before the call returns, so commit and
// wait have nothing left to do; the results are the same, only the overlap is lost.
__device__ __forceinline__ void copyAsync(void* dst, const void* src, int srcBytes, int size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if (size == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                 "r"(srcBytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
                 "r"(srcBytes));
#else
  if (srcBytes >= size && size == 16) {
    *static_cast<float4*>(dst) = *static_cast<const float4*>(src);
  } else if (srcBytes >= size && size == 4) {
    *static_cast<float*>(dst) = *static_cast<const float*>(src);
  } else {
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    for (int i = 0; i < size; ++i) to[i] = i < srcBytes ? from[i] : char(0);
  }
#endif
}
__device__ __forceinline__ void commitAsync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most `pending` groups are in flight (pending < kMaxStages).
__device__ __forceinline__ void waitAsync(int pending) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (pending) {
    case 0:
      asm volatile("cp.async.wait_group 0;\n" ::);
      break;
    case 1:
      asm volatile("cp.async.wait_group 1;\n" ::);
      break;
    case 2:
      asm volatile("cp.async.wait_group 2;\n" ::);
      break;
    default:
      asm volatile("cp.async.wait_group 3;\n" ::);
      break;
  }
#else
  (void)pending;
#endif
}

// The |x|^2 sums and counts of the block's points: each thread a contiguous piece of the range,
// runs of equal labels added once.
__device__ __forceinline__ void addNormsAndCounts(const int* __restrict__ labels,
                                                  const double* __restrict__ xsq, int k,
                                                  int64_t begin, int64_t end, double* sqS,
                                                  int* cntS) {
  const int64_t len = end - begin;
  const int64_t piece = (len + blockDim.x - 1) / blockDim.x;
  const int64_t s0 = begin + threadIdx.x * piece;
  const int64_t s1 = s0 + piece < end ? s0 + piece : end;
  double qrun = 0.0;
  int crun = 0, rk = -1;
  for (int64_t i = s0; i < s1; ++i) {
    int l = __ldg(labels + i);
    if (l < 0 || l >= k) l = -1;
    if (l != rk) {
      if (rk >= 0) {
        atomicAdd(sqS + rk, qrun);
        atomicAdd(cntS + rk, crun);
      }
      rk = l;
      qrun = 0.0;
      crun = 0;
    }
    qrun += __ldg(xsq + i);
    ++crun;
  }
  if (rk >= 0) {
    atomicAdd(sqS + rk, qrun);
    atomicAdd(cntS + rk, crun);
  }
}

__global__ void __launch_bounds__(kPartThreads, 1)
    updateSumsKernel(const float* __restrict__ X, int64_t n, int d, int k,
                     const int* __restrict__ labels, const double* __restrict__ xsq,
                     int64_t perBlock, bool vec, int stages, double* sums, double* sumsq,
                     int* counts) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* sumS = reinterpret_cast<double*>(smem);
  double* sqS = sumS + static_cast<size_t>(k) * d;
  int* cntS = reinterpret_cast<int*>(sqS + k);
  unsigned char* stageBase = smem + updateSumsBytes(k, d);
  const size_t stageBytes = updateStageBytes(d);
  for (int e = threadIdx.x; e < k * d; e += blockDim.x) sumS[e] = 0.0;
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    sqS[e] = 0.0;
    cntS[e] = 0;
  }
  // The sums run over chunks of 16 points dealt out round-robin (chunk c to block c mod grid):
  // at any moment the blocks read one contiguous window of every dimension's row, which DRAM
  // serves in whole pages. (Each block on its own contiguous range of points kept 26,400 row
  // streams open at once and ran at a quarter of the copy rate on the H200.) The |x|^2 sums and
  // counts use the block's contiguous range [begin, end).
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * perBlock;
  const int64_t end = begin + perBlock < n ? begin + perBlock : n;
  const int64_t chunks = (n + kStagePoints - 1) / kStagePoints;
  const int steps =
      chunks > blockIdx.x ? static_cast<int>((chunks - blockIdx.x + gridDim.x - 1) / gridDim.x) : 0;
  constexpr int kPieces = kStagePoints / 4;  // 16-byte pieces per row and stage

  // Stage `st` of the block's points (kStagePoints of every dimension, zero beyond the range:
  // label 0 and x = 0 add nothing) into buffer st % stages; always one commit group.
  auto issue = [&](int st) {
    if (st < steps) {
      const int64_t i0 = (static_cast<int64_t>(st) * gridDim.x + blockIdx.x) * kStagePoints;
      const int valid = n - i0 < kStagePoints ? static_cast<int>(n - i0) : kStagePoints;
      float* xs = reinterpret_cast<float*>(stageBase + (st % stages) * stageBytes);
      int* ls = reinterpret_cast<int*>(xs + static_cast<size_t>(d) * kStagePitch);
      if (vec) {
        for (int c = threadIdx.x; c < d * kPieces; c += blockDim.x) {
          const int q = c / kPieces, j = c % kPieces;
          const int bytes = valid - 4 * j >= 4 ? 16 : (valid > 4 * j ? (valid - 4 * j) * 4 : 0);
          const float* src = bytes ? X + static_cast<int64_t>(q) * n + i0 + 4 * j : X;
          copyAsync(xs + q * kStagePitch + 4 * j, src, bytes, 16);
        }
      } else {
        for (int c = threadIdx.x; c < d * kStagePoints; c += blockDim.x) {
          const int q = c / kStagePoints, j = c % kStagePoints;
          const bool ok = j < valid;
          copyAsync(xs + q * kStagePitch + j, ok ? X + static_cast<int64_t>(q) * n + i0 + j : X,
                    ok ? 4 : 0, 4);
        }
      }
      if (threadIdx.x < kStagePoints) {
        const bool ok = static_cast<int>(threadIdx.x) < valid;
        copyAsync(ls + threadIdx.x, ok ? labels + i0 + threadIdx.x : labels, ok ? 4 : 0, 4);
      }
    }
    commitAsync();
  };

  for (int st = 0; st < stages - 1; ++st) issue(st);
  __syncthreads();  // the zeroed sums before any thread adds
  // Per stage, one warp sorts the 16 labels (stable, by rank) so that every thread then adds the
  // points cluster by cluster: one shared-memory read-modify-write per cluster present in the
  // stage, no per-thread bookkeeping. (Resolving equal labels per thread with a select chain cost
  // about 55 instructions per point and dimension: 0.9 ms, issue-bound at 8 warps per SM.)
  __shared__ int order[kStagePoints], sortedLab[kStagePoints];
  for (int st = 0; st < steps; ++st) {
    issue(st + stages - 1);  // into the buffer summed at step st - 1 (freed by its barrier)
    waitAsync(stages - 1);   // stage st has landed
    __syncthreads();
    const float* xs = reinterpret_cast<const float*>(stageBase + (st % stages) * stageBytes);
    const int* ls = reinterpret_cast<const int*>(xs + static_cast<size_t>(d) * kStagePitch);
    if (threadIdx.x < 32) {
      const int lane = threadIdx.x;
      const int mine = lane < kStagePoints ? ls[lane] : INT_MAX;
      int rank = 0;
#pragma unroll
      for (int j = 0; j < kStagePoints; ++j) {
        const int other = __shfl_sync(0xffffffffu, mine, j);
        rank += (other < mine || (other == mine && j < lane)) ? 1 : 0;
      }
      if (lane < kStagePoints) {
        order[rank] = lane;
        sortedLab[rank] = mine;
      }
    }
    __syncthreads();
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      const int q = threadIdx.x + pass * blockDim.x;
      if (q >= d) continue;
      const float* row = xs + q * kStagePitch;
      int cur = sortedLab[0];
      double t = 0.0;
#pragma unroll
      for (int j = 0; j < kStagePoints; ++j) {
        const int l = sortedLab[j];
        if (l != cur) {
          if (cur >= 0 && cur < k) sumS[cur * d + q] += t;  // an invalid label is left out (the
          cur = l;                                          // count check catches it)
          t = 0.0;
        }
        t += double(row[order[j]]);
      }
      if (cur >= 0 && cur < k) sumS[cur * d + q] += t;
    }
    __syncthreads();  // every thread is done with this buffer (and the order) before refills
  }
  waitAsync(0);
  if (begin < end) addNormsAndCounts(labels, xsq, k, begin, end, sqS, cntS);
  __syncthreads();
  // The block's sums go out with plain coalesced stores to its own slice of `sums` (grid x K x D);
  // reduceBlockSumsKernel adds the slices. (Adding them with one global atomic per entry, 2.6
  // million fp64 atomics on 20,000 addresses at N = 1e6, K = 100, D = 200, kept this kernel near
  // 0.9 ms on the H200 whatever its loop did.)
  double* slice = sums + static_cast<size_t>(blockIdx.x) * k * d;
  for (int e = threadIdx.x; e < k * d; e += blockDim.x) slice[e] = sumS[e];
  for (int e = threadIdx.x; e < k; e += blockDim.x)
    if (cntS[e]) {
      atomicAdd(sumsq + e, sqS[e]);
      atomicAdd(counts + e, cntS[e]);
    }
}

__global__ void reduceBlockSumsKernel(const double* __restrict__ slices, int blocks, int64_t kd,
                                      double* __restrict__ sums) {
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= kd) return;
  double t = 0.0;  // a fixed order: the sums are the same bits on every run
  for (int b = 0; b < blocks; ++b) t += slices[static_cast<int64_t>(b) * kd + e];
  sums[e] = t;
}

// Where the sums do not fit in shared memory: a thread per dimension reads its points directly and
// adds every run to the global sums.
__global__ void __launch_bounds__(kPartThreads)
    updateSumsGlobalKernel(const float* __restrict__ X, int64_t n, int d, int k,
                           const int* __restrict__ labels, const double* __restrict__ xsq,
                           int64_t perBlock, bool /*vec*/, int /*stages*/, double* sums,
                           double* sumsq, int* counts) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* sqS = reinterpret_cast<double*>(smem);
  int* cntS = reinterpret_cast<int*>(sqS + k);
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    sqS[e] = 0.0;
    cntS[e] = 0;
  }
  __syncthreads();
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * perBlock;
  const int64_t end = begin + perBlock < n ? begin + perBlock : n;
  if (begin < end) {
    for (int q = threadIdx.x; q < d; q += blockDim.x) {
      const float* row = X + static_cast<int64_t>(q) * n;
      double run = 0.0;
      int runK = -1;
      for (int64_t i = begin; i < end; ++i)
        addPoint<false>(sums, k, d, q, __ldg(labels + i), __ldg(row + i), runK, run);
      flushRun<false>(sums, runK, d, q, run);
    }
    addNormsAndCounts(labels, xsq, k, begin, end, sqS, cntS);
  }
  __syncthreads();
  for (int e = threadIdx.x; e < k; e += blockDim.x)
    if (cntS[e]) {
      atomicAdd(sumsq + e, sqS[e]);
      atomicAdd(counts + e, cntS[e]);
    }
}

__global__ void finalizeFromSumsKernel(int k, int d, const float* __restrict__ C,
                                       float* __restrict__ Cnext, double* sums, double* sumsq,
                                       int* counts, double* outScores, int* outCounts) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  // Score of cluster k: sum over its points of |x - c|^2 = Q - 2 c.S + n |c|^2, in double.
  for (int kk = warp; kk < k; kk += warps) {
    const int cnt = counts[kk];
    double a = 0.0;
    for (int q = lane; q < d; q += 32) {
      const double c = C[static_cast<int64_t>(kk) * d + q];
      const double s = sums[static_cast<int64_t>(kk) * d + q];
      a += c * (double(cnt) * c - 2.0 * s);
    }
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    if (lane == 0) {
      outScores[kk] = cnt > 0 ? sumsq[kk] + a : 0.0;
      outCounts[kk] = cnt;
    }
  }
  __syncthreads();  // every score has read the sums before they are turned into centers
  for (int e = threadIdx.x; e < k * d; e += blockDim.x) {
    const int cnt = counts[e / d];
    Cnext[e] = cnt > 0 ? static_cast<float>(sums[e] / cnt) : C[e];
    sums[e] = 0.0;
  }
  __syncthreads();  // counts[] read by every thread before they are zeroed
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    sumsq[e] = 0.0;
    counts[e] = 0;
  }
}

}  // namespace kernellab::clustering::best

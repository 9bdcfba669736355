// SPDX-License-Identifier: MIT
// The k-means engines' kernels (kmeans_parts.cuh says what each does and why).
#include <cfloat>
#include <climits>

#include "cuda/kernel_resources.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {

// The error of s_k = G_ik + cn_k against the exact |c_k|^2 - 2 x.c'_k, where G is a TF32 product
// -2 X C'^T with fp32 accumulation (cuBLAS CUBLAS_COMPUTE_32F_FAST_TF32, or mma.sync):
//  - each operand rounded to TF32 (10 mantissa bits): a relative error of at most ux = 2^-10 for
//    the points and uc for the centers (2^-10 when truncated, 2^-11 when rounded to nearest by
//    cvt.rna); a product x_d c_d misses at most (ux + uc + ux uc) |x_d c_d|; the product of two
//    TF32 values is exact in fp32;
//  - the fp32 accumulation of D products in any order (tensor cores may truncate): at most
//    D * 2^-23 * sum |x_d c_d| (with the 1 + ux + uc growth of the rounded terms);
//  - sum_d |x_d c_d| <= |x| |c'| (Cauchy-Schwarz); the factor 2 of G, then the fp32 rounding of
//    C - m (2^-24 |c'| per component) and of the final sum s (2^-24 |G|): 3 * 2^-24 more;
//  - cn_k's own rounding (one fp32 rounding of a double sum) and its share of the rounding of s:
//    2^-23 cn_k, taken as 2^-22 cn_k (the second term of tf32Bound).
// All of it doubled: kappa = 2 * (2 * (ux + uc + ux uc + D 2^-23 (1 + ux + uc)) + 3 * 2^-24).
float tf32BoundFactor(int d, Tf32Rounding rounding) {
  const double ux = 1.0 / 1024.0;
  const double uc = rounding == Tf32Rounding::TruncateBoth ? 1.0 / 1024.0 : 1.0 / 2048.0;
  const double e = 1.0 / 8388608.0;
  return static_cast<float>(
      2.0 * (2.0 * (ux + uc + ux * uc + d * e * (1.0 + ux + uc)) + 1.5 * e));
}

__global__ void pointNormsKernel(const float* __restrict__ X, int64_t n, int d,
                                 float* __restrict__ xnorm, double* __restrict__ xsq) {
  const int lane = threadIdx.x & 31;
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (i >= n) return;  // the whole warp: i is the same for its lanes
  const float* x = X + i * d;
  double s = 0.0;
  for (int q = lane; q < d; q += 32) {
    const double v = x[q];  // the warp reads the point's row contiguously
    s = fma(v, v, s);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) {
    xsq[i] = s;
    // Rounded up: the bound must not shrink.
    xnorm[i] = __double2float_ru(sqrt(s) * (1.0 + 1e-12));
  }
}

// Every block sums the centers to their mean itself (80 KB from L2 at K = 100, D = 200), so no
// block waits for another; then each of its warps prepares one center. The mean: the block's
// threads form rows = kPrepThreads / D groups of D (5 at D = 200), each summing every rows-th
// center in four independent chains; the groups' partial sums are added in shared memory in a
// fixed order. The single block this
// replaced (one thread per dimension walking all K centers, then 32 warps over the centers) took
// 16 us of every iteration at K = 100, D = 200 (Nsight Compute, H200).
__global__ void centerPrepKernel(const float* __restrict__ C, int k, int d, bool centered,
                                 float* __restrict__ Cc, float* __restrict__ cn,
                                 float* __restrict__ cabs, Tf32CenterFragments fragments) {
  extern __shared__ float mean[];  // d floats when centered
  __shared__ double part[kPrepThreads];
  if (centered) {
    const int rows = d <= kPrepThreads ? kPrepThreads / d : 1;
    const int r = threadIdx.x / d;
    if (rows > 1) {
      const int q = threadIdx.x - r * d;
      if (r < rows) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        int kk = r;
        for (; kk + 3 * rows < k; kk += 4 * rows) {
          s0 += C[static_cast<int64_t>(kk) * d + q];
          s1 += C[static_cast<int64_t>(kk + rows) * d + q];
          s2 += C[static_cast<int64_t>(kk + 2 * rows) * d + q];
          s3 += C[static_cast<int64_t>(kk + 3 * rows) * d + q];
        }
        for (; kk < k; kk += rows) s0 += C[static_cast<int64_t>(kk) * d + q];
        part[threadIdx.x] = (s0 + s1) + (s2 + s3);
      }
      __syncthreads();
      for (int qq = threadIdx.x; qq < d; qq += blockDim.x) {
        double s = 0.0;
        for (int rr = 0; rr < rows; ++rr) s += part[rr * d + qq];
        mean[qq] = static_cast<float>(s / k);
      }
    } else {  // D above the block: a thread per dimension over all centers
      for (int q = threadIdx.x; q < d; q += blockDim.x) {
        double s = 0.0;
        for (int kk = 0; kk < k; ++kk) s += C[static_cast<int64_t>(kk) * d + q];
        mean[q] = static_cast<float>(s / k);
      }
    }
    __syncthreads();
  }
  const int lane = threadIdx.x & 31;
  const int kk = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (kk >= k) return;  // the whole warp
  double s = 0.0, sc = 0.0;
  for (int q = lane; q < d; q += 32) {
    const float c = C[static_cast<int64_t>(kk) * d + q];
    s = fma(double(c), double(c), s);
    if (centered) {
      const float cc = c - mean[q];
      Cc[static_cast<int64_t>(kk) * d + q] = cc;
      putTf32Fragment(fragments, kk, q, cc);
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

void launchCenterPrep(const float* C, int k, int d, bool centered, float* Cc, float* cn,
                      float* cabs, size_t meanSmem, cudaStream_t stream,
                      Tf32CenterFragments fragments) {
  const int centersPerBlock = kPrepThreads / 32;
  centerPrepKernel<<<(k + centersPerBlock - 1) / centersPerBlock, kPrepThreads,
                     centered ? meanSmem : 0, stream>>>(C, k, d, centered, Cc, cn, cabs,
                                                                 fragments);
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
                                  int* __restrict__ unsure, int* __restrict__ unsureCount,
                                  uint32_t* __restrict__ masks) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool sure = true;
  float xn = 0.f, limit = 0.f;
  if (i < n) {
    xn = xnorm[i];
    float b1 = INFINITY, e1 = 0.f;  // the smallest s (lowest index at equal) and its bound
    int i1 = 0;
    float t1 = INFINITY, t2 = INFINITY;  // the two smallest s - bound
    int j1 = -1;
#pragma unroll 8
    for (int kk = 0; kk < k; ++kk) {
      const float c = cn[kk];
      const float s = G[static_cast<int64_t>(kk) * n + i] + c;
      const float e = tf32Bound(kappa, xn, cabs[kk], c);
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
    limit = b1 + e1;
  }
  // Warp-aggregated append: one atomic per warp, not per point.
  const unsigned mask = __ballot_sync(0xffffffffu, !sure);
  if (mask) {
    const int lane = threadIdx.x & 31;
    int base = 0;
    if (lane == __ffs(mask) - 1) base = atomicAdd(unsureCount, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, __ffs(mask) - 1);
    if (!sure) {
      const int w = base + __popc(mask & ((1u << lane) - 1u));
      unsure[w] = static_cast<int>(i);
      if (masks) {  // the candidates, by the test exactFixKernel's candidateBits makes on G
        uint32_t bits[kMaskWords] = {};
        for (int kk = 0; kk < k; ++kk) {
          const float c = cn[kk];
          const float s = G[static_cast<int64_t>(kk) * n + i] + c;
          if (s - tf32Bound(kappa, xn, cabs[kk], c) <= limit) bits[kk >> 5] |= 1u << (kk & 31);
        }
        for (int q = 0; q < kMaskWords; ++q) masks[static_cast<int64_t>(w) * kMaskWords + q] = bits[q];
      }
    }
  }
}

namespace {

// The best s over the centers (lowest index at equal) and its bound, as assignBoundKernel found
// it: the lanes take every 32nd center, then the warp agrees.
__device__ float bestInterval(const Candidates& c, int64_t n, int k, int64_t i, int lane) {
  const float xn = c.xnorm[i];
  float b = INFINITY, be = 0.f;
  int bi = INT_MAX;
  for (int kk = lane; kk < k; kk += 32) {
    const float cn = c.cn[kk];
    const float s = c.G[static_cast<int64_t>(kk) * n + i] + cn;
    if (s < b) {
      b = s;
      bi = kk;
      be = tf32Bound(c.kappa, xn, c.cabs[kk], cn);
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
  return b + be;
}

// The candidates among centers k0 .. k0 + 31 as a bit mask (the same on every lane).
__device__ uint32_t candidateBits(const Candidates& c, int64_t n, int k, int64_t i, int64_t w,
                                  int k0, float limit, int lane) {
  if (c.masks) return c.masks[w * kMaskWords + (k0 >> 5)];
  const int kk = k0 + lane;
  bool candidate = false;
  if (kk < k) {
    const float cn = c.cn[kk];
    const float s = c.G[static_cast<int64_t>(kk) * n + i] + cn;
    candidate = s - tf32Bound(c.kappa, c.xnorm[i], c.cabs[kk], cn) <= limit;
  }
  return __ballot_sync(0xffffffffu, candidate);
}

}  // namespace

template <int kFixBatch>
__global__ void __launch_bounds__(kFixThreads)
    exactFixKernel(const float* __restrict__ X, int64_t n, int d, const float* __restrict__ C,
                   int k, Candidates cand, const int* __restrict__ unsure,
                   const int* __restrict__ unsureCount, int* __restrict__ labels) {
  const int lane = threadIdx.x & 31;
  const int count = *unsureCount;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x >> 5);
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
       w < count; w += warps) {
    const int64_t i = unsure[w];
    const float* x = X + i * d;
    const float limit = cand.masks ? 0.f : bestInterval(cand, n, k, i, lane);
    double best = INFINITY;
    int bestK = -1;
    // The candidates in batches of up to kFixBatch, in increasing index order
    // (warpExactDistances says why batches).
    for (int k0 = 0; k0 < k; k0 += 32) {
      uint32_t bits = candidateBits(cand, n, k, i, w, k0, limit, lane);
      while (bits) {  // the same bits on every lane: the loop is warp-uniform
        int kb[kFixBatch];  // the batch's centers, -1 past the word's last candidate
        takeCandidates(bits, k0, kb);
        double v[kFixBatch];
        warpExactDistances(x, C, d, kb, lane, v);
#pragma unroll
        for (int b = 0; b < kFixBatch; ++b) {
          if (kb[b] < 0) break;  // warp-uniform
          if (v[b] < best) {  // candidates in increasing order: the lowest index at equal distance
            best = v[b];
            bestK = kb[b];
          }
        }
      }
    }
    if (lane == 0) labels[i] = bestK;
  }
}

namespace {

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

}  // namespace

// Reads: the block's contiguous range of point rows once, as one stream (point-major: a stage of
// 16 points is one run of 64 D bytes); 132 such streams on the H200. Each thread adds four
// coordinates per point from one 16-byte shared read; with D = 200, 50 threads cover a point and
// the block's 256 threads sum five points at once. (A thread per dimension, one point at a time,
// ran at 7.8 cycles per instruction with 8 warps per SM and about 30 instructions per point: 1.0
// ms at N = 1e6, D = 200 on the H200, a quarter of the copy rate.) Expected limiter: DRAM.
__global__ void __launch_bounds__(kPartThreads, 1)
    updateSumsKernel(const float* __restrict__ X, int64_t n, int d, int k,
                     const int* __restrict__ labels, const double* __restrict__ xsq,
                     int64_t perBlock, int stages, double* slices, double* sumsq, int* counts) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* sumS = reinterpret_cast<double*>(smem);
  double* sqS = sumS + static_cast<size_t>(k) * d;
  int* cntS = reinterpret_cast<int*>(sqS + k);
  unsigned char* stageBase = smem + updateSumsBytes(k, d);
  const size_t stageBytes = updateStageBytes(d);
  const int pitch = updateRowPitch(d);
  for (int e = threadIdx.x; e < k * d; e += blockDim.x) sumS[e] = 0.0;
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    sqS[e] = 0.0;
    cntS[e] = 0;
  }
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * perBlock;
  const int64_t end = begin + perBlock < n ? begin + perBlock : n;
  const int64_t len = end > begin ? end - begin : 0;
  const int steps = static_cast<int>((len + kStagePoints - 1) / kStagePoints);

  // Stage `st`: kStagePoints rows (zero beyond the range) and their labels, into buffer
  // st % stages; always one commit group. With D % 4 == 0 the stage is one contiguous run whose
  // first byte is 16-byte aligned (a stage starts at a multiple of 16 points): 16-byte copies, the
  // last few floats one by one (a 16-byte copy must not read past the points). Otherwise each row
  // goes to its padded place float by float.
  auto issue = [&](int st) {
    if (st < steps) {
      const int64_t i0 = begin + static_cast<int64_t>(st) * kStagePoints;
      const int valid = end - i0 < kStagePoints ? static_cast<int>(end - i0) : kStagePoints;
      float* xs = reinterpret_cast<float*>(stageBase + (st % stages) * stageBytes);
      int* ls = reinterpret_cast<int*>(xs + static_cast<size_t>(pitch) * kStagePoints);
      const float* src = X + i0 * d;
      const int floats = valid * d;
      if (pitch == d) {
        const int whole = floats / 4 * 4;
        for (int e = threadIdx.x * 4; e < whole; e += blockDim.x * 4)
          copyAsync(xs + e, src + e, 16, 16);
        for (int e = whole + static_cast<int>(threadIdx.x); e < floats; e += blockDim.x)
          copyAsync(xs + e, src + e, 4, 4);
      } else {
        for (int e = threadIdx.x; e < floats; e += blockDim.x) {
          const int j = e / d, q = e - j * d;
          copyAsync(xs + j * pitch + q, src + e, 4, 4);
        }
      }
      if (static_cast<int>(threadIdx.x) < valid)
        copyAsync(ls + threadIdx.x, labels + i0 + threadIdx.x, 4, 4);
    }
    commitAsync();
  };

  for (int st = 0; st < stages - 1; ++st) issue(st);
  __syncthreads();  // the zeroed sums before any thread adds
  // Thread t: dimensions 4v .. 4v + 3 of every slots-th point of a stage, from point `slot` on.
  const int perPoint = (d + 3) / 4;
  const int slots = static_cast<int>(blockDim.x) / perPoint;
  const int slot = static_cast<int>(threadIdx.x) / perPoint;
  const int v = static_cast<int>(threadIdx.x) - slot * perPoint;
  const int q = 4 * v;
  const bool active = slot < slots;
  int runK = -1;  // the open run: its label and its four sums (it carries over from stage to stage)
  double r0 = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0;
  auto flush = [&]() {
    if (runK < 0) return;
    double* at = sumS + static_cast<size_t>(runK) * d + q;
    atomicAdd(at, r0);  // slots summing the same cluster meet here
    if (q + 1 < d) atomicAdd(at + 1, r1);
    if (q + 2 < d) atomicAdd(at + 2, r2);
    if (q + 3 < d) atomicAdd(at + 3, r3);
  };
  for (int st = 0; st < steps; ++st) {
    issue(st + stages - 1);  // into the buffer summed at step st - 1 (freed by its barrier)
    waitAsync(stages - 1);   // stage st has landed
    __syncthreads();
    const float* xs = reinterpret_cast<const float*>(stageBase + (st % stages) * stageBytes);
    const int* ls = reinterpret_cast<const int*>(xs + static_cast<size_t>(pitch) * kStagePoints);
    const int64_t i0 = begin + static_cast<int64_t>(st) * kStagePoints;
    const int valid = end - i0 < kStagePoints ? static_cast<int>(end - i0) : kStagePoints;
    if (active) {
      for (int j = slot; j < valid; j += slots) {
        const int label = ls[j];  // a broadcast to the point's threads
        // Padding floats past D are read but never added to the sums (flush stops at D).
        const float4 x = *reinterpret_cast<const float4*>(xs + j * pitch + q);
        if (label != runK) {
          flush();
          runK = (label >= 0 && label < k) ? label : -1;  // an invalid label is left out (the
          r0 = r1 = r2 = r3 = 0.0;                          // count check catches it)
        }
        r0 += double(x.x);
        r1 += double(x.y);
        r2 += double(x.z);
        r3 += double(x.w);
      }
    }
    __syncthreads();  // every thread is done with this buffer before it is refilled
  }
  waitAsync(0);
  if (active) flush();
  if (begin < end) addNormsAndCounts(labels, xsq, k, begin, end, sqS, cntS);
  __syncthreads();
  // The block's sums go out with plain coalesced stores to its own slice; reduceBlockSumsKernel
  // adds the slices in a fixed order. (Inside a block the slots' atomic adds meet in any order, so
  // the sums may differ in the last bits between runs; the centers are their float rounding.)
  double* slice = slices + static_cast<size_t>(blockIdx.x) * k * d;
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

// Where the sums do not fit in shared memory: a thread per dimension reads its block's points
// directly (a warp reads a point's row contiguously) and adds every run to the global sums.
__global__ void __launch_bounds__(kPartThreads)
    updateSumsGlobalKernel(const float* __restrict__ X, int64_t n, int d, int k,
                           const int* __restrict__ labels, const double* __restrict__ xsq,
                           int64_t perBlock, double* sums, double* sumsq, int* counts) {
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
      double run = 0.0;
      int runK = -1;
      for (int64_t i = begin; i < end; ++i) {
        const int label = __ldg(labels + i);
        if (label != runK) {
          if (runK >= 0) atomicAdd(sums + static_cast<int64_t>(runK) * d + q, run);
          runK = (label >= 0 && label < k) ? label : -1;
          run = 0.0;
        }
        run += double(__ldg(X + i * d + q));
      }
      if (runK >= 0) atomicAdd(sums + static_cast<int64_t>(runK) * d + q, run);
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

__global__ void __launch_bounds__(kFinalizeThreads)
    finalizeFromSumsKernel(int k, int d, const float* __restrict__ C, float* __restrict__ Cnext,
                           double* sums, double* sumsq, int* counts, double* outScores,
                           int* outCounts) {
  __shared__ double warpPart[kFinalizeThreads / 32];
  const int kk = blockIdx.x;
  if (kk >= k) return;
  const int cnt = counts[kk];
  const int64_t row = static_cast<int64_t>(kk) * d;
  // Score of cluster kk: sum over its points of |x - c|^2 = Q - 2 c.S + n |c|^2, in double; the
  // next center is the mean, and the sums are zeroed for the next update.
  double a = 0.0;
  for (int q = threadIdx.x; q < d; q += blockDim.x) {
    const double c = C[row + q];
    const double s = sums[row + q];
    a += c * (double(cnt) * c - 2.0 * s);
    Cnext[row + q] = cnt > 0 ? static_cast<float>(s / cnt) : C[row + q];
    sums[row + q] = 0.0;
  }
  for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
  if ((threadIdx.x & 31) == 0) warpPart[threadIdx.x >> 5] = a;
  __syncthreads();  // every thread has read counts[kk] before it is zeroed below
  if (threadIdx.x == 0) {
    double t = 0.0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) t += warpPart[w];
    outScores[kk] = cnt > 0 ? sumsq[kk] + t : 0.0;
    outCounts[kk] = cnt;
    sumsq[kk] = 0.0;
    counts[kk] = 0;
  }
}

void launchExactFix(int batch, int grid, cudaStream_t stream, const float* X, int64_t n, int d,
                    const float* C, int k, const Candidates& cand, const int* unsure,
                    const int* unsureCount, int* labels) {
  if (batch == 1)
    exactFixKernel<1><<<grid, kFixThreads, 0, stream>>>(X, n, d, C, k, cand, unsure, unsureCount,
                                                       labels);
  else
    exactFixKernel<4><<<grid, kFixThreads, 0, stream>>>(X, n, d, C, k, cand, unsure, unsureCount,
                                                       labels);
}

ResourceUsage exactFixResources(int batch) {
  return batch == 1 ? cuda::kernelResources(exactFixKernel<1>, kFixThreads, 0)
                    : cuda::kernelResources(exactFixKernel<4>, kFixThreads, 0);
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// The harness of the 2026-12-02 evening transpose experiments (issue 18; docs/BENCHMARKS.md,
// logs in docs/data/device-logs/2026-12-02-eve-*). Not part of the product: the winners moved
// into transpose_best_phases.h as the aligned-stripe and tile-40 strategies. Every kernel moves
// the matrix, is timed with CUDA events (median of 20 after 3 warm-ups; WARM=n for more) against
// cudaMemcpy D2D of the same bytes, and is checked bit-exact against a host transpose. The shape
// list in main() was edited between device calls; the logs name each configuration
// (tile/lt/lh/vt: tiles TW x TH with BY warps and MINB blocks per SM; align: the 40-row aligned
// tile; walk/lw/lx: the walking aligned stripe, lx with one barrier per step; ref-committed: a
// copy of the committed tile kernel, the calibration).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o tx transpose_shapes.cu; run: ./tx, or
// ./tx ncu NAME under ncu (one launch per configuration whose name contains NAME).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

struct TC {
  int x, y;
};
__device__ __forceinline__ TC grouped(long long bid, int gx, int gy, int group) {
  const long long per = (long long)group * gy;
  const int stripe = (int)(bid / per);
  const long long r = bid % per;
  const int first = stripe * group;
  const int cols = gx - first < group ? gx - first : group;
  return {first + (int)(r % cols), (int)(r / cols)};
}

// Plain tile TW columns x TH rows, 32*BY threads, shared [c][r] with pitch TH+1.
template <int TW, int TH, int BY>
__global__ void __launch_bounds__(32 * BY)
    tileK(const float* __restrict__ in, float* __restrict__ out, long long W, long long H, int gx,
          int gy, int group) {
  __shared__ float s[TW * (TH + 1)];
  const TC t = grouped(blockIdx.x, gx, gy, group);
  const long long x0 = (long long)t.x * TW, y0 = (long long)t.y * TH;
  constexpr int N = 32 * BY, L = TW * TH / N;
  static_assert(TW * TH % N == 0, "");
  const int tid = threadIdx.x;
  if (x0 + TW <= W && y0 + TH <= H) {
    float v[L];
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      v[i] = in[(y0 + r) * W + x0 + c];
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      s[c * (TH + 1) + r] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      if (x0 + c < W && y0 + r < H) s[c * (TH + 1) + r] = in[(y0 + r) * W + x0 + c];
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = i * N + tid, c = e / TH, r = e % TH;
    if (x0 + c < W && y0 + r < H) out[(x0 + c) * H + y0 + r] = s[c * (TH + 1) + r];
  }
}

// Copy with the same blocks (the in-run kernel ceiling).
template <int TW, int TH, int BY>
__global__ void __launch_bounds__(32 * BY)
    copyK(const float* __restrict__ in, float* __restrict__ out, long long W, long long H, int gx,
          int gy, int group) {
  const TC t = grouped(blockIdx.x, gx, gy, group);
  const long long x0 = (long long)t.x * TW, y0 = (long long)t.y * TH;
  constexpr int N = 32 * BY, L = TW * TH / N;
  const int tid = threadIdx.x;
  float v[L];
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = i * N + tid, r = e / TW, c = e % TW;
    v[i] = (x0 + c < W && y0 + r < H) ? in[(y0 + r) * W + x0 + c] : 0.f;
  }
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = i * N + tid, r = e / TW, c = e % TW;
    if (x0 + c < W && y0 + r < H) out[(y0 + r) * W + x0 + c] = v[i];
  }
}

// Sector-aligned output pieces: output row x0+c is cut at y0 - s_c + TH j with
// s_c = ((x0+c) H + y0) mod 8. Loads rows y0-8 .. y0+TH-1 (PRED: only the ones each column needs).
template <int TW, int TH, int BY, bool PRED>
__global__ void __launch_bounds__(32 * BY)
    alignK(const float* __restrict__ in, float* __restrict__ out, long long W, long long H, int gx,
           int gy, int group) {
  constexpr int R = TH + 8, P = TH + 9;
  __shared__ float s[TW * P];
  const TC t = grouped(blockIdx.x, gx, gy, group);
  const long long x0 = (long long)t.x * TW, y0 = (long long)t.y * TH, top = y0 - 8;
  constexpr int N = 32 * BY, L = TW * R / N;
  static_assert(TW * R % N == 0, "");
  const int tid = threadIdx.x;
  if (top >= 0 && y0 + TH <= H && x0 + TW <= W) {
    float v[L];
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, rr = e / TW, c = e % TW;
      bool need = true;
      if (PRED) {
        const int sc = (int)(((x0 + c) * H + y0) & 7);
        need = rr >= 8 - sc && rr < 8 - sc + TH;
      }
      v[i] = need ? in[(top + rr) * W + x0 + c] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, rr = e / TW, c = e % TW;
      s[c * P + rr] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, rr = e / TW, c = e % TW;
      const long long y = top + rr;
      if (y >= 0 && y < H && x0 + c < W) s[c * P + rr] = in[y * W + x0 + c];
    }
  }
  __syncthreads();
  constexpr int LS = TW * TH / N;
#pragma unroll
  for (int i = 0; i < LS; ++i) {
    const int e = i * N + tid, c = e / TH, r = e % TH;
    if (x0 + c >= W) continue;
    const long long row = (x0 + c) * H;
    const int sc = (int)((row + y0) & 7);
    const long long y = y0 - sc + r;
    if (y >= 0 && y < H) out[row + y] = s[c * P + 8 - sc + r];
  }
}


// Clone of the committed transposeBestKernel (2-D grid, loops over j), for calibration.
__global__ void __launch_bounds__(128) refK(const float* __restrict__ in, float* __restrict__ out,
                                            long long W, long long H, int gx, int gy, int group) {
  __shared__ float tile[32 * 33];
  const long long bid = blockIdx.x + (long long)gridDim.x * blockIdx.y;
  const TC t = grouped(bid, gx, gy, group);
  const int tx = threadIdx.x, ty = threadIdx.y;
  {
    const long long x = (long long)t.x * 32 + tx, y0 = (long long)t.y * 32 + ty;
    if ((t.x + 1LL) * 32 <= W && (t.y + 1LL) * 32 <= H) {
      for (int j = 0; j < 32; j += 4) tile[(ty + j) * 33 + tx] = in[(y0 + j) * W + x];
    } else {
      for (int j = 0; j < 32; j += 4)
        if (x < W && y0 + j < H) tile[(ty + j) * 33 + tx] = in[(y0 + j) * W + x];
    }
  }
  __syncthreads();
  const long long x = (long long)t.y * 32 + tx, y0 = (long long)t.x * 32 + ty;
  if ((t.x + 1LL) * 32 <= W && (t.y + 1LL) * 32 <= H) {
    for (int j = 0; j < 32; j += 4) out[(y0 + j) * H + x] = tile[tx * 33 + ty + j];
  } else {
    for (int j = 0; j < 32; j += 4)
      if (x < H && y0 + j < W) out[(y0 + j) * H + x] = tile[tx * 33 + ty + j];
  }
}

// Walking aligned stripe: a block moves TW columns down STEPS steps of 32 rows. Output pieces
// start on sectors (as alignK), and the up-to-7 rows above each step stay in a 40-row ring of
// shared memory, so nothing is read twice but the 8 rows above the segment. The next step's
// rows are loaded into registers while this step is written (software pipeline).
template <int TW, int BY, int STEPS, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB)
    walkK(const float* __restrict__ in, float* __restrict__ out, long long W, long long H, int gx,
          int gy, int group) {
  constexpr int N = 32 * BY, RING = 40, P = 41, LL = TW * 32 / N, RS = N / TW;  // rows per sweep
  static_assert(N % TW == 0 || TW % N == 0, "");
  static_assert(TW <= N, "one column per thread");
  __shared__ float s[TW * P];
  const TC t = grouped(blockIdx.x, gx, gy, group);
  const long long x0 = (long long)t.x * TW, seg0 = (long long)t.y * 32 * STEPS;
  const int tid = threadIdx.x, lc = tid % TW, lr = tid / TW;  // load column and first row
  const bool colOk = x0 + lc < W;
  // prologue: the 8 rows above the segment
  for (int r = lr; r < 8; r += RS) {
    const long long y = seg0 - 8 + r;
    if (y >= 0 && y < H && colOk) s[lc * P + r] = in[y * W + x0 + lc];
  }
  const int warp = tid / 32, lane = tid % 32;
  float v[LL];
  const float* src = in + (seg0 + lr) * W + x0 + lc;  // advances 32 rows per step
  const long long strideRS = RS * W;
  const bool fullW = x0 + TW <= W;
  float* dst0 = out + (x0 + warp) * H;  // output row of store i: x0 + warp + i * BY
  const long long dstStride = BY * H;
  const int sc0 = (int)(((x0 + warp) * H + seg0) & 7), scStep = (int)((BY * H) & 7);
#pragma unroll 1
  for (int k = 0; k < STEPS + 1; ++k) {
    const long long ys = seg0 + 32LL * k;
    if (k > 0) {
      // write step k-1 rows held in v into the ring
#pragma unroll
      for (int i = 0; i < LL; ++i) s[lc * P + (8 + 32 * (k - 1) + lr + i * RS) % RING] = v[i];
      __syncthreads();
    }
    if (k < STEPS && ys < H) {  // load step k
      if (fullW && ys + 32 <= H) {
#pragma unroll
        for (int i = 0; i < LL; ++i) v[i] = src[i * strideRS];
      } else {
#pragma unroll
        for (int i = 0; i < LL; ++i) v[i] = (ys + lr + i * RS < H && colOk) ? src[i * strideRS] : 0.f;
      }
      src += 32 * W;
    }
    if (k > 0) {  // store step k-1
      const long long y0 = ys - 32;
#pragma unroll
      for (int i = 0; i < LL; ++i) {
        const int c = warp + i * BY;
        if (x0 + c < W) {
          const int sc = (sc0 + i * scStep) & 7;
          const long long y = y0 - sc + lane;
          if (y >= 0 && y < H) dst0[i * dstStride + y] = s[c * P + (32 * (k - 1) + 8 - sc + lane) % RING];
        }
      }
      __syncthreads();
    }
    if (ys - 8 >= H) break;
  }
}

__device__ __forceinline__ TC grouped32(int bid, int gx, int gy, int group) {
  const int per = group * gy;
  const int stripe = bid / per, r = bid - stripe * per;
  const int first = stripe * group;
  const int cols = gx - first < group ? gx - first : group;
  const int q = r / cols;
  return {first + (r - q * cols), q};
}

// Lean tile: 32-bit index math (the matrix has fewer than 2^31 elements), registers capped so
// that 2048 threads fit on an SM.
template <int TW, int TH, int BY, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB)
    leanTile(const float* __restrict__ in, float* __restrict__ out, long long W_, long long H_,
             int gx, int gy, int group) {
  constexpr int N = 32 * BY, L = TW * TH / N;
  static_assert(TW * TH % N == 0, "");
  __shared__ float s[TW * (TH + 1)];
  const int W = (int)W_, H = (int)H_;
  const TC t = grouped32(blockIdx.x, gx, gy, group);
  const int x0 = t.x * TW, y0 = t.y * TH, tid = threadIdx.x;
  const float* src = in + (y0 * W + x0);
  if (x0 + TW <= W && y0 + TH <= H) {
    float v[L];
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      v[i] = src[r * W + c];
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      s[c * (TH + 1) + r] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      if (x0 + c < W && y0 + r < H) s[c * (TH + 1) + r] = src[r * W + c];
    }
  }
  __syncthreads();
  float* dst = out + (x0 * H + y0);
  if (x0 + TW <= W && y0 + TH <= H) {
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, c = e / TH, r = e % TH;
      dst[c * H + r] = s[c * (TH + 1) + r];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, c = e / TH, r = e % TH;
      if (x0 + c < W && y0 + r < H) dst[c * H + r] = s[c * (TH + 1) + r];
    }
  }
}

// Lean walking aligned stripe (see walkK), 32-bit index math.
template <int TW, int BY, int STEPS, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB)
    leanWalk(const float* __restrict__ in, float* __restrict__ out, long long W_, long long H_,
             int gx, int gy, int group) {
  constexpr int N = 32 * BY, RING = 40, P = 41, LL = TW * 32 / N, RS = N / TW;
  static_assert(TW <= N && N % TW == 0, "");
  __shared__ float s[TW * P];
  const int W = (int)W_, H = (int)H_;
  const TC t = grouped32(blockIdx.x, gx, gy, group);
  const int x0 = t.x * TW, seg0 = t.y * 32 * STEPS;
  const int tid = threadIdx.x, lc = tid % TW, lr = tid / TW;
  const bool colOk = x0 + lc < W;
  for (int r = lr; r < 8; r += RS) {
    const int y = seg0 - 8 + r;
    if (y >= 0 && y < H && colOk) s[lc * P + r] = in[y * W + x0 + lc];
  }
  const int warp = tid / 32, lane = tid % 32;
  float v[LL];
  int srcOff = (seg0 + lr) * W + x0 + lc;
  const bool fullW = x0 + TW <= W;
  const int dstBase = (x0 + warp) * H + lane;
  const int sc0 = ((x0 + warp) * H + seg0) & 7, scStep = (BY * H) & 7;
#pragma unroll 1
  for (int k = 0; k <= STEPS; ++k) {
    const int ys = seg0 + 32 * k;
    if (k > 0) {
#pragma unroll
      for (int i = 0; i < LL; ++i) s[lc * P + (8 + 32 * (k - 1) + lr + i * RS) % RING] = v[i];
      __syncthreads();
    }
    if (k < STEPS && ys < H) {
      if (fullW && ys + 32 <= H) {
#pragma unroll
        for (int i = 0; i < LL; ++i) v[i] = in[srcOff + i * RS * W];
      } else {
#pragma unroll
        for (int i = 0; i < LL; ++i)
          v[i] = (ys + lr + i * RS < H && colOk) ? in[srcOff + i * RS * W] : 0.f;
      }
      srcOff += 32 * W;
    }
    if (k > 0) {
      const int y0 = ys - 32;
#pragma unroll
      for (int i = 0; i < LL; ++i) {
        const int c = warp + i * BY;
        const int sc = (sc0 + i * scStep) & 7;
        const int y = y0 - sc + lane;
        if (x0 + c < W && y >= 0 && y < H)
          out[dstBase + i * BY * H + y0 - sc] = s[c * P + (32 * (k - 1) + 8 - sc + lane) % RING];
      }
      __syncthreads();
    }
    if (ys - 8 >= H) break;
  }
}

// leanWalk with a ring of 72 rows (two steps + 8): one barrier per step.
template <int TW, int BY, int STEPS, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB)
    leanWalk2(const float* __restrict__ in, float* __restrict__ out, long long W_, long long H_,
              int gx, int gy, int group) {
  constexpr int N = 32 * BY, RING = 72, P = 73, LL = TW * 32 / N, RS = N / TW;
  static_assert(TW <= N && N % TW == 0, "");
  __shared__ float s[TW * P];
  const int W = (int)W_, H = (int)H_;
  const TC t = grouped32(blockIdx.x, gx, gy, group);
  const int x0 = t.x * TW, seg0 = t.y * 32 * STEPS;
  const int tid = threadIdx.x, lc = tid % TW, lr = tid / TW;
  const bool colOk = x0 + lc < W;
  for (int r = lr; r < 8; r += RS) {
    const int y = seg0 - 8 + r;
    if (y >= 0 && y < H && colOk) s[lc * P + r] = in[y * W + x0 + lc];
  }
  const int warp = tid / 32, lane = tid % 32;
  float v[LL];
  int srcOff = (seg0 + lr) * W + x0 + lc;
  const bool fullW = x0 + TW <= W;
  const int dstBase = (x0 + warp) * H + lane;
  const int sc0 = ((x0 + warp) * H + seg0) & 7, scStep = (BY * H) & 7;
  auto load = [&](int k) {
    const int ys = seg0 + 32 * k;
    if (fullW && ys + 32 <= H) {
#pragma unroll
      for (int i = 0; i < LL; ++i) v[i] = in[srcOff + i * RS * W];
    } else {
#pragma unroll
      for (int i = 0; i < LL; ++i)
        v[i] = (ys + lr + i * RS < H && colOk) ? in[srcOff + i * RS * W] : 0.f;
    }
    srcOff += 32 * W;
  };
  load(0);
#pragma unroll 1
  for (int k = 0; k < STEPS; ++k) {
    const int y0 = seg0 + 32 * k;
    if (y0 - 8 >= H) break;
#pragma unroll
    for (int i = 0; i < LL; ++i) s[lc * P + (8 + 32 * k + lr + i * RS) % RING] = v[i];
    __syncthreads();
    if (k + 1 < STEPS && y0 + 32 < H) load(k + 1);
#pragma unroll
    for (int i = 0; i < LL; ++i) {
      const int c = warp + i * BY;
      const int sc = (sc0 + i * scStep) & 7;
      const int y = y0 - sc + lane;
      if (x0 + c < W && y >= 0 && y < H)
        out[dstBase + i * BY * H + y0 - sc] = s[c * P + (32 * k + 8 - sc + lane) % RING];
    }
  }
}

// Lean tile with cache hints (HINT 1: streaming loads and stores; 2: streaming stores only) and
// optional 16-byte loads (VEC: W and x0 multiples of 4).
template <int TW, int TH, int BY, int MINB, int HINT, bool VEC>
__global__ void __launch_bounds__(32 * BY, MINB)
    leanTileH(const float* __restrict__ in, float* __restrict__ out, long long W_, long long H_,
              int gx, int gy, int group) {
  constexpr int N = 32 * BY, L = TW * TH / N, LV = TW * TH / 4 / N, Q = TW / 4;
  __shared__ float s[TW * (TH + 1)];
  const int W = (int)W_, H = (int)H_;
  const TC t = grouped32(blockIdx.x, gx, gy, group);
  const int x0 = t.x * TW, y0 = t.y * TH, tid = threadIdx.x;
  const float* src = in + (y0 * W + x0);
  const bool interior = x0 + TW <= W && y0 + TH <= H;
  if (interior && VEC) {
    float4 v[LV];
#pragma unroll
    for (int i = 0; i < LV; ++i) {
      const int e = i * N + tid, r = e / Q, q = e % Q;
      const float4* p4 = reinterpret_cast<const float4*>(src + r * W + 4 * q);
      v[i] = HINT == 1 ? __ldcs(p4) : *p4;
    }
#pragma unroll
    for (int i = 0; i < LV; ++i) {
      const int e = i * N + tid, r = e / Q, q = e % Q;
      s[(4 * q) * (TH + 1) + r] = v[i].x;
      s[(4 * q + 1) * (TH + 1) + r] = v[i].y;
      s[(4 * q + 2) * (TH + 1) + r] = v[i].z;
      s[(4 * q + 3) * (TH + 1) + r] = v[i].w;
    }
  } else if (interior) {
    float v[L];
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      v[i] = HINT == 1 ? __ldcs(src + r * W + c) : src[r * W + c];
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      s[c * (TH + 1) + r] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      if (x0 + c < W && y0 + r < H) s[c * (TH + 1) + r] = src[r * W + c];
    }
  }
  __syncthreads();
  float* dst = out + (x0 * H + y0);
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = i * N + tid, c = e / TH, r = e % TH;
    if (interior || (x0 + c < W && y0 + r < H)) {
      if (HINT != 0)
        __stcs(dst + c * H + r, s[c * (TH + 1) + r]);
      else
        dst[c * H + r] = s[c * (TH + 1) + r];
    }
  }
}

// 40-wide tile, LV/SV: 16-byte loads / 16-byte stores (W, H, x0, y0 multiples of 4).
template <int TW, int TH, int BY, int MINB, bool LV, bool SV>
__global__ void __launch_bounds__(32 * BY, MINB)
    vecTile(const float* __restrict__ in, float* __restrict__ out, long long W_, long long H_,
            int gx, int gy, int group) {
  constexpr int N = 32 * BY, L = TW * TH / N, L4 = TW * TH / 4 / N, Q = TW / 4, QS = TH / 4;
  static_assert(TW * TH / 4 % N == 0, "");
  constexpr int P = TH + 1;
  __shared__ float s[TW * P];
  const int W = (int)W_, H = (int)H_;
  const TC t = grouped32(blockIdx.x, gx, gy, group);
  const int x0 = t.x * TW, y0 = t.y * TH, tid = threadIdx.x;
  const float* src = in + (y0 * W + x0);
  const bool interior = x0 + TW <= W && y0 + TH <= H;
  if (interior && LV) {
    float4 v[L4];
#pragma unroll
    for (int i = 0; i < L4; ++i) {
      const int e = i * N + tid, r = e / Q, q = e % Q;
      v[i] = *reinterpret_cast<const float4*>(src + r * W + 4 * q);
    }
#pragma unroll
    for (int i = 0; i < L4; ++i) {
      const int e = i * N + tid, r = e / Q, q = e % Q;
      s[(4 * q) * P + r] = v[i].x;
      s[(4 * q + 1) * P + r] = v[i].y;
      s[(4 * q + 2) * P + r] = v[i].z;
      s[(4 * q + 3) * P + r] = v[i].w;
    }
  } else if (interior) {
    float v[L];
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      v[i] = src[r * W + c];
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      s[c * P + r] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = i * N + tid, r = e / TW, c = e % TW;
      if (x0 + c < W && y0 + r < H) s[c * P + r] = src[r * W + c];
    }
  }
  __syncthreads();
  float* dst = out + (x0 * H + y0);
  if (interior && SV) {
#pragma unroll
    for (int i = 0; i < L4; ++i) {
      const int e = i * N + tid, c = e / QS, q = e % QS;
      const float* sp = s + c * P + 4 * q;
      *reinterpret_cast<float4*>(dst + c * H + 4 * q) = make_float4(sp[0], sp[1], sp[2], sp[3]);
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = i * N + tid, c = e / TH, r = e % TH;
    if (interior || (x0 + c < W && y0 + r < H)) dst[c * H + r] = s[c * P + r];
  }
}

using Fn = void (*)(const float*, float*, long long, long long, int, int, int);

struct Config {
  std::string name;
  Fn fn;
  int tw, th, threads;
  bool aligned;  // grid y covers h + 7
  bool isCopy;
  bool ref2d = false;
};

#define TILE(TW, TH, BY) Config{"tile" #TW "x" #TH "b" #BY, tileK<TW, TH, BY>, TW, TH, 32 * BY, false, false}
#define ALIGN(TW, TH, BY, PR)                                                                    \
  Config{std::string("align" #TW "x" #TH "b" #BY) + (PR ? "p" : ""), alignK<TW, TH, BY, PR>, TW, TH, \
         32 * BY, true, false}
#define REF Config{"ref-committed", refK, 32, 32, 128, false, false, true}
#define WALKM(TW, BY, ST, M) Config{"walk" #TW "b" #BY "s" #ST "m" #M, walkK<TW, BY, ST, M>, TW, 32 * ST, 32 * BY, true, false}
#define WALK(TW, BY, ST) Config{"walk" #TW "b" #BY "s" #ST, walkK<TW, BY, ST, 32 / BY>, TW, 32 * ST, 32 * BY, true, false}
#define LT(TW, TH, BY, M) Config{"lt" #TW "x" #TH "b" #BY "m" #M, leanTile<TW, TH, BY, M>, TW, TH, 32 * BY, false, false}
#define LW(TW, BY, ST, M) Config{"lw" #TW "b" #BY "s" #ST "m" #M, leanWalk<TW, BY, ST, M>, TW, 32 * ST, 32 * BY, true, false}
#define LW2(TW, BY, ST, M) Config{"lx" #TW "b" #BY "s" #ST "m" #M, leanWalk2<TW, BY, ST, M>, TW, 32 * ST, 32 * BY, true, false}
#define LTH(TW, TH, BY, M, HI, V) Config{"lh" #TW "x" #TH "b" #BY "m" #M "h" #HI "v" #V, leanTileH<TW, TH, BY, M, HI, V>, TW, TH, 32 * BY, false, false}
#define VT(TW, TH, BY, M, LV, SV) Config{"vt" #TW "x" #TH "b" #BY "m" #M "l" #LV "s" #SV, vecTile<TW, TH, BY, M, LV, SV>, TW, TH, 32 * BY, false, false}
#define COPY(TW, TH, BY) Config{"copy" #TW "x" #TH "b" #BY, copyK<TW, TH, BY>, TW, TH, 32 * BY, false, true}

static double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const bool ncuMode = argc > 1 && std::string(argv[1]) == "ncu";
  const std::string only = argc > 2 ? argv[2] : "";
  struct Shape {
    long long w, h;
    std::vector<Config> cfgs;
  };
  std::vector<Shape> shapes = {
      {200, 1000000,
       {REF, LT(40, 64, 4, 10), VT(40, 64, 4, 10, 0, 0), VT(40, 64, 4, 10, 1, 0),
        VT(40, 64, 4, 10, 0, 1), VT(40, 64, 4, 10, 1, 1), VT(40, 64, 4, 8, 1, 1),
        VT(40, 64, 4, 12, 1, 1), VT(40, 64, 4, 16, 1, 1), VT(40, 128, 8, 8, 1, 1),
        VT(40, 128, 8, 6, 1, 1), VT(40, 128, 4, 6, 1, 1), VT(40, 32, 2, 16, 1, 1),
        VT(40, 32, 2, 24, 1, 1), VT(40, 128, 8, 8, 1, 0), VT(40, 64, 4, 12, 1, 0),
        VT(40, 64, 4, 16, 1, 0), VT(40, 128, 4, 8, 1, 1)}},
      {1000000, 200, {REF, VT(32, 40, 2, 24, 1, 1), VT(32, 40, 2, 16, 1, 1), VT(32, 40, 2, 32, 1, 0)}},
  };
  const int warm = ncuMode ? 0 : (std::getenv("WARM") ? std::atoi(std::getenv("WARM")) : 3), reps = ncuMode ? 1 : 20;
  for (const Shape& sh : shapes) {
    const long long W = sh.w, H = sh.h, n = W * H;
    const size_t bytes = n * 4;
    std::vector<unsigned> hin(n), want(n), got(n);
    for (long long i = 0; i < n; ++i) hin[i] = (unsigned)(i * 2654435761u);
    for (long long y = 0; y < H; ++y)
      for (long long x = 0; x < W; ++x) want[x * H + y] = hin[y * W + x];
    float *din, *dout;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMemcpy(din, hin.data(), bytes, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int i = 0; i < warm + reps; ++i) {
      CK(cudaEventRecord(a));
      CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice));
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      if (i >= warm) ms.push_back(t);
    }
    const double memcpyMs = median(ms);
    std::printf("\n== %lld x %lld: cudaMemcpy D2D %.4f ms (%.0f GB/s)\n", W, H, memcpyMs,
                2.0 * bytes / memcpyMs / 1e6);
    for (const Config& c : sh.cfgs) {
      if (!only.empty() && c.name.find(only) == std::string::npos) continue;
      const int gx = (int)((W + c.tw - 1) / c.tw);
      const int gy = (int)(((c.aligned ? H + 7 : H) + c.th - 1) / c.th);
      // one stripe up to 16 tiles wide, else 4 (the committed rule)
      for (int group : {std::getenv("GROUP") ? std::atoi(std::getenv("GROUP")) : (gx <= 16 ? gx : 4)}) {
        const long long blocks = (long long)gx * gy;
        CK(cudaMemset(dout, 0xFF, bytes));
        ms.clear();
        for (int i = 0; i < warm + reps; ++i) {
          CK(cudaEventRecord(a));
          if (c.ref2d)
            c.fn<<<dim3(gx, gy), dim3(32, 4)>>>(din, dout, W, H, gx, gy, group);
          else
            c.fn<<<(unsigned)blocks, c.threads>>>(din, dout, W, H, gx, gy, group);
          CK(cudaGetLastError());
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float t;
          CK(cudaEventElapsedTime(&t, a, b));
          if (i >= warm) ms.push_back(t);
        }
        CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
        const bool ok = c.isCopy ? std::memcmp(got.data(), hin.data(), bytes) == 0
                                 : std::memcmp(got.data(), want.data(), bytes) == 0;
        const double k = median(ms);
        std::printf("%-18s group %2d  %.4f ms  x memcpy %.3f  min %.4f max %.4f  %s\n",
                    c.name.c_str(), group, k, memcpyMs / k,
                    *std::min_element(ms.begin(), ms.end()),
                    *std::max_element(ms.begin(), ms.end()), ok ? "exact" : "WRONG");
      }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  return 0;
}

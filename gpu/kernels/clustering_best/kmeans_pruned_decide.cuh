// SPDX-License-Identifier: MIT
// The pruned k-means engine's full decisions (issue 15): all K float distances of a list of
// points (every point in iteration 0), the interval test of kmeans_pruning.h, and the double
// re-decision of the points near a tie. Included by kmeans_pruned.cu only (the kernels are
// defined here, in an anonymous namespace, so they stay private to that file).
//
// prunedDecideKernel is a register-tiled "GEMM" of squared differences: a block owns a tile of
// BM points by BN centers; a thread owns 8 points x 4 centers, 32 float accumulators, and per 4
// dimensions reads 8 float4 of its points and 4 float4 of its centers from shared memory for 256
// subtract / fused multiply-add instructions (the distance's error bound is for sum (x - c)^2
// with fused multiply-adds, so the |x|^2 - 2 x.c + |c|^2 form, half the instructions, cannot be
// used). The centers are read from a transposed copy Ct (D x kpad), so both operands arrive by
// cp.async without passing through registers, in 32-dimension chunks through a 2 or 3 stage
// pipeline that runs on across the block's tiles. BN covers K in as few center tiles as possible
// (K = 100: 25 thread columns of 4 centers, none wasted); BM = 8 x (256 / columns).
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdint>

#include "kernellab/kmeans_pruning.h"
#include "kmeans_parts.cuh"
#include "kmeans_pruned_kernels.cuh"

namespace kernellab::clustering::best {
namespace {

constexpr int kTilePointsPerThread = 8;   // TP: a thread's points
constexpr int kTileCentersPerThread = 4;  // TC: a thread's centers (one float4)
constexpr int kChunkDims = 32;            // dimensions per pipeline stage
// Floats per staged point row: the chunk plus 4, so the rows that a warp's threads read (one or
// two per float4 request, a row apart) fall in different banks.
constexpr int kRowPitch = kChunkDims + 4;
constexpr int kMaxCenterColumns = 64;  // BN <= 256
constexpr int kMaxPointRows = 32;      // BM <= 256
constexpr int kDecideThreads = 256;

// A point's best float distances so far: the smallest f1 (lowest index b at equal), the smallest
// f2 among the other centers, and whether any distance was not finite.
struct SlotBest {
  float f1, f2;
  int b, bad;
};

// The launch shape (host-chosen, passed by value): columns x rows threads, each 8 points of a
// tile by 4 centers of a center tile.
struct DecideShape {
  int columns = 1;      // thread columns over the centers (Tc)
  int rows = 1;         // thread rows over the points (Tp)
  int centerTiles = 1;  // BN-center tiles covering K
  int stages = 3;
  int threads = 32;     // rows x columns rounded up to whole warps
  __host__ __device__ int tilePoints() const { return rows * kTilePointsPerThread; }
  __host__ __device__ int tileCenters() const { return columns * kTileCentersPerThread; }
  __host__ __device__ int paddedCenters() const { return centerTiles * tileCenters(); }
  __host__ __device__ size_t stageFloats() const {
    return size_t(tilePoints()) * kRowPitch + size_t(kChunkDims) * tileCenters();
  }
  __host__ __device__ size_t sharedBytes() const {
    return sizeof(float) * stages * stageFloats() + sizeof(SlotBest) * tilePoints() * columns;
  }
};

// For K centers: the fewest center tiles of at most 64 columns, the columns balanced over them,
// and as many thread rows (up to maxRows) as fill 256 threads.
inline DecideShape decideShapeFor(int k, int stages, int maxRows) {
  DecideShape s;
  const int groups = (k + kTileCentersPerThread - 1) / kTileCentersPerThread;
  s.centerTiles = (groups + kMaxCenterColumns - 1) / kMaxCenterColumns;
  s.columns = (groups + s.centerTiles - 1) / s.centerTiles;
  s.rows = kDecideThreads / s.columns;
  if (s.rows > maxRows) s.rows = maxRows;
  s.threads = (s.rows * s.columns + 31) / 32 * 32;
  s.stages = stages;
  return s;
}

struct DecideArgs {
  const float* X;  // N x D, point-major
  int64_t n;
  int d, k;
  const float* Ct;         // D x kpad, the centers transposed
  const int* list;         // the points to decide, or null: every point
  const int* listCount;    // or null: N
  int* labels;
  float2* bounds;          // (upper, lower)
  int* ties;               // the points the float intervals leave open
  int* tieCount;
  int2* changed;           // (point, old label) of a changed label, or null: not tracked
  int* changedCount;
  double gamma, slack;
  bool vecRows;            // 16-byte row copies (D % 4 == 0, X 16-byte aligned)
};

__device__ __forceinline__ float component(const float4& v, int e) {
  return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w;
}

// A chunk's contribution to a thread's 8 x 4 accumulators; n4 groups of 4 dimensions (the
// dimensions past D are zero in both operands and add nothing). xs: the thread's first point
// row; its points are rowStride floats apart. cs: its 4 centers in the chunk's first dimension.
__device__ __forceinline__ void accumulateChunk(float (&acc)[kTilePointsPerThread][kTileCentersPerThread],
                                                const float* xs, int rowStride, const float* cs,
                                                int bn, int n4) {
#pragma unroll 2
  for (int t4 = 0; t4 < n4; ++t4) {
    float4 xv[kTilePointsPerThread];
#pragma unroll
    for (int j = 0; j < kTilePointsPerThread; ++j)
      xv[j] = *reinterpret_cast<const float4*>(xs + j * rowStride + 4 * t4);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float4 cv = *reinterpret_cast<const float4*>(cs + (4 * t4 + e) * bn);
#pragma unroll
      for (int j = 0; j < kTilePointsPerThread; ++j) {
        const float x = component(xv[j], e);
        float t = x - cv.x;
        acc[j][0] = fmaf(t, t, acc[j][0]);
        t = x - cv.y;
        acc[j][1] = fmaf(t, t, acc[j][1]);
        t = x - cv.z;
        acc[j][2] = fmaf(t, t, acc[j][2]);
        t = x - cv.w;
        acc[j][3] = fmaf(t, t, acc[j][3]);
      }
    }
  }
}

// Adds center c's float distance f; centers come in increasing index order, so strict
// comparisons keep the lowest index at equal.
__device__ __forceinline__ void addDistance(SlotBest& s, float f, int c) {
  if (!(f <= FLT_MAX)) s.bad = 1;  // inf or NaN: the exact path decides
  if (f < s.f1) {
    s.f2 = s.f1;
    s.f1 = f;
    s.b = c;
  } else if (f < s.f2) {
    s.f2 = f;
  }
}

// Merges another thread column's best (any index order: the lower index wins at equal).
// b = -1 only with f1 = inf, so two inf entries never compare their indices.
__device__ __forceinline__ void mergeBest(SlotBest& a, const SlotBest& o) {
  a.bad |= o.bad;
  if (o.f1 < a.f1 || (o.f1 == a.f1 && o.b < a.b)) {
    a.f2 = fminf(a.f1, o.f2);
    a.f1 = o.f1;
    a.b = o.b;
  } else {
    a.f2 = fminf(a.f2, o.f1);
  }
}

// Expected limiter: the FP32 pipes (2 instructions per point, center and dimension). At N = 1e6,
// K = 100, D = 200 that is 4e10 instructions, 1.2 ms at the H200's 132 SMs x 128 lanes x 1.98
// GHz; with the shared loads (5 %), the pipeline's copies and the tile ends, about 1.6-2 ms.
__global__ void __launch_bounds__(kDecideThreads, 2)
    prunedDecideKernel(DecideArgs a, DecideShape s) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* stageBase = reinterpret_cast<float*>(smem);
  const size_t stageFloats = s.stageFloats();
  SlotBest* red = reinterpret_cast<SlotBest*>(stageBase + s.stages * stageFloats);
  const int bm = s.tilePoints(), bn = s.tileCenters(), kpad = s.paddedCenters();
  const int64_t count = a.listCount ? static_cast<int64_t>(*a.listCount) : a.n;
  const int64_t tiles = (count + bm - 1) / bm;
  if (static_cast<int64_t>(blockIdx.x) >= tiles) return;  // the whole block
  const int64_t myTiles = (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x;
  const int chunks = (a.d + kChunkDims - 1) / kChunkDims;
  const int stepsPerTile = s.centerTiles * chunks;
  const int64_t steps = myTiles * stepsPerTile;
  const int tid = static_cast<int>(threadIdx.x);
  const bool computes = tid < s.rows * s.columns;
  const int tr = tid / s.columns, tc = tid - tr * s.columns;  // thread row and column
  auto tileAt = [&](int64_t step) {
    return static_cast<int64_t>(blockIdx.x) + (step / stepsPerTile) * gridDim.x;
  };
  auto pointAt = [&](int64_t pos) -> int64_t { return a.list ? a.list[pos] : pos; };

  // Step st: chunk (st % stepsPerTile) % chunks of center tile (st % stepsPerTile) / chunks of
  // the block's (st / stepsPerTile)-th tile, into buffer st % stages; always one commit group.
  // Rows past the list and dimensions past D are zero-filled.
  auto issue = [&](int64_t st) {
    if (st < steps) {
      const int64_t first = tileAt(st) * bm;
      const int r = static_cast<int>(st % stepsPerTile);
      const int ct = r / chunks, q0 = (r - ct * chunks) * kChunkDims;
      float* xs = stageBase + (st % s.stages) * stageFloats;
      float* cs = xs + static_cast<size_t>(bm) * kRowPitch;
      if (a.vecRows) {
        constexpr int kPieces = kChunkDims / 4;
        for (int e = tid; e < bm * kPieces; e += blockDim.x) {
          const int row = e / kPieces, piece = e - row * kPieces, q = q0 + 4 * piece;
          const bool ok = first + row < count && q < a.d;
          const float* src = ok ? a.X + pointAt(first + row) * a.d + q : a.X;
          copyAsync(xs + row * kRowPitch + 4 * piece, src, ok ? 16 : 0, 16);
        }
      } else {
        for (int e = tid; e < bm * kChunkDims; e += blockDim.x) {
          const int row = e / kChunkDims, col = e - row * kChunkDims, q = q0 + col;
          const bool ok = first + row < count && q < a.d;
          const float* src = ok ? a.X + pointAt(first + row) * a.d + q : a.X;
          copyAsync(xs + row * kRowPitch + col, src, ok ? 4 : 0, 4);
        }
      }
      const int pieces = bn / 4;
      for (int e = tid; e < kChunkDims * pieces; e += blockDim.x) {
        const int row = e / pieces, piece = e - row * pieces, q = q0 + row;
        const bool ok = q < a.d;
        const float* src = ok ? a.Ct + static_cast<int64_t>(q) * kpad + ct * bn + 4 * piece : a.Ct;
        copyAsync(cs + row * bn + 4 * piece, src, ok ? 16 : 0, 16);
      }
    }
    commitAsync();
  };

  float acc[kTilePointsPerThread][kTileCentersPerThread];
#pragma unroll
  for (int j = 0; j < kTilePointsPerThread; ++j)
#pragma unroll
    for (int m = 0; m < kTileCentersPerThread; ++m) acc[j][m] = 0.f;

  for (int st = 0; st < s.stages - 1; ++st) issue(st);
  for (int64_t st = 0; st < steps; ++st) {
    issue(st + s.stages - 1);  // into the buffer step st - 1 used (freed by its last barrier)
    waitAsync(s.stages - 1);   // step st has landed
    __syncthreads();
    const int r = static_cast<int>(st % stepsPerTile);
    const int ct = r / chunks, ch = r - ct * chunks;
    const bool tileEnd = ch == chunks - 1 && ct == s.centerTiles - 1;
    if (computes) {
      const float* xs = stageBase + (st % s.stages) * stageFloats;
      const float* cs = xs + static_cast<size_t>(bm) * kRowPitch;
      const int q0 = ch * kChunkDims;
      const int valid = a.d - q0 < kChunkDims ? a.d - q0 : kChunkDims;
      // Thread row tr's points are tile rows j * rows + tr: the rows a warp reads at once are
      // neighbours (different banks), not 8 rows apart (the same banks).
      accumulateChunk(acc, xs + tr * kRowPitch, s.rows * kRowPitch,
                      cs + tc * kTileCentersPerThread, bn, (valid + 3) / 4);
      if (ch == chunks - 1) {  // this center tile is done: into the thread's running best
#pragma unroll
        for (int j = 0; j < kTilePointsPerThread; ++j) {
          SlotBest& slot = red[(j * s.rows + tr) * s.columns + tc];
          SlotBest best = ct == 0 ? SlotBest{INFINITY, INFINITY, -1, 0} : slot;
#pragma unroll
          for (int m = 0; m < kTileCentersPerThread; ++m) {
            const int c = ct * bn + tc * kTileCentersPerThread + m;
            if (c < a.k) addDistance(best, acc[j][m], c);
            acc[j][m] = 0.f;
          }
          slot = best;
        }
      }
    }
    __syncthreads();  // the buffer is refilled next; the tile's bests are complete
    if (tileEnd) {    // block-uniform: every lane reaches the appends
      const int64_t first = tileAt(st) * bm;
      for (int base = 0; base < bm; base += blockDim.x) {
        const int row = base + tid;
        bool tie = false, moved = false;
        int64_t p = -1;
        int old = -1;
        if (row < bm && first + row < count) {
          p = pointAt(first + row);
          SlotBest best = red[row * s.columns];
          for (int c = 1; c < s.columns; ++c) mergeBest(best, red[row * s.columns + c]);
          const double hi = upperDistance(best.f1, a.gamma, a.slack);
          // Without another center the lower bound is infinite (the CPU's empty minimum).
          const double lo = a.k == 1 ? double(INFINITY) : lowerDistance(best.f2, a.gamma, a.slack);
          if (!best.bad && best.b >= 0 && isfinite(hi) && lo > hi) {
            old = a.labels[p];
            a.labels[p] = best.b;
            a.bounds[p] = make_float2(floatUp(hi), floatDown(lo));
            moved = a.changed && old != best.b;
          } else {
            tie = true;  // left for prunedExactKernel, with its old label
          }
        }
        const int tieSlot = warpAppendSlot(tie, a.tieCount);
        if (tie) a.ties[tieSlot] = static_cast<int>(p);
        if (a.changed) {
          const int slot = warpAppendSlot(moved, a.changedCount);
          if (moved) a.changed[slot] = make_int2(static_cast<int>(p), old);
        }
      }
      // The next tile's bests are written after at least one more barrier: red is free then.
    }
  }
  waitAsync(0);
}

struct ExactArgs {
  const float* X;
  int d, k;
  const float* C;   // K x D, point-major (exactSquaredDistance's rows)
  const float* Ct;  // D x kpad
  int kpad;
  const int* ties;
  const int* tieCount;
  int* labels;
  float2* bounds;
  int2* changed;    // or null
  int* changedCount;
  double gamma, slack;
};

// A warp per point the float intervals left open: the CPU's decide() step by step. The K float
// distances (lanes over centers, reading Ct's rows coalesced and the point's coordinate as a
// broadcast) into shared memory; the float arg-min b; if some other center's interval reaches
// b's, every such candidate's exactSquaredDistance (a lane each, 32 at once), walked in index
// order with the CPU's comparison (so a NaN ends up where the CPU's loop leaves it); the bounds
// from the intervals. Rare (about 1e-4 of the points on random data), so simple.
__global__ void __launch_bounds__(128) prunedExactKernel(ExactArgs a) {
  extern __shared__ float fsAll[];
  const int lane = static_cast<int>(threadIdx.x & 31u);
  float* fs = fsAll + static_cast<size_t>(threadIdx.x >> 5) * a.k;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int count = *a.tieCount;
  for (int64_t w = warp; w < count; w += warps) {
    const int p = a.ties[w];
    const float* x = a.X + static_cast<int64_t>(p) * a.d;
    for (int c = lane; c < a.k; c += 32) {
      float acc = 0.f;
      for (int q = 0; q < a.d; ++q) {
        const float t = x[q] - a.Ct[static_cast<int64_t>(q) * a.kpad + c];
        acc = fmaf(t, t, acc);
      }
      fs[c] = acc;
    }
    __syncwarp();
    // b: the lowest index of the smallest f below infinity, else 0 (the CPU's start).
    float fb = INFINITY;
    int b = INT_MAX;
    for (int c = lane; c < a.k; c += 32)
      if (fs[c] < fb) {
        fb = fs[c];
        b = c;
      }
    for (int o = 16; o > 0; o >>= 1) {
      const float of = __shfl_xor_sync(kFullMask, fb, o);
      const int ob = __shfl_xor_sync(kFullMask, b, o);
      if (of < fb || (of == fb && ob < b)) {
        fb = of;
        b = ob;
      }
    }
    if (!(fb < INFINITY)) b = 0;
    const double hiB = upperDistance(fs[b], a.gamma, a.slack);
    bool open = false;  // some other center's interval reaches b's upper end
    for (int c = lane; c < a.k; c += 32)
      if (c != b && !(lowerDistance(fs[c], a.gamma, a.slack) > hiB)) open = true;
    const bool unique = isfinite(hiB) && !__any_sync(kFullMask, open);
    int label = b;
    if (!unique) {
      label = -1;
      double best = 0.0;
      for (int c0 = 0; c0 < a.k; c0 += 32) {
        const int c = c0 + lane;
        const bool candidate =
            c < a.k && !(isfinite(hiB) && lowerDistance(fs[c], a.gamma, a.slack) > hiB);
        unsigned mask = __ballot_sync(kFullMask, candidate);
        double dd = 0.0;
        if (candidate)
          dd = exactSquaredDistance(x, 1, a.C + static_cast<int64_t>(c) * a.d, a.d);
        while (mask) {  // the same mask on every lane: warp-uniform, in index order
          const int j = __ffs(mask) - 1;
          mask &= mask - 1u;
          const double v = __shfl_sync(kFullMask, dd, j);
          if (label < 0 || v < best) {
            label = c0 + j;
            best = v;
          }
        }
      }
    }
    double low = INFINITY;
    for (int c = lane; c < a.k; c += 32)
      if (c != label) low = fmin(low, lowerDistance(fs[c], a.gamma, a.slack));
    for (int o = 16; o > 0; o >>= 1) low = fmin(low, __shfl_xor_sync(kFullMask, low, o));
    if (lane == 0) {
      const int old = a.labels[p];
      a.labels[p] = label;
      a.bounds[p] = make_float2(floatUp(upperDistance(fs[label], a.gamma, a.slack)), floatDown(low));
      if (a.changed && old != label) a.changed[atomicAdd(a.changedCount, 1)] = make_int2(p, old);
    }
    __syncwarp();  // fs is the next point's
  }
}

}  // namespace
}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// Per-thread logic of every window-KNN variant (seed 002), shared by the CUDA kernels, the CPU
// executor and the access-pattern model, so a model can never describe a different kernel than
// the one that ran.
//
// The image is rows x cols pixels of C float32 components, stored component-major ("planar"):
// component c of pixel p = r * cols + c0 is at c * pixels + p. One thread handles one pixel:
// thread (tx, ty) of block (bx, by) owns row by * blockY + ty, column bx * blockX + tx.
//
// Windows (docs/knn.md has the pictures):
// - Per-pixel window (variants global, shared-window, shared-row): the pixels whose linear index
//   lies in [p - before * cols, p - before * cols + span], before = W / 2, span = W * cols: W rows'
//   worth of candidates centred on the pixel in raster order, so it starts and ends part-way
//   through a row and touches W + 1 image rows. Near the top or bottom of the image the window
//   slides (it does not shrink) to stay inside; every pixel has the same min(W * cols, pixels - 1)
//   candidates (the pixel itself is never one).
// - Rectangular window (variant shared-row-rect): for every pixel of image row r the same whole
//   rows [r - before, r - before + W], also slid to stay inside the image (min(W + 1, rows) rows).
//   It contains the per-pixel window of every pixel of the row, so it can find nearer pixels.
//
// Distances are squared Euclidean distances accumulated in float32 with fused multiply-adds in
// component order: d = fmaf(a0 - b0, a0 - b0, 0); d = fmaf(a1 - b1, a1 - b1, d); ... IEEE 754
// defines both operations exactly, so the GPU, this executor and the CPU reference produce the
// same bits. Neighbours are ordered by (distance, index): a total order, so the k nearest are a
// unique sorted list whatever the order candidates are visited in (ties go to the lower index).
//
// Memory goes through a `Mem` policy: loadGlobal(i) reads the image, storeIndex / storeDistance
// write output slot p * k + j, loadShared / storeShared the block's shared array.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernellab/hd.h"

// Loops over the compile-time list and feature sizes must unroll on the GPU so that the per-thread
// arrays stay in registers; host compilers get no pragma (GCC would warn about an unknown one).
#if defined(__CUDA_ARCH__)
#define KL_KNN_UNROLL _Pragma("unroll")
#else
#define KL_KNN_UNROLL
#endif

namespace kernellab::knn {

enum class Variant { Global, SharedWindow, SharedRow, SharedRowRect };

inline constexpr int kMaxComponents = 32;
inline constexpr int kMaxK = 32;

struct Geometry {
  int rows = 0;
  int cols = 0;
  int components = 1;
  int window = 14;       // W: rows of candidates around each pixel
  int k = 8;
  int before = 7;        // window rows before the pixel's own: W / 2
  int64_t pixels = 0;    // rows * cols
  int64_t span = 0;      // hi - lo of every per-pixel window: min(W * cols, pixels - 1)
  int rectRows = 0;      // rows of every rectangular window: min(W + 1, rows)
  int blockX = 256;      // threads (pixels) per block along a row
  int blockY = 1;        // threads (pixels) per block down the columns
  int gridX = 0;
  int gridY = 0;
  int sharedPitch = 0;   // pixels per component plane in shared memory (0: no shared memory)
  int sharedFloats = 0;  // dynamic shared floats per block: sharedPitch * components
};

struct PixelRange {  // inclusive linear pixel indices
  int64_t lo = 0;
  int64_t hi = -1;
};

struct RowSpan {  // inclusive image rows
  int lo = 0;
  int hi = -1;
};

// ---- windows --------------------------------------------------------------------------------

KL_HD PixelRange pixelWindow(const Geometry& g, int64_t p) {
  const int64_t maxLo = g.pixels - 1 - g.span;
  int64_t lo = p - static_cast<int64_t>(g.before) * g.cols;
  if (lo < 0) lo = 0;
  if (lo > maxLo) lo = maxLo;
  return {lo, lo + g.span};
}

KL_HD RowSpan rectWindow(const Geometry& g, int row) {
  const int maxLo = g.rows - g.rectRows;
  int lo = row - g.before;
  if (lo < 0) lo = 0;
  if (lo > maxLo) lo = maxLo;
  return {lo, lo + g.rectRows - 1};
}

// The image pixels a block owns, clipped to the image (a partial block at the right or bottom
// edge has threads without a pixel). Inclusive rows r0..r1 and columns c0..c1.
struct BlockPixels {
  int r0 = 0, r1 = -1, c0 = 0, c1 = -1;
};

KL_HD BlockPixels blockPixels(const Geometry& g, BlockCoord b) {
  BlockPixels bp;
  bp.r0 = b.y * g.blockY;
  bp.c0 = b.x * g.blockX;
  bp.r1 = bp.r0 + g.blockY - 1 < g.rows - 1 ? bp.r0 + g.blockY - 1 : g.rows - 1;
  bp.c1 = bp.c0 + g.blockX - 1 < g.cols - 1 ? bp.c0 + g.blockX - 1 : g.cols - 1;
  return bp;
}

// Every pixel the block's per-pixel windows touch: window starts and ends never decrease with the
// pixel index, so the union is [start of the first pixel's window, end of the last one's].
KL_HD PixelRange blockWindowUnion(const Geometry& g, BlockCoord b) {
  const BlockPixels bp = blockPixels(g, b);
  const int64_t first = static_cast<int64_t>(bp.r0) * g.cols + bp.c0;
  const int64_t last = static_cast<int64_t>(bp.r1) * g.cols + bp.c1;
  return {pixelWindow(g, first).lo, pixelWindow(g, last).hi};
}

// Image rows a block stages one at a time in the shared-row variants.
KL_HD RowSpan blockRows(const Geometry& g, BlockCoord b, bool rect) {
  const BlockPixels bp = blockPixels(g, b);
  if (rect) return {rectWindow(g, bp.r0).lo, rectWindow(g, bp.r1).hi};
  const PixelRange u = blockWindowUnion(g, b);
  return {static_cast<int>(u.lo / g.cols), static_cast<int>(u.hi / g.cols)};
}

// ---- the k-nearest list ---------------------------------------------------------------------

// (da, ia) comes before (db, ib): nearer, or as near with a lower index.
KL_HD bool nearer(float da, int32_t ia, float db, int32_t ib) {
  return da < db || (da == db && ia < ib);
}

// One thread's state across phases: its pixel, that pixel's components and the best K slots.
// The list holds K >= k slots sorted ascending; the first K - k are pinned to (-inf, -1) so the
// real k neighbours are always the last k slots and every index below is a compile-time constant
// after unrolling (registers, not local memory).
template <int K, int CMAX>
struct ThreadState {
  int32_t pixel = -1;  // linear index; -1: this thread has no pixel (partial block)
  int row = 0;
  float feature[CMAX];
  float bestD[K];
  int32_t bestI[K];
};

template <int K, int CMAX>
KL_HD void offer(ThreadState<K, CMAX>& s, float d, int32_t q) {
  if (!nearer(d, q, s.bestD[K - 1], s.bestI[K - 1])) return;
  bool placed = false;
  KL_KNN_UNROLL
  for (int j = K - 1; j > 0; --j) {
    if (!placed) {
      if (nearer(d, q, s.bestD[j - 1], s.bestI[j - 1])) {
        s.bestD[j] = s.bestD[j - 1];
        s.bestI[j] = s.bestI[j - 1];
      } else {
        s.bestD[j] = d;
        s.bestI[j] = q;
        placed = true;
      }
    }
  }
  if (!placed) {
    s.bestD[0] = d;
    s.bestI[0] = q;
  }
}

// ---- distances ------------------------------------------------------------------------------

// Candidate q read from the image in global memory.
template <int K, int CMAX, class Mem>
KL_HD float distanceGlobal(const Geometry& g, const ThreadState<K, CMAX>& s, int64_t q, Mem& m) {
  float d = 0.0f;
  KL_KNN_UNROLL
  for (int c = 0; c < CMAX; ++c) {
    if (c < g.components) {
      const float diff = s.feature[c] - m.loadGlobal(c * g.pixels + q);
      d = fmaf(diff, diff, d);
    }
  }
  return d;
}

// Candidate at position x of the shared planes (plane c starts at c * pitch).
template <int K, int CMAX, class Mem>
KL_HD float distanceShared(const Geometry& g, const ThreadState<K, CMAX>& s, int x, Mem& m) {
  float d = 0.0f;
  KL_KNN_UNROLL
  for (int c = 0; c < CMAX; ++c) {
    if (c < g.components) {
      const float diff = s.feature[c] - m.loadShared(c * g.sharedPitch + x);
      d = fmaf(diff, diff, d);
    }
  }
  return d;
}

// ---- steps shared by the phases -------------------------------------------------------------

// Which pixel the thread owns, its components (from global memory) and an empty list.
template <int K, int CMAX, class Mem>
KL_HD void initThread(const Geometry& g, BlockCoord b, int tx, int ty, ThreadState<K, CMAX>& s,
                      Mem& m) {
  const int r = b.y * g.blockY + ty;
  const int c = b.x * g.blockX + tx;
  const bool inside = r < g.rows && c < g.cols;
  s.row = r;
  s.pixel = inside ? static_cast<int32_t>(static_cast<int64_t>(r) * g.cols + c) : -1;
  KL_KNN_UNROLL
  for (int j = 0; j < K; ++j) {
    const bool pinned = j < K - g.k;
    s.bestD[j] = pinned ? -INFINITY : INFINITY;
    s.bestI[j] = pinned ? -1 : INT32_MAX;
  }
  KL_KNN_UNROLL
  for (int ch = 0; ch < CMAX; ++ch)
    s.feature[ch] = (inside && ch < g.components) ? m.loadGlobal(ch * g.pixels + s.pixel) : 0.0f;
}

// The k neighbours, nearest first, into slots pixel * k .. pixel * k + k - 1.
template <int K, int CMAX, class Mem>
KL_HD void writeThread(const Geometry& g, const ThreadState<K, CMAX>& s, Mem& m) {
  if (s.pixel < 0) return;
  const int64_t base = static_cast<int64_t>(s.pixel) * g.k - (K - g.k);
  KL_KNN_UNROLL
  for (int j = 0; j < K; ++j) {
    if (j >= K - g.k) {
      m.storeIndex(base + j, s.bestI[j]);
      m.storeDistance(base + j, s.bestD[j]);
    }
  }
}

// Copies `count` pixels starting at linear index `first` into the shared planes, all threads of
// the block together: consecutive threads take consecutive pixels of one component plane, so the
// global reads are coalesced and the shared writes hit consecutive banks.
template <class Mem>
KL_HD void stagePixels(const Geometry& g, int64_t first, int count, int tid, int threads, Mem& m) {
  const int total = count * g.components;
  for (int i = tid; i < total; i += threads) {
    const int c = i / count;
    const int x = i - c * count;
    m.storeShared(c * g.sharedPitch + x, m.loadGlobal(c * g.pixels + first + x));
  }
}

// ---- phases ---------------------------------------------------------------------------------
// A phase is what a thread does between two barriers. (tx, ty) is threadIdx.

// Global: one phase, every candidate read from global memory. Neighbouring threads read
// neighbouring pixels at each step (coalesced; most reuse is left to the L1/L2 caches).
template <int K, int CMAX, class Mem>
KL_HD void globalPhase(const Geometry& g, BlockCoord b, int tx, int ty, ThreadState<K, CMAX>& s,
                       Mem& m) {
  initThread(g, b, tx, ty, s, m);
  if (s.pixel >= 0) {
    // 32-bit candidate loops: validation keeps pixels * components below 2^31.
    const PixelRange w = pixelWindow(g, s.pixel);
    for (int32_t q = static_cast<int32_t>(w.lo); q <= static_cast<int32_t>(w.hi); ++q) {
      if (q == s.pixel) continue;
      offer(s, distanceGlobal(g, s, q, m), q);
    }
  }
  writeThread(g, s, m);
}

// Shared window, phase 0: the whole union of the block's windows (about W + 1 rows) into shared
// memory. Phase 1: every candidate from shared memory.
template <int K, int CMAX, class Mem>
KL_HD void sharedWindowPhase(const Geometry& g, int phase, BlockCoord b, int tx, int ty,
                             ThreadState<K, CMAX>& s, Mem& m) {
  const PixelRange u = blockWindowUnion(g, b);
  if (phase == 0) {
    stagePixels(g, u.lo, static_cast<int>(u.hi - u.lo + 1), ty * g.blockX + tx,
                g.blockX * g.blockY, m);
    return;
  }
  initThread(g, b, tx, ty, s, m);
  if (s.pixel >= 0) {
    const PixelRange w = pixelWindow(g, s.pixel);
    const int32_t base = static_cast<int32_t>(u.lo);
    for (int32_t q = static_cast<int32_t>(w.lo); q <= static_cast<int32_t>(w.hi); ++q) {
      if (q == s.pixel) continue;
      offer(s, distanceShared(g, s, q - base, m), q);
    }
  }
  writeThread(g, s, m);
}

// Shared row: the block walks the image rows its windows touch, one row in shared memory at a
// time. Phase 0 sets up the thread and stages the first row; odd phases scan the staged row;
// even phases stage the next row (after the barrier that ends the previous scan); the last phase
// writes the lists. Per-pixel windows cover only part of their first and last rows, so threads
// of one warp scan different lengths there (the divergent edge cases); `Rect` scans whole rows of
// the rectangular window instead: every thread of an image row runs the same loop.
template <bool Rect, int K, int CMAX, class Mem>
KL_HD void sharedRowPhase(const Geometry& g, int phase, BlockCoord b, int tx, int ty,
                          ThreadState<K, CMAX>& s, Mem& m) {
  const RowSpan rows = blockRows(g, b, Rect);
  const int nRows = rows.hi - rows.lo + 1;
  if (phase == 0) initThread(g, b, tx, ty, s, m);
  if (phase >= 2 * nRows) {
    writeThread(g, s, m);
    return;
  }
  const int row = rows.lo + phase / 2;
  const int64_t rowStart = static_cast<int64_t>(row) * g.cols;
  if (phase % 2 == 0) {
    stagePixels(g, rowStart, g.cols, ty * g.blockX + tx, g.blockX * g.blockY, m);
    return;
  }
  if (s.pixel < 0) return;
  int64_t lo = rowStart, hi = rowStart + g.cols - 1;
  if (Rect) {
    const RowSpan w = rectWindow(g, s.row);
    if (row < w.lo || row > w.hi) return;
  } else {
    const PixelRange w = pixelWindow(g, s.pixel);
    if (w.lo > lo) lo = w.lo;
    if (w.hi < hi) hi = w.hi;
  }
  const int32_t first = static_cast<int32_t>(rowStart);
  for (int32_t q = static_cast<int32_t>(lo); q <= static_cast<int32_t>(hi); ++q) {
    if (q == s.pixel) continue;
    offer(s, distanceShared(g, s, q - first, m), q);
  }
}

// How many phases (barrier-separated steps) a variant has in block b.
KL_HD int phaseCount(Variant v, const Geometry& g, BlockCoord b) {
  switch (v) {
    case Variant::Global:
      return 1;
    case Variant::SharedWindow:
      return 2;
    case Variant::SharedRow:
    case Variant::SharedRowRect: {
      const RowSpan rows = blockRows(g, b, v == Variant::SharedRowRect);
      return 2 * (rows.hi - rows.lo + 1) + 1;
    }
  }
  return 1;
}

template <int K, int CMAX, class Mem>
KL_HD void runPhase(Variant v, int phase, const Geometry& g, BlockCoord b, int tx, int ty,
                    ThreadState<K, CMAX>& s, Mem& m) {
  switch (v) {
    case Variant::Global:
      globalPhase(g, b, tx, ty, s, m);
      break;
    case Variant::SharedWindow:
      sharedWindowPhase(g, phase, b, tx, ty, s, m);
      break;
    case Variant::SharedRow:
      sharedRowPhase<false>(g, phase, b, tx, ty, s, m);
      break;
    case Variant::SharedRowRect:
      sharedRowPhase<true>(g, phase, b, tx, ty, s, m);
      break;
  }
}

// The list sizes and feature sizes compiled: a request's k and C run on the smallest that fits.
KL_HD int listSlotsFor(int k) { return k <= 8 ? 8 : kMaxK; }
KL_HD int featureSlotsFor(int components) {
  return components == 1 ? 1 : (components <= 8 ? 8 : kMaxComponents);
}

}  // namespace kernellab::knn

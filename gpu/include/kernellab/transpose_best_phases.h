// SPDX-License-Identifier: MIT
// The best transpose's strategies by shape (issue 18), as per-thread phase
// functions shared by the CUDA kernels, the CPU executor and the access tracer,
// like the seed variants' phases in transpose_phases.h.
//
// Why shape matters: a 32x32 tile moves 128-byte row pieces only when rows are
// long and start on 128-byte boundaries. Odd sizes start every output row piece
// off a sector, so each warp store writes partial 32-byte sectors at both ends;
// narrow matrices (the point-cloud layouts: N points x D dimensions with D
// = 2..256) fill only D of a tile's 32 columns.
//
// Memory goes through the same `Mem` policy as the seed phases, plus
// loadGlobal4 / storeGlobal4 for 16-byte accesses at an element index that is a
// multiple of 4.
#pragma once

#include "kernellab/transpose_phases.h"

namespace kernellab::transpose {

// Largest width (or height) the register strategies handle; templates are
// instantiated for each.
constexpr int kNarrowMax = 16;
// Largest width (or height) the shared-memory staged strategies handle.
constexpr int kStagedMax = 256;
// Extra input rows the aligned tile keeps above its 32, so any output row can start its
// 32-element piece up to 7 elements early, on a sector boundary.
constexpr int kAlignShift = 8;
// The aligned stripe (odd sizes): 64 input columns x 64 rows per block in two steps of 32, with
// the 8 rows above staged too.
constexpr int kStripeWidth = 64;
constexpr int kStripeStep = 32;
constexpr int kStripeRows = 2 * kStripeStep;
constexpr int kStripeStaged = kAlignShift + kStripeRows;  // 72 rows in shared memory
constexpr int kStripePitch = kStripeStaged + 1;           // odd: 32 columns of a row hit 32 banks
// The 40-wide tile (widths that are a multiple of 40): 40 columns x 64 rows per block.
constexpr int kTile40Width = 40;
constexpr int kTile40Rows = 64;
constexpr int kTile40Pitch = kTile40Rows + 1;
// Bulk rows (narrow, tall matrices on compute capability >= 9.0): a block takes 64 consecutive
// whole input rows, one contiguous chunk that one bulk copy brings into shared memory; 8 warps
// write it out while a ninth only issued the copy (288 threads).
constexpr int kBulkRowsGroup = 64;        // input rows per block
constexpr int kBulkRowsWriterWarps = 8;   // warps 0..7 write; warp 8 issues the bulk copy
constexpr int kBulkRowsThreads = 32 * (kBulkRowsWriterWarps + 1);
constexpr int kBulkRowsMinCcMajor = 9;    // cp.async.bulk and mbarrier transaction counts
// The largest stage the rule allows: the 227 KiB per-block opt-in of cc 9.0 (H100, H200) less
// room for the mbarrier. A device with less opt-in (cc 12.x: 99 KiB) is checked at launch
// (bulkRowsRunsOn).
constexpr int64_t kBulkRowsMaxStageBytes = 226 * 1024;
// The widths the rule gives bulk rows, from the H200 (2026-12-02, session 5 call 1, x cudaMemcpy,
// tile-40 in the same call): 120 x 1e6 0.926 (0.893), 200 x 1e6 0.914-0.929 (0.883-0.896). Narrower
// stages copy too little per block (80: 0.838 against 0.881); from 240 floats the stage leaves
// fewer than 4 blocks per SM (280: 0.871 against 0.879; 400: 0.791; 600: 0.612).
constexpr int64_t kBulkRowsChosenMinWidth = 120;
constexpr int64_t kBulkRowsChosenWidth = 200;
// The stage's alignment in shared memory: the copy engine writes whole 128-byte lines, and the
// harness's stage (0.920) started on one. The kernel rounds its dynamic shared memory up to it.
constexpr int64_t kBulkRowsStageAlign = 128;
// Shared bytes a bulk-rows block needs besides its stage: the slack to align the stage and the
// mbarrier, rounded up generously.
constexpr int64_t kBulkRowsExtraSharedBytes = kBulkRowsStageAlign + 128;

// Rows (or columns) a staged block moves: whole 128-byte output pieces at least, more for
// narrower matrices so each output row gets a longer run per block (shared memory stays near
// 33 KB: 8 blocks per SM).
KL_HD int stagedSpan(int64_t side) { return side <= 16 ? 256 : side <= 64 ? 128 : 32; }

// Bytes of the bulk-rows stage: kBulkRowsGroup whole input rows of w floats.
KL_HD int64_t bulkRowsStageBytes(int64_t w) { return w * kBulkRowsGroup * 4; }

// ---- which strategy for which shape
// ------------------------------------------------------------

KL_HD bool strategyApplies(Strategy s, int64_t w, int64_t h) {
  switch (s) {
    case Strategy::NarrowWidth:
      return w <= kNarrowMax;
    case Strategy::NarrowHeight:
      return h <= kNarrowMax;
    case Strategy::StagedRows:
      return w <= kStagedMax;
    case Strategy::StagedCols:
      return h <= kStagedMax;
    case Strategy::AlignedTile:  // grid y limit
      return (h + kAlignShift - 1 + 31) / 32 <= 65535;
    case Strategy::AlignedStripe:  // the grid bestGeometry launches: rows down to h - 1 + 7
      return (h + kAlignShift - 1 + kStripeRows - 1) / kStripeRows <= 65535;
    case Strategy::Tile40:
      return (h + kTile40Rows - 1) / kTile40Rows <= 65535;
    case Strategy::BulkRows:
      // The bulk copy moves 16-byte units from a 16-byte aligned address: a group starting at row
      // r0 begins r0 * w * 4 bytes in and spans rows * w * 4 bytes, both multiples of 16 for any
      // row count (the partial last group too) exactly when w is a multiple of 4.
      return w % 4 == 0 && bulkRowsStageBytes(w) <= kBulkRowsMaxStageBytes &&
             (h + kBulkRowsGroup - 1) / kBulkRowsGroup <= 2147483647;
    default:
      return true;
  }
}

// The rule, from the H200 measurements in docs/BENCHMARKS.md (issue 18, 2026-12-01; x cudaMemcpy):
//  - a side of at most 4 (N points in 2-4 dimensions): registers (3 x 1e6: 0.92; the shared
//    stage 0.81);
//  - a side of 5..32: staged in shared memory (16 x 1e6: 0.96, registers 0.60, tile 0.70;
//    1e6 x 16: 0.92);
//  - wider: the tile (1e6 x 200: 0.94, staged 0.88; 64 x 1e6 the two within 1 %);
//  - output rows (height floats) off the 32-byte grid: the aligned stripe (8191 x 8193: 0.92; the
//    aligned tile 0.74, the plain tile 0.58-0.73; 2026-12-02);
//  - a width that is a multiple of 40 but not of 32, up to 16 tiles: the 40-wide tile (200 x 1e6:
//    0.89, the 32-wide tile in one stripe 0.87, staged 0.76);
//  - bulk rows (the bulk-copy engine, bulkCopy: compute capability >= 9.0 with the stage in its
//    per-block shared memory, bulkRowsRunsOn) for those widths from 120 to 200 (200 x 1e6:
//    0.914-0.929, tile-40 0.883-0.896 in the same call; once its stage started on a 128-byte line,
//    as the harness's did: 0.885-0.892 before, session 4).
// bulkCopy = true describes the H200 the rule was measured on; the CPU executor and the tracer
// run every strategy, so only a CUDA launch on another device passes false.
KL_HD Strategy chooseStrategy(int64_t w, int64_t h, bool bulkCopy = true) {
  if (w <= 4) return Strategy::NarrowWidth;
  if (h <= 4) return Strategy::NarrowHeight;
  if (w <= 32 && h >= 8 * w) return Strategy::StagedRows;
  if (h <= 32 && w >= 8 * h) return Strategy::StagedCols;
  if (h % 8 != 0 && strategyApplies(Strategy::AlignedStripe, w, h))
    return Strategy::AlignedStripe;
  if (w % kTile40Width == 0 && w % 32 != 0 && w <= 16 * kTile40Width) {
    if (bulkCopy && w >= kBulkRowsChosenMinWidth && w <= kBulkRowsChosenWidth &&
        strategyApplies(Strategy::BulkRows, w, h))
      return Strategy::BulkRows;
    if (strategyApplies(Strategy::Tile40, w, h)) return Strategy::Tile40;
  }
  return Strategy::Tile;
}

// Whether a CUDA device can run bulk rows at width w: the bulk copy needs compute capability 9.0,
// and the stage must fit the device's per-block shared memory opt-in.
KL_HD bool bulkRowsRunsOn(int ccMajor, uint64_t sharedPerBlockOptin, int64_t w) {
  return ccMajor >= kBulkRowsMinCcMajor &&
         static_cast<uint64_t>(bulkRowsStageBytes(w) + kBulkRowsExtraSharedBytes) <=
             sharedPerBlockOptin;
}

// Floats of shared memory one block of the strategy uses.
KL_HD int sharedFloats(const Geometry& g) {
  switch (g.strategy) {
    case Strategy::AlignedTile:
      return (32 + kAlignShift) * 33;
    case Strategy::AlignedStripe:
      return kStripeWidth * kStripePitch;
    case Strategy::Tile40:
      return kTile40Width * kTile40Pitch;
    case Strategy::BulkRows:
      return kBulkRowsGroup * static_cast<int>(g.width);
    case Strategy::StagedRows:
      return static_cast<int>(g.width) * (g.span + 1);
    case Strategy::StagedCols:
      return g.span * (static_cast<int>(g.height) + 1);
    case Strategy::NarrowWidth:
    case Strategy::NarrowHeight:
      return 0;
    default:
      return g.tile * g.pitch;
  }
}

// Linear index of thread (tx, ty) in a 32 x blockRows block of a 1-D grid.
KL_HD int64_t linearThread(const Geometry& g, BlockCoord t, int tx, int ty) {
  return (static_cast<int64_t>(t.x) * g.blockRows + ty) * 32 + tx;
}

// ---- NarrowWidth: N x D (point-major) -> D x N, D <= 16
// ---------------------------------------- Each thread moves 4 points: D
// 16-byte loads of its 4 x D contiguous floats (the warp's loads together cover
// 512 D contiguous bytes), then one 16-byte store per dimension: the warp
// writes 512 contiguous bytes of every output row. No shared memory, no
// barrier.
template <int D, class Mem>
KL_HD void narrowWidthPhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t h = g.height;
  const int64_t p0 = 4 * linearThread(g, t, tx, ty);
  if (p0 >= h) return;
  if (p0 + 4 > h) {  // the last 1-3 points
    for (int64_t p = p0; p < h; ++p)
      for (int q = 0; q < D; ++q) m.storeGlobal(q * h + p, m.loadGlobal(p * D + q));
    return;
  }
  float v[4 * D];
  KL_UNROLL
  for (int j = 0; j < D; ++j) {
    const Vec4 a = m.loadGlobal4(p0 * D + 4 * j);
    v[4 * j] = a.x;
    v[4 * j + 1] = a.y;
    v[4 * j + 2] = a.z;
    v[4 * j + 3] = a.w;
  }
  if (h % 4 == 0) {  // every output row starts on 16 bytes
    KL_UNROLL
    for (int q = 0; q < D; ++q)
      m.storeGlobal4(q * h + p0, Vec4{v[q], v[D + q], v[2 * D + q], v[3 * D + q]});
  } else {
    KL_UNROLL
    for (int q = 0; q < D; ++q) {
      KL_UNROLL
      for (int i = 0; i < 4; ++i) m.storeGlobal(q * h + p0 + i, v[i * D + q]);
    }
  }
}

// ---- NarrowHeight: D x N (dimension-major) -> N x D, D <= 16
// ----------------------------------- The mirror: 4 columns of each of the D
// rows in (16-byte loads when rows start on 16 bytes), then the 4 points' 4 x D
// contiguous output floats as D 16-byte stores.
template <int D, class Mem>
KL_HD void narrowHeightPhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t w = g.width;
  const int64_t c0 = 4 * linearThread(g, t, tx, ty);
  if (c0 >= w) return;
  if (c0 + 4 > w) {
    for (int64_t c = c0; c < w; ++c)
      for (int r = 0; r < D; ++r) m.storeGlobal(c * D + r, m.loadGlobal(r * w + c));
    return;
  }
  float v[4 * D];  // v[r * 4 + i] = in[r][c0 + i]
  if (w % 4 == 0) {
    KL_UNROLL
    for (int r = 0; r < D; ++r) {
      const Vec4 a = m.loadGlobal4(r * w + c0);
      v[4 * r] = a.x;
      v[4 * r + 1] = a.y;
      v[4 * r + 2] = a.z;
      v[4 * r + 3] = a.w;
    }
  } else {
    KL_UNROLL
    for (int r = 0; r < D; ++r) {
      KL_UNROLL
      for (int i = 0; i < 4; ++i) v[4 * r + i] = m.loadGlobal(r * w + c0 + i);
    }
  }
  // Output element e = i * D + r of this thread's run is in[r][c0 + i] = v[r *
  // 4 + i].
  KL_UNROLL
  for (int j = 0; j < D; ++j) {
    float o[4];
    KL_UNROLL
    for (int u = 0; u < 4; ++u) {
      const int e = 4 * j + u;
      o[u] = v[(e % D) * 4 + e / D];
    }
    m.storeGlobal4(c0 * D + 4 * j, Vec4{o[0], o[1], o[2], o[3]});
  }
}

// ---- StagedRows: N x W -> W x N, W <= 256
// ------------------------------------------------------ A block takes span
// consecutive input rows (points): one contiguous run of span x W floats read
// by the whole block (coalesced whatever W is), kept transposed in shared
// memory with pitch span + 1 (consecutive elements of a row land in different
// banks); then each warp writes whole span-element pieces of output rows.
template <class Mem>
KL_HD void stagedRowsLoad(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int w = static_cast<int>(g.width), span = g.span, threads = 32 * g.blockRows;
  const int64_t y0 = static_cast<int64_t>(t.x) * span;
  const int rows = g.height - y0 < span ? static_cast<int>(g.height - y0) : span;
  const int count = rows * w;
  const int64_t base = y0 * w;
  // Element e of the block's run is (row p, column q) = (e / w, e % w); stepping e by the block's
  // thread count moves (p, q) by a fixed amount, so the divisions happen once per thread.
  const int e0 = tx + 32 * ty, dp = threads / w, dq = threads % w;
  int p = e0 / w, q = e0 % w;
  constexpr int kBatch = 8;  // loads issued before their shared stores: bytes in flight
  for (int eb = e0; eb < count; eb += kBatch * threads) {
    float v[kBatch];
    KL_UNROLL
    for (int i = 0; i < kBatch; ++i) {
      const int e = eb + i * threads;
      v[i] = e < count ? m.loadGlobal(base + e) : 0.0f;
    }
    KL_UNROLL
    for (int i = 0; i < kBatch; ++i) {
      if (eb + i * threads < count) m.storeShared(q * (span + 1) + p, v[i]);
      p += dp;
      q += dq;
      if (q >= w) {
        q -= w;
        ++p;
      }
    }
  }
}

template <class Mem>
KL_HD void stagedRowsStore(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int w = static_cast<int>(g.width), span = g.span;
  const int64_t h = g.height, y0 = static_cast<int64_t>(t.x) * span;
  const int rows = h - y0 < span ? static_cast<int>(h - y0) : span;
  for (int q = ty; q < w; q += g.blockRows)
    for (int p = tx; p < rows; p += 32)
      m.storeGlobal(q * h + y0 + p, m.loadShared(q * (span + 1) + p));
}

// ---- StagedCols: H x N -> N x H, H <= 256
// ------------------------------------------------------ The mirror: a block
// takes span consecutive columns of every input row (each warp reads
// span-element pieces of rows), then writes the span x H contiguous output
// floats in order.
template <class Mem>
KL_HD void stagedColsLoad(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int h = static_cast<int>(g.height), span = g.span, threads = 32 * g.blockRows;
  const int64_t w = g.width, x0 = static_cast<int64_t>(t.x) * span;
  const int cols = w - x0 < span ? static_cast<int>(w - x0) : span;
  const int count = h * span;  // (row, column) pairs, column fastest
  const int f0 = tx + 32 * ty, dr = threads / span, dc = threads % span;
  int r = f0 / span, c = f0 % span;
  constexpr int kBatch = 8;
  for (int fb = f0; fb < count; fb += kBatch * threads) {
    float v[kBatch];
    int rr = r, cc = c;
    KL_UNROLL
    for (int i = 0; i < kBatch; ++i) {
      v[i] = (fb + i * threads < count && cc < cols) ? m.loadGlobal(rr * w + x0 + cc) : 0.0f;
      rr += dr;
      cc += dc;
      if (cc >= span) {
        cc -= span;
        ++rr;
      }
    }
    KL_UNROLL
    for (int i = 0; i < kBatch; ++i) {
      if (fb + i * threads < count && c < cols) m.storeShared(c * (h + 1) + r, v[i]);
      r += dr;
      c += dc;
      if (c >= span) {
        c -= span;
        ++r;
      }
    }
  }
}

template <class Mem>
KL_HD void stagedColsStore(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int h = static_cast<int>(g.height), span = g.span, threads = 32 * g.blockRows;
  const int64_t w = g.width, x0 = static_cast<int64_t>(t.x) * span;
  const int cols = w - x0 < span ? static_cast<int>(w - x0) : span;
  const int count = cols * h;
  const int64_t base = x0 * h;
  const int e0 = tx + 32 * ty, dc = threads / h, dr = threads % h;
  int c = e0 / h, r = e0 % h;
  for (int e = e0; e < count; e += threads) {
    m.storeGlobal(base + e, m.loadShared(c * (h + 1) + r));
    c += dc;
    r += dr;
    if (r >= h) {
      r -= h;
      ++c;
    }
  }
}

// ---- AlignedTile: odd sizes ---------------------------------------------------------------------
// The padded 32x32 tile, but every output row piece starts on a 32-byte sector: output row x
// (input column x) is cut at y = Y0 - s(x) + 32 j, where s(x) = (x * height + Y0) mod 8 moves the
// cut back to the sector boundary. A tile therefore loads 8 input rows more (Y0 - 8 .. Y0 + 31),
// and the first piece of each output row (the head, y < 32 - s) is partial. Reads stay
// row-aligned as in the plain tile: reading a partial sector costs no extra DRAM traffic, writing
// one can. (A block walking 8 tiles down with a ring of 40 rows, so the 8 rows above each tile
// need not be read again, was measured slower on the H200: docs/BENCHMARKS.md.)
KL_HD bool alignedInterior(const Geometry& g, BlockCoord t) {
  const int64_t x0 = static_cast<int64_t>(t.x) * 32, y0 = static_cast<int64_t>(t.y) * 32;
  return y0 >= kAlignShift && y0 + 32 <= g.height && x0 + 32 <= g.width;
}

template <class Mem>
KL_HD void alignedTileLoad(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  constexpr int kRows = 32 + kAlignShift;
  const int64_t x = static_cast<int64_t>(t.x) * 32 + tx;
  const int64_t top = static_cast<int64_t>(t.y) * 32 - kAlignShift;
  if (alignedInterior(g, t)) {
    for (int r = ty; r < kRows; r += g.blockRows)
      m.storeShared(r * 33 + tx, m.loadGlobal((top + r) * g.width + x));
    return;
  }
  for (int r = ty; r < kRows; r += g.blockRows) {
    const int64_t y = top + r;
    if (y >= 0 && y < g.height && x < g.width)
      m.storeShared(r * 33 + tx, m.loadGlobal(y * g.width + x));
  }
}

template <class Mem>
KL_HD void alignedTileStore(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t x0 = static_cast<int64_t>(t.x) * 32, y0 = static_cast<int64_t>(t.y) * 32;
  const int64_t h = g.height;
  if (alignedInterior(g, t)) {
    for (int c = ty; c < 32; c += g.blockRows) {
      const int64_t row = (x0 + c) * h;
      const int s = static_cast<int>((row + y0) & 7);
      m.storeGlobal(row + y0 - s + tx, m.loadShared((kAlignShift - s + tx) * 33 + c));
    }
    return;
  }
  for (int c = ty; c < 32; c += g.blockRows) {
    if (x0 + c >= g.width) break;
    const int64_t row = (x0 + c) * h;
    const int s = static_cast<int>((row + y0) & 7);
    const int64_t y = y0 - s + tx;
    if (y >= 0 && y < h) m.storeGlobal(row + y, m.loadShared((kAlignShift - s + tx) * 33 + c));
  }
}

// ---- AlignedStripe: odd sizes, the measured rule --------------------------------------------------
// The aligned tile's cut (every output row piece starts on a sector), moved by a block of 32 x 8
// threads over a stripe 64 input columns wide and 64 rows deep (two steps of 32), plus the 8 rows
// above it: 72 rows staged, so the extra rows cost 8/64 instead of the aligned tile's 8/32, and
// the 64-float input row pieces touch 9 sectors per 8 instead of 5 per 4. Phase 1 loads the second
// step's rows into registers, writes the first step's output pieces, then stages the registers:
// on the GPU the second step's loads are in flight while the first step is written. 32 registers
// with 32-bit indices, 8 blocks per SM. H200, 2026-12-02: 0.92 of cudaMemcpy at 8191 x 8193 (the
// aligned tile 0.74): docs/BENCHMARKS.md.
//
// `I` is the index type: int32_t when every index of the matrix fits (fewer registers, the
// measured case), int64_t otherwise and on the CPU.

KL_HD bool stripeInterior(const Geometry& g, BlockCoord t) {
  const int64_t x0 = static_cast<int64_t>(t.x) * kStripeWidth;
  const int64_t y0 = static_cast<int64_t>(t.y) * kStripeRows;
  return y0 >= kAlignShift && y0 + kStripeRows <= g.height && x0 + kStripeWidth <= g.width;
}

// Whether 32-bit indices reach every element a stripe block computes (edge blocks compute
// indices up to a stripe beyond the matrix before their guards).
KL_HD bool stripeFitsInt32(int64_t w, int64_t h) {
  return (w + kStripeWidth) * (h + kStripeStaged) < (int64_t(1) << 31);
}

// R staged rows starting at staged row `first` (staged row 0 is input row y0 - 8): thread
// f = tx + 32 ty reads column f % 64 of rows first + f / 64 + 4 i, a warp 32 contiguous floats.
template <class I, int R, class Mem>
KL_HD void stripeFetch(const Geometry& g, BlockCoord t, int tx, int ty, int first, float (&v)[R],
                       Mem& m) {
  const int f = tx + 32 * ty;
  const I w = static_cast<I>(g.width), h = static_cast<I>(g.height);
  const I x = static_cast<I>(t.x) * kStripeWidth + f % kStripeWidth;
  const I y = static_cast<I>(t.y) * kStripeRows - kAlignShift + first + f / kStripeWidth;
  if (stripeInterior(g, t)) {
    const I base = y * w + x;
    KL_UNROLL
    for (int i = 0; i < R; ++i) v[i] = m.loadGlobal(base + static_cast<I>(4 * i) * w);
    return;
  }
  KL_UNROLL
  for (int i = 0; i < R; ++i) {
    const I yi = y + 4 * i;
    v[i] = (yi >= 0 && yi < h && x < w) ? m.loadGlobal(yi * w + x) : 0.0f;
  }
}

template <int R, class Mem>
KL_HD void stripeStage(int tx, int ty, int first, const float (&v)[R], Mem& m) {
  const int f = tx + 32 * ty;
  const int c = f % kStripeWidth, r = first + f / kStripeWidth;
  KL_UNROLL
  for (int i = 0; i < R; ++i) m.storeShared(c * kStripePitch + r + 4 * i, v[i]);
}

// Step `step`'s output pieces: warp ty writes output rows x0 + ty + 8 i, lane tx element
// y0 + 32 step - s + tx of each, s = (row start + y0) mod 8 putting the piece on a sector.
template <class I, class Mem>
KL_HD void stripeStore(const Geometry& g, BlockCoord t, int tx, int ty, int step, Mem& m) {
  const I w = static_cast<I>(g.width), h = static_cast<I>(g.height);
  const I x0 = static_cast<I>(t.x) * kStripeWidth, y0 = static_cast<I>(t.y) * kStripeRows;
  const bool interior = stripeInterior(g, t);
  // Output row x0 + ty + 8 i starts at rowStart + i * 8h, and its shift to the sector grid steps
  // by 8h mod 8: no multiplication per row.
  const I rowStart = (x0 + ty) * h, rowStep = 8 * h;
  const int s0 = static_cast<int>((rowStart + y0) & 7), sStep = static_cast<int>(rowStep & 7);
  const I y1 = y0 + kStripeStep * step + tx;  // this lane's element before the shift
  KL_UNROLL
  for (int i = 0; i < kStripeWidth / 8; ++i) {
    const int c = ty + 8 * i;
    const int s = (s0 + i * sStep) & 7;
    const I y = y1 - s;
    if (interior || (x0 + c < w && y >= 0 && y < h))
      m.storeGlobal(rowStart + static_cast<I>(i) * rowStep + y,
                    m.loadShared(c * kStripePitch + kAlignShift + kStripeStep * step - s + tx));
  }
}

// The three phases: stage rows 0..39; load rows 40..71, write step 0, stage them; write step 1.
template <class I, class Mem>
KL_HD void alignedStripePhase(int phase, const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  if (phase == 0) {
    float v[(kAlignShift + kStripeStep) / 4];
    stripeFetch<I>(g, t, tx, ty, 0, v, m);
    stripeStage(tx, ty, 0, v, m);
  } else if (phase == 1) {
    float v[kStripeStep / 4];
    stripeFetch<I>(g, t, tx, ty, kAlignShift + kStripeStep, v, m);
    stripeStore<I>(g, t, tx, ty, 0, m);
    stripeStage(tx, ty, kAlignShift + kStripeStep, v, m);
  } else {
    stripeStore<I>(g, t, tx, ty, 1, m);
  }
}

// ---- Tile40: widths that are a multiple of 40 -------------------------------------------------
// The point-cloud width D = 200 is 6 x 32 + 8: 32-wide tiles leave the seventh tile a quarter
// full, and its blocks move a quarter of the bytes for the same fixed cost. 40 x 64 tiles fill
// 5 columns exactly (32 x 4 threads, 20 elements each; 40-float row pieces are 5 whole sectors
// when the row is). H200, 2026-12-02, 200 x 1e6: 0.89 of cudaMemcpy, the 32-wide tile 0.87.

KL_HD bool tile40FitsInt32(int64_t w, int64_t h) {
  return (w + kTile40Width) * (h + kTile40Rows) < (int64_t(1) << 31);
}

template <class I, class Mem>
KL_HD void tile40Phase(int phase, const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  constexpr int kThreads = 128, kPer = kTile40Width * kTile40Rows / kThreads;
  const int f = tx + 32 * ty;
  const I w = static_cast<I>(g.width), h = static_cast<I>(g.height);
  const I x0 = static_cast<I>(t.x) * kTile40Width, y0 = static_cast<I>(t.y) * kTile40Rows;
  const bool interior = x0 + kTile40Width <= w && y0 + kTile40Rows <= h;
  if (phase == 0) {
    if (interior) {
      float v[kPer];
      const I base = y0 * w + x0;
      KL_UNROLL
      for (int i = 0; i < kPer; ++i) {
        const int e = f + kThreads * i, r = e / kTile40Width, c = e % kTile40Width;
        v[i] = m.loadGlobal(base + static_cast<I>(r) * w + c);
      }
      KL_UNROLL
      for (int i = 0; i < kPer; ++i) {
        const int e = f + kThreads * i, r = e / kTile40Width, c = e % kTile40Width;
        m.storeShared(c * kTile40Pitch + r, v[i]);
      }
      return;
    }
    for (int i = 0; i < kPer; ++i) {
      const int e = f + kThreads * i, r = e / kTile40Width, c = e % kTile40Width;
      if (x0 + c < w && y0 + r < h)
        m.storeShared(c * kTile40Pitch + r, m.loadGlobal((y0 + r) * w + x0 + c));
    }
    return;
  }
  KL_UNROLL
  for (int i = 0; i < kPer; ++i) {
    const int e = f + kThreads * i, c = e / kTile40Rows, r = e % kTile40Rows;
    if (interior || (x0 + c < w && y0 + r < h))
      m.storeGlobal((x0 + c) * h + y0 + r, m.loadShared(c * kTile40Pitch + r));
  }
}

// ---- BulkRows: narrow, tall matrices on compute capability >= 9.0 ----------------------------
// The 64 whole input rows of a block are ONE contiguous chunk of 64 x W floats, so on the GPU one
// lane issues one bulk copy (cp.async.bulk, completing on an mbarrier) and the copy engine reads
// it into shared memory unchanged, row r of the group at r * W: no warp spends registers or
// instructions on loads, and the reads are long sequential streams. Warps 0..7 then write: each
// output row c gets the group's 64-float segment out[c * H + r0 ..), 32 floats (128 bytes) per
// warp store. H200, 2026-12-02, 200 x 1e6: 0.920 of cudaMemcpy, tile-40 0.891 in the same run
// (scripts/experiments/transpose_skinny.cu, b1d-R64-naive; 288 threads, 4 blocks per SM); the
// product kernel 0.914-0.929 once its stage was 128-byte aligned (session 5).

// The input rows a block moves: the group of kBulkRowsGroup starting at `first`; the last group
// of a height that is not a multiple of 64 is partial.
struct RowGroup {
  int64_t first;
  int rows;
};

KL_HD RowGroup bulkRowsGroup(const Geometry& g, BlockCoord t) {
  const int64_t first = static_cast<int64_t>(t.x) * kBulkRowsGroup;
  const int64_t left = g.height - first;
  return {first, left < kBulkRowsGroup ? static_cast<int>(left) : kBulkRowsGroup};
}

// Whether 32-bit indices reach every output element (c * H + row < W * H).
KL_HD bool bulkRowsFitsInt32(int64_t w, int64_t h) { return w * h < (int64_t(1) << 31); }

// Phase 0 as the executor and the tracer see it. The kernel's bulk copy is not a warp access, so
// the model moves the same chunk into the same stage layout with the block's threads in a strided
// loop: the executor gets the stage the kernel gets, the tracer the same global bytes (its warp
// requests are the model's, not the copy engine's).
template <class Mem>
KL_HD void bulkRowsLoadModel(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const RowGroup group = bulkRowsGroup(g, t);
  const int count = group.rows * static_cast<int>(g.width);
  const int64_t base = group.first * g.width;
  for (int e = tx + 32 * ty; e < count; e += kBulkRowsThreads)
    m.storeShared(e, m.loadGlobal(base + e));
}

// Phase 1, the kernel's own: the block's work is W columns x 2 halves of 32 rows; warp ty takes
// tasks ty, ty + 8, ... (task k: column k / 2, rows 32 (k % 2) ..); lane tx reads row
// 32 (k % 2) + tx of the column from the stage and writes it to output row c. The stage read is
// the plain one: with W = 200 the lanes' words are 200 apart, 4 banks, an 8-way conflict, and
// still it measured best in the harness run, conflict-free rotated reads included (the writes,
// not the stage reads, bound the kernel).
// Warp 8 issued the copy and writes nothing.
template <class I, class Mem>
KL_HD void bulkRowsStore(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  if (ty >= kBulkRowsWriterWarps) return;
  constexpr int kHalves = kBulkRowsGroup / 32;
  const RowGroup group = bulkRowsGroup(g, t);
  const int w = static_cast<int>(g.width);
  const I h = static_cast<I>(g.height), first = static_cast<I>(group.first);
  const int tasks = w * kHalves;
  for (int k = ty; k < tasks; k += kBulkRowsWriterWarps) {
    const int c = k / kHalves, r = 32 * (k % kHalves) + tx;
    if (r < group.rows) m.storeGlobal(static_cast<I>(c) * h + first + r, m.loadShared(r * w + c));
  }
}

// ---- dispatch
// -----------------------------------------------------------------------------------

// Calls fn(std::integral_constant-like tag) with D as a compile-time constant,
// 1 <= d <= 16.
template <int D>
struct DimTag {
  static constexpr int value = D;
};

template <class Fn>
KL_HD void withNarrowDim(int d, Fn&& fn) {
  switch (d) {
    case 1:
      fn(DimTag<1>{});
      break;
    case 2:
      fn(DimTag<2>{});
      break;
    case 3:
      fn(DimTag<3>{});
      break;
    case 4:
      fn(DimTag<4>{});
      break;
    case 5:
      fn(DimTag<5>{});
      break;
    case 6:
      fn(DimTag<6>{});
      break;
    case 7:
      fn(DimTag<7>{});
      break;
    case 8:
      fn(DimTag<8>{});
      break;
    case 9:
      fn(DimTag<9>{});
      break;
    case 10:
      fn(DimTag<10>{});
      break;
    case 11:
      fn(DimTag<11>{});
      break;
    case 12:
      fn(DimTag<12>{});
      break;
    case 13:
      fn(DimTag<13>{});
      break;
    case 14:
      fn(DimTag<14>{});
      break;
    case 15:
      fn(DimTag<15>{});
      break;
    case 16:
      fn(DimTag<16>{});
      break;
    default:
      break;
  }
}

// Barrier-separated phases of a variant at a geometry (the seed variants:
// phaseCount(v)).
KL_HD int blockPhaseCount(Variant v, const Geometry& g) {
  if (v != Variant::Best) return phaseCount(v);
  if (g.strategy == Strategy::NarrowWidth || g.strategy == Strategy::NarrowHeight) return 1;
  if (g.strategy == Strategy::AlignedStripe) return 3;
  return 2;
}

// One phase of one thread of any variant: the seed phases, or the best
// variant's strategy.
template <class Mem>
KL_HD void runBlockPhase(Variant v, int phase, const Geometry& g, BlockCoord t, int tx, int ty,
                         Mem& m) {
  if (v != Variant::Best) {
    runPhase(v, phase, g, t, tx, ty, m);
    return;
  }
  switch (g.strategy) {
    case Strategy::NarrowWidth:
      withNarrowDim(static_cast<int>(g.width),
                    [&](auto d) { narrowWidthPhase<decltype(d)::value>(g, t, tx, ty, m); });
      break;
    case Strategy::NarrowHeight:
      withNarrowDim(static_cast<int>(g.height),
                    [&](auto d) { narrowHeightPhase<decltype(d)::value>(g, t, tx, ty, m); });
      break;
    case Strategy::StagedRows:
      if (phase == 0)
        stagedRowsLoad(g, t, tx, ty, m);
      else
        stagedRowsStore(g, t, tx, ty, m);
      break;
    case Strategy::StagedCols:
      if (phase == 0)
        stagedColsLoad(g, t, tx, ty, m);
      else
        stagedColsStore(g, t, tx, ty, m);
      break;
    case Strategy::AlignedTile:
      if (phase == 0)
        alignedTileLoad(g, t, tx, ty, m);
      else
        alignedTileStore(g, t, tx, ty, m);
      break;
    case Strategy::AlignedStripe:
      alignedStripePhase<int64_t>(phase, g, t, tx, ty, m);
      break;
    case Strategy::Tile40:
      tile40Phase<int64_t>(phase, g, t, tx, ty, m);
      break;
    case Strategy::BulkRows:
      if (phase == 0)
        bulkRowsLoadModel(g, t, tx, ty, m);
      else
        bulkRowsStore<int64_t>(g, t, tx, ty, m);
      break;
    default:
      runPhase(v, phase, g, t, tx, ty, m);
      break;
  }
}

}  // namespace kernellab::transpose

// SPDX-License-Identifier: MIT
// Per-thread index logic of every transpose variant, shared by the CUDA kernels, the CPU executor
// and the access-pattern model, so a model can never describe a different kernel than the one
// that ran.
//
// Matrices are row-major float32. The input has `height` rows of `width` elements; the output is
// its transpose: `width` rows of `height` elements, out[x * height + y] = in[y * width + x].
// A block of tile x blockRows threads moves one tile x tile tile; each thread moves
// tile / blockRows elements ("rows per thread"), as in the CUDA samples' transpose.
//
// Memory goes through a `Mem` policy with loadGlobal / storeGlobal / loadShared / storeShared.
// On the GPU it is plain pointers; on the CPU the executor's arrays; in the model, a recorder.
#pragma once

#include <cstdint>

#include "kernellab/hd.h"

namespace kernellab::transpose {

enum class Variant { Copy, Naive, Tiled, Padded, Diagonal, Best };

// How the best variant moves a matrix of a given shape (chosen by
// chooseStrategy in transpose_best_phases.h; the seed variants are always
// Tile).
enum class Strategy {
  Tile,          // padded 32x32 tile, grouped launch order
  AlignedTile,   // the tile with every output row segment starting on a 32-byte
                 // sector
  NarrowWidth,   // width <= 16 (N points x D -> D x N): 4 rows x D per thread in
                 // registers
  NarrowHeight,  // height <= 16 (D x N -> N x D): 4 columns x D per thread in
                 // registers
  StagedRows,    // width <= 256: a block stages whole input rows (points) in
                 // shared memory
  StagedCols,    // height <= 256: a block stages a band of columns of every row
  AlignedStripe,  // odd sizes: sector-aligned output pieces, 64 x 64 per block in two steps
  Tile40,         // widths that are a multiple of 40 (D = 200): 40 x 64 tiles
  BulkRows,       // narrow, tall matrices on cc >= 9.0: 64 whole input rows per block, fetched
                  // by one bulk copy (cp.async.bulk) and written by 8 warps
};

// Four consecutive floats, moved as one 16-byte access (float4 on the GPU).
struct Vec4 {
  float x, y, z, w;
};

struct Geometry {
  int64_t width = 0;   // input columns
  int64_t height = 0;  // input rows
  int tile = 32;       // tile edge
  int blockRows = 8;   // threads in y; each thread moves tile / blockRows elements
  int gridX = 0;       // tiles across the input's width
  int gridY = 0;       // tiles down the input's height
  int pitch = 32;      // shared tile row pitch in floats: tile, or tile + 1 when padded
  int group = 0;       // best: tile columns per launch group (0 = Cartesian order)
  Strategy strategy = Strategy::Tile;  // best: how this shape is moved (seed variants: Tile)
  int span = 0;  // staged strategies: input rows (StagedRows) or columns per block
};

// ---- blockIdx interpretations -------------------------------------------------------------

// The usual reading: blockIdx is a Cartesian tile coordinate.
KL_HD BlockCoord cartesianTile(int bx, int by, int /*gridX*/, int /*gridY*/) { return {bx, by}; }

// Diagonal reordering for a square grid (seed 000): x runs along a diagonal, y picks it.
KL_HD BlockCoord diagonalTileSquare(int bx, int by, int gridX, int /*gridY*/) {
  return {(bx + by) % gridX, bx};
}

// Diagonal reordering for any grid (NVIDIA's "Optimizing Matrix Transpose in CUDA").
// The seed's text writes blockIdx_y = blockIdx.x in this branch, which points outside the grid
// whenever gridDim.x > gridDim.y; the whitepaper's bid % gridDim.y is a bijection for every
// shape (tests/model/tst_diagonal_mapping.cpp proves it over many grids).
KL_HD BlockCoord diagonalTileGeneral(int bx, int by, int gridX, int gridY) {
  const int64_t bid = bx + static_cast<int64_t>(gridX) * by;
  const int ty = static_cast<int>(bid % gridY);
  const int tx = static_cast<int>((bid / gridY + ty) % gridX);
  return {tx, ty};
}

KL_HD BlockCoord diagonalTile(int bx, int by, int gridX, int gridY) {
  return gridX == gridY ? diagonalTileSquare(bx, by, gridX, gridY)
                        : diagonalTileGeneral(bx, by, gridX, gridY);
}

KL_HD BlockCoord tileFor(Variant v, int bx, int by, int gridX, int gridY) {
  return v == Variant::Diagonal ? diagonalTile(bx, by, gridX, gridY)
                                : cartesianTile(bx, by, gridX, gridY);
}

// Grouped order (best variant): consecutive launched blocks walk down a stripe `group` tiles
// wide, so the blocks resident at one time read a band of input rows AND write a band of output
// rows in long runs (DRAM page locality for both sides), instead of reading rows while writing
// 128-byte pieces scattered over the whole output. A bijection: bid -> (stripe, offset).
// `I` is the index type of the block number: 32 bits when the grid has fewer than 2^31 blocks
// (a 64-bit division is a long subroutine on the GPU, paid by every thread of every block).
template <class I = int64_t>
KL_HD BlockCoord groupedTile(int bx, int by, int gridX, int gridY, int group) {
  if (group <= 0) return cartesianTile(bx, by, gridX, gridY);
  const I bid = bx + static_cast<I>(gridX) * by;
  const I perStripe = static_cast<I>(group) * gridY;
  const int stripe = static_cast<int>(bid / perStripe);
  const I r = bid - stripe * perStripe;
  const int first = stripe * group;
  const int cols = gridX - first < group ? gridX - first : group;
  const int row = static_cast<int>(r / cols);
  return {first + static_cast<int>(r - static_cast<I>(row) * cols), row};
}

// The tile a block works on, for any variant and geometry.
KL_HD BlockCoord tileFor(Variant v, const Geometry& g, int bx, int by) {
  if (v == Variant::Best) {
    // Tile strategies walk the grouped order; the others index a 1-D grid of
    // row or column bands.
    if (g.strategy == Strategy::Tile || g.strategy == Strategy::AlignedTile ||
        g.strategy == Strategy::AlignedStripe || g.strategy == Strategy::Tile40)
      return groupedTile(bx, by, g.gridX, g.gridY, g.group);
    return cartesianTile(bx, by, g.gridX, g.gridY);
  }
  return tileFor(v, bx, by, g.gridX, g.gridY);
}

// ---- phases ---------------------------------------------------------------------------------
// A phase is what a thread does between two barriers. (tx, ty) is threadIdx.

// Whether a tile lies wholly inside the matrix. Interior tiles (all but the right and bottom
// edges) take a branch-free loop, so the compiler can issue all of a thread's loads before their
// first use; edge tiles check every element. Both paths compute the same indices.
KL_HD bool interiorTile(const Geometry& g, BlockCoord t) {
  return (static_cast<int64_t>(t.x) + 1) * g.tile <= g.width &&
         (static_cast<int64_t>(t.y) + 1) * g.tile <= g.height;
}

// Copy: the in-run ceiling. Reads and writes row-major, both coalesced.
template <class Mem>
KL_HD void copyPhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t x = static_cast<int64_t>(t.x) * g.tile + tx;
  const int64_t y0 = static_cast<int64_t>(t.y) * g.tile + ty;
  if (interiorTile(g, t)) {
    for (int j = 0; j < g.tile; j += g.blockRows) m.storeGlobal((y0 + j) * g.width + x, m.loadGlobal((y0 + j) * g.width + x));
    return;
  }
  for (int j = 0; j < g.tile; j += g.blockRows) {
    const int64_t y = y0 + j;
    if (x < g.width && y < g.height) m.storeGlobal(y * g.width + x, m.loadGlobal(y * g.width + x));
  }
}

// Naive: reads coalesced, writes strided by `height` floats, so each warp's store touches 32
// different 32-byte sectors (1/8 of the bytes it moves are useful).
template <class Mem>
KL_HD void naivePhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t x = static_cast<int64_t>(t.x) * g.tile + tx;
  const int64_t y0 = static_cast<int64_t>(t.y) * g.tile + ty;
  if (interiorTile(g, t)) {
    for (int j = 0; j < g.tile; j += g.blockRows) m.storeGlobal(x * g.height + y0 + j, m.loadGlobal((y0 + j) * g.width + x));
    return;
  }
  for (int j = 0; j < g.tile; j += g.blockRows) {
    const int64_t y = y0 + j;
    if (x < g.width && y < g.height) m.storeGlobal(x * g.height + y, m.loadGlobal(y * g.width + x));
  }
}

// Tiled, phase 1: coalesced rows of the input tile into shared memory.
template <class Mem>
KL_HD void tileLoadPhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t x = static_cast<int64_t>(t.x) * g.tile + tx;
  const int64_t y0 = static_cast<int64_t>(t.y) * g.tile + ty;
  if (interiorTile(g, t)) {
    for (int j = 0; j < g.tile; j += g.blockRows) m.storeShared((ty + j) * g.pitch + tx, m.loadGlobal((y0 + j) * g.width + x));
    return;
  }
  for (int j = 0; j < g.tile; j += g.blockRows) {
    const int64_t y = y0 + j;
    if (x < g.width && y < g.height) m.storeShared((ty + j) * g.pitch + tx, m.loadGlobal(y * g.width + x));
  }
}

// Tiled, phase 2: a column of the shared tile becomes a coalesced row of the output. With
// pitch == tile the 32 lanes of a warp read one bank (32-way conflict); pitch == tile + 1
// spreads them over 32 banks.
template <class Mem>
KL_HD void tileStorePhase(const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  const int64_t x = static_cast<int64_t>(t.y) * g.tile + tx;   // output column = input row
  const int64_t y0 = static_cast<int64_t>(t.x) * g.tile + ty;  // output row = input column
  if (interiorTile(g, t)) {
    for (int j = 0; j < g.tile; j += g.blockRows) m.storeGlobal((y0 + j) * g.height + x, m.loadShared(tx * g.pitch + ty + j));
    return;
  }
  for (int j = 0; j < g.tile; j += g.blockRows) {
    const int64_t y = y0 + j;
    if (x < g.height && y < g.width) m.storeGlobal(y * g.height + x, m.loadShared(tx * g.pitch + ty + j));
  }
}

// How many phases (barrier-separated steps) a variant has; the executor and the access model
// iterate over them.
KL_HD int phaseCount(Variant v) {
  return (v == Variant::Copy || v == Variant::Naive) ? 1 : 2;
}

template <class Mem>
KL_HD void runPhase(Variant v, int phase, const Geometry& g, BlockCoord t, int tx, int ty, Mem& m) {
  switch (v) {
    case Variant::Copy:
      copyPhase(g, t, tx, ty, m);
      break;
    case Variant::Naive:
      naivePhase(g, t, tx, ty, m);
      break;
    default:
      if (phase == 0) tileLoadPhase(g, t, tx, ty, m);
      else tileStorePhase(g, t, tx, ty, m);
      break;
  }
}

}  // namespace kernellab::transpose

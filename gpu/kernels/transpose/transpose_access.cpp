// SPDX-License-Identifier: MIT
// Transpose address tracer: runs one block of a variant through the same phase functions as the
// CUDA kernel and the CPU executor, with a Mem policy that records instead of moving data.
#include <numeric>
#include <string>

#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/transpose.h"
#include "transpose_parts.h"

namespace kernellab::access::detail {

namespace {

// The transpose Mem interface, recording: loadGlobal reads `in`, storeGlobal
// writes `out`, the shared calls touch the block's tile. Values are irrelevant
// to transpose addresses. 16-byte accesses go to views of the same buffers with
// 16-byte elements (element i / 4), so the model counts the sectors a vector
// access really touches.
struct TransposeTraceMem {
  Recorder* rec;
  int in, out, tile, in4, out4;
  float loadGlobal(int64_t i) const {
    rec->record(Kind::Load, in, i);
    return 0.0f;
  }
  void storeGlobal(int64_t i, float) const { rec->record(Kind::Store, out, i); }
  transpose::Vec4 loadGlobal4(int64_t i) const {
    rec->record(Kind::Load, in4, i / 4);
    return transpose::Vec4{0.0f, 0.0f, 0.0f, 0.0f};
  }
  void storeGlobal4(int64_t i, transpose::Vec4) const { rec->record(Kind::Store, out4, i / 4); }
  float loadShared(int i) const {
    rec->record(Kind::Load, tile, i);
    return 0.0f;
  }
  void storeShared(int i, float) const { rec->record(Kind::Store, tile, i); }
};

// What a block of a best strategy does with its head and body, in sectors per
// warp request.
std::string strategyTraceNote(const transpose::Geometry& g, BlockCoord tile) {
  using namespace kernellab::transpose;
  switch (g.strategy) {
    case Strategy::AlignedTile: {
      const bool head = tile.y == 0;
      return std::string("input tile (") + std::to_string(tile.x) + "," + std::to_string(tile.y) +
             "); loads 40 rows (8 above the tile's 32) so every output row piece "
             "starts on a "
             "sector: body stores touch 4 whole sectors per warp" +
             (head ? "; this tile holds the head of each output row (a partial "
                     "first piece)"
                   : "");
    }
    case Strategy::AlignedStripe: {
      const bool head = tile.y == 0;
      return std::string("stripe (") + std::to_string(tile.x) + "," + std::to_string(tile.y) +
             "): loads 72 rows of 64 columns (8 above the block's 64) in two steps; every "
             "output row piece starts on a sector, so body stores touch 4 whole sectors per "
             "warp, and the 64-float input pieces touch 8 or 9 sectors per two warp loads" +
             (head ? "; this block holds the head of each output row (a partial first piece)"
                   : "");
    }
    case Strategy::Tile40:
      return "40 x 64 tile: each warp load covers 32 consecutive elements of the tile's "
             "40-float rows (whole sectors when a row is 160 bytes from the last), each warp "
             "store a 128-byte piece of one output row";
    case Strategy::BulkRows:
      return "the block's " + std::to_string(bulkRowsGroup(g, tile).rows) +
             " input rows are one contiguous chunk; on the GPU the copy engine reads it into "
             "shared memory with one bulk copy (warp 8 only issues it), traced here as the "
             "block's threads reading the same bytes in a strided loop. Warps 0-7 then read a "
             "stage column (32 rows of one column, " + std::to_string(g.width) +
             " floats apart: a bank conflict of degree " +
             std::to_string(std::gcd(g.width, int64_t(32))) +
             ") and store 128 contiguous bytes of one output row per warp request";
    case Strategy::NarrowWidth:
    case Strategy::NarrowHeight:
      return "16-byte accesses (buffers 'in (16-byte)' and 'out (16-byte)'): "
             "each warp store "
             "(or load) of one row covers 512 contiguous bytes = 16 sectors; the "
             "other side's "
             "16-byte accesses are 16 x the short side bytes apart per lane, "
             "their sectors "
             "completed by the thread's next accesses";
    case Strategy::StagedRows:
    case Strategy::StagedCols:
      return "the block's " + std::to_string(g.span) +
             " rows (or columns) are one contiguous run read (or written) by the "
             "whole block; "
             "the other side moves 128-byte pieces of each row";
    default:
      return std::string();
  }
}

}  // namespace

BlockTrace traceTransposeBlock(const AccessQuery& q, ThreadRange keep) {
  using namespace kernellab::transpose;
  const auto v = variantFromString(q.variant);
  if (!v) {
    std::string known;
    for (const auto& i : variants()) known += std::string(known.empty() ? "" : ", ") + i.id;
    throw InputError("--variant " + q.variant + ": unknown transpose variant (known: " + known +
                     ")");
  }
  // The traced device's compute capability decides whether bulk rows can run (shared memory is
  // not part of the query: the H200's opt-in is assumed).
  const Geometry g = makeGeometryOn(q.request, *v, 1024, q.ccMajor >= kBulkRowsMinCcMajor);
  if (q.block.x < 0 || q.block.x >= g.gridX || q.block.y < 0 || q.block.y >= g.gridY)
    throw InputError("--block " + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                     " is outside the grid (0.." + std::to_string(g.gridX - 1) + ", 0.." +
                     std::to_string(g.gridY - 1) + ")");
  BlockTrace t;
  t.recorder.reserve(q.expectedRecords);
  t.blockDim = {g.tile, g.blockRows};
  t.gridDim = {g.gridX, g.gridY};
  t.blockIdx = q.block;
  t.kernel = *v == Variant::Best ? transpose::bestKernelName(g) : info(*v).kernel;
  Recorder& rec = t.recorder;
  rec.keepOnly(keep);
  const uint64_t inputBytes = uint64_t(g.width) * uint64_t(g.height) * 4u;
  const uint64_t outBase = alignedAfter(inputBytes);
  const int phases = blockPhaseCount(*v, g);
  const bool vectors = *v == Variant::Best && (g.strategy == Strategy::NarrowWidth ||
                                               g.strategy == Strategy::NarrowHeight);
  TransposeTraceMem m{&rec,
                      rec.addBuffer("in", Space::Global, 4, 0),
                      rec.addBuffer("out", Space::Global, 4, outBase),
                      -1,
                      -1,
                      -1};
  if (vectors) {
    m.in4 = rec.addBuffer("in (16-byte)", Space::Global, 16, 0);
    m.out4 = rec.addBuffer("out (16-byte)", Space::Global, 16, outBase);
  }
  if (phases > 1) m.tile = rec.addBuffer("tile", Space::Shared, 4, 0);
  const BlockCoord tile = tileFor(*v, g, q.block.x, q.block.y);  // incl. the best variant's grouped order
  runBlockPhases(t.blockDim, phases, [&](int p, int tx, int ty) {
    rec.beginThread(p, tx + ty * g.tile);
    runBlockPhase(*v, p, g, tile, tx, ty, m);
  });
  if (*v == Variant::Best && g.strategy != Strategy::Tile) {
    t.description = "block (" + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                    ") of a " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                    " matrix, strategy " + toString(g.strategy) + ": " +
                    strategyDescription(g.strategy) + "; " + strategyTraceNote(g, tile);
    return t;
  }
  t.description =
      "block (" + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
      ") moves input tile (" + std::to_string(tile.x) + "," + std::to_string(tile.y) + ") of a " +
      std::to_string(g.width) + "x" + std::to_string(g.height) + " matrix; " +
      std::to_string(g.tile) + "x" + std::to_string(g.blockRows) + " threads, " +
      std::to_string(g.tile / g.blockRows) +
      (g.tile / g.blockRows == 1 ? " row each" : " rows each") +
      (phases > 1 ? "; shared tile pitch " + std::to_string(g.pitch) + " floats" : std::string()) +
      (g.width % 8 != 0 || g.height % 8 != 0
           ? "; rows are not a multiple of 8 floats, so row pieces start off "
             "the "
             "32-byte sector grid: a warp's 128 bytes touch 5 sectors, not 4"
           : std::string());
  return t;
}

}  // namespace kernellab::access::detail

// SPDX-License-Identifier: MIT
// Transpose address tracer: runs one block of a variant through the same phase functions as the
// CUDA kernel and the CPU executor, with a Mem policy that records instead of moving data.
#include <string>

#include "access_tracers.h"
#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/transpose.h"

namespace kernellab::access::detail {

namespace {

// The transpose Mem interface, recording: loadGlobal reads `in`, storeGlobal writes `out`, the
// shared calls touch the block's tile. Values are irrelevant to transpose addresses.
struct TransposeTraceMem {
  Recorder* rec;
  int in, out, tile;
  float loadGlobal(int64_t i) const {
    rec->record(Kind::Load, in, i);
    return 0.0f;
  }
  void storeGlobal(int64_t i, float) const { rec->record(Kind::Store, out, i); }
  float loadShared(int i) const {
    rec->record(Kind::Load, tile, i);
    return 0.0f;
  }
  void storeShared(int i, float) const { rec->record(Kind::Store, tile, i); }
};

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
  const Geometry g = makeGeometry(q.request, *v);
  if (q.block.x < 0 || q.block.x >= g.gridX || q.block.y < 0 || q.block.y >= g.gridY)
    throw InputError("--block " + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                     " is outside the grid (0.." + std::to_string(g.gridX - 1) + ", 0.." +
                     std::to_string(g.gridY - 1) + ")");
  BlockTrace t;
  t.blockDim = {g.tile, g.blockRows};
  t.gridDim = {g.gridX, g.gridY};
  t.blockIdx = q.block;
  t.kernel = info(*v).kernel;
  Recorder& rec = t.recorder;
  rec.keepOnly(keep);
  const uint64_t inputBytes = uint64_t(g.width) * uint64_t(g.height) * 4u;
  TransposeTraceMem m{&rec, rec.addBuffer("in", Space::Global, 4, 0),
                      rec.addBuffer("out", Space::Global, 4, alignedAfter(inputBytes)), -1};
  if (phaseCount(*v) > 1) m.tile = rec.addBuffer("tile", Space::Shared, 4, 0);
  const BlockCoord tile = tileFor(*v, g, q.block.x, q.block.y);  // incl. the best variant's grouped order
  runBlockPhases(t.blockDim, phaseCount(*v), [&](int p, int tx, int ty) {
    rec.beginThread(p, tx + ty * g.tile);
    runPhase(*v, p, g, tile, tx, ty, m);
  });
  t.description = "block (" + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                  ") moves input tile (" + std::to_string(tile.x) + "," + std::to_string(tile.y) +
                  ") of a " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                  " matrix; " + std::to_string(g.tile) + "x" + std::to_string(g.blockRows) +
                  " threads, " + std::to_string(g.tile / g.blockRows) +
                  (g.tile / g.blockRows == 1 ? " row each" : " rows each") +
                  (phaseCount(*v) > 1 ? "; shared tile pitch " + std::to_string(g.pitch) + " floats"
                                      : std::string());
  return t;
}

}  // namespace kernellab::access::detail

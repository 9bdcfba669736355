// SPDX-License-Identifier: MIT
// The reduction's address tracer: one block of a variant's first pass through the same phase
// functions as the kernels and the CPU executor, with a Mem policy that records instead of
// moving data. The lens then shows the interleaved variant's idle lanes (a divergent branch),
// the strided variant's bank conflicts and the sequential variants' conflict-free slots.
#include <string>

#include "kernellab/access_model.h"
#include "kernellab/errors.h"
#include "kernellab/reduction.h"
#include "reduction_parts.h"

namespace kernellab::access::detail {

namespace {

using reduction::Geometry;
using reduction::Variant;

// Values are irrelevant to the addresses: the loads return the identity.
template <class Op>
struct ReductionTraceMem {
  using T = typename Op::T;
  Recorder* rec;
  int input, shared;
  T loadInput(int64_t i, int64_t key) const {
    rec->recordAt(Kind::Load, input, i, key);
    return Op::identity();
  }
  T loadShared(int i, int64_t key) const {
    rec->recordAt(Kind::Load, shared, i, key);
    return Op::identity();
  }
  void storeShared(int i, T, int64_t key) const { rec->recordAt(Kind::Store, shared, i, key); }
};

template <class Op>
void traceWith(const Geometry& g, int block, Recorder& rec, int output) {
  const ReductionTraceMem<Op> m{&rec, 0, 1};
  int phase = 0;
  for (int tid = 0; tid < g.tpb; ++tid) {  // phase 0: the loads, then the thread's slot
    rec.beginThread(phase, tid);
    reduction::loadPhase<Op>(g, block, tid, m);
    rec.recordAt(Kind::Store, 1, tid, 1000000);
  }
  const int levels = reduction::sharedLevels(g.variant, g.tpb);
  for (int level = 0; level < levels; ++level) {
    ++phase;
    for (int tid = 0; tid < g.tpb; ++tid) {
      rec.beginThread(phase, tid);
      reduction::treeStep<Op>(g.variant, g.tpb, level, tid, m);
    }
  }
  ++phase;
  if (reduction::warpStageOf(g.variant)) {
    // Warp 0 reads its 64 (or 32) slots; the five shuffle steps that follow are registers.
    for (int lane = 0; lane < reduction::kWarp; ++lane) {
      rec.beginThread(phase, lane);
      reduction::warpEntry<Op>(g.tpb, lane, m);
    }
  } else {
    rec.beginThread(phase, 0);
    m.loadShared(0, 0);
  }
  rec.beginThread(phase, 0);
  rec.recordAt(Kind::Store, output, block, 10);
}

}  // namespace

BlockTrace traceReductionBlock(const AccessQuery& q, ThreadRange keep) {
  using namespace kernellab::reduction;
  const auto v = variantFromString(q.variant);
  if (!v) {
    std::string known;
    for (const auto& i : variants())
      if (i.variant != Variant::Cub) known += std::string(known.empty() ? "" : ", ") + i.id;
    throw InputError("--variant " + q.variant + ": unknown reduction variant (known: " + known +
                     ")");
  }
  if (*v == Variant::Cub)
    throw InputError("--variant cub: no access tracer for the library's kernels");
  if (!q.kernel.empty())
    throw InputError("--kernel " + q.kernel + ": a reduction variant runs one kernel per pass");
  const ReductionProblem& p = q.request.section<ReductionProblem>();
  // The grid-stride grid of an H200 (132 SMs, 2048 threads each) unless the request sets it.
  const int tpb = q.request.launch.threadsPerBlock;
  DeviceInfo h200;
  h200.smCount = 132;
  h200.maxThreadsPerSM = 2048;
  h200.maxBlocksPerSM = 32;
  const Geometry g = plan(p, *v, tpb, autoBlocks(h200, tpb)).front();
  if (q.block.x < 0 || q.block.x >= g.grid || q.block.y != 0)
    throw InputError("--block " + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                     " is outside the grid (0.." + std::to_string(g.grid - 1) + ", 0..0)");
  BlockTrace t;
  t.recorder.reserve(q.expectedRecords);
  t.blockDim = {g.tpb, 1};
  t.gridDim = {g.grid, 1};
  t.blockIdx = q.block;
  t.kernel = info(*v).kernel;
  Recorder& rec = t.recorder;
  rec.keepOnly(keep);
  const bool sum = p.op == Operation::Sum;
  rec.addBuffer("in", Space::Global, 4, 0);
  rec.addBuffer("sdata", Space::Shared, sum ? 4 : 8, 0);
  const int output =
      rec.addBuffer("partial", Space::Global, sum ? 4 : 8, alignedAfter(uint64_t(g.count) * 4));
  if (sum)
    traceWith<SumOp>(g, q.block.x, rec, output);
  else
    traceWith<MaxOp>(g, q.block.x, rec, output);
  t.description =
      "block " + std::to_string(q.block.x) + " of " + std::to_string(g.grid) +
      " in the first pass over " + std::to_string(g.count) + " floats (" + toString(p.op) + "), " +
      std::to_string(g.tpb) + " threads; " + std::to_string(sharedLevels(*v, g.tpb)) +
      " shared levels" +
      (warpStageOf(*v) ? ", then warp 0's 5 shuffle steps (registers, not traced)" : std::string());
  return t;
}

}  // namespace kernellab::access::detail

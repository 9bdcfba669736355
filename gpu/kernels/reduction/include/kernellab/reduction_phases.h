// SPDX-License-Identifier: MIT
// The parallel reduction's per-thread logic (Mark Harris, "Optimizing Parallel Reduction in
// CUDA", NVIDIA 2007), written once for the CUDA kernels (reduction.cu), the CPU executor
// (reduction_cpu.cpp) and the access tracer (reduction_access.cpp).
//
// A pass reduces `count` elements to one per block: every thread first loads its value (phase
// 0), the block then halves its shared array level by level with a barrier after each level,
// and thread 0 writes the block's result. The variants differ in which thread combines which
// two slots at a level (a divergent branch, bank conflicts, or neither), how many elements a
// thread loads (one, two, or a grid-stride loop), and whether the last 32 values are combined
// by warp shuffles instead of shared-memory levels.
//
// The classic "last warp unrolled" read the last levels through a volatile shared array with no
// barrier, relying on a warp's 32 lanes running in lockstep. Since Volta (compute capability
// 7.0) independent thread scheduling lets the lanes of a warp run apart, so that code races
// (compute-sanitizer racecheck reports it) and can read a slot before its neighbour wrote it.
// Here the last warp exchanges values with __shfl_down_sync, whose mask names the lanes that
// take part: the exchange is explicit and safe on every architecture.
//
// Mem policy: loadInput(i, key) -> T (the pass's input element i as the operation's value),
// loadShared(i, key) -> T and storeShared(i, T, key) on the block's shared array. `key` names
// the access for the tracer (equal for the lanes of one warp instruction); the others ignore it.
#pragma once

#include <cstdint>
#include <limits>

#include "kernellab/hd.h"

namespace kernellab::reduction {

// The variants in the order of the lesson (Harris's kernels 1 to 7), then the peer.
enum class Variant {
  InterleavedDivergent,  // 1: tid % (2s) == 0 combines: most lanes of a warp idle, divergent
  InterleavedStrided,    // 2: slot 2 s tid: no divergence, but a warp's slots share banks
  Sequential,            // 3: tid < s combines slots tid and tid + s: conflict-free
  FirstAdd,              // 4: each thread adds two elements while loading: half the blocks
  WarpShuffle,           // 5: the last 32 values by warp shuffles (no barrier, no shared)
  Unrolled,              // 6: as 5, the block size a template constant: every level unrolled
  GridStride,            // 7: as 6, each thread adds many elements in a grid-stride loop
  Cub,                   // cub::DeviceReduce (CUDA only): the library's own reduction
};

enum class Operation { Sum, MaxIndex };

inline constexpr int kWarp = 32;
inline constexpr int kWarpSteps = 5;  // shuffle offsets 16, 8, 4, 2, 1
KL_HD constexpr int warpOffset(int step) { return (kWarp / 2) >> step; }

// The value and index of a maximum; ties go to the lower index, so any order of combining gives
// the same answer (the first maximum of the input).
struct ValueIndex {
  float value;
  int32_t index;
};

// sum: T = float.
struct SumOp {
  using T = float;
  KL_HD static T identity() { return 0.0f; }
  KL_HD static T combine(T a, T b) { return a + b; }
  KL_HD static T fromInput(float x, int64_t) { return x; }
};

// max and its index: T = ValueIndex.
struct MaxOp {
  using T = ValueIndex;
  KL_HD static T identity() {
    return ValueIndex{-std::numeric_limits<float>::infinity(), 2147483647};
  }
  KL_HD static T combine(T a, T b) {
    return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
  }
  KL_HD static T fromInput(float x, int64_t i) { return ValueIndex{x, static_cast<int32_t>(i)}; }
};

// How a thread loads its value in phase 0.
enum class Load { One, Two, GridStride };
KL_HD constexpr Load loadOf(Variant v) {
  return v == Variant::InterleavedDivergent || v == Variant::InterleavedStrided ||
                 v == Variant::Sequential
             ? Load::One
             : (v == Variant::GridStride ? Load::GridStride : Load::Two);
}
// Whether the last 32 values are combined by shuffles.
KL_HD constexpr bool warpStageOf(Variant v) {
  return v == Variant::WarpShuffle || v == Variant::Unrolled || v == Variant::GridStride;
}

// One pass of a variant: `count` elements to `grid` values (one per block).
struct Geometry {
  Variant variant = Variant::Sequential;
  int64_t count = 0;  // elements into this pass
  int tpb = 256;      // threads per block: a power of two, 32..1024
  int log2Tpb = 8;
  int grid = 1;        // blocks
  int64_t stride = 0;  // grid-stride loop: elements between a thread's loop steps (grid x 2 tpb)
};

KL_HD constexpr int log2Of(int x) {
  int l = 0;
  while ((1 << (l + 1)) <= x) ++l;
  return l;
}

// Shared-memory levels before thread 0 (or the warp stage) has the block's value.
KL_HD constexpr int sharedLevels(Variant v, int tpb) {
  const int l = log2Of(tpb);
  if (!warpStageOf(v)) return l;
  return l > 6 ? l - 6 : 0;  // the levels with s > 32; the warp takes the last 64 (or 32) slots
}

// ---- phase 0: each thread's first value, stored in its shared slot ----------------------------

template <class Op, class Mem>
KL_HD typename Op::T loadPhase(const Geometry& g, int block, int tid, const Mem& m) {
  using T = typename Op::T;
  const Load how = loadOf(g.variant);
  if (how == Load::One) {
    const int64_t i = int64_t(block) * g.tpb + tid;
    return i < g.count ? m.loadInput(i, 0) : Op::identity();
  }
  const int64_t first = int64_t(block) * 2 * g.tpb + tid;
  if (how == Load::Two) {
    const T a = first < g.count ? m.loadInput(first, 0) : Op::identity();
    const T b = first + g.tpb < g.count ? m.loadInput(first + g.tpb, 1) : Op::identity();
    return Op::combine(a, b);
  }
  // Grid-stride: pairs `stride` apart until the end; the keys count the loop's steps so that
  // the lanes that run out early leave later requests to the others.
  T sum = Op::identity();
  int64_t step = 0;
  for (int64_t i = first; i < g.count; i += g.stride, ++step) {
    const T a = m.loadInput(i, 2 * step);
    const T b = i + g.tpb < g.count ? m.loadInput(i + g.tpb, 2 * step + 1) : Op::identity();
    sum = Op::combine(sum, Op::combine(a, b));
  }
  return sum;
}

// ---- the shared levels, a barrier after each ----------------------------------------------------

// Level `level` (0-based) of the block's tree; `tpb` is the block size (a template constant in
// the unrolled kernels).
template <class Op, class Mem>
KL_HD void treeStep(Variant v, int tpb, int level, int tid, const Mem& m) {
  int a = -1, b = -1;
  if (v == Variant::InterleavedDivergent) {
    // Harris's kernel 1: the threads whose index is a multiple of 2s combine. At level 0 every
    // other lane of a warp idles; the branch splits every warp until s reaches 32.
    const int s = 1 << level;
    if (tid % (2 * s) == 0) {
      a = tid;
      b = tid + s;
    }
  } else if (v == Variant::InterleavedStrided) {
    // Kernel 2: contiguous threads combine slot 2 s tid: no divergence, but lane t reads bank
    // 2 s t mod 32, so 2s lanes share each bank used: 2-way conflicts at level 0, 4-way at
    // level 1, ... 32-way from s = 16 on (4-byte values; 8-byte value-index pairs twice that).
    const int s = 1 << level;
    const int index = 2 * s * tid;
    if (index < tpb) {
      a = index;
      b = index + s;
    }
  } else {
    // Kernels 3 to 7: sequential addressing, the lower half combines with the upper half: the
    // lanes of a warp read consecutive slots, conflict-free.
    const int s = tpb >> (level + 1);
    if (tid < s) {
      a = tid;
      b = tid + s;
    }
  }
  if (a < 0) return;
  const typename Op::T x = m.loadShared(a, 0);
  const typename Op::T y = m.loadShared(b, 1);
  m.storeShared(a, Op::combine(x, y), 2);
}

// ---- the warp stage (variants 5 to 7): lanes of warp 0 only -------------------------------------

// The lane's value before the shuffles: slots lane and lane + 32 (a 32-thread block has one).
template <class Op, class Mem>
KL_HD typename Op::T warpEntry(int tpb, int lane, const Mem& m) {
  const typename Op::T x = m.loadShared(lane, 0);
  if (tpb < 2 * kWarp) return x;
  return Op::combine(x, m.loadShared(lane + kWarp, 1));
}

// One shuffle step: the lane's value with the one `warpOffset(step)` lanes up. A lane whose
// partner is past the warp gets its own value back (as __shfl_down_sync gives it): its result is
// not used.
template <class Op>
KL_HD typename Op::T warpStep(typename Op::T mine, typename Op::T partner) {
  return Op::combine(mine, partner);
}

// ---- the error of a float sum
// ---------------------------------------------------------------------

// Additions one input element goes through on its way to the block's value in this pass: the
// load (none, one, or the grid-stride loop's steps plus the pair) and the tree (log2 tpb).
KL_HD int64_t sumDepth(const Geometry& g) {
  int64_t load = 0;
  const Load how = loadOf(g.variant);
  if (how == Load::Two) load = 1;
  if (how == Load::GridStride) {
    const int64_t steps = g.stride > 0 ? (g.count + g.stride - 1) / g.stride : 1;
    load = steps + 1;  // the pair, then one combine into the running sum per step
  }
  return load + g.log2Tpb;
}

}  // namespace kernellab::reduction

// SPDX-License-Identifier: MIT
// Per-thread logic of the clustering kernels (k-centers and k-means), shared by the CUDA kernels,
// the CPU executor and the access-pattern model, so a model can never describe a different kernel
// than the one that ran.
//
// Points are float32, N points of D dimensions, stored in one of two layouts:
//   coalesced   (dimension-major)  X[d * N + i]: a warp's 32 threads (32 consecutive points) read
//                                  32 consecutive floats of one dimension: one 128-byte request.
//   interleaved (point-major)      X[i * D + d]: the same warp reads 32 floats D * 4 bytes apart:
//                                  32 different sectors per request.
// The layout is a type (CoalescedLayout, InterleavedLayout) carried by PointsView<Layout>, and a
// view can only be made by the owner that arranged the data in that layout (ArrangedPoints on the
// host, DevicePoints on the GPU), so a kernel cannot read one layout as if it were the other.
//
// A block program is written once against two policies:
//   Block: size(), index(), count() and
//          phase(f)  every thread of the block runs f(t, state), then a barrier (__syncthreads);
//          local(f)  every thread runs f(t, state), no barrier.
//          DeviceBlock (clustering.cu) runs one thread per CUDA thread; HostBlock (host_block.h)
//          runs the threads of a block one after the other and checks that no two threads touch
//          the same shared slot between two barriers.
//   Mem:   every memory access, named by array (loadPoint, storeLabel, loadStage, loadScratchF..).
//          The "stage" is always shared memory; the "scratch" of the reductions is shared memory
//          or a per-block slice of global memory: that choice is the memory switch, and it lives
//          only in the Mem policy, so both variants run literally the same code.
#pragma once

#include <cstdint>
#include <limits>

#include "kernellab/clustering_request.h"
#include "kernellab/hd.h"

namespace kernellab::clustering {

// ---- the block's private arrays -------------------------------------------------------------
// Which block-private arrays a kernel uses (the centroid stage; the reductions' float, double and
// int scratch) and where each sits in the block's dynamic shared memory: byte offsets, doubles
// first for alignment. With global scratch only the stage is in shared memory. The CUDA launcher
// sizes the launch, the kernels carve their arrays and the access model places its shared
// buffers with this one function, so the banks the model reports are the kernel's.

struct BlockNeeds {
  bool stage, f, d, i;
};

struct SharedLayout {
  unsigned stage, f, d, i, total;
};

KL_HD SharedLayout sharedLayout(BlockNeeds n, bool scratchShared, unsigned threads) {
  SharedLayout l{0, 0, 0, 0, 0};
  unsigned off = 0;
  if (scratchShared && n.d) {
    l.d = off;
    off += 8 * threads;
  }
  if (n.stage) {
    l.stage = off;
    off += 4 * threads;
  }
  if (scratchShared && n.f) {
    l.f = off;
    off += 4 * threads;
  }
  if (scratchShared && n.i) {
    l.i = off;
    off += 4 * threads;
  }
  l.total = off;
  return l;
}

inline constexpr BlockNeeds kDistanceNeeds{true, true, false, true};
inline constexpr BlockNeeds kSelectNeeds{false, true, false, true};
inline constexpr BlockNeeds kCentroidNeeds{false, false, true, true};
KL_HD constexpr BlockNeeds assignNeeds(bool staged) { return {staged, false, false, false}; }
KL_HD constexpr BlockNeeds scoreNeeds(bool staged) { return {staged, false, true, true}; }

// ---- layouts ----------------------------------------------------------------------------------

struct CoalescedLayout {
  static constexpr DataLayout kLayout = DataLayout::Coalesced;
  KL_HD static int64_t element(int64_t i, int j, int64_t n, int /*d*/) {
    return static_cast<int64_t>(j) * n + i;
  }
};

struct InterleavedLayout {
  static constexpr DataLayout kLayout = DataLayout::Interleaved;
  KL_HD static int64_t element(int64_t i, int j, int64_t /*n*/, int d) { return i * d + j; }
};

template <class Layout>
class ArrangedPoints;  // host owner, kernellab/clustering.h
template <class Layout>
class DevicePoints;  // GPU owner, gpu/kernels/clustering/clustering.cu

// N points of D floats in `Layout`. Only the owners that arranged the values can make one.
template <class Layout>
class PointsView {
 public:
  using LayoutType = Layout;
  KL_HD int64_t n() const { return n_; }
  KL_HD int d() const { return d_; }
  KL_HD const float* values() const { return values_; }
  // Element index of dimension j of point i: the address arithmetic the layout switch changes.
  KL_HD int64_t element(int64_t i, int j) const { return Layout::element(i, j, n_, d_); }
  // A view without data, for models that only trace element indices.
  static PointsView shapeOnly(int64_t n, int d) { return PointsView(nullptr, n, d); }

 private:
  KL_HD PointsView(const float* values, int64_t n, int d) : values_(values), n_(n), d_(d) {}
  friend class ArrangedPoints<Layout>;
  friend class DevicePoints<Layout>;
  const float* values_;
  int64_t n_;
  int d_;
};

// ---- small helpers ----------------------------------------------------------------------------

// Index larger than any point index (N < 2^31 - 1 is validated) and a value below every squared
// distance: out-of-range threads enter the farthest-point reduction with (kNoDistance, kNoPoint)
// and can never win it.
inline constexpr int kNoPoint = 0x7fffffff;
inline constexpr float kNoDistance = -1.0f;

KL_HD int minInt(int a, int b) { return a < b ? a : b; }

KL_HD float quietNaN() {
#if defined(__CUDA_ARCH__)
  return __int_as_float(0x7fffffff);
#else
  return std::numeric_limits<float>::quiet_NaN();
#endif
}

// First stride of a tree reduction over `size` slots: half the smallest power of two >= size.
// With the guard `t + s < size` every slot is folded in for any block size, not only powers of
// two (96 and 1000 threads per block are valid launches).
KL_HD int firstStride(int size) {
  int p = 1;
  while (p < size) p <<= 1;
  return p >> 1;
}

// The farthest-point order: the larger squared distance wins, the lower point index at equal
// distances. Documented tie rule: of several points equally far, k-centers picks the lowest index.
KL_HD bool farther(float va, int ia, float vb, int ib) { return va > vb || (va == vb && ia < ib); }

// ---- reductions over the block's scratch --------------------------------------------------------
// Every step is a phase (a barrier follows it). In step s, thread t < s folds slot t + s into
// slot t: it reads slots t and t + s and writes slot t; no other thread touches slot t in that
// step, and slot t + s is written by nobody in it. After the last step slot 0 holds the result.

// Max of (scratchF, scratchI) pairs in the farthest() order.
template <class Block, class Mem>
KL_HD void reduceFarthest(Block& blk, Mem& m) {
  const int size = blk.size();
  for (int s = firstStride(size); s > 0; s >>= 1) {
    blk.phase([&](int t, auto&) {
      if (t < s && t + s < size) {
        const float v = m.loadScratchF(t + s);
        const int i = m.loadScratchI(t + s);
        if (farther(v, i, m.loadScratchF(t), m.loadScratchI(t))) {
          m.storeScratchF(t, v);
          m.storeScratchI(t, i);
        }
      }
    });
  }
}

// Sum of (scratchD, scratchI) pairs: a double sum and an integer count.
template <class Block, class Mem>
KL_HD void reduceSum(Block& blk, Mem& m) {
  const int size = blk.size();
  for (int s = firstStride(size); s > 0; s >>= 1) {
    blk.phase([&](int t, auto&) {
      if (t < s && t + s < size) {
        m.storeScratchD(t, m.loadScratchD(t) + m.loadScratchD(t + s));
        m.storeScratchI(t, m.loadScratchI(t) + m.loadScratchI(t + s));
      }
    });
  }
}

// ---- k-centers (farthest point), one center per pair of launches ------------------------------

struct KCentersThread {
  float dist = 0.0f;  // squared distance of this thread's point to the current center
};

// kcentersDistanceKernel, grid ceil(N / size) blocks. For center j (a point index read from
// centerIndex[j]): every point computes its squared distance to the center, keeps it when it is
// below its distance to the earlier centers (strictly below: at equal distances the earlier
// center keeps the point), and the block finds its farthest point with a max-reduction.
// The center's D components are staged in shared memory `size` at a time (the seed's s_ctr).
// Every thread joins every phase, also the threads past N: they own no point but must reach the
// barriers (a thread that returned early would leave the others waiting).
template <class Layout, class Block, class Mem>
KL_HD void kcentersDistanceBlock(Block& blk, Mem& m, const PointsView<Layout>& X, int j) {
  const int size = blk.size();
  const int64_t first = static_cast<int64_t>(blk.index()) * size;
  const int64_t c = m.loadCenterIndex(j);
  const bool centerValid = c >= 0 && c < X.n();  // a bad index stages NaN, never reads outside X
  blk.local([&](int, KCentersThread& s) { s.dist = 0.0f; });
  for (int off = 0; off < X.d(); off += size) {
    const int width = minInt(size, X.d() - off);
    blk.phase([&](int t, KCentersThread&) {
      if (t < width) m.storeStage(t, centerValid ? m.loadPoint(X, c, off + t) : quietNaN());
    });
    blk.phase([&](int t, KCentersThread& s) {
      const int64_t i = first + t;
      if (i >= X.n()) return;
      for (int q = 0; q < width; ++q) {
        const float diff = m.loadStage(q) - m.loadPoint(X, i, off + q);
        s.dist += diff * diff;
      }
    });
  }
  blk.phase([&](int t, KCentersThread& s) {
    const int64_t i = first + t;
    float v = kNoDistance;
    int idx = kNoPoint;
    if (i < X.n()) {
      v = s.dist;
      if (j == 0 || v < m.loadDist(i)) {
        m.storeDist(i, v);
        m.storeLabel(i, j);
      } else {
        v = m.loadDist(i);
      }
      idx = static_cast<int>(i);
    }
    m.storeScratchF(t, v);
    m.storeScratchI(t, idx);
  });
  reduceFarthest(blk, m);
  blk.local([&](int t, KCentersThread&) {
    if (t == 0) m.storeCandidate(blk.index(), m.loadScratchF(0), m.loadScratchI(0));
  });
}

// kcentersSelectKernel, one block: folds the distance kernel's per-block candidates into the
// farthest point of all, which becomes center j + 1, and records the covering radius (squared)
// after center j. The kernel boundary between the two launches is the grid-wide barrier that the
// selection needs; no block of one launch waits for another block.
template <class Block, class Mem>
KL_HD void kcentersSelectBlock(Block& blk, Mem& m, int candidates, int j, int k) {
  blk.phase([&](int t, KCentersThread&) {
    float v = kNoDistance;
    int idx = kNoPoint;
    for (int c = t; c < candidates; c += blk.size()) {
      const float cv = m.loadCandidateValue(c);
      const int ci = m.loadCandidateIndex(c);
      if (farther(cv, ci, v, idx)) {
        v = cv;
        idx = ci;
      }
    }
    m.storeScratchF(t, v);
    m.storeScratchI(t, idx);
  });
  reduceFarthest(blk, m);
  blk.local([&](int t, KCentersThread&) {
    if (t != 0) return;
    m.storeRadius(j, m.loadScratchF(0));
    if (j + 1 < k) m.storeCenterIndex(j + 1, m.loadScratchI(0));
  });
}

// ---- k-means (Lloyd), Campaign's three kernels ------------------------------------------------

struct AssignThread {
  float dist = 0.0f;
  float best = 0.0f;
  int label = -1;
};

// assignToClustersKernel, grid ceil(N / size): one thread per point, centroid after centroid.
// kStaged (shared variants): the block stages the centroid's components in shared memory, `size`
// at a time, and every thread reads them from there (one global read per component per block).
// Otherwise every thread reads the centroid from global memory itself (a broadcast through L1).
// Both sum the components in the same order, so they produce the same floats. At equal distances
// the lower cluster index keeps the point.
template <class Layout, bool kStaged, class Block, class Mem>
KL_HD void assignBlock(Block& blk, Mem& m, const PointsView<Layout>& X, int k) {
  const int size = blk.size();
  const int d = X.d();
  const int64_t first = static_cast<int64_t>(blk.index()) * size;
  blk.local([&](int, AssignThread& s) {
    s.best = 0.0f;
    s.label = -1;
  });
  for (int c = 0; c < k; ++c) {
    const int64_t row = static_cast<int64_t>(c) * d;
    blk.local([&](int, AssignThread& s) { s.dist = 0.0f; });
    for (int off = 0; off < d; off += size) {
      const int width = minInt(size, d - off);
      if (kStaged) {
        blk.phase([&](int t, AssignThread&) {
          if (t < width) m.storeStage(t, m.loadCentroid(row + off + t));
        });
        blk.phase([&](int t, AssignThread& s) {
          const int64_t i = first + t;
          if (i >= X.n()) return;
          for (int q = 0; q < width; ++q) {
            const float diff = m.loadStage(q) - m.loadPoint(X, i, off + q);
            s.dist += diff * diff;
          }
        });
      } else {
        blk.local([&](int t, AssignThread& s) {
          const int64_t i = first + t;
          if (i >= X.n()) return;
          for (int q = 0; q < width; ++q) {
            const float diff = m.loadCentroid(row + off + q) - m.loadPoint(X, i, off + q);
            s.dist += diff * diff;
          }
        });
      }
    }
    // `label < 0` takes the first centroid even when every distance overflowed to infinity.
    blk.local([&](int, AssignThread& s) {
      if (s.label < 0 || s.dist < s.best) {
        s.best = s.dist;
        s.label = c;
      }
    });
  }
  blk.local([&](int t, AssignThread& s) {
    const int64_t i = first + t;
    if (i < X.n()) m.storeLabel(i, s.label);
  });
}

struct SumThread {
  double sum = 0.0;  // sums of thousands of floats lose ~1e-4 relative in float: keep double
  int count = 0;
  float dist = 0.0f;
};

// calcCentroidsKernel, grid K blocks: block c owns cluster c. For each dimension the block walks
// all N labels (thread t takes points t, t + size, ...), sums the coordinates of the points
// labelled c and counts them, reduces over the block and writes the mean. A cluster that lost
// all its points keeps its previous centroid.
template <class Layout, class Block, class Mem>
KL_HD void centroidsBlock(Block& blk, Mem& m, const PointsView<Layout>& X) {
  const int size = blk.size();
  const int c = blk.index();
  for (int j = 0; j < X.d(); ++j) {
    blk.phase([&](int t, SumThread&) {
      double sum = 0.0;
      int count = 0;
      for (int64_t i = t; i < X.n(); i += size) {
        if (m.loadLabel(i) == c) {
          sum += m.loadPoint(X, i, j);
          ++count;
        }
      }
      m.storeScratchD(t, sum);
      m.storeScratchI(t, count);
    });
    reduceSum(blk, m);
    // Thread 0 reads slot 0 while the next dimension's first phase writes the other slots: no
    // barrier needed here (thread 0 writes slot 0 itself, after reading it).
    blk.local([&](int t, SumThread&) {
      if (t != 0) return;
      const int count = m.loadScratchI(0);
      if (count > 0)
        m.storeCentroid(static_cast<int64_t>(c) * X.d() + j,
                        static_cast<float>(m.loadScratchD(0) / count));
    });
  }
}

// calcScoreKernel, grid K blocks: block c sums the squared distances of the points labelled c to
// centroid c (the cluster's share of the inertia) and counts them. The block walks the points
// `size` at a time; kStaged stages the centroid in shared memory (once when D <= size, else
// chunk by chunk in every round), otherwise every thread reads it from global memory.
template <class Layout, bool kStaged, class Block, class Mem>
KL_HD void scoreBlock(Block& blk, Mem& m, const PointsView<Layout>& X) {
  const int size = blk.size();
  const int c = blk.index();
  const int d = X.d();
  const int64_t row = static_cast<int64_t>(c) * d;
  const bool oneChunk = d <= size;
  blk.local([&](int, SumThread& s) {
    s.sum = 0.0;
    s.count = 0;
  });
  if (kStaged && oneChunk)
    blk.phase([&](int t, SumThread&) {
      if (t < d) m.storeStage(t, m.loadCentroid(row + t));
    });
  for (int64_t base = 0; base < X.n(); base += size) {
    blk.local([&](int, SumThread& s) { s.dist = 0.0f; });
    for (int off = 0; off < d; off += size) {
      const int width = minInt(size, d - off);
      auto accumulate = [&](int t, SumThread& s) {
        const int64_t i = base + t;
        if (i >= X.n() || m.loadLabel(i) != c) return;
        for (int q = 0; q < width; ++q) {
          const float centre = kStaged ? m.loadStage(q) : m.loadCentroid(row + off + q);
          const float diff = centre - m.loadPoint(X, i, off + q);
          s.dist += diff * diff;
        }
      };
      if (kStaged && !oneChunk) {
        blk.phase([&](int t, SumThread&) {
          if (t < width) m.storeStage(t, m.loadCentroid(row + off + t));
        });
        blk.phase(accumulate);  // the next chunk overwrites the stage: barrier
      } else {
        blk.local(accumulate);
      }
    }
    blk.local([&](int t, SumThread& s) {
      const int64_t i = base + t;
      if (i < X.n() && m.loadLabel(i) == c) {
        s.sum += s.dist;
        ++s.count;
      }
    });
  }
  blk.phase([&](int t, SumThread& s) {
    m.storeScratchD(t, s.sum);
    m.storeScratchI(t, s.count);
  });
  reduceSum(blk, m);
  blk.local([&](int t, SumThread&) {
    if (t != 0) return;
    m.storeClusterScore(c, m.loadScratchD(0));
    m.storeClusterCount(c, m.loadScratchI(0));
  });
}

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// k-centers, pruned (issue 15), on the CPU: a lazy farthest-first traversal. After each center
// only the farthest point is needed; a point's stored distance (to its center as of the last
// center it was compared with) bounds its distance now, so a unit of 32 consecutive points whose
// largest stored distance is below the farthest distance found so far cannot hold the next center
// and stays stale. A stale unit is brought up to date with every center it missed at once: the
// missed centers the triangle test (clustering_pruning.h, with each point's stale label and
// distance) cannot rule out for some point of the unit, each point's distance to each of them in
// the seed variants' arithmetic (float, dimension 0 first, dist += diff * diff), the strict
// minimum in center order. So the centers, labels and distances are the unpruned CPU run's, bit for
// bit, and each point's coordinates are read once for all the centers its unit missed (a CPU
// count of the same traversal at N = 1e6, K = 100, D = 200, seed's data: 3.3 M point reads over
// the run, against 49.5 M sketch reads and 4.5 M float reads of the eager pass with the 8-bit
// sketch this engine ran until session 17; scripts/experiments/kcenters_lazy_tests.cpp).
//
// Per center: pass 0 brings each of up to kBlocks fixed blocks' highest stale unit up to date (units
// dealt to the blocks in turn, so a cluster's contiguous run spreads over them); where a stale
// unit's bound is still at or above the farthest distance found, pass 1 brings every such unit up
// to date (after it none is left: the center is settled). The last center brings every unit up to
// date. Fixed blocks, not one per thread: the counts never depend on the machine.
#include "kcenters_pruned_cpu.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "kernellab/clustering_pruning.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"

namespace kernellab::clustering {
namespace {

constexpr int kUnit = 32;
constexpr int64_t kBlocks = 256;
// Centers whose exact distances to the earlier ones are kept (a triangle of rows): beyond, or
// where the K x D values are many (kcentersExactCenterDistances), the test uses rho2 alone.
constexpr int kExactRows = 512;

// The farther of two candidates: the larger distance, the lower index at equal distances (NaN
// never wins).
bool farther(float v, int64_t i, float bv, int64_t bi) { return v > bv || (v == bv && i < bi); }

struct Lazy {
  const float* X;
  int64_t n;
  int d;
  int k;
  float margin;
  KCentersPrunedRun& out;
  std::vector<float> centerRows;   // K x D, the chosen centers' coordinates
  std::vector<float> exactDist;    // row m at m (m - 1) / 2: d^2(m, a), a < m (measured rows)
  std::vector<int> unitLast;       // per unit: the last center it is up to date with
  std::vector<float> unitUpper;    // per unit: its points' largest stored distance

  int64_t units() const { return (n + kUnit - 1) / kUnit; }

  // The triangle test's d^2(a, m) for a point of center a and a later center m.
  float centerBound(int a, int m) const {
    const float rho2 = out.radii[static_cast<size_t>(m) - 1];
    const bool measured = m < kExactRows && kcentersExactCenterDistances(m, d);
    const float exact = measured ? exactDist[static_cast<size_t>(m) * (m - 1) / 2 + a] : 0.f;
    return kcentersCenterBound(exact, measured, rho2);
  }

  // What a unit's catch-up read and summed.
  struct Work {
    int64_t points = 0;     // points whose coordinates were read
    int64_t distances = 0;  // point-center distances summed
    Work& operator+=(const Work& o) {
      points += o.points;
      distances += o.distances;
      return *this;
    }
  };

  // Brings unit u up to date with centers unitLast[u] + 1 .. j and folds its points into
  // (bestV, bestI).
  Work catchUp(int64_t u, int j, float& bestV, int64_t& bestI) {
    const int from = unitLast[static_cast<size_t>(u)] + 1;
    const int64_t i0 = u * kUnit, i1 = std::min(n, i0 + kUnit);
    const int count = static_cast<int>(i1 - i0);
    std::vector<int> list;
    for (int m = from; m <= j; ++m)
      for (int t = 0; t < count; ++t) {
        const size_t i = static_cast<size_t>(i0 + t);
        const int a = out.labels[i];
        if (a < 0 || a >= m || !kcentersSkips(centerBound(a, m), out.dist[i], margin)) {
          list.push_back(m);
          break;
        }
      }
    float top = -1.0f;
    if (!list.empty()) {
      // Every listed center's distance to every point of the unit, each summed dimension 0 first
      // (the seed's arithmetic); the coordinates read once, a row of the unit at a time.
      std::vector<float> sums(list.size() * kUnit, 0.0f);
      for (int q = 0; q < d; ++q) {
        const float* row = X + static_cast<int64_t>(q) * n + i0;
        for (size_t l = 0; l < list.size(); ++l) {
          const float c = centerRows[static_cast<size_t>(list[l]) * d + q];
          float* s = sums.data() + l * kUnit;
          for (int t = 0; t < count; ++t) {
            const float diff = c - row[t];
            s[t] += diff * diff;
          }
        }
      }
      for (int t = 0; t < count; ++t) {
        const size_t i = static_cast<size_t>(i0 + t);
        for (size_t l = 0; l < list.size(); ++l)  // strictly below: the earlier center wins ties
          if (sums[l * kUnit + t] < out.dist[i]) {
            out.dist[i] = sums[l * kUnit + t];
            out.labels[i] = list[l];
          }
      }
    }
    for (int t = 0; t < count; ++t) {
      const float v = out.dist[static_cast<size_t>(i0 + t)];
      if (v > top) top = v;
      if (farther(v, i0 + t, bestV, bestI)) {
        bestV = v;
        bestI = i0 + t;
      }
    }
    unitUpper[static_cast<size_t>(u)] = top;
    unitLast[static_cast<size_t>(u)] = j;
    if (list.empty()) return {};
    return {count, static_cast<int64_t>(count) * static_cast<int64_t>(list.size())};
  }

  // Center j's coordinates, and (while measured) its exact squared distances to the earlier ones
  // (double, rounded once to float: the test's margin covers that rounding).
  void addCenter(int j, int64_t c) {
    out.centers[static_cast<size_t>(j)] = c;
    for (int q = 0; q < d; ++q)
      centerRows[static_cast<size_t>(j) * d + q] = X[static_cast<int64_t>(q) * n + c];
    if (!(j < kExactRows && kcentersExactCenterDistances(j, d))) return;
    for (int a = 0; a < j; ++a) {
      double s = 0.0;
      for (int q = 0; q < d; ++q) {
        const double t = double(centerRows[static_cast<size_t>(j) * d + q]) -
                         double(centerRows[static_cast<size_t>(a) * d + q]);
        s += t * t;
      }
      exactDist[static_cast<size_t>(j) * (j - 1) / 2 + a] = static_cast<float>(s);
    }
  }
};

}  // namespace

KCentersPrunedRun kcentersPrunedHost(const float* X, int64_t n, int d, int k, int64_t first,
                                     const std::atomic<bool>* cancel) {
  if (n < 1 || d < 1 || k < 1 || k > n)
    throw InputError("pruned k-centers: N = " + std::to_string(n) + ", D = " + std::to_string(d) +
                     ", K = " + std::to_string(k) + " (needs N >= 1, D >= 1, 1 <= K <= N)");
  if (first < 0 || first >= n)
    throw InputError("pruned k-centers: first center " + std::to_string(first) + " is outside 0.." +
                     std::to_string(n - 1));
  KCentersPrunedRun out;
  out.labels.assign(static_cast<size_t>(n), -1);
  out.dist.assign(static_cast<size_t>(n), std::numeric_limits<float>::quiet_NaN());
  out.centers.assign(static_cast<size_t>(k), -1);
  out.radii.assign(static_cast<size_t>(k), std::numeric_limits<float>::quiet_NaN());
  out.visited.assign(static_cast<size_t>(k), 0);
  out.distances.assign(static_cast<size_t>(k), 0);
  Lazy z{X, n, d, k, kcentersSkipMargin(d), out, {}, {}, {}, {}};
  z.centerRows.assign(static_cast<size_t>(k) * d, 0.f);
  const size_t rows = static_cast<size_t>(std::min(k, kExactRows));
  z.exactDist.assign(std::max<size_t>(1, rows * rows / 2), 0.f);
  const int64_t units = z.units();
  z.unitLast.assign(static_cast<size_t>(units), 0);
  z.unitUpper.assign(static_cast<size_t>(units), -1.0f);
  // About one block per 64 units (pass 0 touches 1.6 % of the units), at most kBlocks.
  const int64_t blocks = std::clamp<int64_t>(units / 64, 1, kBlocks);
  std::vector<float> blockBest(static_cast<size_t>(blocks)), blockStale(static_cast<size_t>(blocks));
  std::vector<int64_t> blockIndex(static_cast<size_t>(blocks));
  std::vector<Lazy::Work> blockWork(static_cast<size_t>(blocks));
  // Folds the blocks' candidates into (v, i) and returns the largest stale bound left.
  const auto fold = [&](float& v, int64_t& i) {
    float stale = -INFINITY;
    for (int64_t b = 0; b < blocks; ++b) {
      if (farther(blockBest[static_cast<size_t>(b)], blockIndex[static_cast<size_t>(b)], v, i)) {
        v = blockBest[static_cast<size_t>(b)];
        i = blockIndex[static_cast<size_t>(b)];
      }
      stale = std::max(stale, blockStale[static_cast<size_t>(b)]);
    }
    return stale;
  };

  // Center 0: every point's distance (the seed's arithmetic), every unit's bound.
  z.addCenter(0, first);
  {
    float v = -1.0f;
    int64_t i = std::numeric_limits<int64_t>::max();
    parallelChunks(blocks, blocks, [&](int64_t b, int64_t, int64_t) {
      float bv = -1.0f;
      int64_t bi = std::numeric_limits<int64_t>::max();
      for (int64_t u = b; u < units; u += blocks) {
        const int64_t i0 = u * kUnit, i1 = std::min(n, i0 + kUnit);
        for (int64_t p = i0; p < i1; ++p) out.dist[static_cast<size_t>(p)] = 0.f;
        for (int q = 0; q < d; ++q) {
          const float c = z.centerRows[static_cast<size_t>(q)];
          const float* row = X + static_cast<int64_t>(q) * n;
          for (int64_t p = i0; p < i1; ++p) {
            const float diff = c - row[p];
            out.dist[static_cast<size_t>(p)] += diff * diff;
          }
        }
        float ut = -1.0f;
        for (int64_t p = i0; p < i1; ++p) {
          const float dp = out.dist[static_cast<size_t>(p)];
          out.labels[static_cast<size_t>(p)] = 0;
          if (dp > ut) ut = dp;
          if (farther(dp, p, bv, bi)) {
            bv = dp;
            bi = p;
          }
        }
        z.unitUpper[static_cast<size_t>(u)] = ut;
      }
      blockBest[static_cast<size_t>(b)] = bv;
      blockIndex[static_cast<size_t>(b)] = bi;
      blockStale[static_cast<size_t>(b)] = -INFINITY;
    });
    fold(v, i);
    out.visited[0] = n;
    out.distances[0] = n;
    out.radii[0] = v;
    if (k > 1) z.addCenter(1, i);
  }
  for (int j = 1; j < k; ++j) {
    if (cancel && cancel->load()) break;  // the rest stays poisoned; the caller reports Cancel
    const bool last = j == k - 1;
    float v = -1.0f;
    int64_t i = std::numeric_limits<int64_t>::max();
    Lazy::Work work;
    // pass 0: each block's highest stale unit (every stale unit at the last center); pass 1:
    // every stale unit at or above what pass 0 found.
    for (int pass = 0; pass < 2; ++pass) {
      const float theta = v;
      parallelChunks(blocks, blocks, [&](int64_t b, int64_t, int64_t) {
        float bv = -1.0f, stale = -INFINITY;
        int64_t bi = std::numeric_limits<int64_t>::max();
        Lazy::Work got;
        int64_t pick = -1;
        if (pass == 0 && !last) {
          float best = -INFINITY;
          for (int64_t u = b; u < units; u += blocks)
            if (z.unitLast[static_cast<size_t>(u)] < j &&
                (pick < 0 || z.unitUpper[static_cast<size_t>(u)] > best)) {
              best = z.unitUpper[static_cast<size_t>(u)];
              pick = u;
            }
        }
        for (int64_t u = b; u < units; u += blocks) {
          if (z.unitLast[static_cast<size_t>(u)] >= j) continue;
          const float upper = z.unitUpper[static_cast<size_t>(u)];
          const bool take = pass == 0 ? (last || u == pick) : !(upper < theta);
          if (take)
            got += z.catchUp(u, j, bv, bi);
          else
            stale = std::max(stale, upper);
        }
        blockBest[static_cast<size_t>(b)] = bv;
        blockIndex[static_cast<size_t>(b)] = bi;
        blockStale[static_cast<size_t>(b)] = stale;
        blockWork[static_cast<size_t>(b)] = got;
      });
      const float stale = fold(v, i);
      for (const Lazy::Work& w : blockWork) work += w;
      if (stale < v || !(stale > -INFINITY)) break;  // no stale point can be as far
    }
    out.visited[static_cast<size_t>(j)] = work.points;
    out.distances[static_cast<size_t>(j)] = work.distances;
    out.radii[static_cast<size_t>(j)] = v;
    if (j + 1 < k) z.addCenter(j + 1, i);  // n >= 1: some block always has a point
  }
  return out;
}

}  // namespace kernellab::clustering

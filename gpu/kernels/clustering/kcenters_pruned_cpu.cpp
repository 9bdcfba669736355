// SPDX-License-Identifier: MIT
// k-centers, pruned (issue 15), on the CPU: the same test as the CUDA kernel
// (clustering_pruning.h) and the same distance arithmetic as the CPU backend's seed variants
// (dimension 0 first, dist += diff * diff), so the pruned run's centers, labels and distances are
// the unpruned CPU run's, bit for bit, while it reads only the coordinates the tests cannot spare:
// the triangle test first, then the points' 8-bit sketch (built here, as the CUDA engine builds
// its own, before the first center).
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

// Fixed chunks (not one per thread): the result never depends on the machine. The farthest-point
// fold below is exact (a maximum with the lower index at ties), so any chunking gives the same
// center; fixed chunks keep the visited counts' partial sums in one order too.
constexpr int64_t kChunks = 256;
// Points whose distances are summed together: each coordinate row X[q * n + ...] is then read as
// one short contiguous run per tile instead of one float per cache line per point (the layout is
// dimension-major). Each point's own sum still runs dimension 0 first, as the seed's, so tiling
// changes the memory order, never the arithmetic.
constexpr int kTile = 64;

// The 8-bit sketch of dimension-major points: per dimension its grid, per point and dimension
// its code (dimension-major too: codes[q * n + i]), per point its error bound e(x).
struct HostSketch {
  std::vector<SketchScale> scales;
  std::vector<uint8_t> codes;
  std::vector<float> err;
};

HostSketch buildSketch(const float* X, int64_t n, int d) {
  HostSketch s;
  s.scales.resize(static_cast<size_t>(d));
  std::vector<double> squaredRange(static_cast<size_t>(d), 0.0);
  parallelChunks(d, d, [&](int64_t, int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      float lo = INFINITY, hi = -INFINITY;
      const float* row = X + q * n;
      for (int64_t i = 0; i < n; ++i)
        if (sketchFinite(row[i])) {
          lo = std::min(lo, row[i]);
          hi = std::max(hi, row[i]);
        }
      s.scales[static_cast<size_t>(q)] = sketchScale(lo, hi);
      if (lo <= hi) squaredRange[static_cast<size_t>(q)] = (double(hi) - lo) * (double(hi) - lo);
    }
  });
  double ranges = 0.0;
  for (const double r : squaredRange) ranges += r;
  const double slack = sketchArithmeticSlack(ranges);
  s.codes.resize(static_cast<size_t>(n) * d);
  s.err.resize(static_cast<size_t>(n));
  parallelChunks(n, kChunks, [&](int64_t, int64_t b, int64_t e) {
    // Each point's squared error by words of kSketchDims dimensions, each word's rounded up to a
    // float (sketchWordError), in word order: the GPU's sum, so both skip the same points.
    std::vector<double> e2(static_cast<size_t>(e - b), 0.0), word(static_cast<size_t>(e - b), 0.0);
    std::vector<char> finite(static_cast<size_t>(e - b), 1);
    for (int q = 0; q < d; ++q) {
      const SketchScale sc = s.scales[static_cast<size_t>(q)];
      const float* row = X + static_cast<int64_t>(q) * n;
      uint8_t* out = s.codes.data() + static_cast<int64_t>(q) * n;
      for (int64_t i = b; i < e; ++i) {
        const unsigned c = sketchCode(row[i], sc);
        out[i] = static_cast<uint8_t>(c);
        word[static_cast<size_t>(i - b)] += sketchSquaredError(row[i], c, sc);
        if (!sketchFinite(row[i])) finite[static_cast<size_t>(i - b)] = 0;
      }
      if (q % kSketchDims == kSketchDims - 1 || q == d - 1)
        for (size_t t = 0; t < word.size(); ++t) {
          e2[t] += sketchWordError(word[t]);
          word[t] = 0.0;
        }
    }
    for (int64_t i = b; i < e; ++i)
      s.err[static_cast<size_t>(i)] =
          sketchErrorBound(e2[static_cast<size_t>(i - b)], slack, finite[static_cast<size_t>(i - b)] != 0);
  });
  return s;
}

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
  out.screened.assign(static_cast<size_t>(k), 0);
  const float margin = kcentersSkipMargin(d);
  const HostSketch sketch = buildSketch(X, n, d);
  std::vector<float> centerLo(static_cast<size_t>(d));  // c - lo per dimension, for the sketch
  std::vector<float> center(static_cast<size_t>(d));
  std::vector<double> centerRows;  // the chosen centers, point-major, for the center distances
  std::vector<float> centerDist;   // d^2(center j, center a), a < j
  std::vector<float> chunkBest(kChunks);
  std::vector<int64_t> chunkIndex(kChunks), chunkVisited(kChunks), chunkScreened(kChunks);
  int64_t c = first;
  for (int j = 0; j < k; ++j) {
    if (cancel && cancel->load()) break;  // the rest stays poisoned; the caller reports Cancel
    out.centers[static_cast<size_t>(j)] = c;
    for (int q = 0; q < d; ++q) center[static_cast<size_t>(q)] = X[static_cast<int64_t>(q) * n + c];
    // The triangle test's distance to each earlier center: never below rho2, the squared
    // distance that chose this center; the exact one (in double, rounded once to float: the
    // test's margin covers that rounding) while the K x D values are few, as on the GPU
    // (clustering_pruning.h).
    centerDist.assign(static_cast<size_t>(j), 0.f);
    const bool exact = kcentersExactCenterDistances(j, d);
    const float rho2 = j > 0 ? out.radii[static_cast<size_t>(j) - 1] : 0.f;
    for (int a = 0; a < j; ++a) {
      double s = 0.0;
      for (int q = 0; exact && q < d; ++q) {
        const double t =
            double(center[static_cast<size_t>(q)]) - centerRows[static_cast<size_t>(a) * d + q];
        s += t * t;
      }
      centerDist[static_cast<size_t>(a)] = kcentersCenterBound(static_cast<float>(s), exact, rho2);
    }
    centerRows.insert(centerRows.end(), center.begin(), center.end());
    for (int q = 0; q < d; ++q)
      centerLo[static_cast<size_t>(q)] =
          center[static_cast<size_t>(q)] - sketch.scales[static_cast<size_t>(q)].lo;
    std::fill(chunkBest.begin(), chunkBest.end(), -1.0f);
    std::fill(chunkIndex.begin(), chunkIndex.end(), std::numeric_limits<int64_t>::max());
    std::fill(chunkVisited.begin(), chunkVisited.end(), 0);
    std::fill(chunkScreened.begin(), chunkScreened.end(), 0);
    parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
      float best = -1.0f;
      int64_t bestI = std::numeric_limits<int64_t>::max();
      int64_t visited = 0, screened = 0;
      int64_t read[kTile], unsure[kTile];
      float sum[kTile];
      for (int64_t t0 = b; t0 < e; t0 += kTile) {
        const int64_t t1 = std::min(e, t0 + kTile);
        // The points of this tile whose new distance the triangle test cannot rule out (all at
        // center 0, which has nothing to compare with).
        int u = 0;
        for (int64_t i = t0; i < t1; ++i) {
          const int32_t li = out.labels[static_cast<size_t>(i)];
          const bool skip = j > 0 && li >= 0 && li < j &&
                            kcentersSkips(centerDist[static_cast<size_t>(li)],
                                          out.dist[static_cast<size_t>(i)], margin);
          if (!skip) unsure[u++] = i;
        }
        // Of those, the ones their sketch cannot rule out either.
        int m = 0;
        if (j == 0) {
          std::copy(unsure, unsure + u, read);
          m = u;
        } else {
          screened += u;
          std::fill(sum, sum + u, 0.0f);
          for (int q = 0; q < d; ++q) {
            const float cl = centerLo[static_cast<size_t>(q)];
            const float step = sketch.scales[static_cast<size_t>(q)].step;
            const uint8_t* row = sketch.codes.data() + static_cast<int64_t>(q) * n;
            for (int t = 0; t < u; ++t) {
              const float diff = cl - step * static_cast<float>(row[unsure[t]]);
              sum[t] += diff * diff;
            }
          }
          for (int t = 0; t < u; ++t) {
            const size_t i = static_cast<size_t>(unsure[t]);
            if (!kcentersSketchSkips(sum[t], sketch.err[i], out.dist[i], margin)) read[m++] = unsure[t];
          }
        }
        visited += m;
        std::fill(sum, sum + m, 0.0f);
        for (int q = 0; q < d; ++q) {
          const float cq = center[static_cast<size_t>(q)];
          const float* row = X + static_cast<int64_t>(q) * n;
          for (int t = 0; t < m; ++t) {
            const float diff = cq - row[read[t]];
            sum[t] += diff * diff;  // the seed's float sum, dimension 0 first
          }
        }
        for (int t = 0; t < m; ++t) {
          const size_t i = static_cast<size_t>(read[t]);
          // Strictly below: at equal distances the earlier center keeps the point.
          if (j == 0 || sum[t] < out.dist[i]) {
            out.dist[i] = sum[t];
            out.labels[i] = j;
          }
        }
        // The farthest point, skipped points included: the larger distance, the lower index at
        // equal distances.
        for (int64_t i = t0; i < t1; ++i) {
          const float di = out.dist[static_cast<size_t>(i)];
          if (di > best || (di == best && i < bestI)) {
            best = di;
            bestI = i;
          }
        }
      }
      chunkBest[static_cast<size_t>(chunk)] = best;
      chunkIndex[static_cast<size_t>(chunk)] = bestI;
      chunkVisited[static_cast<size_t>(chunk)] = visited;
      chunkScreened[static_cast<size_t>(chunk)] = screened;
    });
    float best = -1.0f;
    int64_t bestI = std::numeric_limits<int64_t>::max();
    int64_t visited = 0, screened = 0;
    for (int64_t ch = 0; ch < kChunks; ++ch) {
      visited += chunkVisited[static_cast<size_t>(ch)];
      screened += chunkScreened[static_cast<size_t>(ch)];
      const float v = chunkBest[static_cast<size_t>(ch)];
      const int64_t idx = chunkIndex[static_cast<size_t>(ch)];
      if (v > best || (v == best && idx < bestI)) {
        best = v;
        bestI = idx;
      }
    }
    out.visited[static_cast<size_t>(j)] = visited;
    out.screened[static_cast<size_t>(j)] = screened;
    out.radii[static_cast<size_t>(j)] = best;
    c = bestI;  // n >= 1: some chunk always has a point
  }
  return out;
}

}  // namespace kernellab::clustering

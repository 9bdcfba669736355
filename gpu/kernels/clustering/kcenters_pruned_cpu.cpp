// SPDX-License-Identifier: MIT
// k-centers, pruned (issue 15), on the CPU: the same test as the CUDA kernel
// (clustering_pruning.h) and the same distance arithmetic as the CPU backend's seed variants
// (dimension 0 first, dist += diff * diff), so the pruned run's centers, labels and distances are
// the unpruned CPU run's, bit for bit, while it reads only the coordinates the test cannot spare.
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
  const float margin = kcentersSkipMargin(d);
  std::vector<float> center(static_cast<size_t>(d));
  std::vector<double> centerRows;  // the chosen centers, point-major, for the center distances
  std::vector<float> centerDist;   // d^2(center j, center a), a < j
  std::vector<float> chunkBest(kChunks);
  std::vector<int64_t> chunkIndex(kChunks), chunkVisited(kChunks);
  int64_t c = first;
  for (int j = 0; j < k; ++j) {
    if (cancel && cancel->load()) break;  // the rest stays poisoned; the caller reports Cancel
    out.centers[static_cast<size_t>(j)] = c;
    for (int q = 0; q < d; ++q) center[static_cast<size_t>(q)] = X[static_cast<int64_t>(q) * n + c];
    // Squared distances to the earlier centers in double, rounded once to float: the test's
    // margin covers that rounding (clustering_pruning.h), as on the GPU.
    centerDist.assign(static_cast<size_t>(j), 0.f);
    for (int a = 0; a < j; ++a) {
      double s = 0.0;
      for (int q = 0; q < d; ++q) {
        const double t =
            double(center[static_cast<size_t>(q)]) - centerRows[static_cast<size_t>(a) * d + q];
        s += t * t;
      }
      centerDist[static_cast<size_t>(a)] = static_cast<float>(s);
    }
    centerRows.insert(centerRows.end(), center.begin(), center.end());
    std::fill(chunkBest.begin(), chunkBest.end(), -1.0f);
    std::fill(chunkIndex.begin(), chunkIndex.end(), std::numeric_limits<int64_t>::max());
    std::fill(chunkVisited.begin(), chunkVisited.end(), 0);
    parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
      float best = -1.0f;
      int64_t bestI = std::numeric_limits<int64_t>::max();
      int64_t visited = 0;
      int64_t read[kTile];
      float sum[kTile];
      for (int64_t t0 = b; t0 < e; t0 += kTile) {
        const int64_t t1 = std::min(e, t0 + kTile);
        // The points of this tile whose new distance the test cannot rule out (all at center 0).
        int m = 0;
        for (int64_t i = t0; i < t1; ++i) {
          const int32_t li = out.labels[static_cast<size_t>(i)];
          const bool skip = j > 0 && li >= 0 && li < j &&
                            kcentersSkips(centerDist[static_cast<size_t>(li)],
                                          out.dist[static_cast<size_t>(i)], margin);
          if (!skip) read[m++] = i;
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
    });
    float best = -1.0f;
    int64_t bestI = std::numeric_limits<int64_t>::max();
    int64_t visited = 0;
    for (int64_t ch = 0; ch < kChunks; ++ch) {
      visited += chunkVisited[static_cast<size_t>(ch)];
      const float v = chunkBest[static_cast<size_t>(ch)];
      const int64_t idx = chunkIndex[static_cast<size_t>(ch)];
      if (v > best || (v == best && idx < bestI)) {
        best = v;
        bestI = idx;
      }
    }
    out.visited[static_cast<size_t>(j)] = visited;
    out.radii[static_cast<size_t>(j)] = best;
    c = bestI;  // n >= 1: some chunk always has a point
  }
  return out;
}

}  // namespace kernellab::clustering

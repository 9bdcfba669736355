// SPDX-License-Identifier: MIT
// CPU references of k-centers and k-means in double, multithreaded over points with fixed chunks
// (the same sums on every machine).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"

namespace kernellab::clustering {

namespace {

constexpr int64_t kChunks = 256;

struct Farthest {
  double value = -1.0;
  int64_t index = -1;
};

// Larger distance wins; at equal distances the lower index (the kernels' farther()).
void foldFarthest(Farthest& into, double v, int64_t i) {
  if (v > into.value || (v == into.value && (into.index < 0 || i < into.index))) {
    into.value = v;
    into.index = i;
  }
}

KCentersReference kcenters(const PointSet& s, int k, int64_t first,
                           const std::vector<int64_t>* along) {
  const int64_t n = s.n;
  KCentersReference r;
  r.labels.assign(static_cast<size_t>(n), -1);
  r.minDist.assign(static_cast<size_t>(n), 0.0);
  r.centers.push_back(first);
  std::vector<Farthest> partial(kChunks);
  for (int j = 0; j < k; ++j) {
    const int64_t c = r.centers[static_cast<size_t>(j)];
    const float* centre = &s.values[static_cast<size_t>(c) * s.d];
    std::fill(partial.begin(), partial.end(), Farthest{});
    parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
      Farthest f;
      for (int64_t i = b; i < e; ++i) {
        const double dd = squaredDistance(s, i, centre);
        if (j == 0 || dd < r.minDist[i]) {  // equal distance: the earlier center keeps the point
          r.minDist[i] = dd;
          r.labels[i] = j;
        }
        foldFarthest(f, r.minDist[i], i);
      }
      partial[static_cast<size_t>(chunk)] = f;
    });
    Farthest best;
    for (const Farthest& f : partial)
      if (f.index >= 0) foldFarthest(best, f.value, f.index);
    r.radius.push_back(best.value);
    r.farthest.push_back(best.index);
    if (j + 1 < k) {
      const int64_t next = along ? (*along)[static_cast<size_t>(j) + 1] : best.index;
      r.centers.push_back(next);
      r.chosenDist.push_back(next >= 0 && next < n ? r.minDist[next] : -1.0);
    }
  }
  return r;
}

}  // namespace

KCentersReference referenceKCenters(const PointSet& s, int k, int64_t first) {
  if (k < 1 || k > s.n) throw InputError("k-centers reference: K must be in 1..N");
  if (first < 0 || first >= s.n) throw InputError("k-centers reference: first center out of range");
  return kcenters(s, k, first, nullptr);
}

KCentersReference referenceKCentersAlong(const PointSet& s, const std::vector<int64_t>& centers) {
  if (centers.empty()) throw InputError("k-centers reference: no centers given");
  for (int64_t c : centers)
    if (c < 0 || c >= s.n) throw InputError("k-centers reference: center index out of range");
  return kcenters(s, static_cast<int>(centers.size()), centers.front(), &centers);
}

KMeansReference referenceKMeans(const PointSet& s, const std::vector<float>& initial, int k,
                                int maxIterations, double epsilon) {
  const int64_t n = s.n;
  const int d = s.d;
  if (k < 1 || static_cast<int64_t>(initial.size()) != int64_t(k) * d)
    throw InputError("k-means reference: initial centers must be K x D");
  KMeansReference r;
  r.centers.assign(initial.begin(), initial.end());
  r.labels.assign(static_cast<size_t>(n), -1);
  // parallelChunks never makes more chunks than points: N = 3 at D = 1e6 needs 3 partial sums
  // per cluster, not 256 (which was 4 GB).
  const int64_t chunks = std::min<int64_t>(kChunks, std::max<int64_t>(1, n));
  std::vector<double> sums(static_cast<size_t>(chunks) * k * d);
  std::vector<int64_t> counts(static_cast<size_t>(chunks) * k);
  std::vector<double> chunkScore(kChunks);
  double previous = 0;
  for (int it = 0; it < maxIterations; ++it) {
    if (it > 0) {
      // Means of the previous labels, summed per chunk and combined in chunk order.
      std::fill(sums.begin(), sums.end(), 0.0);
      std::fill(counts.begin(), counts.end(), 0);
      parallelChunks(n, chunks, [&](int64_t chunk, int64_t b, int64_t e) {
        double* sum = &sums[static_cast<size_t>(chunk) * k * d];
        int64_t* count = &counts[static_cast<size_t>(chunk) * k];
        for (int64_t i = b; i < e; ++i) {
          const int c = r.labels[i];
          const float* x = &s.values[static_cast<size_t>(i) * d];
          for (int j = 0; j < d; ++j) sum[static_cast<size_t>(c) * d + j] += x[j];
          ++count[c];
        }
      });
      for (int c = 0; c < k; ++c) {
        int64_t total = 0;
        for (int64_t ch = 0; ch < chunks; ++ch) total += counts[static_cast<size_t>(ch) * k + c];
        if (total == 0) continue;  // an empty cluster keeps its center
        for (int j = 0; j < d; ++j) {
          double acc = 0;
          for (int64_t ch = 0; ch < chunks; ++ch)
            acc += sums[(static_cast<size_t>(ch) * k + c) * d + j];
          r.centers[static_cast<size_t>(c) * d + j] = acc / double(total);
        }
      }
    }
    // Assign: the nearest center in double; at equal distances the lower cluster index.
    std::fill(chunkScore.begin(), chunkScore.end(), 0.0);
    parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
      double score = 0;
      for (int64_t i = b; i < e; ++i) {
        const float* x = &s.values[static_cast<size_t>(i) * d];
        int best = -1;
        double bestDist = 0;
        for (int c = 0; c < k; ++c) {
          const double* centre = &r.centers[static_cast<size_t>(c) * d];
          double a0 = 0, a1 = 0;
          int j = 0;
          for (; j + 2 <= d; j += 2) {
            const double d0 = centre[j] - x[j], d1 = centre[j + 1] - x[j + 1];
            a0 += d0 * d0;
            a1 += d1 * d1;
          }
          if (j < d) {
            const double dj = centre[j] - x[j];
            a0 += dj * dj;
          }
          const double dist = a0 + a1;
          if (best < 0 || dist < bestDist) {
            best = c;
            bestDist = dist;
          }
        }
        r.labels[i] = best;
        score += bestDist;
      }
      chunkScore[static_cast<size_t>(chunk)] = score;
    });
    double score = 0;
    for (double c : chunkScore) score += c;
    r.scores.push_back(score);
    r.iterations = it + 1;
    if (epsilon >= 0 && it > 0 && std::fabs(score - previous) <= epsilon * previous) break;
    previous = score;
  }
  r.inertia = r.scores.empty() ? 0.0 : r.scores.back();
  r.sizes.assign(static_cast<size_t>(k), 0);
  for (int32_t l : r.labels)
    if (l >= 0) ++r.sizes[static_cast<size_t>(l)];
  return r;
}

}  // namespace kernellab::clustering

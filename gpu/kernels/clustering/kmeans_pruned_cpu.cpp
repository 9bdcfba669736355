// SPDX-License-Identifier: MIT
// k-means, pruned (issue 15), on the CPU. The points are decided in parallel chunks; the sums
// then change serially, in point order, by the points whose label changed (all points in the
// first iteration), so a run gives the same sums on every machine.
#include "kmeans_pruned_cpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "kernellab/errors.h"
#include "kernellab/kmeans_pruning.h"
#include "kernellab/parallel.h"

namespace kernellab::clustering {

namespace {

constexpr int64_t kGrain = 2048;

// Eight independent sums, which the compiler keeps in vector registers (a fused multiply-add is a
// library call on baseline x86-64, and one chain of them ran at ~2 ns a dimension): each term still
// passes through at most D + 2 roundings (its difference, its square, its path through the sums),
// which is what gamma (kmeans_pruning.h) allows, in any order, fused or not.
float floatSquaredDistance(const float* x, const float* c, int d) {
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  int q = 0;
  for (; q + 8 <= d; q += 8)
    for (int j = 0; j < 8; ++j) {
      const float t = x[q + j] - c[q + j];
      acc[j] += t * t;
    }
  float tail = 0.f;
  for (; q < d; ++q) {
    const float t = x[q] - c[q];
    tail += t * t;
  }
  return (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) + tail;
}

}  // namespace

KMeansPrunedHost::KMeansPrunedHost(const float* points, int64_t n, int d, int k)
    : x_(points), n_(n), d_(d), k_(k) {
  if (n < 1 || d < 1 || k < 1 || k > n)
    throw InputError("pruned k-means: N = " + std::to_string(n) + ", D = " + std::to_string(d) +
                     ", K = " + std::to_string(k) + " (need N, D >= 1 and 1 <= K <= N)");
  gamma_ = prunedDistanceGamma(d);
  slack_ = prunedUnderflowSlack(d);
  pointSquares_.resize(static_cast<size_t>(n));
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      double s = 0;
      for (int q = 0; q < d; ++q) s += double(x_[i * d + q]) * double(x_[i * d + q]);
      pointSquares_[static_cast<size_t>(i)] = s;
    }
  }, kGrain);
}

void KMeansPrunedHost::begin(const std::vector<float>& centers) {
  if (centers.size() != static_cast<size_t>(k_) * d_)
    throw InputError("pruned k-means: the initial centers must be K x D = " +
                     std::to_string(int64_t(k_) * d_) + " floats, got " +
                     std::to_string(centers.size()));
  centers_ = centers;
  groups_ = groupCenters(centers_, k_, d_, centerGroupCount(k_));
  g_ = groups_.count();
  sums_.assign(static_cast<size_t>(k_) * d_, 0.0);
  sumSquares_.assign(static_cast<size_t>(k_), 0.0);
  counts_.assign(static_cast<size_t>(k_), 0);
  labels_.assign(static_cast<size_t>(n_), -1);
  upper_.assign(static_cast<size_t>(n_), std::numeric_limits<float>::quiet_NaN());
  lower_.assign(static_cast<size_t>(n_) * g_, std::numeric_limits<float>::quiet_NaN());
  drift_.assign(static_cast<size_t>(k_), 0.f);
  half_.assign(static_cast<size_t>(k_), 0.f);
  groupDrift_.assign(static_cast<size_t>(g_), 0.f);
}

int KMeansPrunedHost::decide(const float* x, int64_t i, int old, float oldF, int64_t& distances) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  thread_local std::vector<float> f;  // per center: its float distance, if measured
  thread_local std::vector<uint8_t> measured, skipped;
  f.assign(static_cast<size_t>(k_), kNaN);
  measured.assign(static_cast<size_t>(k_), 0);
  skipped.assign(static_cast<size_t>(g_), 0);
  float* low = &lower_[static_cast<size_t>(i) * g_];
  const float u = old < 0 ? std::numeric_limits<float>::infinity() : upper_[static_cast<size_t>(i)];
  int b = -1;
  float fb = std::numeric_limits<float>::infinity();
  auto take = [&](int c, float value) {  // (a NaN or infinite distance never becomes b)
    f[size_t(c)] = value;
    measured[size_t(c)] = 1;
    if (value < fb) {
      fb = value;
      b = c;
    }
  };
  if (old >= 0) take(old, oldF);
  for (int g = 0; g < g_; ++g) {
    // A group whose bound exceeds u holds no center as near as c_old (u >= d(x, c_old)).
    if (old >= 0 && low[g] > u) {
      skipped[size_t(g)] = 1;
      continue;
    }
    for (int m = groups_.start[size_t(g)]; m < groups_.start[size_t(g) + 1]; ++m) {
      const int c = groups_.members[size_t(m)];
      if (c == old) continue;
      take(c, floatSquaredDistance(x, &centers_[static_cast<size_t>(c) * d_], d_));
      ++distances;
    }
  }
  // The float arg-min b is the label when its upper end is below every measured center's lower
  // end (the others are beyond u, and b's upper end is not above c_old's, which is u).
  const double hb = b >= 0 ? upperDistance(fb, gamma_, slack_) : HUGE_VAL;
  bool unique = b >= 0 && std::isfinite(hb);
  for (int c = 0; c < k_ && unique; ++c)
    if (measured[size_t(c)] && c != b && !(lowerDistance(f[size_t(c)], gamma_, slack_) > hb))
      unique = false;
  int a = b;
  if (!unique) {  // near a tie (or a non-finite distance): the reference's arithmetic decides
    a = -1;
    double best = 0;
    for (int c = 0; c < k_; ++c) {
      if (!measured[size_t(c)]) continue;
      if (std::isfinite(hb) && lowerDistance(f[size_t(c)], gamma_, slack_) > hb) continue;
      const double dd = exactSquaredDistance(x, 1, &centers_[static_cast<size_t>(c) * d_], d_);
      if (a < 0 || dd < best) {
        a = c;
        best = dd;
      }
    }
  }
  upper_[static_cast<size_t>(i)] = floatUp(upperDistance(f[size_t(a)], gamma_, slack_));
  for (int g = 0; g < g_; ++g) {
    if (skipped[size_t(g)]) continue;  // still a bound: none of its centers was measured
    double least = HUGE_VAL;
    for (int m = groups_.start[size_t(g)]; m < groups_.start[size_t(g) + 1]; ++m) {
      const int c = groups_.members[size_t(m)];
      if (c == a) continue;
      least = std::min(least, lowerDistance(f[size_t(c)], gamma_, slack_));
    }
    low[g] = floatDown(least);
  }
  // The old center, when it lost the point, joins its group's bound (its group may be skipped).
  if (old >= 0 && a != old) {
    const int g = groups_.groupOf[size_t(old)];
    low[g] = std::min(low[g], floatDown(lowerDistance(oldF, gamma_, slack_)));
  }
  return a;
}

void KMeansPrunedHost::moveCenters() {
  std::vector<float> moved = centers_;
  for (int c = 0; c < k_; ++c) {
    const int64_t count = counts_[static_cast<size_t>(c)];
    if (count == 0) continue;  // an empty cluster keeps its center (the reference's rule)
    for (int q = 0; q < d_; ++q)
      moved[static_cast<size_t>(c) * d_ + q] =
          static_cast<float>(sums_[static_cast<size_t>(c) * d_ + q] / double(count));
  }
  // Drifts rounded up, half distances rounded down; the relative 1e-12 covers the double sums.
  std::fill(groupDrift_.begin(), groupDrift_.end(), 0.f);
  for (int c = 0; c < k_; ++c) {
    const size_t o = static_cast<size_t>(c) * d_;
    const double dd = exactSquaredDistance(&centers_[o], 1, &moved[o], d_);
    const float drift = floatUp(std::sqrt(dd) * (1.0 + 1e-12));
    drift_[static_cast<size_t>(c)] = drift;
    float& top = groupDrift_[size_t(groups_.groupOf[size_t(c)])];
    top = std::max(top, drift);  // (a NaN drift never lowers it, and makes the bounds NaN below)
    if (std::isnan(drift)) top = drift;
  }
  centers_ = std::move(moved);
  for (int c = 0; c < k_; ++c) {
    double nearest = std::numeric_limits<double>::infinity();
    for (int o = 0; o < k_; ++o)
      if (o != c)
        nearest = std::min(nearest, exactSquaredDistance(&centers_[static_cast<size_t>(c) * d_], 1,
                                                         &centers_[static_cast<size_t>(o) * d_], d_));
    half_[static_cast<size_t>(c)] = floatDown(0.5 * std::sqrt(nearest) * (1.0 - 1e-12));
  }
}

void KMeansPrunedHost::scoreFromSums(KMeansPrunedIteration& out) const {
  out.clusterScore.assign(static_cast<size_t>(k_), 0.0);
  out.clusterCount.assign(static_cast<size_t>(k_), 0);
  for (int c = 0; c < k_; ++c) {
    const int64_t count = counts_[static_cast<size_t>(c)];
    out.clusterCount[static_cast<size_t>(c)] = static_cast<int32_t>(count);
    if (count == 0) continue;
    double dot = 0, norm = 0;
    for (int q = 0; q < d_; ++q) {
      const double cq = centers_[static_cast<size_t>(c) * d_ + q];
      dot += cq * sums_[static_cast<size_t>(c) * d_ + q];
      norm += cq * cq;
    }
    // Never below 0: the cancellation of a tight cluster far from the origin can round there.
    out.clusterScore[static_cast<size_t>(c)] =
        std::max(0.0, sumSquares_[static_cast<size_t>(c)] - 2.0 * dot + double(count) * norm);
  }
}

// The smallest of a point's group bounds; NaN when one is NaN (a non-finite drift), which then
// fails every test.
float KMeansPrunedHost::nearestOther(const float* low) const {
  float m = std::numeric_limits<float>::infinity();
  for (int g = 0; g < g_; ++g) {
    if (std::isnan(low[g])) return low[g];
    m = std::min(m, low[g]);
  }
  return m;
}

KMeansPrunedIteration KMeansPrunedHost::iterate(int iteration) {
  KMeansPrunedIteration out;
  const bool first = iteration == 0;
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&] {
    const auto t1 = std::chrono::steady_clock::now();
    out.stepMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    t0 = t1;
  };
  if (!first) moveCenters();
  lap();
  // The bounds: the points they cannot decide are listed, in point order (every point in the
  // first iteration).
  const std::vector<int32_t> before = labels_;
  listed_.clear();
  if (first) {
    listed_.resize(static_cast<size_t>(n_));
    for (int64_t i = 0; i < n_; ++i) listed_[static_cast<size_t>(i)] = i;
  } else {
    std::vector<uint8_t> holds(static_cast<size_t>(n_));
    parallelFor(n_, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const size_t ii = static_cast<size_t>(i);
        const size_t a = static_cast<size_t>(labels_[ii]);
        float* low = &lower_[ii * g_];
        for (int g = 0; g < g_; ++g) low[g] = floatDown(double(low[g]) - double(groupDrift_[size_t(g)]));
        upper_[ii] = floatUp(double(upper_[ii]) + double(drift_[a]));
        holds[ii] = upper_[ii] < std::max(nearestOther(low), half_[a]);
      }
    }, kGrain);
    for (int64_t i = 0; i < n_; ++i)
      if (!holds[static_cast<size_t>(i)]) listed_.push_back(i);
  }
  out.skipped = n_ - static_cast<int64_t>(listed_.size());
  lap();
  // The listed points: their own center re-measured, then, if that does not settle them, the
  // groups their bounds cannot exclude.
  const int64_t count = static_cast<int64_t>(listed_.size());
  const int64_t chunks = std::max<int64_t>(1, (count + kGrain - 1) / kGrain);
  std::vector<int64_t> tightened(static_cast<size_t>(chunks)), decided(tightened.size()),
      distances(tightened.size());
  parallelChunks(count, chunks, [&](int64_t chunk, int64_t b, int64_t e) {
    const size_t ch = static_cast<size_t>(chunk);
    for (int64_t j = b; j < e; ++j) {
      const int64_t i = listed_[static_cast<size_t>(j)];
      const size_t ii = static_cast<size_t>(i);
      const float* x = x_ + i * d_;
      if (first) {
        labels_[ii] = decide(x, i, -1, 0.f, distances[ch]);
        ++decided[ch];
        continue;
      }
      const int a = labels_[ii];
      const float own = floatSquaredDistance(x, &centers_[static_cast<size_t>(a) * d_], d_);
      ++distances[ch];
      upper_[ii] = floatUp(upperDistance(own, gamma_, slack_));
      if (upper_[ii] < std::max(nearestOther(&lower_[ii * g_]), half_[size_t(a)])) {
        ++tightened[ch];
        continue;
      }
      labels_[ii] = decide(x, i, a, own, distances[ch]);
      ++decided[ch];
    }
  });
  for (size_t c = 0; c < tightened.size(); ++c) {
    out.tightened += tightened[c];
    out.decided += decided[c];
    out.distances += distances[c];
  }
  lap();
  // The sums follow the labels: every point the first time, the changed ones after, in point
  // order (only listed points can have changed).
  for (const int64_t i : listed_) {
    const size_t ii = static_cast<size_t>(i);
    const int now = labels_[ii];
    const int was = before[ii];
    if (now == was) continue;
    ++out.changed;
    const float* x = x_ + i * d_;
    if (was >= 0) {
      double* s = &sums_[static_cast<size_t>(was) * d_];
      for (int q = 0; q < d_; ++q) s[q] -= x[q];
      sumSquares_[static_cast<size_t>(was)] -= pointSquares_[ii];
      --counts_[static_cast<size_t>(was)];
    }
    double* s = &sums_[static_cast<size_t>(now) * d_];
    for (int q = 0; q < d_; ++q) s[q] += x[q];
    sumSquares_[static_cast<size_t>(now)] += pointSquares_[ii];
    ++counts_[static_cast<size_t>(now)];
  }
  lap();
  scoreFromSums(out);
  lap();
  return out;
}

}  // namespace kernellab::clustering

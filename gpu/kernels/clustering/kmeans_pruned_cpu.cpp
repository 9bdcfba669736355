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

// Sequential fused multiply-adds, as the float bound assumes (any order would do).
float floatSquaredDistance(const float* x, const float* c, int d) {
  float acc = 0.f;
  for (int q = 0; q < d; ++q) {
    const float t = x[q] - c[q];
    acc = std::fma(t, t, acc);
  }
  return acc;
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
  sums_.assign(static_cast<size_t>(k_) * d_, 0.0);
  sumSquares_.assign(static_cast<size_t>(k_), 0.0);
  counts_.assign(static_cast<size_t>(k_), 0);
  labels_.assign(static_cast<size_t>(n_), -1);
  upper_.assign(static_cast<size_t>(n_), std::numeric_limits<float>::quiet_NaN());
  lower_.assign(static_cast<size_t>(n_), std::numeric_limits<float>::quiet_NaN());
  drift_.assign(static_cast<size_t>(k_), 0.f);
  otherDrift_.assign(static_cast<size_t>(k_), 0.f);
  half_.assign(static_cast<size_t>(k_), 0.f);
}

float KMeansPrunedHost::ownUpper(const float* x, int c) const {
  const float f = floatSquaredDistance(x, &centers_[static_cast<size_t>(c) * d_], d_);
  return floatUp(upperDistance(f, gamma_, slack_));
}

int KMeansPrunedHost::decide(const float* x, float& upper, float& lower) const {
  thread_local std::vector<double> lo, hi;
  lo.resize(static_cast<size_t>(k_));
  hi.resize(static_cast<size_t>(k_));
  int b = 0;
  float fb = std::numeric_limits<float>::infinity();
  for (int c = 0; c < k_; ++c) {
    const float f = floatSquaredDistance(x, &centers_[static_cast<size_t>(c) * d_], d_);
    lo[c] = lowerDistance(f, gamma_, slack_);
    hi[c] = upperDistance(f, gamma_, slack_);
    if (f < fb) {
      fb = f;
      b = c;
    }
  }
  bool unique = std::isfinite(hi[b]);
  for (int c = 0; c < k_ && unique; ++c)
    if (c != b && !(lo[c] > hi[b])) unique = false;
  int a = b;
  if (!unique) {  // near a tie (or a non-finite distance): the reference's arithmetic decides
    a = -1;
    double best = 0;
    for (int c = 0; c < k_; ++c) {
      if (std::isfinite(hi[b]) && lo[c] > hi[b]) continue;  // provably farther than b
      const double dd = exactSquaredDistance(x, 1, &centers_[static_cast<size_t>(c) * d_], d_);
      if (a < 0 || dd < best) {
        a = c;
        best = dd;
      }
    }
  }
  double low = std::numeric_limits<double>::infinity();
  for (int c = 0; c < k_; ++c)
    if (c != a) low = std::min(low, lo[c]);
  upper = floatUp(hi[a]);
  lower = floatDown(low);
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
  int top = -1;
  float topDrift = 0.f, secondDrift = 0.f;
  for (int c = 0; c < k_; ++c) {
    const size_t o = static_cast<size_t>(c) * d_;
    const double dd = exactSquaredDistance(&centers_[o], 1, &moved[o], d_);
    const float drift = floatUp(std::sqrt(dd) * (1.0 + 1e-12));
    drift_[static_cast<size_t>(c)] = drift;
    if (top < 0 || drift > topDrift) {
      secondDrift = topDrift;
      topDrift = drift;
      top = c;
    } else if (drift > secondDrift) {
      secondDrift = drift;
    }
  }
  for (int c = 0; c < k_; ++c) otherDrift_[static_cast<size_t>(c)] = c == top ? secondDrift : topDrift;
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
        PrunedPointBounds bounds{upper_[ii], lower_[ii]};
        holds[ii] = prunedBoundsHold(bounds, PrunedCenterMove{drift_[a], otherDrift_[a], half_[a]});
        upper_[ii] = bounds.upper;
        lower_[ii] = bounds.lower;
      }
    }, kGrain);
    for (int64_t i = 0; i < n_; ++i)
      if (!holds[static_cast<size_t>(i)]) listed_.push_back(i);
  }
  out.skipped = n_ - static_cast<int64_t>(listed_.size());
  lap();
  // The listed points: their own center re-measured, then, if that does not settle them, all K.
  const int64_t count = static_cast<int64_t>(listed_.size());
  const int64_t chunks = std::max<int64_t>(1, (count + kGrain - 1) / kGrain);
  std::vector<int64_t> tightened(static_cast<size_t>(chunks)), decided(tightened.size());
  parallelChunks(count, chunks, [&](int64_t chunk, int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const int64_t i = listed_[static_cast<size_t>(j)];
      const size_t ii = static_cast<size_t>(i);
      const float* x = x_ + i * d_;
      if (!first) {
        const size_t a = static_cast<size_t>(labels_[ii]);
        const PrunedCenterMove m{drift_[a], otherDrift_[a], half_[a]};
        const float own = ownUpper(x, static_cast<int>(a));
        if (prunedTightenedHolds(own, PrunedPointBounds{upper_[ii], lower_[ii]}, m)) {
          upper_[ii] = own;
          ++tightened[static_cast<size_t>(chunk)];
          continue;
        }
      }
      labels_[ii] = decide(x, upper_[ii], lower_[ii]);
      ++decided[static_cast<size_t>(chunk)];
    }
  });
  for (size_t c = 0; c < tightened.size(); ++c) {
    out.tightened += tightened[c];
    out.decided += decided[c];
  }
  out.distances = out.tightened + int64_t(k_) * out.decided;
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

// SPDX-License-Identifier: MIT
// Clustering data: the seed's generator, Gaussian blobs, the dimension-major arrangement and the
// initial centers (first, random, k-means++, given, and k-centers' first point).
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"
#include "kernellab/text.h"

namespace kernellab::clustering {

namespace {

constexpr double kPi = 3.14159265358979323846;

void checkShape(int64_t n, int k, int d, double radius) {
  if (n < 1) throw InputError("--n " + std::to_string(n) + " must be at least 1");
  if (d < 1) throw InputError("--d " + std::to_string(d) + " must be at least 1");
  if (k < 1) throw InputError("--k " + std::to_string(k) + " must be at least 1");
  if (k > n)
    throw InputError("--k " + std::to_string(k) + " is larger than --n " + std::to_string(n) +
                     " (K clusters need at least K points)");
  if (!(radius > 0) || !std::isfinite(radius))
    throw InputError("radius " + formatFixed(radius, 3) + " must be a positive number");
}

// Cluster centers uniform in [-halfWidth, halfWidth]^d; while K is small enough to check pairs,
// a center closer than `separation` to an earlier one in every dimension (Chebyshev distance) is
// drawn again, so the clusters' boxes do not overlap.
std::vector<double> spreadCenters(int k, int d, double halfWidth, double separation,
                                  SeqRandom& rng) {
  std::vector<double> c(static_cast<size_t>(k) * d);
  const bool check = k <= 4096;
  for (int a = 0; a < k; ++a) {
    double* row = &c[static_cast<size_t>(a) * d];
    for (int attempt = 0; attempt < 64; ++attempt) {
      for (int j = 0; j < d; ++j) row[j] = (2.0 * rng.uniform() - 1.0) * halfWidth;
      bool apart = true;
      for (int b = 0; check && apart && b < a; ++b) {
        const double* other = &c[static_cast<size_t>(b) * d];
        bool someDimensionApart = false;
        for (int j = 0; j < d && !someDimensionApart; ++j)
          someDimensionApart = std::fabs(row[j] - other[j]) >= separation;
        apart = someDimensionApart;
      }
      if (apart) break;
    }
  }
  return c;
}

// K clusters of N / K points; the first N % K clusters take one more.
std::vector<int64_t> clusterCounts(int64_t n, int k) {
  std::vector<int64_t> counts(static_cast<size_t>(k), n / k);
  for (int64_t c = 0; c < n % k; ++c) ++counts[static_cast<size_t>(c)];
  return counts;
}

// The side of the box the centers are drawn from grows with K^(1/D), so low-dimensional sets
// with many clusters still have room for all of them.
double boxHalfWidth(int k, int d, double radius, double base, double perCluster) {
  return radius * (base + perCluster * std::pow(static_cast<double>(k), 1.0 / d));
}

// Everything the seed generator draws before the points: point i follows from it alone, so a
// sample of the points (the window's view of a large set) is exactly the full set's points.
struct SeedPlan {
  int d = 0;
  std::vector<double> centers;
  std::vector<int64_t> start;  // first point of each cluster; start[k] = n
  uint64_t steps = 1;
  uint64_t salt = 0;
};

SeedPlan seedPlan(int64_t n, int k, int d, double radius, uint64_t seed) {
  SeedPlan p;
  p.d = d;
  SeqRandom rng(seed);
  p.centers = spreadCenters(k, d, boxHalfWidth(k, d, radius, 2.0, 2.0), 2.5 * radius, rng);
  const std::vector<int64_t> counts = clusterCounts(n, k);
  p.start.assign(static_cast<size_t>(k) + 1, 0);
  for (int c = 0; c < k; ++c) p.start[c + 1] = p.start[c] + counts[c];
  // The seed draws (rand() % RADIUS) / 100 with RADIUS ~ 1e5: offsets in [0, radius) in 0.01 steps.
  p.steps = static_cast<uint64_t>(std::max<int64_t>(1, std::llround(radius * 100.0)));
  p.salt = splitmix64(seed ^ 0x5EEDC1A55E5ull);
  return p;
}

int seedCluster(const SeedPlan& p, int64_t i) {
  return static_cast<int>(std::upper_bound(p.start.begin(), p.start.end(), i) - p.start.begin()) -
         1;
}

void seedPoint(const SeedPlan& p, int64_t i, int c, float* out) {
  const bool even = (i - p.start[static_cast<size_t>(c)]) % 2 == 0;
  const double* centre = &p.centers[static_cast<size_t>(c) * p.d];
  for (int j = 0; j < p.d; ++j) {
    const uint64_t key = p.salt + static_cast<uint64_t>(i) * static_cast<uint64_t>(p.d) + j;
    const double offset = static_cast<double>(splitmix64(key) % p.steps) / 100.0;
    out[j] = static_cast<float>(even ? centre[j] + offset : centre[j] - offset);
  }
}

// The blobs' draws before the points, including the shuffled cluster of every point (4 bytes per
// point: the one part of the set that is not per point).
struct BlobPlan {
  int d = 0;
  std::vector<double> centers;
  std::vector<double> sigma;
  std::vector<int32_t> truth;
  uint64_t salt = 0;
  double noiseHalf = 0;
};

BlobPlan blobPlan(int64_t n, int k, int d, double radius, double noiseFraction, uint64_t seed) {
  BlobPlan p;
  p.d = d;
  SeqRandom rng(seed ^ 0xB10B5ull);
  const double half = boxHalfWidth(k, d, radius, 2.0, 3.0);
  p.centers = spreadCenters(k, d, half, 3.0 * radius, rng);
  p.sigma.resize(static_cast<size_t>(k));
  for (auto& sg : p.sigma) sg = radius * (0.15 + 0.35 * rng.uniform());
  const int64_t noise = std::clamp<int64_t>(std::llround(noiseFraction * double(n)), 0, n - k);
  const std::vector<int64_t> counts = clusterCounts(n - noise, k);
  p.truth.reserve(static_cast<size_t>(n));
  for (int c = 0; c < k; ++c) p.truth.insert(p.truth.end(), static_cast<size_t>(counts[c]), c);
  p.truth.insert(p.truth.end(), static_cast<size_t>(noise), -1);
  for (int64_t i = n - 1; i > 0; --i)  // Fisher-Yates: clusters interleave in memory
    std::swap(p.truth[static_cast<size_t>(i)], p.truth[rng.below(static_cast<uint64_t>(i) + 1)]);
  p.salt = splitmix64(seed ^ 0xB10B5B10B5ull);
  p.noiseHalf = half + radius;
  return p;
}

void blobPoint(const BlobPlan& p, int64_t i, float* out) {
  const int c = p.truth[static_cast<size_t>(i)];
  for (int j = 0; j < p.d; ++j) {
    const uint64_t key = p.salt + 2 * (static_cast<uint64_t>(i) * static_cast<uint64_t>(p.d) + j);
    if (c < 0) {
      out[j] = static_cast<float>((2.0 * uniform01(key) - 1.0) * p.noiseHalf);
    } else {
      // Box-Muller: u1 in (0, 1] keeps the logarithm finite.
      const double u1 = 1.0 - uniform01(key), u2 = uniform01(key + 1);
      const double g = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
      out[j] = static_cast<float>(p.centers[static_cast<size_t>(c) * p.d + j] + p.sigma[c] * g);
    }
  }
}

std::string seedSource(int64_t n, int k, int d, double radius, uint64_t seed) {
  return "seed generator N=" + std::to_string(n) + " K=" + std::to_string(k) +
         " D=" + std::to_string(d) + " radius=" + formatFixed(radius, 2) +
         " seed=" + std::to_string(seed);
}

std::string blobsSource(int64_t n, int k, int d, double radius, double noiseFraction,
                        uint64_t seed) {
  return "blobs N=" + std::to_string(n) + " K=" + std::to_string(k) + " D=" + std::to_string(d) +
         " radius=" + formatFixed(radius, 2) + " noise=" + formatFixed(noiseFraction, 3) +
         " seed=" + std::to_string(seed);
}

void checkNoise(double noiseFraction) {
  if (!(noiseFraction >= 0.0 && noiseFraction < 1.0))
    throw InputError("noise fraction " + formatFixed(noiseFraction, 3) + " is outside [0, 1)");
}

}  // namespace

PointSet generateSeedPoints(int64_t n, int k, int d, double radius, uint64_t seed) {
  checkShape(n, k, d, radius);
  PointSet s;
  s.n = n;
  s.d = d;
  s.source = seedSource(n, k, d, radius, seed);
  const SeedPlan plan = seedPlan(n, k, d, radius, seed);
  s.truth.resize(static_cast<size_t>(n));
  for (int c = 0; c < k; ++c)
    std::fill(s.truth.begin() + plan.start[c], s.truth.begin() + plan.start[c + 1], c);
  s.values.resize(static_cast<size_t>(n) * d);
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      seedPoint(plan, i, s.truth[static_cast<size_t>(i)], &s.values[static_cast<size_t>(i) * d]);
  });
  return s;
}

PointSet generateBlobs(int64_t n, int k, int d, double radius, double noiseFraction,
                       uint64_t seed) {
  checkShape(n, k, d, radius);
  checkNoise(noiseFraction);
  PointSet s;
  s.n = n;
  s.d = d;
  s.source = blobsSource(n, k, d, radius, noiseFraction, seed);
  BlobPlan plan = blobPlan(n, k, d, radius, noiseFraction, seed);
  s.values.resize(static_cast<size_t>(n) * d);
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) blobPoint(plan, i, &s.values[static_cast<size_t>(i) * d]);
  });
  s.truth = std::move(plan.truth);
  return s;
}

PointSet generatePointsAt(const ClusteringProblem& p, uint64_t seed,
                          const std::vector<int64_t>& indices) {
  if (!p.inputPath.empty())
    throw InputError("the points of " + p.inputPath + " come from a file, not the generator");
  checkShape(p.n, p.k, p.d, p.radius);
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i] < 0 || indices[i] >= p.n || (i > 0 && indices[i] <= indices[i - 1]))
      throw InputError("point index " + std::to_string(indices[i]) + " is outside 0.." +
                       std::to_string(p.n - 1) + " or out of order");
  PointSet s;
  s.n = static_cast<int64_t>(indices.size());
  s.d = p.d;
  s.values.resize(indices.size() * static_cast<size_t>(p.d));
  s.truth.resize(indices.size());
  const int64_t m = s.n;
  if (p.shape == DatasetShape::Blobs) {
    checkNoise(p.noiseFraction);
    s.source = blobsSource(p.n, p.k, p.d, p.radius, p.noiseFraction, seed);
    const BlobPlan plan = blobPlan(p.n, p.k, p.d, p.radius, p.noiseFraction, seed);
    parallelFor(m, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t i = indices[static_cast<size_t>(j)];
        s.truth[static_cast<size_t>(j)] = plan.truth[static_cast<size_t>(i)];
        blobPoint(plan, i, &s.values[static_cast<size_t>(j) * p.d]);
      }
    });
  } else {
    s.source = seedSource(p.n, p.k, p.d, p.radius, seed);
    const SeedPlan plan = seedPlan(p.n, p.k, p.d, p.radius, seed);
    parallelFor(m, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t i = indices[static_cast<size_t>(j)];
        const int c = seedCluster(plan, i);
        s.truth[static_cast<size_t>(j)] = c;
        seedPoint(plan, i, c, &s.values[static_cast<size_t>(j) * p.d]);
      }
    });
  }
  return s;
}

PointSet makePoints(const ClusteringProblem& p, uint64_t seed) {
  if (!p.inputPath.empty()) return loadPoints(p.inputPath);
  if (p.shape == DatasetShape::Blobs)
    return generateBlobs(p.n, p.k, p.d, p.radius, p.noiseFraction, seed);
  return generateSeedPoints(p.n, p.k, p.d, p.radius, seed);
}

std::vector<float> toDimensionMajor(const PointSet& s) {
  std::vector<float> out(s.values.size());
  const int64_t n = s.n;
  const int d = s.d;
  constexpr int64_t kBlock = 256;  // a block of points read row by row, written column by column
  parallelFor((n + kBlock - 1) / kBlock,
              [&](int64_t b, int64_t e) {
                for (int64_t blk = b; blk < e; ++blk) {
                  const int64_t i0 = blk * kBlock, i1 = std::min(n, i0 + kBlock);
                  for (int j = 0; j < d; ++j)
                    for (int64_t i = i0; i < i1; ++i)
                      out[static_cast<size_t>(j) * n + i] =
                          s.values[static_cast<size_t>(i) * d + j];
                }
              },
              16);
  return out;
}

double squaredDistance(const PointSet& s, int64_t i, const float* center) {
  const float* x = &s.values[static_cast<size_t>(i) * s.d];
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;  // four chains: the adds do not wait on each other
  int j = 0;
  for (; j + 4 <= s.d; j += 4) {
    const double d0 = double(center[j]) - x[j], d1 = double(center[j + 1]) - x[j + 1];
    const double d2 = double(center[j + 2]) - x[j + 2], d3 = double(center[j + 3]) - x[j + 3];
    a0 += d0 * d0;
    a1 += d1 * d1;
    a2 += d2 * d2;
    a3 += d3 * d3;
  }
  for (; j < s.d; ++j) {
    const double dj = double(center[j]) - x[j];
    a0 += dj * dj;
  }
  return (a0 + a1) + (a2 + a3);
}

namespace {

std::vector<float> gather(const PointSet& s, const std::vector<int64_t>& indices) {
  std::vector<float> out;
  out.reserve(indices.size() * static_cast<size_t>(s.d));
  for (int64_t i : indices)
    out.insert(out.end(), s.values.begin() + i * s.d, s.values.begin() + (i + 1) * s.d);
  return out;
}

// K distinct indices of [0, n) in the order drawn (Floyd's algorithm: K draws, no O(n) memory).
std::vector<int64_t> distinctRandom(int64_t n, int k, SeqRandom& rng) {
  std::unordered_set<int64_t> taken;
  std::vector<int64_t> out;
  for (int64_t j = n - k; j < n; ++j) {
    const int64_t t = static_cast<int64_t>(rng.below(static_cast<uint64_t>(j) + 1));
    const int64_t pick = taken.count(t) ? j : t;
    taken.insert(pick);
    out.push_back(pick);
  }
  return out;
}

// k-means++ (Arthur and Vassilvitskii): the first center uniform, each next one drawn with
// probability proportional to its squared distance to the nearest center so far. The sums run
// over a fixed number of chunks so the draw is the same on every machine.
std::vector<int64_t> kmeansPlusPlus(const PointSet& s, int k, SeqRandom& rng) {
  constexpr int64_t kChunks = 256;
  const int64_t n = s.n;
  std::vector<int64_t> chosen{static_cast<int64_t>(rng.below(static_cast<uint64_t>(n)))};
  std::vector<double> minDist(static_cast<size_t>(n));
  std::vector<double> chunkSum(kChunks, 0.0);
  auto update = [&](int64_t centre, bool firstCenter) {
    const float* c = &s.values[static_cast<size_t>(centre) * s.d];
    std::fill(chunkSum.begin(), chunkSum.end(), 0.0);
    parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
      double sum = 0;
      for (int64_t i = b; i < e; ++i) {
        const double dd = squaredDistance(s, i, c);
        if (firstCenter || dd < minDist[i]) minDist[i] = dd;
        sum += minDist[i];
      }
      chunkSum[static_cast<size_t>(chunk)] = sum;
    });
  };
  update(chosen[0], true);
  const int64_t step = (n + kChunks - 1) / kChunks;
  while (static_cast<int>(chosen.size()) < k) {
    double total = 0;
    for (double c : chunkSum) total += c;
    int64_t pick = -1;
    if (total > 0) {
      double target = rng.uniform() * total;
      int64_t chunk = 0;
      while (chunk + 1 < kChunks && target >= chunkSum[chunk]) target -= chunkSum[chunk++];
      const int64_t b = chunk * step, e = std::min(n, b + step);
      for (int64_t i = b; i < e && pick < 0; ++i) {
        if (minDist[i] > 0 && target < minDist[i])
          pick = i;
        else
          target -= minDist[i];
      }
      if (pick < 0)  // rounding left the target past the chunk's last positive point
        for (int64_t i = e - 1; i >= b && pick < 0; --i)
          if (minDist[i] > 0) pick = i;
    }
    if (pick < 0) {  // every point sits on a center: any point not yet chosen will do
      for (int64_t i = 0; i < n && pick < 0; ++i)
        if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) pick = i;
    }
    chosen.push_back(pick);
    update(pick, false);
  }
  return chosen;
}

}  // namespace

InitialCenters initialCenters(const PointSet& s, int k, InitMethod method, uint64_t seed,
                              const std::string& centersPath) {
  if (k < 1) throw InputError("--k " + std::to_string(k) + " must be at least 1");
  if (k > s.n)
    throw InputError("--k " + std::to_string(k) + " is larger than the " + std::to_string(s.n) +
                     " points of " + s.source);
  InitialCenters out;
  SeqRandom rng(seed ^ 0x1217CE27E25ull);
  switch (method) {
    case InitMethod::First:
      for (int c = 0; c < k; ++c) out.indices.push_back(c);
      out.how = "the first " + std::to_string(k) + " points";
      break;
    case InitMethod::Random:
      out.indices = distinctRandom(s.n, k, rng);
      out.how = std::to_string(k) + " random points (seed " + std::to_string(seed) + ")";
      break;
    case InitMethod::KMeansPlusPlus:
      out.indices = kmeansPlusPlus(s, k, rng);
      out.how = "k-means++ (seed " + std::to_string(seed) + ")";
      break;
    case InitMethod::Given:
      if (centersPath.empty()) throw InputError("--init given needs --centers FILE");
      out.values = loadCenters(centersPath, k, s.d);
      out.how = centersPath;
      return out;
  }
  out.values = gather(s, out.indices);
  return out;
}

int64_t firstCenter(const PointSet& s, InitMethod method, uint64_t seed) {
  switch (method) {
    case InitMethod::First:
      return 0;
    case InitMethod::Random: {
      SeqRandom rng(seed ^ 0xF125CE27E2ull);
      return static_cast<int64_t>(rng.below(static_cast<uint64_t>(s.n)));
    }
    case InitMethod::KMeansPlusPlus:
      throw InputError(
          "--init kmeans++ applies to kmeans; kcenters starts from the first point "
          "(--init first) or a random one (--init random)");
    case InitMethod::Given:
      throw InputError(
          "--centers applies to kmeans; kcenters chooses its centers itself, starting "
          "from the first point (--init first) or a random one (--init random)");
  }
  return 0;
}

}  // namespace kernellab::clustering

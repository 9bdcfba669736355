// SPDX-License-Identifier: MIT
// makeDatasetPoints: the clustering family's generator and loaders when they are in the build,
// a preview stand-in until then.
#include "point_source.h"

#include <algorithm>
#include <cmath>

#include "kernellab/errors.h"

#if __has_include("kernellab/clustering.h")
#include "kernellab/clustering.h"
#define KERNELLAB_APP_HAVE_CLUSTERING_POINTS 1
#endif

namespace kernellab::app {
namespace {

#ifndef KERNELLAB_APP_HAVE_CLUSTERING_POINTS
// Preview stand-in, used only until kernellab::clustering::makePoints exists: K Gaussian clusters
// of N/K points around centers spread over [-radius, radius]^D (blobs: wider, plus noise).
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double uniform(uint64_t& s) { return (next(s) >> 11) * (1.0 / 9007199254740992.0); }
double gaussian(uint64_t& s) {
  const double u = std::max(uniform(s), 1e-300), v = uniform(s);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

DatasetPoints previewPoints(const ClusteringProblem& p, uint64_t seed) {
  if (p.n < 1 || p.k < 1 || p.d < 1)
    throw InputError("points: N, K and D must be at least 1 (N=" + std::to_string(p.n) +
                     ", K=" + std::to_string(p.k) + ", D=" + std::to_string(p.d) + ")");
  if (static_cast<double>(p.n) * p.d > 2e9)
    throw InputError("points: N x D = " + std::to_string(p.n) + " x " + std::to_string(p.d) +
                     " values is more than the 2e9 this view holds");
  DatasetPoints out;
  out.n = p.n;
  out.d = p.d;
  uint64_t state = seed * 0x2545F4914F6CDD1Dull + 1;
  const double radius = p.radius > 0 ? p.radius : 1000.0;
  const bool blobs = p.shape == DatasetShape::Blobs;
  const double spread = radius * (blobs ? 0.12 : 0.05);
  std::vector<double> centers(static_cast<size_t>(p.k) * p.d);
  for (double& c : centers) c = (2.0 * uniform(state) - 1.0) * radius;
  auto values = std::make_shared<std::vector<float>>(static_cast<size_t>(p.n) * p.d);
  out.truth.resize(static_cast<size_t>(p.n));
  const double noise = blobs ? std::clamp(p.noiseFraction, 0.0, 0.9) : 0.0;
  for (int64_t i = 0; i < p.n; ++i) {
    const bool isNoise = noise > 0 && uniform(state) < noise;
    const int cluster = static_cast<int>(i % p.k);
    out.truth[static_cast<size_t>(i)] = isNoise ? -1 : cluster;
    float* v = values->data() + i * p.d;
    for (int j = 0; j < p.d; ++j)
      v[j] = static_cast<float>(isNoise ? (2.0 * uniform(state) - 1.0) * radius * 1.2
                                        : centers[static_cast<size_t>(cluster) * p.d + j] +
                                              gaussian(state) * spread);
  }
  out.values = std::move(values);
  out.source = std::string("preview generator (") + (blobs ? "blobs" : "seed shape") +
               "), seed " + std::to_string(seed);
  return out;
}
#endif

}  // namespace

DatasetPoints makeDatasetPoints(const ClusteringProblem& problem, uint64_t seed) {
#ifdef KERNELLAB_APP_HAVE_CLUSTERING_POINTS
  clustering::PointSet set = clustering::makePoints(problem, seed);
  DatasetPoints out;
  out.n = set.n;
  out.d = set.d;
  out.values = std::make_shared<const std::vector<float>>(std::move(set.values));
  out.truth = std::move(set.truth);
  out.source = set.source;
  return out;
#else
  if (!problem.inputPath.empty())
    throw InputError("opening '" + problem.inputPath +
                     "': point files are read by the clustering family, which is not in this build");
  return previewPoints(problem, seed);
#endif
}

bool clusteringPointsInBuild() {
#ifdef KERNELLAB_APP_HAVE_CLUSTERING_POINTS
  return true;
#else
  return false;
#endif
}

}  // namespace kernellab::app

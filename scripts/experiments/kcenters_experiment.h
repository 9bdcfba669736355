// SPDX-License-Identifier: MIT
// The pieces the k-centers experiments share (not part of the product): the variants' distance
// arithmetic, the 8-bit sketch as the product builds it (clustering_pruning.h), and the
// farthest-first traversal's bookkeeping. Header-only, for programs built with one g++ line.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "kernellab/clustering.h"
#include "kernellab/clustering_pruning.h"

namespace kernellab::clustering::experiment {

// The data of a run from its arguments [N] [D] [seed|blobs] (defaults 1e6, 200, seed), K = 100
// clusters with the CLI's defaults (radius 1000, seed 1; blobs without noise), its source printed
// as "# data: ..."; nothing (and a message) for an unknown shape.
inline std::optional<PointSet> dataFromArguments(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const int d = argc > 2 ? std::atoi(argv[2]) : 200;
  const bool blobs = argc > 3 && std::strcmp(argv[3], "blobs") == 0;
  if (argc > 3 && !blobs && std::strcmp(argv[3], "seed") != 0) {
    std::fprintf(stderr, "shape %s: seed or blobs\n", argv[3]);
    return std::nullopt;
  }
  PointSet set = blobs ? generateBlobs(n, 100, d, 1000.0, 0.0, 1)
                       : generateSeedPoints(n, 100, d, 1000.0, 1);
  std::printf("# data: %s\n", set.source.c_str());
  return set;
}

// The squared distance, float, dimension 0 first (the variants' arithmetic).
inline float dist2(const float* c, const float* x, int d) {
  float s = 0.f;
  for (int q = 0; q < d; ++q) {
    const float t = c[q] - x[q];
    s = std::fma(t, t, s);
  }
  return s;
}

// The 8-bit sketch's grid per dimension, from the range of the point-major points X.
inline std::vector<SketchScale> sketchScales(const float* X, int64_t n, int d) {
  std::vector<SketchScale> sc(d);
  for (int q = 0; q < d; ++q) {
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, X[i * d + q]);
      hi = std::max(hi, X[i * d + q]);
    }
    sc[q] = sketchScale(lo, hi);
  }
  return sc;
}

// The points rebuilt from their 8-bit codes (x8, point-major) and each point's error e(x), the
// exact norm of x - x8 rounded up by a relative 1e-6 (the product's slack is far below it here).
inline void rebuild8(const float* X, int64_t n, int d, const std::vector<SketchScale>& sc,
                     std::vector<float>& x8, std::vector<float>& e8) {
  x8.assign(size_t(n) * d, 0.f);
  e8.assign(n, 0.f);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    double s8 = 0;
    for (int q = 0; q < d; ++q) {
      const float x = X[i * d + q];
      const unsigned c = sketchCode(x, sc[q]);
      const double r8 = double(sc[q].lo) + double(sc[q].step) * c;
      x8[i * d + q] = float(r8);
      s8 += (x - r8) * (x - r8);
    }
    e8[i] = float(std::sqrt(s8) * 1.000001);
  }
}

// The exact squared distances (double, stored as float) from the new center's row to each
// earlier center: what the triangle test compares with 4 r.
inline std::vector<float> centerDistances(const float* X, int d, const float* center,
                                          const std::vector<int64_t>& earlier) {
  std::vector<float> cd(earlier.size());
  for (size_t a = 0; a < earlier.size(); ++a) {
    double s = 0;
    for (int q = 0; q < d; ++q) {
      const double u = double(center[q]) - X[earlier[a] * d + q];
      s += u * u;
    }
    cd[a] = float(s);
  }
  return cd;
}

// The next center: the farthest point, the lowest index on a tie (the product's rule); its
// squared distance in *value.
inline int64_t farthestPoint(const std::vector<float>& dist, float* value) {
  float best = -1.f;
  int64_t bi = 0;
  for (size_t i = 0; i < dist.size(); ++i)
    if (dist[i] > best) {
      best = dist[i];
      bi = static_cast<int64_t>(i);
    }
  *value = best;
  return bi;
}

}  // namespace kernellab::clustering::experiment

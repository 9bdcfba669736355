// SPDX-License-Identifier: MIT
// k-centers, pruned (issue 15), on the CPU (kcenters_pruned_cpu.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace kernellab::clustering {

struct KCentersPrunedRun {
  std::vector<int64_t> centers;  // K point indices, in order
  std::vector<float> radii;      // after center j: the largest squared distance
  std::vector<int32_t> labels;
  std::vector<float> dist;       // squared distance to the nearest center
  // per center: points whose coordinates its passes read (each once for all the centers its
  // unit of 32 missed; the lazy traversal, kcenters_pruned_cpu.cpp)
  std::vector<int64_t> visited;
  // per center: point-center distances its passes summed (a caught-up unit's points times the
  // missed centers it listed; N for the first center)
  std::vector<int64_t> distances;
};

// K centers from `first` over dimension-major points (X[q * n + i]); stops early (the rest of the
// result left poisoned: centers -1, radii NaN) when `cancel` is set. Throws InputError when N, D or
// K is out of range or `first` is not a point.
//
// Bit for bit the CPU seed variants' result (the same float sums in the same order, the same tie
// rules: the lower index wins a farthest-point tie, a point at equal distance keeps its earlier
// center); the runner checks that whenever both run (clustering_family.cpp).
KCentersPrunedRun kcentersPrunedHost(const float* X, int64_t n, int d, int k, int64_t first,
                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace kernellab::clustering

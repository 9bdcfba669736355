// SPDX-License-Identifier: MIT
#include "kmeans_center_groups.h"

#include <algorithm>
#include <cstddef>

namespace kernellab::clustering {

int centerGroupCount(int k) { return std::clamp((k + 9) / 10, 1, kMaxCenterGroups); }

CenterGroups groupCenters(const std::vector<float>& centers, int k, int d, int wanted) {
  const int g = std::clamp(wanted, 1, std::max(1, k));
  std::vector<double> means(static_cast<size_t>(g) * d);
  for (int j = 0; j < g; ++j) {
    const size_t seed = static_cast<size_t>(int64_t(j) * k / g);
    for (int q = 0; q < d; ++q) means[size_t(j) * d + q] = centers[seed * d + q];
  }
  std::vector<int> of(static_cast<size_t>(k), 0);
  constexpr int kIterations = 5;
  for (int it = 0; it <= kIterations; ++it) {
    for (int c = 0; c < k; ++c) {
      int bestGroup = 0;
      double best = 0;
      for (int j = 0; j < g; ++j) {
        double s = 0;
        for (int q = 0; q < d; ++q) {
          const double t = double(centers[size_t(c) * d + q]) - means[size_t(j) * d + q];
          s += t * t;
        }
        if (j == 0 || s < best) {  // NaN never wins: a non-finite center stays in group 0
          best = s;
          bestGroup = j;
        }
      }
      of[size_t(c)] = bestGroup;
    }
    if (it == kIterations) break;
    std::vector<double> sum(means.size(), 0.0);
    std::vector<int> count(static_cast<size_t>(g), 0);
    for (int c = 0; c < k; ++c) {
      ++count[size_t(of[size_t(c)])];
      for (int q = 0; q < d; ++q) sum[size_t(of[size_t(c)]) * d + q] += centers[size_t(c) * d + q];
    }
    for (int j = 0; j < g; ++j)
      if (count[size_t(j)] > 0)  // an empty group keeps its mean
        for (int q = 0; q < d; ++q) means[size_t(j) * d + q] = sum[size_t(j) * d + q] / count[size_t(j)];
  }
  // Renumber the non-empty groups in order and list their members.
  std::vector<int> renumber(static_cast<size_t>(g), -1);
  CenterGroups out;
  out.groupOf.resize(static_cast<size_t>(k));
  int used = 0;
  for (int c = 0; c < k; ++c) {
    int& r = renumber[size_t(of[size_t(c)])];
    if (r < 0) r = used++;
    out.groupOf[size_t(c)] = r;
  }
  out.start.assign(static_cast<size_t>(used) + 1, 0);
  for (int c = 0; c < k; ++c) ++out.start[size_t(out.groupOf[size_t(c)]) + 1];
  for (int j = 0; j < used; ++j) out.start[size_t(j) + 1] += out.start[size_t(j)];
  out.members.resize(static_cast<size_t>(k));
  std::vector<int> fill(out.start.begin(), out.start.end() - 1);
  for (int c = 0; c < k; ++c) out.members[size_t(fill[size_t(out.groupOf[size_t(c)])]++)] = c;
  return out;
}

}  // namespace kernellab::clustering

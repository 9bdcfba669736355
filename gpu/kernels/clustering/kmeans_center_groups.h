// SPDX-License-Identifier: MIT
// The groups of centers of the pruned k-means on the CPU (Yinyang k-means, Ding et al., ICML
// 2015): each point keeps one lower bound per group instead of one for all other centers, so a
// point that fails the global test measures only the groups its bounds cannot exclude. The groups
// are the initial centers clustered by a few Lloyd iterations of their own, so centers that lie
// close together (and pass a point's test together) share a bound.
#pragma once

#include <vector>

namespace kernellab::clustering {

// About ten centers a group (Ding et al.'s K / 10), at most kMaxCenterGroups: each group costs
// every point 4 bytes and a compare per iteration.
constexpr int kMaxCenterGroups = 32;
int centerGroupCount(int k);

struct CenterGroups {
  std::vector<int> groupOf;  // K: the group of each center
  std::vector<int> start;    // groups + 1: members of group g are members[start[g] .. start[g+1])
  std::vector<int> members;  // K center indices, ascending within a group
  int count() const { return static_cast<int>(start.size()) - 1; }
};

// Groups K x D centers (row-major floats) into at most `wanted` non-empty groups: seeds at evenly
// spaced centers, five Lloyd iterations in double, the lower index on a tie, empty groups dropped.
// Deterministic; a center with a non-finite coordinate joins group 0.
CenterGroups groupCenters(const std::vector<float>& centers, int k, int d, int wanted);

}  // namespace kernellab::clustering

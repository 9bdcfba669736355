// SPDX-License-Identifier: MIT
// When a k-means run stops: the request's rule (Lloyd's fixed point or
// Campaign's score rule) and the iteration limit, decided on the host after
// each iteration. One decision for every k-means path (the CPU executor, the
// seed's CUDA kernels and the GPU-only engines), because all of them run
// through the clustering runner's loop.
#pragma once

#include <cstdint>
#include <vector>

#include "kernellab/clustering_request.h"
#include "kernellab/result.h"

namespace kernellab::clustering {

class KMeansStop {
 public:
  explicit KMeansStop(const ClusteringProblem &p);

  // The fixed-point rule compares each iteration's labels with the previous
  // iteration's; the runner downloads them only when this says so (the score
  // rule needs the score alone).
  bool needsLabels() const { return rule_ == StopRule::FixedPoint; }

  // Feed iteration `iteration` (0-based, in order from 0): its score and, when
  // needsLabels(), its labels. Returns true when the run stops after this
  // iteration; reason() then says why.
  bool afterIteration(int iteration, double score, const std::vector<int32_t> &labels);

  StopReason reason() const { return reason_; }
  // Points whose label differs from the previous iteration's, for the last
  // iteration fed; -1 in the first iteration (nothing to compare with) and
  // under the score rule (not counted).
  int64_t labelsChanged() const { return changed_; }

 private:
  StopRule rule_;
  int maxIterations_;
  double epsilon_;
  double previousScore_ = 0;
  std::vector<int32_t> previousLabels_;
  int64_t changed_ = -1;
  StopReason reason_ = StopReason::None;
};

}  // namespace kernellab::clustering

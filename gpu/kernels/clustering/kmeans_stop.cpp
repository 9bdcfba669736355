// SPDX-License-Identifier: MIT
// The k-means stop decision (kmeans_stop.h).
#include "kmeans_stop.h"

#include <cmath>

namespace kernellab::clustering {

KMeansStop::KMeansStop(const ClusteringProblem &p)
    : rule_(p.stopRule), maxIterations_(p.maxIterations), epsilon_(p.epsilon) {}

bool KMeansStop::afterIteration(int iteration, double score, const std::vector<int32_t> &labels) {
  bool met = false;
  if (rule_ == StopRule::FixedPoint) {
    // Iteration 0 assigns from the initial centers: there is no previous
    // assignment to compare (scikit-learn starts from labels of -1 for the same
    // reason). From then on, unchanged labels mean the next centers would be
    // these centers again: Lloyd's fixed point.
    changed_ = -1;
    if (iteration > 0 && previousLabels_.size() == labels.size()) {
      changed_ = 0;
      for (size_t i = 0; i < labels.size(); ++i) changed_ += labels[i] != previousLabels_[i];
      met = changed_ == 0;
    }
    previousLabels_ = labels;
  } else {
    // The seed's rule, relative: the score changed by at most epsilon of the
    // previous score.
    met = iteration > 0 && std::fabs(score - previousScore_) <= epsilon_ * previousScore_;
    previousScore_ = score;
  }
  if (met) {
    reason_ = rule_ == StopRule::FixedPoint ? StopReason::Converged : StopReason::ScoreRule;
    return true;
  }
  if (iteration + 1 >= maxIterations_) {
    reason_ = StopReason::IterationLimit;
    return true;
  }
  return false;
}

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// k-means, pruned (issue 15), on the CPU: Hamerly's bounds with proven rounding margins
// (kernellab/kmeans_pruning.h), over point-major points (X[i * d + q]) as the CUDA engine reads
// them. Labels equal plain Lloyd's from the same start at every iteration (exact decisions, the
// reference's tie rule); the runner verifies them like every other k-means variant's.
#pragma once

#include <cstdint>
#include <vector>

namespace kernellab::clustering {

struct KMeansPrunedIteration {
  int64_t skipped = 0;    // points the bounds decided (no coordinate read)
  int64_t tightened = 0;  // points decided by re-measuring their own center (one distance)
  int64_t decided = 0;    // points that computed all K distances
  int64_t changed = 0;    // points whose label changed
  int64_t distances = 0;  // point-center distances computed: tightened + K decided
  // Milliseconds of the steps, in the CUDA engine's kernel order: move the centers, test the
  // bounds, tighten or decide the listed points, move the sums, score.
  std::vector<double> stepMs;
  std::vector<double> clusterScore;  // per cluster, from the sums (Q - 2 c.S + n |c|^2)
  std::vector<int32_t> clusterCount;
};

class KMeansPrunedHost {
 public:
  // Throws InputError when N, D or K is out of range.
  KMeansPrunedHost(const float* points, int64_t n, int d, int k);

  // Poisons the labels and sets the centers (K x D) the first iteration uses.
  void begin(const std::vector<float>& centers);
  // Iteration 0 decides every point; later ones first move the centers to the means of the
  // previous labels, then test the bounds.
  KMeansPrunedIteration iterate(int iteration);

  const std::vector<int32_t>& labels() const { return labels_; }
  const std::vector<float>& centers() const { return centers_; }  // the last assignment's
  // Per point: >= the distance to its center, <= the distance to every other (tests check it).
  const std::vector<float>& upperBounds() const { return upper_; }
  const std::vector<float>& lowerBounds() const { return lower_; }

 private:
  void moveCenters();
  int decide(const float* x, float& upper, float& lower) const;  // the label; all K distances
  float ownUpper(const float* x, int c) const;                   // one distance, rounded up
  void scoreFromSums(KMeansPrunedIteration& out) const;

  const float* x_;
  int64_t n_;
  int d_, k_;
  double gamma_, slack_;
  std::vector<float> centers_;     // K x D
  std::vector<double> sums_;       // K x D: the members' coordinates
  std::vector<double> sumSquares_; // K: the members' |x|^2
  std::vector<int64_t> counts_;    // K
  std::vector<double> pointSquares_;  // N: |x|^2, once
  std::vector<int32_t> labels_;
  std::vector<float> upper_, lower_;
  std::vector<float> drift_, otherDrift_, half_;  // K, from the last move
  std::vector<int64_t> listed_;                   // the points whose bounds failed
};

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// k-means, pruned (issue 15), on the CPU: Hamerly's test and Yinyang's group bounds (Ding et al.,
// ICML 2015) with proven rounding margins (kernellab/kmeans_pruning.h), over point-major points
// (X[i * d + q]) as the CUDA engine reads them. Labels equal plain Lloyd's from the same start at
// every iteration (exact decisions, the reference's tie rule); the runner verifies them like every
// other k-means variant's.
//
// Every point keeps an upper bound u on the distance to its center a and, per group of centers
// (kmeans_center_groups.h), a lower bound on the distance to every center of the group but a.
// After a move u grows by a's drift and a group's bound shrinks by the group's largest drift. A
// point whose u stays below the smallest group bound (or half the distance from c_a to its nearest
// other center) keeps its label unread; otherwise its own distance is re-measured (one distance),
// and if that does not settle it, only the groups whose bound does not exceed u are measured, and
// within them only the centers whose own drift leaves the group's old bound below u (Yinyang's
// local filter). Every center left out is provably farther than c_a, so it can neither win nor tie.
#pragma once

#include <cstdint>
#include <vector>

#include "kmeans_center_groups.h"

namespace kernellab::clustering {

struct KMeansPrunedIteration {
  int64_t skipped = 0;    // points the bounds decided (no coordinate read)
  int64_t tightened = 0;  // points decided by re-measuring their own center (one distance)
  int64_t decided = 0;    // points that measured the groups their bounds could not exclude
  int64_t changed = 0;    // points whose label changed
  int64_t distances = 0;  // point-center distances computed (K per point in the first iteration)
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
  const CenterGroups& groups() const { return groups_; }
  // Per point: >= the distance to its center; per point and group (N x groups): <= the distance
  // to every center of the group but the point's own (tests check both).
  const std::vector<float>& upperBounds() const { return upper_; }
  const std::vector<float>& groupLowerBounds() const { return lower_; }

 private:
  void moveCenters();
  // Decides point i (its coordinates x): from scratch over all K centers when `old` < 0, else
  // over the centers its bounds cannot exclude, `oldF` being its float distance to c_old. Sets
  // its bounds; returns the label and adds the distances it computed to `distances`.
  int decide(const float* x, int64_t i, int old, float oldF, int64_t& distances);
  float nearestOther(const float* low) const;  // the smallest of a point's group bounds
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
  CenterGroups groups_;            // made from the centers `begin` gets
  int g_ = 1;                      // groups_.count()
  std::vector<float> upper_;       // N
  std::vector<float> lower_;       // N x g_
  std::vector<float> drift_, half_;  // K, from the last move
  std::vector<float> groupDrift_;    // g_: the largest drift of the group's centers
  std::vector<int64_t> listed_;                   // the points whose bounds failed
};

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// makeDatasetPoints: the clustering family's generator and loaders, as the window's data source.
#include "point_source.h"

#include "kernellab/clustering.h"

namespace kernellab::app {

DatasetPoints makeDatasetPoints(const ClusteringProblem& problem, uint64_t seed) {
  clustering::PointSet set = clustering::makePoints(problem, seed);
  DatasetPoints out;
  out.n = set.n;
  out.d = set.d;
  out.values = std::make_shared<const std::vector<float>>(std::move(set.values));
  out.truth = std::move(set.truth);
  out.source = set.source;
  return out;
}

}  // namespace kernellab::app

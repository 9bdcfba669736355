// SPDX-License-Identifier: MIT
// Where the window gets clustering points from: the ONE function to switch when the data set
// generator and loaders of the clustering family are in the build (kernellab::clustering).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernellab/request.h"

namespace kernellab::app {

struct DatasetPoints {
  int64_t n = 0;
  int d = 0;
  std::shared_ptr<const std::vector<float>> values;  // n x d, point-major
  std::vector<int32_t> truth;  // generator cluster per point (-1 noise); empty when loaded
  std::string source;          // how the points were made, or the file they came from
};

// The points a clustering request runs on: generated from (problem, seed), or loaded from
// problem.inputPath (CSV or .npy). Deterministic, so a results file opened on another machine
// shows on the same points. Throws kernellab::InputError on bad input or unreadable files.
//
// With gpu/include/kernellab/clustering.h in the build this calls
// kernellab::clustering::makePoints (the exact generator and loaders the runs use). Without it
// (before the clustering family is merged) it uses a preview generator of the same shape
// and refuses files.
DatasetPoints makeDatasetPoints(const kernellab::ClusteringProblem& problem, uint64_t seed);

// True when makeDatasetPoints uses the clustering family's own generator and loaders.
bool clusteringPointsInBuild();

}  // namespace kernellab::app

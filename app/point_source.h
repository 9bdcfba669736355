// SPDX-License-Identifier: MIT
// Where the window gets clustering points from: the clustering family's generator and loaders
// (kernellab::clustering::makePoints), the same ones the runs use.
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
DatasetPoints makeDatasetPoints(const kernellab::ClusteringProblem& problem, uint64_t seed);

}  // namespace kernellab::app

// SPDX-License-Identifier: MIT
// Where the window gets clustering points from: the clustering family's generator and loaders
// (kernellab::clustering), the same ones the runs use. The window never holds more than a bounded
// sample: a large generated set is regenerated at sampled indices only (the same values as the
// full set), a large points file is read and thinned to the sample.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernellab/clustering_request.h"
#include "kernellab/request.h"

namespace kernellab::app {

// What the window may hold of one data set.
struct SampleLimits {
  int64_t maxPoints = 200000;          // points shown
  int64_t maxValues = 40000000;        // points x D held (160 MB of floats)
  int64_t maxCenterValues = 20000000;  // K x D of the generator's cluster centers
  int64_t maxShuffled = 50000000;  // blobs: N whose cluster order (a shuffle of all N) is redone
};

struct DatasetPoints {
  int64_t n = 0;  // points held (the sample)
  int d = 0;
  std::shared_ptr<const std::vector<float>> values;  // n x d, point-major
  std::vector<int32_t> truth;  // generator cluster per point held (-1 noise); empty when loaded
  std::string source;          // how the points were made, or the file they came from
  int64_t total = 0;           // points in the data set (N)
  std::vector<int64_t> indices;  // data-set index of each point held, ascending; empty: all
  std::string sampleNote;        // "Showing 200,000 of 10,000,000 points, ..." when a sample
};

// The data-set indices of a sample of `count` of `total` points: one per equal stratum, at a
// seeded position inside it, so every part of the set (every cluster of the seed's generator,
// stored cluster after cluster) is represented in proportion. Ascending; all when count >= total.
std::vector<int64_t> sampleIndices(int64_t total, int64_t count, uint64_t seed);

// The points a clustering request runs on, bounded by `limits`: generated at the sample's
// indices from (problem, seed), or loaded from problem.inputPath (CSV or .npy, a regular file)
// and thinned. Deterministic, so a results file opened on another machine shows on the same
// points. Throws kernellab::InputError on bad input, unreadable files, or a set whose fixed parts
// (K x D centers, the blobs' shuffle) are beyond the limits.
DatasetPoints makeDatasetPoints(const kernellab::ClusteringProblem& problem, uint64_t seed,
                                const SampleLimits& limits = {});

// The labels of the points held, from one label per data-set point; empty when `labels` is not
// one per point of the set.
std::vector<int32_t> labelsOfSample(const DatasetPoints& points,
                                    const std::vector<int32_t>& labels);

}  // namespace kernellab::app

// SPDX-License-Identifier: MIT
// The clustering families' part of a request (k-means and k-centers share it): the points
// (generated or a file), K, the initial centers and k-means's stop rule. A light header: the
// phase functions (clustering_phases.h) need only the layout names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernellab/family_id.h"

namespace kernellab {

enum class DataLayout { Coalesced, Interleaved };  // X[d*N+i] vs X[i*D+d]
enum class ScratchMemory { Shared, Global };       // where reductions keep their scratch
enum class InitMethod { First, Random, KMeansPlusPlus, Given };
enum class DatasetShape { SeedGenerator, Blobs };

// When k-means stops (docs/clustering.md, "When k-means stops"). Both stop at maxIterations too.
enum class StopRule {
  // Lloyd's fixed point: after the first iteration in which no point changed cluster (its
  // centers would be the same again). scikit-learn's strict convergence; the default.
  FixedPoint,
  // Campaign's rule (the seed's experiments, the thesis's figures): after the first iteration
  // whose score changed by at most epsilon x the previous score.
  ScoreChange,
};

// RunRequest::section<ClusteringProblem>(); JSON "clustering".
struct ClusteringProblem {
  // Generated points; with inputPath, the file's size (the run records it in its request).
  int64_t n = 100000;
  int k = 16;
  int d = 3;
  DatasetShape shape = DatasetShape::SeedGenerator;
  double radius = 1000.0;      // seed generator: RADIUS/100 spread around each center
  double noiseFraction = 0.0;  // blobs: share of uniform noise points
  std::string inputPath;       // CSV or .npy; empty = generate
  std::string centersPath;     // initial centers (.npy/.csv), implies InitMethod::Given
  InitMethod init = InitMethod::First;
  // k-means: the stop rule, the iteration limit (scikit-learn's default max_iter) and the score
  // rule's epsilon (stop when |score - previous| <= epsilon * previous).
  StopRule stopRule = StopRule::FixedPoint;
  int maxIterations = 300;
  double epsilon = 1e-4;
  bool keepLabels = true;  // carry labels in the result (large for big N)
};

// Names used in JSON, on the CLI and in the window.
const char* toString(DataLayout l);
const char* toString(ScratchMemory m);
const char* toString(InitMethod i);
const char* toString(DatasetShape s);
const char* toString(StopRule s);
std::optional<DataLayout> layoutFromString(const std::string& s);
std::optional<ScratchMemory> memoryFromString(const std::string& s);
std::optional<InitMethod> initFromString(const std::string& s);
std::optional<DatasetShape> shapeFromString(const std::string& s);
std::optional<StopRule> stopRuleFromString(const std::string& s);

namespace clustering {
inline constexpr Family kKMeans{"kmeans"};
inline constexpr Family kKCenters{"kcenters"};
// Whether a family is one of the two clustering families (they share a folder and a runner).
constexpr bool isClustering(Family f) { return f == kKMeans || f == kKCenters; }
}  // namespace clustering

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// The experiment request: one model used by the GUI, the CLI and the tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernellab {

enum class Family { Transpose, KCenters, KMeans, Knn };
enum class BackendChoice { Auto, Cpu, Cuda };

// Launch configuration, the way CUB uses policies: every knob a kernel reads lives here.
struct LaunchConfig {
  int threadsPerBlock = 256;
  int tile = 32;           // transpose: tile edge in elements (16 or 32)
  int rowsPerThread = 4;   // transpose: elements each thread moves per tile column
  int blockX = 0;          // knn: block shape in pixels; 0 = derive from threadsPerBlock
  int blockY = 0;
};

struct TransposeProblem {
  int64_t width = 2048;   // columns of the input matrix (the transpose paper's size)
  int64_t height = 2048;  // rows of the input matrix
};

enum class DataLayout { Coalesced, Interleaved };   // X[d*N+i] vs X[i*D+d]
enum class ScratchMemory { Shared, Global };        // where reductions keep their scratch
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

struct ClusteringProblem {
  // Generated points; with inputPath, the file's size (the run records it in its request).
  int64_t n = 100000;
  int k = 16;
  int d = 3;
  DatasetShape shape = DatasetShape::SeedGenerator;
  double radius = 1000.0;          // seed generator: RADIUS/100 spread around each center
  double noiseFraction = 0.0;      // blobs: share of uniform noise points
  std::string inputPath;           // CSV or .npy; empty = generate
  std::string centersPath;         // initial centers (.npy/.csv), implies InitMethod::Given
  InitMethod init = InitMethod::First;
  // k-means: the stop rule, the iteration limit (scikit-learn's default max_iter) and the score
  // rule's epsilon (stop when |score - previous| <= epsilon * previous).
  StopRule stopRule = StopRule::FixedPoint;
  int maxIterations = 300;
  double epsilon = 1e-4;
  bool keepLabels = true;          // carry labels in the result (large for big N)
};

struct KnnProblem {
  int rows = 377;
  int cols = 329;
  int components = 1;
  int window = 14;   // rows of the search window around each pixel
  int k = 8;
  std::string inputPath;  // .npy (rows, cols[, C]); empty = generate
  bool keepNeighbours = false;  // carry every variant's neighbour lists in the result (large)
};

struct RunRequest {
  Family family = Family::Transpose;
  std::vector<std::string> variants;  // variant ids of the family; empty = every variant
  TransposeProblem transpose;
  ClusteringProblem clustering;
  KnnProblem knn;
  LaunchConfig launch;
  int warmup = 2;
  int repetitions = 10;
  uint64_t seed = 1;
  BackendChoice backend = BackendChoice::Auto;
  bool verify = true;
  bool recordSchedule = false;  // per-block %smid and %globaltimer records
  bool measureCeilings = true;  // cudaMemcpy device-to-device (or memcpy on the CPU) in the run
};

// One axis of a sweep: every request is the base request with one value changed.
struct SweepAxis {
  std::string name;               // "tpb", "tile", "size", "n", "k", "d"
  std::vector<std::string> values;
};

// Names used in JSON, on the CLI and in the window.
const char* toString(Family f);
const char* toString(BackendChoice b);
const char* toString(DataLayout l);
const char* toString(ScratchMemory m);
const char* toString(InitMethod i);
const char* toString(DatasetShape s);
const char* toString(StopRule s);
std::optional<Family> familyFromString(const std::string& s);
std::optional<BackendChoice> backendFromString(const std::string& s);
std::optional<DataLayout> layoutFromString(const std::string& s);
std::optional<ScratchMemory> memoryFromString(const std::string& s);
std::optional<InitMethod> initFromString(const std::string& s);
std::optional<DatasetShape> shapeFromString(const std::string& s);
std::optional<StopRule> stopRuleFromString(const std::string& s);

// Applies one sweep value to a copy of the request; throws InputError on a bad value.
RunRequest applySweepValue(const RunRequest& base, const std::string& axis,
                           const std::string& value);

}  // namespace kernellab

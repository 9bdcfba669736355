// SPDX-License-Identifier: MIT
// The clustering family (seed 003, after the Campaign library): k-centers and k-means with the
// memory and layout switches, the seed's point generator, loaders for the user's own points,
// initial centers, CPU references in double, gold-result verification and the seed's speed-up and
// gain formulas. See docs/clustering.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernellab/clustering_phases.h"
#include "kernellab/clustering_request.h"
#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab::clustering {

// ---- variants ---------------------------------------------------------------------------------

// Seed: Campaign's kernels with the two switches. Best, Cublas and CublasTf32: the GPU-only
// engines of gpu/kernels/clustering_best (issues 7 and 10), which read the coalesced layout. The
// cuBLAS peers' labels are approximate (the GEMM form in float): see approximateLabels().
// Pruned (issue 15): for k-centers the fused engine that skips points the triangle inequality or
// an 8-bit sketch rules out, for k-means Hamerly's bounds; both have a CPU implementation too
// (kcenters_pruned_cpu.cpp, kmeans_pruned_cpu.cpp), so they run on both backends.
enum class Engine { Seed, Best, Cublas, CublasTf32, Pruned };

// Whether the variant runs on the CPU backend: the seed's block programs on the executor, and the
// pruned variants in their host implementations. The other engines are CUDA-only.
inline bool runsOnCpu(Engine e) { return e == Engine::Seed || e == Engine::Pruned; }

// Whether a variant's labels are approximate by design (the GEMM form of the distances, as torch,
// cuML and FAISS compute them): verification then counts the labels that are not the nearest
// center instead of failing on them; centers, scores and counts are still checked exactly.
inline bool approximateLabels(Engine e) { return e == Engine::Cublas || e == Engine::CublasTf32; }

struct VariantInfo {
  std::string id;        // "<memory>-<layout>", e.g. "shared-coalesced"; or "best", "cublas"
  ScratchMemory memory;  // where reductions keep their scratch (k-means: also the centroid stage)
  DataLayout layout;     // how the points are stored
  std::string title;     // short label for charts: "Coalesced + shared"
  std::string explanation;  // one line: what this switch changes
  Engine engine = Engine::Seed;
};

// The four seed variants, in the order the thesis plots them.
const std::vector<VariantInfo>& variants();
// The variants a family offers: the seed's four, "best" and "pruned" (both),
// "cublas" and "cublas-tf32" (k-means only).
const std::vector<VariantInfo>& variants(Family family);
std::optional<VariantInfo> variantFromString(const std::string& id);
// "all" or a list of ids; throws InputError naming an unknown id and listing the known ones.
// Without CUDA, "all" leaves out the GPU-only engines (runsOnCpu) and naming one explicitly is an
// error that names the reason.
std::vector<VariantInfo> parseVariants(const std::vector<std::string>& ids, Family family,
                                       bool cuda, const std::string& whyNoCuda = {});

// Kernels of an algorithm in launch order within an iteration; IterationRecord::kernelMs and
// VariantResult::kernels follow this order.
const std::vector<std::string>& kernelNames(Family family);
const std::vector<std::string>& kernelNames(Family family, const VariantInfo& v);

// ---- points -------------------------------------------------------------------------------------

// The most points a run takes: point indices are 32-bit in the kernels.
inline constexpr int64_t kMaxPoints = 2147483646;

struct PointSet {
  int64_t n = 0;
  int d = 0;
  std::vector<float> values;   // point-major: values[i * d + j]
  std::vector<int32_t> truth;  // generator's cluster of each point (-1 = noise); empty when loaded
  std::string source;          // "seed generator N=.. K=.. D=.." or the file path
};

// The request's dataset: loads p.inputPath (CSV or .npy) when set, otherwise generates
// (p.shape: the seed's generator or Gaussian blobs with noise), seeded and reproducible.
PointSet makePoints(const ClusteringProblem& p, uint64_t seed);

// The seed's generator (thesis 4.1.3): K clusters of N/K points (the first N % K clusters get one
// more, so all N points exist), centers spread apart, every coordinate the center's plus or minus
// a random offset in [0, radius) in steps of 0.01 (the seed's (rand() % RADIUS) / 100), plus for
// even points of a cluster and minus for odd ones. Points are stored cluster after cluster.
PointSet generateSeedPoints(int64_t n, int k, int d, double radius, uint64_t seed);

// Gaussian blobs with different spreads (sigma between 0.15 and 0.5 radius) and a share of
// uniform noise (truth -1), shuffled so that no cluster sits in a contiguous range.
PointSet generateBlobs(int64_t n, int k, int d, double radius, double noiseFraction, uint64_t seed);

// The points at `indices` (ascending, each in [0, N)) of the set makePoints(p, seed) generates,
// value for value, with their generator clusters; the window shows large sets through such a
// sample. Costs the sample's points (and, for blobs, the shuffled cluster of every point: 4
// bytes x N). Throws InputError for a points file or a bad index.
PointSet generatePointsAt(const ClusteringProblem& p, uint64_t seed,
                          const std::vector<int64_t>& indices);

// .csv (header optional; comma, semicolon, tab or space separated) or .npy (float32/float64,
// C order, shape (N, D) or (N,)). Throws InputError naming the file, line and field (CSV) or the
// header field (.npy): not a regular file (directory, FIFO, device), not UTF-8 text, more data
// than the memory available, malformed numbers, NaN/Inf, values beyond float32, ragged rows, no
// points, D = 0, wrong dtype, Fortran order, truncated data. docs/input-files.md lists them.
PointSet loadPoints(const std::string& path);
// The same parsers on bytes already in memory (fuzz targets, tests); `source` names them.
PointSet parsePointsCsv(std::string_view text, const std::string& source);
PointSet parsePointsNpy(std::string_view bytes, const std::string& source);

// A points file's size before its data is read: exact from a .npy header; for a CSV, D from the
// first data line and N estimated from the bytes per line of the first megabyte (exact when the
// file is smaller). Refuses what loadPoints refuses about the file itself.
struct PointsFileShape {
  int64_t n = 0;
  int d = 0;
  bool exact = false;
  uint64_t fileBytes = 0;
};
PointsFileShape peekPointsShape(const std::string& path);

// Given initial centers: a K x D points file; throws InputError when its shape is not K x D.
std::vector<float> loadCenters(const std::string& path, int k, int d);

// X[d * N + i], the "coalesced" arrangement (the seed's generateClustersContiguous).
std::vector<float> toDimensionMajor(const PointSet& s);

// Owns the points arranged in `Layout`; the only host-side maker of PointsView<Layout>.
template <class Layout>
class ArrangedPoints {
 public:
  explicit ArrangedPoints(const PointSet& s) : n_(s.n), d_(s.d) {
    static_assert(
        std::is_same_v<Layout, CoalescedLayout> || std::is_same_v<Layout, InterleavedLayout>,
        "unknown layout");
    if constexpr (std::is_same_v<Layout, CoalescedLayout>)
      values_ = toDimensionMajor(s);
    else
      values_ = s.values;
  }
  PointsView<Layout> view() const { return PointsView<Layout>(values_.data(), n_, d_); }
  const std::vector<float>& values() const { return values_; }
  int64_t n() const { return n_; }
  int d() const { return d_; }

 private:
  std::vector<float> values_;
  int64_t n_;
  int d_;
};

// ---- initial centers ----------------------------------------------------------------------------

struct InitialCenters {
  std::vector<float> values;     // K x D, point-major
  std::vector<int64_t> indices;  // the points they were taken from (empty for given centers)
  std::string how;               // "first 16 points", "k-means++ (seed 1)", "centers.npy"
};

// k-means: the first K points, K distinct random points, k-means++ (D^2 sampling, what users of
// scikit-learn expect) or the centers in `centersPath`. Seeded and reproducible.
InitialCenters initialCenters(const PointSet& s, int k, InitMethod method, uint64_t seed,
                              const std::string& centersPath = {});

// k-centers starts from one point: index 0 (first) or a seeded random one. Other methods throw
// InputError (they choose K centers, k-centers chooses them itself).
int64_t firstCenter(const PointSet& s, InitMethod method, uint64_t seed);

// ---- CPU references (multithreaded, accumulate in double)
// ----------------------------------------

struct KCentersReference {
  std::vector<int64_t> centers;    // point indices, in the order chosen
  std::vector<int32_t> labels;     // index into `centers` of each point's nearest center
  std::vector<double> minDist;     // squared distance to the nearest center
  std::vector<double> radius;      // after center j: the largest minDist (squared)
  std::vector<int64_t> farthest;   // after center j: the farthest point (lowest index at ties)
  std::vector<double> chosenDist;  // after center j: minDist of centers[j + 1]
};

// Farthest-point k-centers from `first`; ties pick the lowest point index, and a point at equal
// distance from two centers keeps the earlier one.
KCentersReference referenceKCenters(const PointSet& s, int k, int64_t first);
// The same computation along a given center sequence (to judge a GPU run that took a near tie).
KCentersReference referenceKCentersAlong(const PointSet& s, const std::vector<int64_t>& centers);

struct KMeansReference {
  std::vector<double> centers;  // K x D
  std::vector<int32_t> labels;
  std::vector<double> scores;  // per iteration: sum of squared distances to the assigned center
  std::vector<int64_t> sizes;
  int iterations = 0;
  double inertia = 0;  // the last score
};

// Lloyd's algorithm as the kernels run it: iteration 1 assigns to the initial centers and scores;
// every later one first moves each center to its points' mean (an empty cluster keeps its
// center). Stops after `maxIterations`, or when |score - previous| <= epsilon * previous
// (epsilon < 0: never early, run exactly maxIterations). Ties go to the lower cluster index.
KMeansReference referenceKMeans(const PointSet& s, const std::vector<float>& initial, int k,
                                int maxIterations, double epsilon);

// One point's squared distance to a point-major center row, in double.
double squaredDistance(const PointSet& s, int64_t i, const float* center);

// ---- verification (gold results, thesis 4.3.2) -------------------------------------------------

// Relative tolerance of a float32 squared distance summed over D terms (each term and the sum
// round once): max(1e-6, 4 (D + 2) 2^-24). Two distances closer than this are a tie that float
// rounding may order either way.
double tieTolerance(int d);

// k-means inertia and per-iteration scores must match the reference to this relative error, at
// least (scoreTolerance grows it with D and N).
inline constexpr double kInertiaTolerance = 1e-5;

// Relative tolerance of a k-means score (the sum over N points of float32 squared distances of D
// terms, accumulated in double) against the same sum in double: each distance carries at most
// (D + 2) u of relative error (u = 2^-24: the difference, the square and D - 1 additions, all
// terms >= 0), the double sum over N points at most N 2^-53; never below kInertiaTolerance.
double scoreTolerance(int64_t n, int d);

// ---- coordinate range -----------------------------------------------------------------------
// The kernels compute squared distances in float32. A coordinate above maxCoordinate(D) can make
// one overflow (D (2|x|)^2 > FLT_MAX / 2), and points that all lie within minSpan() of each other
// have squared differences in float32's subnormal range, where precision is lost: both are
// refused with the value and the limit (docs/input-files.md), never left to fail verification.
double maxCoordinate(int d);
// The most dimensions a run takes: beyond 2^20 the float32 error bound of one distance,
// 4 (D + 2) 2^-24 (tieTolerance), passes 25 %, and verification could no longer tell a wrong
// label from rounding.
inline constexpr int kMaxDimensions = 1 << 20;
double minSpan();
struct CoordinateRange {
  double maxAbs = 0;     // largest |coordinate|
  double spanBound = 0;  // an upper bound of the largest per-coordinate span (2x the largest
                         // difference from the first point)
};
CoordinateRange coordinateRange(const float* values, int64_t n, int d);
// Throws InputError naming `what` (the file or the generator), the value and the limit.
void checkCoordinateRange(const PointSet& s, const std::vector<float>& centers,
                          const std::string& what);

// Checks every point: its label and squared distance against the reference along the run's
// center sequence, and that sequence itself (each center the farthest point, or a near tie).
// `distances` and `radius` are the run's float outputs; NaN means never written.
Verification verifyKCenters(const PointSet& s, const KCentersReference& reference,
                            const ClusteringOutput& run, const std::vector<float>& distances,
                            const std::vector<float>& radius);

// A k-centers run's outputs as the kernels wrote them (the float values, not the reference's
// doubles): what the pruned variant must reproduce bit for bit.
struct KCentersOutputs {
  std::string variant;
  std::vector<int64_t> centers;  // in order
  std::vector<float> radii;      // after center j
  std::vector<float> distances;  // per point, squared
  std::vector<int32_t> labels;
};

// The pruned k-centers check (issue 15): `pruned` must be `unpruned`'s computation exactly, the
// same centers in the same order and the same radii, labels and distances to the bit (the
// pruning test's margin makes a skipped point one the unpruned pass would not have moved,
// clustering_pruning.h). Passes with a note naming the twin, or fails counting the differences
// (each center, radius and point that differs) with the first one in the note.
Verification comparePrunedKCenters(const KCentersOutputs& pruned, const KCentersOutputs& unpruned);

// Checks every label against the reference run from the same initial centers for the same number
// of iterations (a different label passes only at a tie, counted in the note), the inertia and
// every iteration's score to kInertiaTolerance, and the cluster sizes.
Verification verifyKMeans(const PointSet& s, const KMeansReference& reference,
                          const ClusteringOutput& run, const std::vector<double>& scores);

// Checks a k-means run iteration by iteration from its own state, so a run that took a tie
// (float rounding ordering two equal distances the other way) and so left the independent
// reference's path is still checked completely. Feed every iteration in order: the centers the
// iteration assigned to, the labels and score it produced. Each iteration's centers must be the
// means of the previous labels (the initial centers first; an empty cluster keeps its center),
// each label the nearest center in double (or a tie), each score the sum of squared distances
// (kInertiaTolerance) and each count the label histogram. finish() also requires the run's
// reported labels, centers and inertia to be its last iteration's.
class KMeansStepCheck {
 public:
  // approximateLabels: a label that is not the nearest center (beyond a tie) is counted, not a
  // problem (the cuBLAS peers, approximateLabels(Engine)).
  KMeansStepCheck(const PointSet& s, std::vector<float> initial, int k,
                  bool approximateLabels = false);
  void iteration(const std::vector<float>& centers, const std::vector<int32_t>& labels,
                 double score, const std::vector<int32_t>& counts);
  Verification finish(const ClusteringOutput& run) const;

 private:
  void problem(const std::string& text);
  const PointSet& s_;
  int k_;
  std::vector<float> previousCenters_;
  std::vector<int32_t> previousLabels_;
  std::vector<float> lastCenters_;
  double lastScore_ = 0;
  int iterations_ = 0;
  int64_t ties_ = 0;
  bool approximate_ = false;
  uint64_t notNearest_ = 0;
  std::string firstNotNearest_;
  uint64_t problems_ = 0;
  std::string firstProblem_;
  double maxError_ = 0;
};

// ---- the seed's timing formulas (thesis 4.3.1) -------------------------------------------------

// Speed-up S = T_old / T_new (> 1: the new variant is faster).
double speedup(double tOld, double tNew);
// Gain % = (T_old - T_new) / T_old * 100 (the share of the old time saved).
double gainPercent(double tOld, double tNew);

struct Comparison {
  std::string oldVariant, newVariant;
  double oldMs = 0, newMs = 0;
  double speedup = 0;
  double gainPercent = 0;
};
// Compares two variants of one run by their median total time; empty when either did not run.
std::optional<Comparison> compareVariants(const RunResult& run, const std::string& oldVariant,
                                          const std::string& newVariant);

// The thesis's GTX Titan k-centers times (figure 19, N = 1e6, K = 100, D = 200), milliseconds for
// 64, 128, 256, 512 and 1024 threads per block. Below 256 the library sized the grid with 256
// threads, so those runs skipped points (docs/clustering.md).
struct PublishedSeries {
  std::string variant;     // our id
  std::string label;       // the thesis's legend
  std::vector<double> ms;  // parallel to publishedTpb()
};
const std::vector<int>& publishedTpb();
const std::vector<PublishedSeries>& publishedFigure19();
inline constexpr const char* kPublishedSource = "published, GTX Titan, Orrit 2017";

}  // namespace kernellab::clustering

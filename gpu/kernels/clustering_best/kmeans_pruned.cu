// SPDX-License-Identifier: MIT
// k-means, pruned variant (issue 15): Hamerly's bounds with proven rounding margins
// (kernellab/kmeans_pruning.h), the test of the CPU's KMeansPrunedHost (which keeps its lower bound
// per group of centers, Yinyang's) on the GPU: the same labels, computed for a fraction of the
// points once the centers settle.
//
// Where the TF32 tensor cores run (compute capability 8.0+, K <= 128), the points that need a
// full decision get it from best's fused TF32 products (kmeans_tf32_assign.cuh, the pruned
// epilogue of kmeans_assign_decide.cuh): a proven bound decides most; the near ties are
// re-decided among their candidates, in float first (prunedTieScreenKernel), then in double for
// the candidates the float sums cannot tell apart (prunedTieKernel). The first iterations from
// first-K centers, where 81-100 % of the points failed the bounds (H200, session 7), are warm:
// every point through the TF32 products, no bounds kept, only each point's gap (a lower bound of
// d^2(second nearest) - d^2(nearest)); the first iteration after them (start) measures every
// point's own center and derives its bounds from the gap. See Mode below. Without the tensor
// cores every decision is the CUDA-core one (prunedDecideKernel).
//
// Per iteration, on point-major points (timed groups, in kernelNames() order):
//  - the geometry group: prunedCenterGeometryKernel where the centers' geometry is measured:
//    with the TF32 decision, iteration 0 and the warm iterations (the centred centers and norms
//    it reads, around the centers' own mean) and the start (that too, and each cluster's (drift,
//    otherDrift, half): half the distance to its nearest other center, in double); on the
//    CUDA-core path every iteration after the first (the moves). The TF32 path's pruned
//    iterations launch nothing here: the last iteration's prunedScoreMoveKernel prepared them.
//  - prunedBoundsTightenKernel (pruned iterations): the bounds test of every point (20 bytes
//    each) and, in the same launch, the failures' own distances: those still open are listed.
//  - the decide group: the start's prunedTightenKernel measures every point's own center and
//    lists those still open; then either the TF32
//    decision (kmeansTf32AssignKernel, pruned epilogue) of the listed points (warm: all of them),
//    prunedTieScreenKernel and prunedTieKernel for its near ties and prunedExactKernel for any it cannot decide (NaN), or
//    prunedDecideKernel (all K float distances, register-tiled, kmeans_pruned_decide.cuh) and
//    prunedExactKernel for its near ties. Changed labels are listed with the old ones.
//  - the sums: iteration 0, and a warm iteration after one that changed half the labels, by label
//    (SortedUpdate, from zero); otherwise prunedSumsKernel: S, Q and the counts follow the changed
//    points (block-private tables in shared memory, or global atomics when
//    few changed).
//  - prunedScoreMoveKernel: each cluster's score from the sums, with this assignment's centers,
//    then the centers moved to the means for the next iteration (into the other buffer, and the
//    transposed copy the CUDA-core kernels read), each one's drift; after a start or pruned
//    iteration of the TF32 path also what a pruned one needs: the TF32 fragments of the centers
//    centred on the start's mean (the centers barely move once the bounds pay) and, from its last block, every
//    cluster's move with the half distance carried over from the start (Hamerly's half test
//    decided almost no point on the seed's data: 0-1 per iteration, CPU count, 2026-12-06).
// Nothing waits for the host inside an iteration; the counters, scores and counts are read back
// once at its end, and choose the next iteration's mode.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "best_engines.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"
#include "kernellab/kmeans_pruning.h"
#include "kmeans_parts.cuh"
#include "kmeans_pruned_decide.cuh"
#include "kmeans_pruned_kernels.cuh"
#include "kmeans_tf32_assign.cuh"
#include "kmeans_update_sorted.cuh"

namespace kernellab::clustering::best {
namespace {

// The per-iteration counters, one int each, read back at the end of the iteration.
// kTies and kChanged: one 8-byte-aligned word, ties first (the TF32 decision reserves places in
// both lists with one 64-bit atomic).
enum Counter { kFailed = 0, kUndecided, kTies, kChanged, kHard, kTieExact, kCounters };
static_assert(kTies % 2 == 0 && kChanged == kTies + 1, "the tie and changed counters share a word");

enum Kernel { kMove = 0, kBounds, kDecide, kSums, kScore, kKernels };

// How an iteration decides its points (with the TF32 decision; without it every iteration after
// the first is Pruned):
//  - Warm: every point by the TF32 products, no bounds kept, each point's gap kept. While the
//    centers still travel far (the first iterations from first-K centers: 81-100 % of the points
//    failed the bounds on the H200), bounds cost a pass and save nothing.
//  - Start: the first iteration after warm ones: every point's own distance, its bounds from the
//    gap, the failures decided by the TF32 products.
//  - Pruned: Hamerly's test, the failures tightened, the still open ones decided by the TF32
//    products (or the CUDA-core decide without them).
enum class Mode { Warm, Start, Pruned };

// Warm iterations go on while the last one changed more than this share of the labels; pruned
// ones go back to warm when more than kRewarmShare of the points needed the full decision (the
// bounds stopped paying: one broad cloud). KERNELLAB_PRUNED_WARM sets the first (0: no warm
// iterations after the first; for measuring).
constexpr double kWarmChangedShare = 0.01;
constexpr double kRewarmShare = 0.4;

constexpr int kSumsMinPerBlock = 64;  // changed points per sums block, at least
constexpr int kExactMaxWarps = 4;

int gridFor(int64_t items, int perBlock) {
  return static_cast<int>(std::max<int64_t>(1, (items + perBlock - 1) / perBlock));
}

class PrunedKMeans final : public KMeansEngine {
 public:
  PrunedKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream)
      : x_(d_points), n_(n), d_(d), k_(k), stream_(stream) {
    if (n < 1 || d < 1 || k < 1 || k > n)
      throw InputError("pruned k-means: N = " + std::to_string(n) + ", D = " + std::to_string(d) +
                       ", K = " + std::to_string(k) + " (need N, D >= 1 and 1 <= K <= N)");
    if (n > INT_MAX)  // the point lists hold 32-bit indices
      throw InputError("pruned k-means lists points by 32-bit index: N = " + std::to_string(n) +
                       " is above " + std::to_string(INT_MAX));
    gamma_ = prunedDistanceGamma(d);
    slack_ = prunedUnderflowSlack(d);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    sms_ = std::max(1, limits.sms);
    const size_t optin = static_cast<size_t>(limits.sharedPerBlockOptin);
    planDecide(optin);
    planSums(optin);
    planExact(optin);
    vec4_ = d % 4 == 0 && reinterpret_cast<uintptr_t>(d_points) % 16 == 0;
    // The TF32 decision where it runs (compute capability 8.0+, K <= 128, the centers on chip);
    // else every decision on the CUDA cores, as the note in strategy() says.
    tf32_ = planTf32Assign(k, d, tf32Why_, true);
    if (const char* v = std::getenv("KERNELLAB_PRUNED_WARM")) warmShare_ = std::atof(v);

    const size_t kd = static_cast<size_t>(k) * d;
    for (auto& c : centers_) c.allocate(kd);
    centersT_.allocate(static_cast<size_t>(d) * shape_.paddedCenters());
    KL_CUDA_CHECK(cudaMemsetAsync(centersT_.get(), 0, centersT_.bytes(), stream_));  // padding
    sums_.allocate(kd);
    sumsq_.allocate(size_t(k));
    counts_.allocate(size_t(k));
    outScores_.allocate(size_t(k));
    outCounts_.allocate(size_t(k));
    drift_.allocate(size_t(k));
    moves_.allocate(size_t(k));
    labels_.allocate(static_cast<size_t>(n));
    bounds_.allocate(static_cast<size_t>(n));
    undecided_.allocate(static_cast<size_t>(n));
    ties_.allocate(static_cast<size_t>(n));
    changed_.allocate(static_cast<size_t>(n));
    counters_.allocate(kCounters);
    xnorm_.allocate(static_cast<size_t>(n));
    xsq_.allocate(static_cast<size_t>(n));
    half_.allocate(size_t(k));
    moveDone_.allocate(1);
    KL_CUDA_CHECK(cudaMemsetAsync(moveDone_.get(), 0, moveDone_.bytes(), stream_));
    if (tf32_) {
      kappa_ = tf32BoundFactor(d, Tf32Rounding::TruncatePointsRoundCenters);
      gaps_.allocate(static_cast<size_t>(n));
      tieOld_.allocate(static_cast<size_t>(n));
      tieBest_.allocate(static_cast<size_t>(n));
      tieGapNc_.allocate(static_cast<size_t>(n));
      tieExact_.allocate(static_cast<size_t>(n));
      tieLoRest_.allocate(static_cast<size_t>(n));
      tieLoTop_.allocate(static_cast<size_t>(n));
      masks_.allocate(static_cast<size_t>(n) * kMaskWords);
      hard_.allocate(static_cast<size_t>(n));
      fragments_.allocate(tf32FragmentWords(*tf32_));  // their padding stays zero
      KL_CUDA_CHECK(cudaMemsetAsync(fragments_.get(), 0, fragments_.bytes(), stream_));
      startMean_.allocate(static_cast<size_t>(d));
      cn_.allocate(size_t(k));
      cabs_.allocate(size_t(k));
      prepSmem_ = sizeof(float) * static_cast<size_t>(d);
      const size_t prepStatic = 1024;  // prunedCenterGeometryKernel's own (under 1 KB)
      if (prepSmem_ + prepStatic > optin) {
        tf32_.reset();  // the centers' mean does not fit: the CUDA-core decisions
        tf32Why_ = "D = " + std::to_string(d) + " leaves no room for the centers' mean";
      } else if (prepSmem_ + prepStatic > 48 * 1024) {
        KL_CUDA_CHECK(cudaFuncSetAttribute(prunedCenterGeometryKernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(prepSmem_)));
      }
    }
    planScreen(optin);
    // Iteration 0 (and one after many changes) sums every point: by label where that fits (a
    // quarter of the block-private sums' time at N = 1e6); other iterations follow the changes.
    if (SortedUpdate::fits(k, d)) {
      sorted_.allocate(n, k, d, sms_);
      sortedFits_ = true;
    }
    // |x|^2 of every point, once: the sums of the members' squares follow the changed points.
    const int normWarps = kPartThreads / 32;  // a warp per point
    pointNormsKernel<<<gridFor(n, normWarps), kPartThreads, 0, stream_>>>(x_, n_, d_, xnorm_.get(),
                                                                          xsq_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    cuda::DeviceBuffer<int> tame(1);
    const int one = 1;
    KL_CUDA_CHECK(cudaMemcpyAsync(tame.get(), &one, sizeof(int), cudaMemcpyHostToDevice, stream_));
    pointsTameKernel<<<sms_ * 4, kSmallThreads, 0, stream_>>>(xsq_.get(), n_, tame.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    int pointsTame = 0;
    KL_CUDA_CHECK(cudaMemcpyAsync(&pointsTame, tame.get(), sizeof(int), cudaMemcpyDeviceToHost,
                                  stream_));
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    pointsTame_ = pointsTame != 0;
  }

  void begin(const std::vector<float>& centers) override {
    if (centers.size() != static_cast<size_t>(k_) * d_)
      throw InputError("pruned k-means: the initial centers must be K x D = " +
                       std::to_string(int64_t(k_) * d_) + " floats, got " +
                       std::to_string(centers.size()));
    cur_ = 0;
    KL_CUDA_CHECK(cudaMemcpyAsync(cur(), centers.data(), centers_[0].bytes(),
                                  cudaMemcpyHostToDevice, stream_));
    prunedTransposeKernel<<<gridFor(int64_t(k_) * d_, kSmallThreads), kSmallThreads, 0, stream_>>>(
        cur(), k_, d_, shape_.paddedCenters(), centersT_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    KL_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(sumsq_.get(), 0, sumsq_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), stream_));  // poison: -1
    KL_CUDA_CHECK(cudaMemsetAsync(half_.get(), 0, half_.bytes(), stream_));  // no bound yet
    // Tame centers (finite, |c|^2 below 1e30) with tame points stay tame: their means are.
    centersTame_ = true;
    for (int c = 0; c < k_; ++c) {
      double sq = 0.0;
      for (int q = 0; q < d_; ++q) {
        const double v = centers[static_cast<size_t>(c) * d_ + q];
        sq += v * v;
      }
      centersTame_ = centersTame_ && sq < 1e30;  // NaN: false
    }
    lastMode_ = Mode::Warm;
    lastChanged_ = n_;
    lastDecided_ = n_;
  }

  KMeansIteration iterate(int iteration) override {
    const bool first = iteration == 0;  // as the CPU: iteration 0 decides every point
    const Mode mode = modeFor(first);
    std::fill(std::begin(ran_), std::end(ran_), false);
    KL_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_));
    if (!first) cur_ ^= 1;  // the centers the last iteration moved
    launchGeometry(first, mode);
    if (mode == Mode::Pruned) timed(kBounds, [&] { launchBoundsTighten(); });
    if (tf32_)
      timed(kDecide, [&] { launchTf32Decide(mode, first); });
    else
      timed(kDecide, [&] { launchDecide(first); });
    // After an iteration that changed half the labels or more (iteration 0: all), summing every
    // point by label beats following the changes (H200, N = 1e6: 0.26 ms against 0.55 for the
    // 29 % that iteration 1 changes).
    const bool resum = first || (mode == Mode::Warm && 2 * lastChanged_ >= n_);
    timed(kSums, [&] { launchSums(first, resum); });
    timed(kScore, [&] { launchScoreMove(mode); });

    KMeansIteration it;
    it.kernelMs.assign(kKernels, 0.0);
    for (int q = 0; q < kKernels; ++q)
      if (ran_[q]) it.kernelMs[q] = events_[q].elapsedMs();
    it.clusterScore.resize(size_t(k_));
    it.clusterCount.resize(size_t(k_));
    int counters[kCounters] = {};
    KL_CUDA_CHECK(cudaMemcpy(it.clusterScore.data(), outScores_.get(), outScores_.bytes(),
                             cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(it.clusterCount.data(), outCounts_.get(), outCounts_.bytes(),
                             cudaMemcpyDeviceToHost));
    KL_CUDA_CHECK(cudaMemcpy(counters, counters_.get(), counters_.bytes(), cudaMemcpyDeviceToHost));
    // Read: the points that failed the bounds (every point in a warm or start iteration); of
    // those, the ones still open after tightening computed all K distances (or products).
    const bool warm = first || mode == Mode::Warm;
    const int64_t visited = warm || mode == Mode::Start ? n_ : counters[kFailed];
    const int64_t decided = warm ? n_ : counters[kUndecided];
    it.visited = visited;
    it.distances = (visited - decided) + int64_t(k_) * decided;
    it.rechecked = counters[kTies];
    lastMode_ = mode;
    lastChanged_ = first ? n_ : counters[kChanged];
    lastDecided_ = decided;
    return it;
  }

  std::vector<int32_t> labels() const override {
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<int32_t> out(static_cast<size_t>(n_));
    KL_CUDA_CHECK(cudaMemcpy(out.data(), labels_.get(), labels_.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }

  std::vector<float> centers() const override {
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<float> out(static_cast<size_t>(k_) * d_);
    KL_CUDA_CHECK(cudaMemcpy(out.data(), centers_[cur_].get(), centers_[cur_].bytes(),
                             cudaMemcpyDeviceToHost));
    return out;
  }

  std::vector<std::string> kernelNames() const override {
    return {"prunedCenterGeometryKernel", "prunedBoundsTightenKernel", "prunedDecideKernel",
            "prunedSumsKernel", "prunedScoreMoveKernel"};
  }

  std::vector<int> grids() const override {
    return {k_, boundsGrid(), tf32_ ? tf32_->grid : decideGrid_,
            sumsBlocks_ * sumsSlabs_, k_};
  }

  std::vector<ResourceUsage> resources() const override {
    return {cuda::kernelResources(prunedCenterGeometryKernel, kSmallThreads, prepSmem_),
            cuda::kernelResources(prunedBoundsTightenKernel, kSmallThreads, 0),
            tf32_ ? tf32AssignResources(*tf32_)
                  : cuda::kernelResources(prunedDecideKernel, shape_.threads, shape_.sharedBytes()),
            cuda::kernelResources(prunedSumsKernel, kSmallThreads, sumsSmem_),
            cuda::kernelResources(prunedScoreMoveKernel, kSmallThreads, 0)};
  }

  std::string strategy() const override {
    if (tf32_)
      return "Hamerly bounds from the TF32 products' gaps; warm iterations (every point by the "
             "TF32 products) while more than " + std::to_string(warmShare_ * 100.0).substr(0, 4) +
             " % of the labels change; decisions by the TF32 products, near ties in double";
    return "Hamerly bounds (no TF32 decision: " + tf32Why_ + "); decide tiles of " +
           std::to_string(shape_.tilePoints()) +
           " points x " + std::to_string(shape_.tileCenters()) + " centers (" +
           std::to_string(shape_.centerTiles) + " center tile(s), " +
           std::to_string(shape_.stages) + " stages); sums in " + std::to_string(sumsSlabs_) +
           " slab(s) of " + std::to_string(sumsSlab_) + " dimensions";
  }

 private:
  // The decide kernel's shape: 3 pipeline stages where two blocks still fit on an SM, else 2;
  // where even one block does not fit (Turing: 64 KB), fewer points per tile.
  void planDecide(size_t optin) {
    shape_ = decideShapeFor(k_, 3, kMaxPointRows);
    if (2 * (shape_.sharedBytes() + 1024) > optin) shape_ = decideShapeFor(k_, 2, kMaxPointRows);
    while (shape_.sharedBytes() > optin && shape_.rows > 1)
      shape_ = decideShapeFor(k_, 2, shape_.rows - 1);
    if (shape_.sharedBytes() > optin)
      throw InputError("pruned k-means: K = " + std::to_string(k_) + " needs " +
                       std::to_string(shape_.sharedBytes()) +
                       " bytes of shared memory per decide block, this GPU allows " +
                       std::to_string(optin));
    decideSmem_ = shape_.sharedBytes();
    if (decideSmem_ > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(prunedDecideKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(decideSmem_)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, prunedDecideKernel,
                                                                shape_.threads, decideSmem_));
    decideGrid_ = sms_ * std::max(1, perSM);  // persistent: each block loops over tiles
  }

  // The sums' slab: as many dimensions as K x slab doubles fit in shared memory, the dimensions
  // split evenly over the slabs.
  void planSums(size_t optin) {
    const size_t fixed = prunedSumsSharedBytes(k_, 0);
    const int64_t most =
        optin > fixed ? static_cast<int64_t>((optin - fixed) / (sizeof(double) * k_)) : 0;
    if (most < 1)
      throw InputError("pruned k-means keeps one dimension of the K sums in shared memory: K = " +
                       std::to_string(k_) + " needs more than this GPU's " +
                       std::to_string(optin) + " bytes per block");
    sumsSlabs_ = static_cast<int>((d_ + most - 1) / most);
    sumsSlab_ = (d_ + sumsSlabs_ - 1) / sumsSlabs_;
    sumsSmem_ = prunedSumsSharedBytes(k_, sumsSlab_);
    if (sumsSmem_ > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(prunedSumsKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(sumsSmem_)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, prunedSumsKernel,
                                                                kSmallThreads, sumsSmem_));
    // About one wave in all: every extra block adds its touched rows' atomics.
    sumsBlocks_ = std::max(1, sms_ * std::max(1, std::min(perSM, 4)) / sumsSlabs_);
  }

  // The exact re-decision keeps K float distances per warp in shared memory.
  void planExact(size_t optin) {
    const size_t perWarp = sizeof(float) * static_cast<size_t>(k_);
    if (perWarp > optin)
      throw InputError("pruned k-means keeps K float distances per warp in shared memory: K = " +
                       std::to_string(k_) + " is above " + std::to_string(optin / sizeof(float)));
    exactWarps_ = static_cast<int>(std::min<size_t>(kExactMaxWarps, optin / perWarp));
    exactSmem_ = perWarp * exactWarps_;
    if (exactSmem_ > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(prunedExactKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(exactSmem_)));
  }

  // The near-tie screen reads the centers from a copy in each block's shared memory where the
  // K x D floats fit beside its static sums (K <= 128 with the TF32 decision, D <= 256 for the
  // screen: at most 128 KB), with as many blocks as fit at once; else from global memory.
  void planScreen(size_t optin) {
    if (!tf32_ || d_ > 32 * kScreenDims) return;
    const size_t bytes = sizeof(float) * static_cast<size_t>(k_) * d_;
    const size_t staticBytes = sizeof(float) * (screenThreads(true) / 32) * kMaskWords * 32;
    if (bytes + staticBytes > optin) return;
    if (bytes > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(prunedTieScreenKernel<true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSM, prunedTieScreenKernel<true>, screenThreads(true), bytes));
    if (perSM < 1) return;
    screenStaged_ = true;
    screenSmem_ = bytes;
    screenGrid_ = sms_ * perSM;
  }

  // Records kernel q's events around `launch`; its time is read once the iteration is queued.
  template <class Launch>
  void timed(int q, Launch&& launch) {
    events_[q].start(stream_);
    launch();
    events_[q].stop(stream_);
    ran_[q] = true;
  }

  // Iteration 0 is warm. After a warm iteration: warm again while many labels still change, else
  // start the bounds. After a start or pruned one: pruned, unless the bounds left most points to
  // the full decision (then a warm iteration costs less and restarts the bounds after it).
  Mode modeFor(bool first) const {
    if (!tf32_) return first ? Mode::Warm : Mode::Pruned;  // Warm at 0: the CUDA-core decide
    if (first) return Mode::Warm;
    if (lastMode_ == Mode::Warm)
      return double(lastChanged_) > warmShare_ * double(n_) ? Mode::Warm : Mode::Start;
    return double(lastDecided_) > kRewarmShare * double(n_) ? Mode::Warm : Mode::Pruned;
  }

  // What the iteration needs of its centers' geometry, where it is measured (see the file
  // comment): with the TF32 decision, the centred fragments in iteration 0 and the warm iterations,
  // that and the moves in the start (its half distances and mean kept for the pruned ones); on
  // the CUDA-core path the moves of every iteration after the first.
  void launchGeometry(bool first, Mode mode) {
    const bool prep = tf32_ && (first || mode != Mode::Pruned);
    const bool withMoves = !first && (tf32_ ? mode == Mode::Start : true);
    if (!prep && !withMoves) return;
    const bool start = tf32_ && mode == Mode::Start;
    timed(kMove, [&] {
      prunedCenterGeometryKernel<<<k_, kSmallThreads, prep ? prepSmem_ : 0, stream_>>>(
          cur(), k_, d_, withMoves, drift_.get(), moves_.get(), start ? half_.get() : nullptr,
          prep, cn_.get(), cabs_.get(), fragmentsOut(),
          start ? startMean_.get() : nullptr);
      KL_CUDA_CHECK_LAUNCH(stream_);
    });
  }

  int boundsGrid() const { return sms_ * 8; }

  // The bounds test of every point and the tightening of those that fail it (the count of those
  // in kFailed); the ones still open are listed in undecided_.
  void launchBoundsTighten() {
    prunedBoundsTightenKernel<<<boundsGrid(), kSmallThreads, 0, stream_>>>(
        x_, n_, d_, k_, cur(), vec4_, labels_.get(), bounds_.get(), moves_.get(), gamma_,
        slack_, counter(kFailed), undecided_.get(), counter(kUndecided));
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  // Iteration 0: every point through the tiled decide. Later: the points the bounds test left
  // open after tightening (launchBoundsTighten). The near-ties of either go to the exact kernel.
  void launchDecide(bool first) {
    DecideArgs a{};
    a.X = x_;
    a.n = n_;
    a.d = d_;
    a.k = k_;
    a.Ct = centersT_.get();
    a.list = first ? nullptr : undecided_.get();
    a.listCount = first ? nullptr : counter(kUndecided);
    a.labels = labels_.get();
    a.bounds = bounds_.get();
    a.ties = ties_.get();
    a.tieCount = counter(kTies);
    a.changed = first ? nullptr : changed_.get();  // iteration 0: every point is added
    a.changedCount = counter(kChanged);
    a.gamma = gamma_;
    a.slack = slack_;
    a.vecRows = vec4_;
    prunedDecideKernel<<<decideGrid_, shape_.threads, decideSmem_, stream_>>>(a, shape_);
    KL_CUDA_CHECK_LAUNCH(stream_);
    launchExact(a.changed);
  }

  // The start: every point's own distance, its lower bound from the last warm iteration's gap.
  void launchStartTighten() {
    prunedTightenKernel<<<sms_ * 8, kSmallThreads, 0, stream_>>>(
        x_, d_, k_, cur(), vec4_, n_, gaps_.get(),
        labels_.get(), bounds_.get(), moves_.get(), gamma_, slack_, undecided_.get(),
        counter(kUndecided));
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  // The near ties, from scratch in the CPU's arithmetic (a warp each): those of the CUDA-core
  // decision, or (`hard`) those the TF32 decision's re-decision could not decide.
  void launchExact(int2* changed, bool hard = false) {
    ExactArgs e{};
    e.X = x_;
    e.d = d_;
    e.k = k_;
    e.C = cur();
    e.Ct = centersT_.get();
    e.kpad = shape_.paddedCenters();
    e.ties = hard ? hard_.get() : ties_.get();
    e.tieCount = hard ? counter(kHard) : counter(kTies);
    e.labels = labels_.get();
    e.bounds = bounds_.get();
    e.changed = changed;
    e.changedCount = counter(kChanged);
    e.gamma = gamma_;
    e.slack = slack_;
    prunedExactKernel<<<sms_ * 8, 32 * exactWarps_, exactSmem_, stream_>>>(e);
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  // The TF32 decision: every point (warm), or the points the start's or the bounds' tightening
  // left open; then the near ties.
  void launchTf32Decide(Mode mode, bool first) {
    if (mode == Mode::Start) launchStartTighten();
    PrunedTf32Out o{};
    const bool listed = mode != Mode::Warm;
    o.list = listed ? undecided_.get() : nullptr;
    o.listCount = listed ? counter(kUndecided) : nullptr;
    o.labels = labels_.get();
    o.gaps = gaps_.get();
    o.bounds = listed ? bounds_.get() : nullptr;
    o.ties = ties_.get();
    o.tieOld = tieOld_.get();
    o.masks = masks_.get();
    o.tieBest = tieBest_.get();
    o.tieGapNc = tieGapNc_.get();
    o.tieCount = counter(kTies);
    o.changed = first ? nullptr : changed_.get();  // iteration 0: every point is added
    o.changedCount = counter(kChanged);
    launchTf32PrunedDecide(*tf32_, x_, n_, d_, fragments_.get(), cn_.get(), cabs_.get(), k_,
                           xnorm_.get(), kappa_, o, stream_);
    // The near ties: among their candidates only, in float, then in double what the float sums
    // cannot tell apart (about 1 % of a warm iteration's
    // points; from scratch, all K float distances first, they took 3 ms in iteration 1), with
    // bounds that let them skip the next iterations (with (inf, 0), the same ~10,000 points came
    // back every iteration: 57 us of each).
    TieArgs t{};
    t.X = x_;
    t.d = d_;
    t.k = k_;
    t.C = cur();
    t.ties = ties_.get();
    t.tieOld = tieOld_.get();
    t.tieBest = tieBest_.get();
    t.tieGapNc = tieGapNc_.get();
    t.masks = masks_.get();
    t.tieCount = counter(kTies);
    t.labels = labels_.get();
    t.bounds = bounds_.get();
    t.gaps = gaps_.get();
    t.changed = o.changed;
    t.changedCount = counter(kChanged);
    t.hard = hard_.get();
    t.hardCount = counter(kHard);
    t.exact = tieExact_.get();
    t.exactCount = counter(kTieExact);
    t.loRest = tieLoRest_.get();
    t.loTop = tieLoTop_.get();
    if (screenStaged_)
      prunedTieScreenKernel<true><<<screenGrid_, screenThreads(true), screenSmem_, stream_>>>(t);
    else
      prunedTieScreenKernel<false><<<sms_ * 8, kSmallThreads, 0, stream_>>>(t);
    KL_CUDA_CHECK_LAUNCH(stream_);
    prunedTieKernel<<<sms_ * 8, kSmallThreads, 0, stream_>>>(t);
    KL_CUDA_CHECK_LAUNCH(stream_);
    if (!(pointsTame_ && centersTame_)) launchExact(o.changed, true);
  }

  void launchSums(bool first, bool resum) {
    if (resum && sortedFits_) {  // every point, by label, from zero
      if (!first) {  // iteration 0's sums are zero from begin()
        KL_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_));
        KL_CUDA_CHECK(cudaMemsetAsync(sumsq_.get(), 0, sumsq_.bytes(), stream_));
        KL_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_));
      }
      sorted_.launch(x_, labels_.get(), xsq_.get(), sums_.get(), sumsq_.get(), counts_.get(),
                     stream_);
      return;
    }
    const dim3 grid(static_cast<unsigned>(sumsBlocks_), static_cast<unsigned>(sumsSlabs_));
    prunedSumsKernel<<<grid, kSmallThreads, sumsSmem_, stream_>>>(
        x_, n_, d_, k_, labels_.get(), xsq_.get(), first ? nullptr : changed_.get(),
        counter(kChanged), sumsSlab_, kSumsMinPerBlock, sums_.get(), sumsq_.get(), counts_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  // The score of this iteration's assignment, then the centers moved for the next one (see the
  // file comment). After a warm iteration the next is warm or the start, which measure the
  // geometry themselves: no centred fragments, no moves.
  void launchScoreMove(Mode mode) {
    const bool forPruned = tf32_ && mode != Mode::Warm;
    ScoreMoveArgs a{};
    a.k = k_;
    a.d = d_;
    a.kpad = shape_.paddedCenters();
    a.C = cur();
    a.next = centers_[cur_ ^ 1].get();
    a.Ct = centersT_.get();
    a.sums = sums_.get();
    a.sumsq = sumsq_.get();
    a.counts = counts_.get();
    a.outScores = outScores_.get();
    a.outCounts = outCounts_.get();
    a.drift = drift_.get();
    if (forPruned) {
      a.mean = startMean_.get();
      a.prep = true;
      a.cn = cn_.get();
      a.cabs = cabs_.get();
      a.fragments = fragmentsOut();
      a.half = half_.get();
      a.moves = moves_.get();
      a.done = moveDone_.get();
    }
    prunedScoreMoveKernel<<<k_, kSmallThreads, 0, stream_>>>(a);
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  int* counter(Counter c) const { return counters_.get() + c; }

  const float* x_;
  int64_t n_;
  int d_, k_;
  cudaStream_t stream_;
  double gamma_ = 0, slack_ = 0;
  int sms_ = 1;
  bool vec4_ = false;  // 16-byte row reads: D % 4 == 0 and the points 16-byte aligned
  DecideShape shape_;
  size_t decideSmem_ = 0;
  int decideGrid_ = 1;
  int sumsSlab_ = 1, sumsSlabs_ = 1, sumsBlocks_ = 1;
  size_t sumsSmem_ = 0;
  int exactWarps_ = 1;
  size_t exactSmem_ = 0;
  std::optional<Tf32AssignPlan> tf32_;
  std::string tf32Why_;  // why there is no TF32 decision
  float kappa_ = 0;
  size_t prepSmem_ = 0;
  double warmShare_ = kWarmChangedShare;
  bool screenStaged_ = false;  // the near-tie screen's centers in shared memory (planScreen)
  size_t screenSmem_ = 0;
  int screenGrid_ = 1;
  SortedUpdate sorted_;
  bool sortedFits_ = false;  // sorted_ is allocated: every point can be summed by label
  Mode lastMode_ = Mode::Warm;
  int64_t lastChanged_ = 0, lastDecided_ = 0;
  cuda::EventPair events_[kKernels];
  bool ran_[kKernels] = {};

  // K x D: this iteration's assignment's centers (centers_[cur_]) and the ones its end moves
  // them to (the other buffer: centers() keeps returning the assignment's).
  cuda::DeviceBuffer<float> centers_[2];
  int cur_ = 0;
  float* cur() const { return centers_[cur_].get(); }
  cuda::DeviceBuffer<uint32_t> fragments_;  // Tf32CenterFragments of the centred centers (the TF32 decision's)
  Tf32CenterFragments fragmentsOut() const {
    return {fragments_.get(), tf32_ ? tf32_->nTiles : 0};
  }
  cuda::DeviceBuffer<float> half_;       // K: a lower bound of half the nearest-center distance
  cuda::DeviceBuffer<float> startMean_;  // D: the start's centering vector (TF32 decision)
  cuda::DeviceBuffer<unsigned> moveDone_;  // prunedScoreMoveKernel's finished blocks
  // Tame points and initial centers (finite, |x|^2 below 1e30): every near tie ends with a
  // label, so the TF32 path does not launch prunedExactKernel (3.5 us of every iteration).
  bool pointsTame_ = false, centersTame_ = false;
  cuda::DeviceBuffer<float> centersT_;  // D x kpad: the same, transposed (zero padding)
  cuda::DeviceBuffer<double> sums_, sumsq_, outScores_, xsq_;
  cuda::DeviceBuffer<int> counts_, outCounts_, labels_, undecided_, ties_, counters_;
  cuda::DeviceBuffer<float> drift_, xnorm_;
  cuda::DeviceBuffer<float> gaps_, cn_, cabs_;  // the TF32 decision's
  cuda::DeviceBuffer<int> tieOld_, tieBest_, hard_, tieExact_;
  cuda::DeviceBuffer<float> tieGapNc_, tieLoRest_, tieLoTop_;
  cuda::DeviceBuffer<uint32_t> masks_;
  cuda::DeviceBuffer<float4> moves_;               // K: (drift, otherDrift, half, 0)
  cuda::DeviceBuffer<float2> bounds_;              // N: (upper, lower)
  cuda::DeviceBuffer<int2> changed_;               // (point, old label)
};

}  // namespace

std::unique_ptr<KMeansEngine> makePrunedKMeans(const float* d_points, int64_t n, int d, int k,
                                               CUstream_st* stream) {
  return std::make_unique<PrunedKMeans>(d_points, n, d, k, stream);
}

}  // namespace kernellab::clustering::best

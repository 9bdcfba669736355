// SPDX-License-Identifier: MIT
// k-means, pruned variant (issue 15): Hamerly's bounds with proven rounding margins
// (kernellab/kmeans_pruning.h), the CPU's KMeansPrunedHost on the GPU: the same labels, computed
// for a fraction of the points after the first iteration.
//
// Per iteration, on point-major points (timed groups, in kernelNames() order):
//  - prunedMoveKernel (iterations > 0): the centers move to the means of the sums (in place, and
//    in the transposed copy the decide kernels read), each one's drift; prunedHalfKernel: half
//    the distance to each center's nearest other center (K x K in double); prunedMoveFinishKernel:
//    each cluster's (drift, otherDrift, half).
//  - prunedBoundsKernel (iterations > 0): a thread per point, 20 bytes: the points whose bounds
//    no longer prove their label are listed.
//  - prunedDecideKernel group: in iterations > 0, prunedTightenKernel re-measures each listed
//    point's own center (a warp per point) and lists those still open; prunedDecideKernel (every
//    point in iteration 0) computes all K float distances, register-tiled
//    (kmeans_pruned_decide.cuh), and decides by the float intervals; prunedExactKernel re-decides
//    the near-ties in double with the CPU's exactSquaredDistance. Changed labels are listed.
//  - prunedSumsKernel: S, Q and the counts follow the changed points (all in iteration 0),
//    through block-private tables in shared memory.
//  - prunedScoreKernel: each cluster's score from the sums, with this assignment's centers.
// Nothing waits for the host inside an iteration; the counters, scores and counts are read back
// once at its end.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <memory>
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

namespace kernellab::clustering::best {
namespace {

// The per-iteration counters, one int each, read back at the end of the iteration.
enum Counter { kFailed = 0, kUndecided, kTies, kChanged, kCounters };

enum Kernel { kMove = 0, kBounds, kDecide, kSums, kScore, kKernels };

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

    const size_t kd = static_cast<size_t>(k) * d;
    centers_.allocate(kd);
    centersT_.allocate(static_cast<size_t>(d) * shape_.paddedCenters());
    KL_CUDA_CHECK(cudaMemsetAsync(centersT_.get(), 0, centersT_.bytes(), stream_));  // padding
    sums_.allocate(kd);
    sumsq_.allocate(size_t(k));
    counts_.allocate(size_t(k));
    outScores_.allocate(size_t(k));
    outCounts_.allocate(size_t(k));
    drift_.allocate(size_t(k));
    nearest_.allocate(size_t(k));
    moves_.allocate(size_t(k));
    labels_.allocate(static_cast<size_t>(n));
    bounds_.allocate(static_cast<size_t>(n));
    failed_.allocate(static_cast<size_t>(n));
    undecided_.allocate(static_cast<size_t>(n));
    ties_.allocate(static_cast<size_t>(n));
    changed_.allocate(static_cast<size_t>(n));
    counters_.allocate(kCounters);
    xnorm_.allocate(static_cast<size_t>(n));
    xsq_.allocate(static_cast<size_t>(n));
    // |x|^2 of every point, once: the sums of the members' squares follow the changed points.
    const int normWarps = kPartThreads / 32;  // a warp per point
    pointNormsKernel<<<gridFor(n, normWarps), kPartThreads, 0, stream_>>>(x_, n_, d_, xnorm_.get(),
                                                                          xsq_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    KL_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void begin(const std::vector<float>& centers) override {
    if (centers.size() != static_cast<size_t>(k_) * d_)
      throw InputError("pruned k-means: the initial centers must be K x D = " +
                       std::to_string(int64_t(k_) * d_) + " floats, got " +
                       std::to_string(centers.size()));
    KL_CUDA_CHECK(cudaMemcpyAsync(centers_.get(), centers.data(), centers_.bytes(),
                                  cudaMemcpyHostToDevice, stream_));
    prunedTransposeKernel<<<gridFor(int64_t(k_) * d_, kSmallThreads), kSmallThreads, 0, stream_>>>(
        centers_.get(), k_, d_, shape_.paddedCenters(), centersT_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    KL_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sums_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(sumsq_.get(), 0, sumsq_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(counts_.get(), 0, counts_.bytes(), stream_));
    KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), stream_));  // poison: -1
  }

  KMeansIteration iterate(int iteration) override {
    const bool first = iteration == 0;  // as the CPU: iteration 0 decides every point
    std::fill(std::begin(ran_), std::end(ran_), false);
    KL_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_));
    if (!first) {
      timed(kMove, [&] { launchMove(); });
      timed(kBounds, [&] { launchBounds(); });
    }
    timed(kDecide, [&] { launchDecide(first); });
    timed(kSums, [&] { launchSums(first); });
    timed(kScore, [&] { launchScore(); });

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
    // Read: the points that failed the bounds (every point in iteration 0); of those, the ones
    // still open after tightening computed all K distances.
    const int64_t visited = first ? n_ : counters[kFailed];
    const int64_t decided = first ? n_ : counters[kUndecided];
    it.visited = visited;
    it.distances = (visited - decided) + int64_t(k_) * decided;
    it.rechecked = counters[kTies];
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
    KL_CUDA_CHECK(cudaMemcpy(out.data(), centers_.get(), centers_.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }

  std::vector<std::string> kernelNames() const override {
    return {"prunedMoveKernel", "prunedBoundsKernel", "prunedDecideKernel", "prunedSumsKernel",
            "prunedScoreKernel"};
  }

  std::vector<int> grids() const override {
    return {k_, gridFor(n_, kSmallThreads), decideGrid_, sumsBlocks_ * sumsSlabs_,
            gridFor(int64_t(k_) * 32, kSmallThreads)};
  }

  std::vector<ResourceUsage> resources() const override {
    return {cuda::kernelResources(prunedMoveKernel, kSmallThreads, 0),
            cuda::kernelResources(prunedBoundsKernel, kSmallThreads, 0),
            cuda::kernelResources(prunedDecideKernel, shape_.threads, shape_.sharedBytes()),
            cuda::kernelResources(prunedSumsKernel, kSmallThreads, sumsSmem_),
            cuda::kernelResources(prunedScoreKernel, kSmallThreads, 0)};
  }

  std::string strategy() const override {
    return "Hamerly bounds; decide tiles of " + std::to_string(shape_.tilePoints()) +
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

  // Records kernel q's events around `launch`; its time is read once the iteration is queued.
  template <class Launch>
  void timed(int q, Launch&& launch) {
    events_[q].start(stream_);
    launch();
    events_[q].stop(stream_);
    ran_[q] = true;
  }

  void launchMove() {
    const int kpad = shape_.paddedCenters();
    prunedMoveKernel<<<k_, kSmallThreads, 0, stream_>>>(centers_.get(), centersT_.get(), kpad,
                                                        d_, sums_.get(), counts_.get(),
                                                        drift_.get(), nearest_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    const int tiles = (k_ + kHalfTile - 1) / kHalfTile;
    prunedHalfKernel<<<tiles * (tiles + 1) / 2, kHalfTile * kHalfTile, 0, stream_>>>(
        centers_.get(), k_, d_, nearest_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    prunedMoveFinishKernel<<<1, 1024, 0, stream_>>>(k_, drift_.get(), nearest_.get(),
                                                    moves_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  void launchBounds() {
    prunedBoundsKernel<<<gridFor(n_, kSmallThreads), kSmallThreads, 0, stream_>>>(
        n_, k_, labels_.get(), bounds_.get(), moves_.get(), failed_.get(), counter(kFailed));
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  // Iteration 0: every point through the tiled decide. Later: the failed points tightened, the
  // still-open ones decided. The near-ties of either go to the exact kernel.
  void launchDecide(bool first) {
    if (!first) {
      prunedTightenKernel<<<sms_ * 8, kSmallThreads, 0, stream_>>>(
          x_, d_, k_, centers_.get(), vec4_, failed_.get(), counter(kFailed), labels_.get(),
          bounds_.get(), moves_.get(), gamma_, slack_, undecided_.get(), counter(kUndecided));
      KL_CUDA_CHECK_LAUNCH(stream_);
    }
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
    ExactArgs e{};
    e.X = x_;
    e.d = d_;
    e.k = k_;
    e.C = centers_.get();
    e.Ct = centersT_.get();
    e.kpad = shape_.paddedCenters();
    e.ties = ties_.get();
    e.tieCount = counter(kTies);
    e.labels = labels_.get();
    e.bounds = bounds_.get();
    e.changed = a.changed;
    e.changedCount = counter(kChanged);
    e.gamma = gamma_;
    e.slack = slack_;
    prunedExactKernel<<<sms_, 32 * exactWarps_, exactSmem_, stream_>>>(e);
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  void launchSums(bool first) {
    const dim3 grid(static_cast<unsigned>(sumsBlocks_), static_cast<unsigned>(sumsSlabs_));
    prunedSumsKernel<<<grid, kSmallThreads, sumsSmem_, stream_>>>(
        x_, n_, d_, k_, labels_.get(), xsq_.get(), first ? nullptr : changed_.get(),
        counter(kChanged), sumsSlab_, kSumsMinPerBlock, sums_.get(), sumsq_.get(), counts_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
  }

  void launchScore() {
    prunedScoreKernel<<<gridFor(int64_t(k_) * 32, kSmallThreads), kSmallThreads, 0, stream_>>>(
        k_, d_, centers_.get(), sums_.get(), sumsq_.get(), counts_.get(), outScores_.get(),
        outCounts_.get());
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
  cuda::EventPair events_[kKernels];
  bool ran_[kKernels] = {};

  cuda::DeviceBuffer<float> centers_;   // K x D: this iteration's assignment's centers
  cuda::DeviceBuffer<float> centersT_;  // D x kpad: the same, transposed (zero padding)
  cuda::DeviceBuffer<double> sums_, sumsq_, outScores_, xsq_;
  cuda::DeviceBuffer<int> counts_, outCounts_, labels_, failed_, undecided_, ties_, counters_;
  cuda::DeviceBuffer<float> drift_, xnorm_;
  cuda::DeviceBuffer<unsigned long long> nearest_;  // K: the nearest other center (double bits)
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

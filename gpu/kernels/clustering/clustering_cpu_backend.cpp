// SPDX-License-Identifier: MIT
// The clustering backend on CPU threads: every kernel runs through the executor (blocks in
// parallel, the threads of a block phase by phase) with the same block programs as the CUDA
// kernels, with every array access bounds-checked and every shared slot race-checked. Timings
// are CPU timings and labelled so.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "clustering_backend.h"
#include "kcenters_pruned_cpu.h"
#include "kmeans_pruned_cpu.h"
#include "kernellab/block_executor.h"
#include "kernellab/ceilings.h"
#include "kernellab/clustering_phases.h"
#include "kernellab/host_block.h"

namespace kernellab::clustering {
namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The executor's memory policy: the backend's arrays (global memory) and the block's stage and
// scratch (its shared memory, or its slice of global scratch), each access checked.
struct HostMem {
  enum Space { kStage, kScratchF, kScratchD, kScratchI, kSpaces };

  const char* kernel = "";
  int32_t* labels = nullptr;
  int64_t n = 0;
  float* dist = nullptr;
  int64_t nDist = 0;
  int32_t* centerIndex = nullptr;
  float* radius = nullptr;
  int k = 0;
  float* candValue = nullptr;
  int32_t* candIndex = nullptr;
  int candidates = 0;
  float* centroids = nullptr;
  int64_t centroidCount = 0;
  double* clusterScore = nullptr;
  int32_t* clusterCount = nullptr;
  float* stage = nullptr;
  float* scratchF = nullptr;
  double* scratchD = nullptr;
  int32_t* scratchI = nullptr;
  int slots = 0;
  HazardTracker* tracker = nullptr;

  void check(bool ok, const char* array, int64_t index) const {
    if (!ok)
      throw std::logic_error(std::string(kernel) + ": out-of-bounds access to " + array +
                             " at index " + std::to_string(index));
  }

  template <class L>
  float loadPoint(const PointsView<L>& X, int64_t i, int j) const {
    check(i >= 0 && i < X.n() && j >= 0 && j < X.d(), "points", i);
    return X.values()[X.element(i, j)];
  }
  int32_t loadCenterIndex(int j) const {
    check(j >= 0 && j < k, "centerIndex", j);
    return centerIndex[j];
  }
  void storeCenterIndex(int j, int32_t v) {
    check(j >= 0 && j < k, "centerIndex", j);
    centerIndex[j] = v;
  }
  void storeRadius(int j, float v) {
    check(j >= 0 && j < k, "radius", j);
    radius[j] = v;
  }
  int32_t loadLabel(int64_t i) const {
    check(i >= 0 && i < n, "labels", i);
    return labels[i];
  }
  void storeLabel(int64_t i, int32_t v) {
    check(i >= 0 && i < n, "labels", i);
    labels[i] = v;
  }
  float loadDist(int64_t i) const {
    check(i >= 0 && i < nDist, "distances", i);
    return dist[i];
  }
  void storeDist(int64_t i, float v) {
    check(i >= 0 && i < nDist, "distances", i);
    dist[i] = v;
  }
  void storeCandidate(int b, float v, int32_t i) {
    check(b >= 0 && b < candidates, "candidates", b);
    candValue[b] = v;
    candIndex[b] = i;
  }
  float loadCandidateValue(int b) const {
    check(b >= 0 && b < candidates, "candidates", b);
    return candValue[b];
  }
  int32_t loadCandidateIndex(int b) const {
    check(b >= 0 && b < candidates, "candidates", b);
    return candIndex[b];
  }
  float loadCentroid(int64_t e) const {
    check(e >= 0 && e < centroidCount, "centroids", e);
    return centroids[e];
  }
  void storeCentroid(int64_t e, float v) {
    check(e >= 0 && e < centroidCount, "centroids", e);
    centroids[e] = v;
  }
  void storeClusterScore(int c, double v) {
    check(c >= 0 && c < k, "clusterScore", c);
    clusterScore[c] = v;
  }
  void storeClusterCount(int c, int32_t v) {
    check(c >= 0 && c < k, "clusterCount", c);
    clusterCount[c] = v;
  }
  // Block-private slots: the tracker checks bounds and races.
  float loadStage(int t) {
    tracker->read(kStage, t);
    return stage[t];
  }
  void storeStage(int t, float v) {
    tracker->write(kStage, t);
    stage[t] = v;
  }
  float loadScratchF(int t) {
    tracker->read(kScratchF, t);
    return scratchF[t];
  }
  void storeScratchF(int t, float v) {
    tracker->write(kScratchF, t);
    scratchF[t] = v;
  }
  double loadScratchD(int t) {
    tracker->read(kScratchD, t);
    return scratchD[t];
  }
  void storeScratchD(int t, double v) {
    tracker->write(kScratchD, t);
    scratchD[t] = v;
  }
  int32_t loadScratchI(int t) {
    tracker->read(kScratchI, t);
    return scratchI[t];
  }
  void storeScratchI(int t, int32_t v) {
    tracker->write(kScratchI, t);
    scratchI[t] = v;
  }
};

// One block's shared memory, NaN-filled per block: a phase that reads a slot nobody wrote shows.
struct Workspace {
  std::vector<float> stage, scratchF;
  std::vector<double> scratchD;
  std::vector<int32_t> scratchI;
  void poison(int slots) {
    stage.assign(static_cast<size_t>(slots), kNaN);
    scratchF.assign(static_cast<size_t>(slots), kNaN);
    scratchD.assign(static_cast<size_t>(slots), std::numeric_limits<double>::quiet_NaN());
    scratchI.assign(static_cast<size_t>(slots), -1);
  }
};

class CpuBackend final : public Backend {
 public:
  CpuBackend(const PointSet& points, int k) : points_(points), k_(k) {}

  std::string clock() const override { return "cpu-steady-clock"; }

  void prepare(const VariantInfo& v, Family family, int threadsPerBlock,
               std::vector<PhaseTiming>& phases) override {
    std::vector<PhaseTiming> ignored;
    release(ignored);
    variant_ = v;
    family_ = family;
    tpb_ = threadsPerBlock;
    auto t0 = std::chrono::steady_clock::now();
    if (v.layout == DataLayout::Coalesced)
      coalesced_ = std::make_unique<ArrangedPoints<CoalescedLayout>>(points_);
    else
      interleaved_ = std::make_unique<ArrangedPoints<InterleavedLayout>>(points_);
    phases.push_back({"arrange layout (host)", msSince(t0)});

    t0 = std::chrono::steady_clock::now();
    const int64_t n = points_.n;
    gridN_ = static_cast<int>((n + tpb_ - 1) / tpb_);
    // The pruned engine's host run makes its own labels and distances (moved in here after it):
    // allocating them now as well would hold them twice.
    const bool pruned = v.engine == Engine::Pruned;
    // The pruned k-means keeps its own state over the point-major points (as arranged above).
    if (pruned && family == clustering::kKMeans)
      kmPruned_ = std::make_unique<KMeansPrunedHost>(points_.values.data(), n, points_.d, k_);
    labels_.assign(pruned ? 0 : static_cast<size_t>(n), -1);
    dist_.assign(family == clustering::kKCenters && !pruned ? static_cast<size_t>(n) : 0, kNaN);
    centerIndex_.assign(static_cast<size_t>(k_), -1);
    radius_.assign(static_cast<size_t>(k_), kNaN);
    candValue_.assign(static_cast<size_t>(gridN_), kNaN);
    candIndex_.assign(static_cast<size_t>(gridN_), -1);
    centroids_.assign(static_cast<size_t>(k_) * points_.d, kNaN);
    clusterScore_.assign(static_cast<size_t>(k_), std::numeric_limits<double>::quiet_NaN());
    clusterCount_.assign(static_cast<size_t>(k_), -1);
    if (v.memory == ScratchMemory::Global) {
      const size_t slots = static_cast<size_t>(std::max(gridN_, k_)) * tpb_;
      globalF_.assign(slots, kNaN);
      globalD_.assign(slots, std::numeric_limits<double>::quiet_NaN());
      globalI_.assign(slots, -1);
    }
    phases.push_back({"allocate", msSince(t0)});
  }

  std::vector<std::optional<ResourceUsage>> resources() override {
    return std::vector<std::optional<ResourceUsage>>(kernelNames(family_, variant_).size());
  }

  // The pruned k-centers engine (issue 15) on the host, over the dimension-major points as the
  // CUDA engine reads them; its labels and distances stay for the downloads. The seed variants
  // and the CUDA-only engines have no such run here.
  std::optional<KCentersRun> kcentersRunAll(int64_t first, int k,
                                            const std::atomic<bool>* cancel) override {
    if (variant_.engine != Engine::Pruned || !coalesced_) return std::nullopt;
    const auto t0 = std::chrono::steady_clock::now();
    KCentersPrunedRun run = kcentersPrunedHost(coalesced_->values().data(), coalesced_->n(),
                                               coalesced_->d(), k, first, cancel);
    KCentersRun out;
    out.ms = msSince(t0);
    out.centers = std::move(run.centers);
    out.radii = std::move(run.radii);
    out.visited = std::move(run.visited);
    out.distances = std::move(run.distances);
    labels_ = std::move(run.labels);
    dist_ = std::move(run.dist);
    return out;
  }

  void kcentersBegin(int64_t first) override {
    std::fill(labels_.begin(), labels_.end(), -1);
    std::fill(dist_.begin(), dist_.end(), kNaN);
    std::fill(centerIndex_.begin(), centerIndex_.end(), -1);
    std::fill(radius_.begin(), radius_.end(), kNaN);
    centerIndex_[0] = static_cast<int32_t>(first);
  }

  KCentersStep kcentersStep(int j, int k) override {
    KCentersStep step;
    const int grid = gridN_;
    auto t0 = std::chrono::steady_clock::now();
    withPoints([&](const auto& X) {
      launch<KCentersThread>("kcentersDistanceKernel", grid,
                             [&](auto& blk, HostMem& m) { kcentersDistanceBlock(blk, m, X, j); });
    });
    step.kernelMs.push_back(msSince(t0));
    t0 = std::chrono::steady_clock::now();
    launch<KCentersThread>("kcentersSelectKernel", 1,
                           [&](auto& blk, HostMem& m) { kcentersSelectBlock(blk, m, grid, j, k); });
    step.kernelMs.push_back(msSince(t0));
    step.radius = radius_[static_cast<size_t>(j)];
    step.next = j + 1 < k ? centerIndex_[static_cast<size_t>(j) + 1] : -1;
    return step;
  }

  void kmeansBegin(const std::vector<float>& centers) override {
    if (kmPruned_) {
      kmPruned_->begin(centers);
      return;
    }
    std::fill(labels_.begin(), labels_.end(), -1);
    std::fill(clusterScore_.begin(), clusterScore_.end(), std::numeric_limits<double>::quiet_NaN());
    std::fill(clusterCount_.begin(), clusterCount_.end(), -1);
    centroids_ = centers;
  }

  KMeansStep kmeansStep(int iteration) override {
    KMeansStep step;
    if (kmPruned_) {
      KMeansPrunedIteration it = kmPruned_->iterate(iteration);
      step.kernelMs = std::move(it.stepMs);
      step.clusterScore = std::move(it.clusterScore);
      step.clusterCount = std::move(it.clusterCount);
      step.visited = it.tightened + it.decided;
      step.distances = it.distances;
      return step;
    }
    const bool staged = variant_.memory == ScratchMemory::Shared;
    withPoints([&](const auto& X) {
      using L = typename std::decay_t<decltype(X)>::LayoutType;
      auto t0 = std::chrono::steady_clock::now();
      if (iteration > 0)
        launch<SumThread>("calcCentroidsKernel", k_,
                          [&](auto& blk, HostMem& m) { centroidsBlock(blk, m, X); });
      step.kernelMs.push_back(iteration > 0 ? msSince(t0) : 0.0);
      t0 = std::chrono::steady_clock::now();
      launch<AssignThread>("assignToClustersKernel", gridN_, [&](auto& blk, HostMem& m) {
        if (staged)
          assignBlock<L, true>(blk, m, X, k_);
        else
          assignBlock<L, false>(blk, m, X, k_);
      });
      step.kernelMs.push_back(msSince(t0));
      t0 = std::chrono::steady_clock::now();
      launch<SumThread>("calcScoreKernel", k_, [&](auto& blk, HostMem& m) {
        if (staged)
          scoreBlock<L, true>(blk, m, X);
        else
          scoreBlock<L, false>(blk, m, X);
      });
      step.kernelMs.push_back(msSince(t0));
    });
    step.clusterScore = clusterScore_;
    step.clusterCount = clusterCount_;
    return step;
  }

  double downloadLabels(std::vector<int32_t>& out) override {
    return copyOut(kmPruned_ ? kmPruned_->labels() : labels_, out);
  }
  double downloadDistances(std::vector<float>& out) override { return copyOut(dist_, out); }
  double downloadCentroids(std::vector<float>& out) override {
    return copyOut(kmPruned_ ? kmPruned_->centers() : centroids_, out);
  }

  std::optional<RecordedSchedule> recordSchedule(int) override { return std::nullopt; }

  void release(std::vector<PhaseTiming>& phases) override {
    const auto t0 = std::chrono::steady_clock::now();
    coalesced_.reset();
    interleaved_.reset();
    kmPruned_.reset();
    for (auto* v : {&labels_, &centerIndex_, &candIndex_, &clusterCount_, &globalI_})
      std::vector<int32_t>().swap(*v);
    for (auto* v : {&dist_, &radius_, &candValue_, &centroids_, &globalF_})
      std::vector<float>().swap(*v);
    for (auto* v : {&clusterScore_, &globalD_}) std::vector<double>().swap(*v);
    phases.push_back({"free", msSince(t0)});
  }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    std::vector<float> copy(points_.values.size());
    return hostCopyCeiling(copy.data(), points_.values.data(), copy.size() * sizeof(float), warmup,
                           reps, hooks);
  }

 private:
  // Calls fn with the view of whichever layout this variant arranged: the only way to reach the
  // points, so the block programs always get the layout that was built.
  template <class Fn>
  void withPoints(Fn&& fn) {
    if (coalesced_)
      fn(coalesced_->view());
    else if (interleaved_)
      fn(interleaved_->view());
    else
      throw std::logic_error("clustering CPU backend: no points prepared");
  }

  template <class T>
  static double copyOut(const std::vector<T>& from, std::vector<T>& to) {
    const auto t0 = std::chrono::steady_clock::now();
    to = from;
    return msSince(t0);
  }

  // Runs `program` for every block of a one-dimensional grid on the executor.
  template <class State, class Program>
  void launch(const char* kernel, int grid, Program&& program) {
    const int size = tpb_;
    const bool shared = variant_.memory == ScratchMemory::Shared;
    HostMem base;
    base.kernel = kernel;
    base.labels = labels_.data();
    base.n = static_cast<int64_t>(labels_.size());
    base.dist = dist_.data();
    base.nDist = static_cast<int64_t>(dist_.size());
    base.centerIndex = centerIndex_.data();
    base.radius = radius_.data();
    base.k = k_;
    base.candValue = candValue_.data();
    base.candIndex = candIndex_.data();
    base.candidates = gridN_;
    base.centroids = centroids_.data();
    base.centroidCount = static_cast<int64_t>(centroids_.size());
    base.clusterScore = clusterScore_.data();
    base.clusterCount = clusterCount_.data();
    base.slots = size;
    forEachBlock({grid, 1}, [&](int bx, int) {
      thread_local std::vector<State> states;
      thread_local Workspace ws;
      thread_local HazardTracker tracker;
      ws.poison(size);
      tracker.setKernel(kernel);
      tracker.reset(HostMem::kSpaces, size, bx);
      HostMem m = base;
      m.tracker = &tracker;
      m.stage = ws.stage.data();
      if (shared) {
        m.scratchF = ws.scratchF.data();
        m.scratchD = ws.scratchD.data();
        m.scratchI = ws.scratchI.data();
      } else {
        const size_t slice = static_cast<size_t>(bx) * size;
        if (slice + size > globalF_.size())
          throw std::logic_error(std::string(kernel) + ": global scratch too small for block " +
                                 std::to_string(bx));
        m.scratchF = globalF_.data() + slice;
        m.scratchD = globalD_.data() + slice;
        m.scratchI = globalI_.data() + slice;
      }
      HostBlock<State> blk(bx, size, grid, states, &tracker);
      program(blk, m);
    });
  }

  const PointSet& points_;
  int k_;
  VariantInfo variant_;
  Family family_ = clustering::kKMeans;
  int tpb_ = 256;
  int gridN_ = 0;
  std::unique_ptr<ArrangedPoints<CoalescedLayout>> coalesced_;
  std::unique_ptr<ArrangedPoints<InterleavedLayout>> interleaved_;
  std::unique_ptr<KMeansPrunedHost> kmPruned_;  // the pruned k-means (issue 15)
  std::vector<int32_t> labels_, centerIndex_, candIndex_, clusterCount_, globalI_;
  std::vector<float> dist_, radius_, candValue_, centroids_, globalF_;
  std::vector<double> clusterScore_, globalD_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const PointSet& points, int k) {
  return std::make_unique<CpuBackend>(points, k);
}

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// Clustering family on CUDA: k-centers (distance + select kernels, one pair per center) and
// k-means with Campaign's three kernels (calcCentroids, assignToClusters, calcScore), each
// instantiated for both layouts and both scratch memories, their launcher, and timing with CUDA
// events (per kernel per iteration, plus allocation and copies).
//
// Every kernel is a thin shell around a block program in kernellab/clustering_phases.h, the
// same code the CPU executor runs: the shell picks where the block's stage and scratch live and
// supplies the barrier.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../transpose/transpose_device.h"
#include "best_engines.h"
#include "clustering_backend.h"
#include "cuda/copy_ceiling.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "cuda/schedule_record.cuh"
#include "kernellab/clustering_phases.h"

namespace kernellab::clustering {

// The arranged points on the GPU: the only device-side maker of PointsView<Layout>. The generated
// points are point-major (the interleaved layout) and go up as they are; the coalesced
// (dimension-major) layout is made on the GPU by the best transpose (issue 10: the host
// arrangement took about 500 ms at N = 1e6, D = 200; the transpose takes under 0.5 ms).
template <class Layout>
class DevicePoints {
 public:
  explicit DevicePoints(const PointSet& s) : n_(s.n), d_(s.d), buffer_(s.values.size()) {}
  // Copies the point-major values up (into a staging buffer first when the layout needs a
  // transpose), then arranges them. Returns the arrangement's strategy ("" when none is needed).
  // keepPointMajor keeps the staging buffer (pointMajor()) where there is one, for an engine that
  // reads both layouts (the pruned k-centers).
  std::string upload(const PointSet& s, cudaStream_t stream, cuda::EventPair& copy,
                     cuda::EventPair& arrange, bool keepPointMajor = false) {
    if constexpr (std::is_same_v<Layout, InterleavedLayout>) {
      copy.start(stream);
      KL_CUDA_CHECK(cudaMemcpyAsync(buffer_.get(), s.values.data(), buffer_.bytes(),
                                    cudaMemcpyHostToDevice, stream));
      copy.stop(stream);
      arrange.start(stream);
      arrange.stop(stream);
      return std::string();
    } else {
      if (!transpose::fitsOneLaunch(d_, n_)) {
        // Beyond the transpose's grid limits (more than 2^21 points of more than 256 dimensions):
        // arranged on the host as before.
        arrange.start(stream);
        const ArrangedPoints<Layout> host(s);
        arrange.stop(stream);
        copy.start(stream);
        KL_CUDA_CHECK(cudaMemcpyAsync(buffer_.get(), host.values().data(), buffer_.bytes(),
                                      cudaMemcpyHostToDevice, stream));
        copy.stop(stream);
        KL_CUDA_CHECK(cudaStreamSynchronize(stream));
        return "host";
      }
      cuda::DeviceBuffer<float> pointMajor(s.values.size());
      copy.start(stream);
      KL_CUDA_CHECK(cudaMemcpyAsync(pointMajor.get(), s.values.data(), pointMajor.bytes(),
                                    cudaMemcpyHostToDevice, stream));
      copy.stop(stream);
      arrange.start(stream);
      // Point-major is N rows of D floats; its transpose, D rows of N, is dimension-major.
      const std::string how =
          transpose::transposeOnDevice(pointMajor.get(), buffer_.get(), d_, n_, stream);
      arrange.stop(stream);
      KL_CUDA_CHECK(cudaStreamSynchronize(stream));  // before the staging buffer is freed
      if (keepPointMajor) pointMajor_ = std::move(pointMajor);
      return how;
    }
  }
  PointsView<Layout> view() const { return PointsView<Layout>(buffer_.get(), n_, d_); }
  // The uploaded point-major values when upload kept them, else null.
  const float* pointMajor() const { return pointMajor_.get(); }

 private:
  int64_t n_;
  int d_;
  cuda::DeviceBuffer<float> buffer_;
  cuda::DeviceBuffer<float> pointMajor_;
};

namespace {

constexpr int kMaxThreads = 1024;  // __launch_bounds__: registers are capped so 1024 threads fit

// Global buffers of one variant, passed by value to every kernel.
struct DeviceArrays {
  int32_t* labels;
  float* dist;
  int32_t* centerIndex;
  float* radius;
  float* candValue;
  int32_t* candIndex;
  float* centroids;
  double* clusterScore;
  int32_t* clusterCount;
  float* globalF;  // global scratch of the "global" variants: blockDim.x slots per block
  double* globalD;
  int32_t* globalI;
};

// Which block-private arrays a kernel uses and where they sit in its dynamic shared memory:
// BlockNeeds, sharedLayout and the k*Needs constants in kernellab/clustering_phases.h (the access
// model places its shared buffers with the same function).

// The kernels' memory policy: the variant's global arrays, plus the block's stage (shared) and
// scratch (shared, or this block's slice of global memory).
struct DeviceMem {
  DeviceArrays a;
  float* stage;
  float* scratchF;
  double* scratchD;
  int32_t* scratchI;

  // Points are read-only during every kernel: the read-only data path (__ldg).
  template <class L>
  __device__ float loadPoint(const PointsView<L>& X, int64_t i, int j) const {
    return __ldg(X.values() + X.element(i, j));
  }
  __device__ int32_t loadCenterIndex(int j) const { return a.centerIndex[j]; }
  __device__ void storeCenterIndex(int j, int32_t v) const { a.centerIndex[j] = v; }
  __device__ void storeRadius(int j, float v) const { a.radius[j] = v; }
  __device__ int32_t loadLabel(int64_t i) const { return a.labels[i]; }
  __device__ void storeLabel(int64_t i, int32_t v) const { a.labels[i] = v; }
  __device__ float loadDist(int64_t i) const { return a.dist[i]; }
  __device__ void storeDist(int64_t i, float v) const { a.dist[i] = v; }
  __device__ void storeCandidate(int b, float v, int32_t i) const {
    a.candValue[b] = v;
    a.candIndex[b] = i;
  }
  __device__ float loadCandidateValue(int b) const { return a.candValue[b]; }
  __device__ int32_t loadCandidateIndex(int b) const { return a.candIndex[b]; }
  __device__ float loadCentroid(int64_t e) const { return a.centroids[e]; }
  __device__ void storeCentroid(int64_t e, float v) const { a.centroids[e] = v; }
  __device__ void storeClusterScore(int c, double v) const { a.clusterScore[c] = v; }
  __device__ void storeClusterCount(int c, int32_t v) const { a.clusterCount[c] = v; }
  __device__ float loadStage(int t) const { return stage[t]; }
  __device__ void storeStage(int t, float v) const { stage[t] = v; }
  __device__ float loadScratchF(int t) const { return scratchF[t]; }
  __device__ void storeScratchF(int t, float v) const { scratchF[t] = v; }
  __device__ double loadScratchD(int t) const { return scratchD[t]; }
  __device__ void storeScratchD(int t, double v) const { scratchD[t] = v; }
  __device__ int32_t loadScratchI(int t) const { return scratchI[t]; }
  __device__ void storeScratchI(int t, int32_t v) const { scratchI[t] = v; }
};

// Carves this block's arrays. With global scratch the reduction slots are a slice of global
// memory private to the block: __syncthreads() orders global accesses within a block as it does
// shared ones (CUDA Programming Guide, "Synchronization Functions"), so the same barriers make
// both variants race-free. The seed's MEMBARRIER added __threadfence(), which orders a thread's
// writes for other blocks; no other block reads these slots, and the cross-block step (choosing
// among the blocks' candidates) happens in the next launch.
template <ScratchMemory kScratch>
__device__ DeviceMem blockMem(const DeviceArrays& a, BlockNeeds needs) {
  extern __shared__ __align__(16) unsigned char smem[];
  const SharedLayout l = sharedLayout(needs, kScratch == ScratchMemory::Shared, blockDim.x);
  DeviceMem m{a, nullptr, nullptr, nullptr, nullptr};
  if (needs.stage) m.stage = reinterpret_cast<float*>(smem + l.stage);
  if (kScratch == ScratchMemory::Shared) {
    if (needs.f) m.scratchF = reinterpret_cast<float*>(smem + l.f);
    if (needs.d) m.scratchD = reinterpret_cast<double*>(smem + l.d);
    if (needs.i) m.scratchI = reinterpret_cast<int32_t*>(smem + l.i);
  } else {
    const size_t slice = static_cast<size_t>(blockIdx.x) * blockDim.x;
    if (needs.f) m.scratchF = a.globalF + slice;
    if (needs.d) m.scratchD = a.globalD + slice;
    if (needs.i) m.scratchI = a.globalI + slice;
  }
  return m;
}

// The block policy on the GPU: one program thread per CUDA thread, state in registers, the
// barrier after each phase.
template <class State>
struct DeviceBlock {
  State state;
  __device__ int size() const { return static_cast<int>(blockDim.x); }
  __device__ int index() const { return static_cast<int>(blockIdx.x); }
  __device__ int count() const { return static_cast<int>(gridDim.x); }
  template <class F>
  __device__ void phase(F&& f) {
    f(static_cast<int>(threadIdx.x), state);
    __syncthreads();
  }
  template <class F>
  __device__ void local(F&& f) {
    f(static_cast<int>(threadIdx.x), state);
  }
};

// ---- k-centers ---------------------------------------------------------------------------------

// Distance to the current center, nearest-center update, per-block farthest point.
// Reads: each point's D floats once per center. Coalesced: a warp reads 128 contiguous bytes per
// dimension; interleaved: 32 sectors D * 4 bytes apart per load (sector reuse only through L1).
// The center is staged in shared memory and broadcast. Scratch switch: the block's max-reduction
// slots in shared memory or in a global slice. Expected limiter: DRAM bandwidth (coalesced), L1/L2
// sector traffic (interleaved); the reduction is a small share at N / D this large.
// kRecord instances (separate from the timed ones) record each block's SM and start/end time.
template <class Layout, ScratchMemory kScratch, bool kRecord>
__global__ void __launch_bounds__(kMaxThreads)
    kcentersDistanceKernel(PointsView<Layout> X, DeviceArrays a, int j, cuda::BlockSlot* d_slots) {
  const auto start = cuda::blockStart<kRecord>();
  DeviceMem m = blockMem<kScratch>(a, kDistanceNeeds);
  DeviceBlock<KCentersThread> blk;
  kcentersDistanceBlock(blk, m, X, j);
  cuda::blockEnd<kRecord>(d_slots, start, BlockCoord{static_cast<int>(blockIdx.x), 0});
}

// One block folds the candidates of all blocks into the next center. Reads 8 bytes per block of
// the distance launch; limiter: launch latency.
template <ScratchMemory kScratch>
__global__ void __launch_bounds__(kMaxThreads)
    kcentersSelectKernel(DeviceArrays a, int candidates, int j, int k) {
  DeviceMem m = blockMem<kScratch>(a, kSelectNeeds);
  DeviceBlock<KCentersThread> blk;
  kcentersSelectBlock(blk, m, candidates, j, k);
}

// ---- k-means ----------------------------------------------------------------------------------

// One thread per point, centroid after centroid: K * D point reads per point (the point's floats
// come back from L1/L2 for every centroid). Shared variants stage each centroid in shared memory
// (one global read per component per block, then broadcasts); global variants let every thread
// read the centroid (the same address across the warp: one broadcast transaction). Expected
// limiter: L2/DRAM traffic of the repeated point reads; interleaved multiplies the sectors.
template <class Layout, ScratchMemory kScratch, bool kRecord>
__global__ void __launch_bounds__(kMaxThreads)
    assignToClustersKernel(PointsView<Layout> X, DeviceArrays a, int k, cuda::BlockSlot* d_slots) {
  constexpr bool kStaged = kScratch == ScratchMemory::Shared;
  const auto start = cuda::blockStart<kRecord>();
  DeviceMem m = blockMem<kScratch>(a, assignNeeds(kStaged));
  DeviceBlock<AssignThread> blk;
  assignBlock<Layout, kStaged>(blk, m, X, k);
  cuda::blockEnd<kRecord>(d_slots, start, BlockCoord{static_cast<int>(blockIdx.x), 0});
}

// Block c walks all N labels once per dimension and sums the coordinates of cluster c's points:
// K * D passes over the 4 N label bytes (served by L2), one pass over the points. Scratch switch:
// the sum reduction in shared or global memory. Expected limiter: L2 bandwidth of the label
// reads, with only K blocks in flight.
template <class Layout, ScratchMemory kScratch>
__global__ void __launch_bounds__(kMaxThreads)
    calcCentroidsKernel(PointsView<Layout> X, DeviceArrays a) {
  DeviceMem m = blockMem<kScratch>(a, kCentroidNeeds);
  DeviceBlock<SumThread> blk;
  centroidsBlock(blk, m, X);
}

// Block c sums the squared distances of cluster c's points to centroid c: K passes over the
// labels, one over the points. Shared variants stage the centroid; scratch as above. Expected
// limiter: L2 bandwidth of the label reads, K blocks in flight.
template <class Layout, ScratchMemory kScratch>
__global__ void __launch_bounds__(kMaxThreads)
    calcScoreKernel(PointsView<Layout> X, DeviceArrays a) {
  constexpr bool kStaged = kScratch == ScratchMemory::Shared;
  DeviceMem m = blockMem<kScratch>(a, scoreNeeds(kStaged));
  DeviceBlock<SumThread> blk;
  scoreBlock<Layout, kStaged>(blk, m, X);
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <ScratchMemory S>
using ScratchTag = std::integral_constant<ScratchMemory, S>;

class CudaBackend final : public Backend {
 public:
  CudaBackend(const PointSet& points, int k) : points_(points), k_(k) {}

  std::string clock() const override { return "cuda-events"; }

  void prepare(const VariantInfo& v, Family family, int threadsPerBlock,
               std::vector<PhaseTiming>& phases) override {
    freeBuffers();
    variant_ = v;
    family_ = family;
    tpb_ = threadsPerBlock;
    const int64_t n = points_.n;
    gridN_ = static_cast<int>((n + tpb_ - 1) / tpb_);

    auto t0 = std::chrono::steady_clock::now();
    if (v.layout == DataLayout::Coalesced)
      coalesced_ = std::make_unique<DevicePoints<CoalescedLayout>>(points_);
    else
      interleaved_ = std::make_unique<DevicePoints<InterleavedLayout>>(points_);
    labels_.allocate(static_cast<size_t>(n));
    if (family == clustering::kKCenters) dist_.allocate(static_cast<size_t>(n));
    centerIndex_.allocate(static_cast<size_t>(k_));
    radius_.allocate(static_cast<size_t>(k_));
    candValue_.allocate(static_cast<size_t>(gridN_));
    candIndex_.allocate(static_cast<size_t>(gridN_));
    centroids_.allocate(static_cast<size_t>(k_) * points_.d);
    clusterScore_.allocate(static_cast<size_t>(k_));
    clusterCount_.allocate(static_cast<size_t>(k_));
    if (v.engine == Engine::Seed && v.memory == ScratchMemory::Global) {
      // One slice of tpb slots per block of the widest launch (N / tpb blocks, or K).
      const size_t slots = static_cast<size_t>(std::max(gridN_, k_)) * tpb_;
      globalF_.allocate(slots);
      globalD_.allocate(slots);
      globalI_.allocate(slots);
    }
    phases.push_back({"allocate", msSince(t0)});

    cuda::EventPair copy, arrange;
    t0 = std::chrono::steady_clock::now();
    // The pruned k-centers reads scattered points from their point-major rows: it keeps the
    // uploaded values beside the dimension-major ones (N x D x 4 bytes more, no time).
    const bool keepRows = family == clustering::kKCenters && v.engine == Engine::Pruned;
    const std::string how =
        coalesced_ ? coalesced_->upload(points_, stream_.get(), copy, arrange, keepRows)
                   : interleaved_->upload(points_, stream_.get(), copy, arrange);
    phases.push_back({"host to device", copy.elapsedMs()});
    if (how == "host")  // the host time is not on the stream's events
      phases.push_back({"arrange layout (host)", msSince(t0) - copy.elapsedMs()});
    else
      phases.push_back({how.empty() ? "arrange layout (none: the points are point-major)"
                                    : "arrange layout (GPU transpose, " + how + ")",
                        arrange.elapsedMs()});

    // The engines work on the uploaded points in their variant's layout (k-centers dimension-,
    // k-means point-major); their own buffers and, for k-centers, the captured CUDA graph, are
    // built here: timed as their allocation.
    if (v.engine != Engine::Seed) {
      t0 = std::chrono::steady_clock::now();
      const float* X = coalesced_ ? coalesced_->view().values() : interleaved_->view().values();
      if (family == clustering::kKCenters && v.engine == Engine::Pruned)
        kcPruned_ = std::make_unique<best::KCentersPruned>(
            X, coalesced_ ? coalesced_->pointMajor() : nullptr, n, points_.d, k_, stream_.get());
      else if (family == clustering::kKCenters)
        kcBest_ = std::make_unique<best::KCentersFused>(X, n, points_.d, k_, stream_.get());
      else if (v.engine == Engine::Best)
        kmEngine_ = best::makeBestKMeans(X, n, points_.d, k_, stream_.get());
      else if (v.engine == Engine::Pruned)
        kmEngine_ = best::makePrunedKMeans(X, n, points_.d, k_, stream_.get());
      else
        kmEngine_ = best::makeCublasKMeans(X, n, points_.d, k_, stream_.get(),
                                           v.engine == Engine::CublasTf32);
      phases.push_back({"engine setup", msSince(t0)});
    }
  }

  // The graph of K launches cannot stop half-way: Cancel is seen by the runner after it.
  std::optional<KCentersRun> kcentersRunAll(int64_t first, int k,
                                            const std::atomic<bool>*) override {
    KCentersRun run;
    if (kcPruned_) {
      run.ms = kcPruned_->run(first);
      run.centers = kcPruned_->centers();
      run.radii = kcPruned_->radii();
      run.visited = kcPruned_->visited();
      run.screened = kcPruned_->screened();
      run.distances = kcPruned_->distanceSums();
      run.passes = kcPruned_->passes();
    } else if (kcBest_) {
      run.ms = kcBest_->run(first);
      run.centers = kcBest_->centers();
      run.radii = kcBest_->radii();
    } else {
      return std::nullopt;
    }
    run.centers.resize(static_cast<size_t>(k));
    return run;
  }

  std::vector<int> engineGrids() override {
    if (kcBest_) return {kcBest_->grid()};
    if (kcPruned_) return {kcPruned_->grid()};
    if (kmEngine_) return kmEngine_->grids();
    return {};
  }
  std::vector<std::string> engineKernelNames() override {
    return kmEngine_ ? kmEngine_->kernelNames() : std::vector<std::string>();
  }
  std::string engineStrategy() override { return kmEngine_ ? kmEngine_->strategy() : ""; }

  std::vector<std::optional<ResourceUsage>> resources() override {
    std::vector<std::optional<ResourceUsage>> out;
    if (kcBest_) return {kcBest_->resources()};
    if (kcPruned_) return {kcPruned_->resources()};
    if (kmEngine_) {
      for (const ResourceUsage& r : kmEngine_->resources())
        out.push_back(r.threadsPerBlock > 0 ? std::optional<ResourceUsage>(r) : std::nullopt);
      return out;
    }
    dispatch([&](const auto& X, auto tag) {
      using L = typename std::decay_t<decltype(X)>::LayoutType;
      constexpr ScratchMemory S = decltype(tag)::value;
      constexpr bool kStaged = S == ScratchMemory::Shared;
      if (family_ == clustering::kKCenters) {
        out.push_back(
            cuda::kernelResources(kcentersDistanceKernel<L, S, false>, tpb_, shared(kDistanceNeeds)));
        out.push_back(cuda::kernelResources(kcentersSelectKernel<S>, tpb_, shared(kSelectNeeds)));
      } else {
        out.push_back(cuda::kernelResources(calcCentroidsKernel<L, S>, tpb_, shared(kCentroidNeeds)));
        out.push_back(cuda::kernelResources(assignToClustersKernel<L, S, false>, tpb_,
                                     shared(assignNeeds(kStaged))));
        out.push_back(cuda::kernelResources(calcScoreKernel<L, S>, tpb_, shared(scoreNeeds(kStaged))));
      }
    });
    return out;
  }

  void kcentersBegin(int64_t first) override {
    cudaStream_t s = stream_.get();
    // 0xFF bytes: NaN distances and radii, label and center index -1.
    KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), s));
    KL_CUDA_CHECK(cudaMemsetAsync(dist_.get(), 0xFF, dist_.bytes(), s));
    KL_CUDA_CHECK(cudaMemsetAsync(centerIndex_.get(), 0xFF, centerIndex_.bytes(), s));
    KL_CUDA_CHECK(cudaMemsetAsync(radius_.get(), 0xFF, radius_.bytes(), s));
    const int32_t f = static_cast<int32_t>(first);
    KL_CUDA_CHECK(cudaMemcpyAsync(centerIndex_.get(), &f, sizeof f, cudaMemcpyHostToDevice, s));
    KL_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  KCentersStep kcentersStep(int j, int k) override {
    cudaStream_t s = stream_.get();
    dispatch([&](const auto& X, auto tag) {
      using L = typename std::decay_t<decltype(X)>::LayoutType;
      constexpr ScratchMemory S = decltype(tag)::value;
      events_[0].start(s);
      kcentersDistanceKernel<L, S, false>
          <<<gridN_, tpb_, shared(kDistanceNeeds), s>>>(X, arrays(), j, nullptr);
      KL_CUDA_CHECK_LAUNCH(s);
      events_[0].stop(s);
      events_[1].start(s);
      kcentersSelectKernel<S><<<1, tpb_, shared(kSelectNeeds), s>>>(arrays(), gridN_, j, k);
      KL_CUDA_CHECK_LAUNCH(s);
      events_[1].stop(s);
    });
    KCentersStep step;
    KL_CUDA_CHECK(
        cudaMemcpyAsync(&step.radius, radius_.get() + j, sizeof(float), cudaMemcpyDeviceToHost, s));
    if (j + 1 < k)
      KL_CUDA_CHECK(cudaMemcpyAsync(&step.next, centerIndex_.get() + j + 1, sizeof(int32_t),
                                    cudaMemcpyDeviceToHost, s));
    KL_CUDA_CHECK(cudaStreamSynchronize(s));
    step.kernelMs = {events_[0].elapsedMs(), events_[1].elapsedMs()};
    return step;
  }

  void kmeansBegin(const std::vector<float>& centers) override {
    if (kmEngine_) {
      kmEngine_->begin(centers);
      return;
    }
    cudaStream_t s = stream_.get();
    KL_CUDA_CHECK(cudaMemsetAsync(labels_.get(), 0xFF, labels_.bytes(), s));
    KL_CUDA_CHECK(cudaMemsetAsync(clusterScore_.get(), 0xFF, clusterScore_.bytes(), s));
    KL_CUDA_CHECK(cudaMemsetAsync(clusterCount_.get(), 0xFF, clusterCount_.bytes(), s));
    KL_CUDA_CHECK(cudaMemcpyAsync(centroids_.get(), centers.data(), centroids_.bytes(),
                                  cudaMemcpyHostToDevice, s));
    KL_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  KMeansStep kmeansStep(int iteration) override {
    if (kmEngine_) {
      best::KMeansIteration it = kmEngine_->iterate(iteration);
      KMeansStep step;
      step.kernelMs = std::move(it.kernelMs);
      step.clusterScore = std::move(it.clusterScore);
      step.clusterCount = std::move(it.clusterCount);
      step.rechecked = kmEngine_ ? it.rechecked : -1;
      step.visited = it.visited;
      step.distances = it.distances;
      return step;
    }
    cudaStream_t s = stream_.get();
    dispatch([&](const auto& X, auto tag) {
      using L = typename std::decay_t<decltype(X)>::LayoutType;
      constexpr ScratchMemory S = decltype(tag)::value;
      constexpr bool kStaged = S == ScratchMemory::Shared;
      if (iteration > 0) {
        events_[0].start(s);
        calcCentroidsKernel<L, S><<<k_, tpb_, shared(kCentroidNeeds), s>>>(X, arrays());
        KL_CUDA_CHECK_LAUNCH(s);
        events_[0].stop(s);
      }
      events_[1].start(s);
      assignToClustersKernel<L, S, false>
          <<<gridN_, tpb_, shared(assignNeeds(kStaged)), s>>>(X, arrays(), k_, nullptr);
      KL_CUDA_CHECK_LAUNCH(s);
      events_[1].stop(s);
      events_[2].start(s);
      calcScoreKernel<L, S><<<k_, tpb_, shared(scoreNeeds(kStaged)), s>>>(X, arrays());
      KL_CUDA_CHECK_LAUNCH(s);
      events_[2].stop(s);
    });
    KMeansStep step;
    step.clusterScore.resize(static_cast<size_t>(k_));
    step.clusterCount.resize(static_cast<size_t>(k_));
    KL_CUDA_CHECK(cudaMemcpyAsync(step.clusterScore.data(), clusterScore_.get(),
                                  clusterScore_.bytes(), cudaMemcpyDeviceToHost, s));
    KL_CUDA_CHECK(cudaMemcpyAsync(step.clusterCount.data(), clusterCount_.get(),
                                  clusterCount_.bytes(), cudaMemcpyDeviceToHost, s));
    KL_CUDA_CHECK(cudaStreamSynchronize(s));
    step.kernelMs = {iteration > 0 ? events_[0].elapsedMs() : 0.0, events_[1].elapsedMs(),
                     events_[2].elapsedMs()};
    return step;
  }

  double downloadLabels(std::vector<int32_t>& out) override {
    if (kcBest_) return timed([&] { out = kcBest_->labels(); });
    if (kcPruned_) return timed([&] { out = kcPruned_->labels(); });
    if (kmEngine_) return timed([&] { out = kmEngine_->labels(); });
    return download(labels_, out);
  }
  double downloadDistances(std::vector<float>& out) override {
    if (kcBest_) return timed([&] { out = kcBest_->distances(); });
    if (kcPruned_) return timed([&] { out = kcPruned_->distances(); });
    return download(dist_, out);
  }
  double downloadCentroids(std::vector<float>& out) override {
    if (kmEngine_) return timed([&] { out = kmEngine_->centers(); });
    return download(centroids_, out);
  }

  std::optional<RecordedSchedule> recordSchedule(int lastCenter) override {
    // The engines carry no recording instance.
    if (kcBest_ || kcPruned_ || kmEngine_) return std::nullopt;
    RecordedSchedule rec;
    cuda::DeviceBuffer<cuda::BlockSlot> slots(static_cast<size_t>(gridN_));
    cudaStream_t s = stream_.get();
    cuda::EventPair ev;
    dispatch([&](const auto& X, auto tag) {
      using L = typename std::decay_t<decltype(X)>::LayoutType;
      constexpr ScratchMemory S = decltype(tag)::value;
      constexpr bool kStaged = S == ScratchMemory::Shared;
      ev.start(s);
      if (family_ == clustering::kKCenters) {
        rec.kernel = "kcentersDistanceKernel";
        kcentersDistanceKernel<L, S, true>
            <<<gridN_, tpb_, shared(kDistanceNeeds), s>>>(X, arrays(), lastCenter, slots.get());
      } else {
        rec.kernel = "assignToClustersKernel";
        assignToClustersKernel<L, S, true>
            <<<gridN_, tpb_, shared(assignNeeds(kStaged)), s>>>(X, arrays(), k_, slots.get());
      }
      KL_CUDA_CHECK_LAUNCH(s);
      ev.stop(s);
    });
    rec.ms = ev.elapsedMs();
    rec.blocks = cuda::downloadSchedule(slots);
    return rec;
  }

  void release(std::vector<PhaseTiming>& phases) override {
    const auto t0 = std::chrono::steady_clock::now();
    freeBuffers();
    phases.push_back({"free", msSince(t0)});
  }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    const size_t count = points_.values.size();
    cuda::DeviceBuffer<float> from(count), to(count);
    KL_CUDA_CHECK(cudaMemsetAsync(from.get(), 0, from.bytes(), stream_.get()));  // defined source
    return cuda::deviceCopyCeiling(to.get(), from.get(), from.bytes(), stream_.get(), warmup, reps,
                                   hooks);
  }

 private:
  // Calls fn(view, scratchTag) with the points of whichever layout this variant uploaded and the
  // variant's scratch memory as a compile-time tag: the only path to a kernel instantiation.
  template <class Fn>
  void dispatch(Fn&& fn) {
    auto withScratch = [&](const auto& X) {
      if (variant_.memory == ScratchMemory::Shared)
        fn(X, ScratchTag<ScratchMemory::Shared>{});
      else
        fn(X, ScratchTag<ScratchMemory::Global>{});
    };
    if (coalesced_)
      withScratch(coalesced_->view());
    else if (interleaved_)
      withScratch(interleaved_->view());
    else
      throw std::logic_error("clustering CUDA backend: no points uploaded");
  }

  size_t shared(BlockNeeds needs) const {
    return sharedLayout(needs, variant_.memory == ScratchMemory::Shared,
                        static_cast<unsigned>(tpb_))
        .total;
  }

  DeviceArrays arrays() const {
    return DeviceArrays{labels_.get(),    dist_.get(),         centerIndex_.get(),
                        radius_.get(),    candValue_.get(),    candIndex_.get(),
                        centroids_.get(), clusterScore_.get(), clusterCount_.get(),
                        globalF_.get(),   globalD_.get(),      globalI_.get()};
  }

  template <class T>
  double download(const cuda::DeviceBuffer<T>& from, std::vector<T>& to) {
    to.resize(from.size());
    cuda::EventPair ev;
    ev.start(stream_.get());
    if (from.size())
      KL_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.get(), from.bytes(), cudaMemcpyDeviceToHost,
                                    stream_.get()));
    ev.stop(stream_.get());
    return ev.elapsedMs();
  }

  // Host-timed synchronous copies (the engines' downloads).
  template <class Fn>
  static double timed(Fn&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return msSince(t0);
  }

  void freeBuffers() {
    kcBest_.reset();  // before the points they read
    kcPruned_.reset();
    kmEngine_.reset();
    coalesced_.reset();
    interleaved_.reset();
    labels_.release();
    dist_.release();
    centerIndex_.release();
    radius_.release();
    candValue_.release();
    candIndex_.release();
    centroids_.release();
    clusterScore_.release();
    clusterCount_.release();
    globalF_.release();
    globalD_.release();
    globalI_.release();
  }

  const PointSet& points_;
  int k_;
  VariantInfo variant_;
  Family family_ = clustering::kKMeans;
  int tpb_ = 256;
  int gridN_ = 0;
  cuda::Stream stream_;
  cuda::EventPair events_[3];
  std::unique_ptr<DevicePoints<CoalescedLayout>> coalesced_;
  std::unique_ptr<DevicePoints<InterleavedLayout>> interleaved_;
  std::unique_ptr<best::KCentersFused> kcBest_;
  std::unique_ptr<best::KCentersPruned> kcPruned_;
  std::unique_ptr<best::KMeansEngine> kmEngine_;
  cuda::DeviceBuffer<int32_t> labels_, centerIndex_, candIndex_, clusterCount_, globalI_;
  cuda::DeviceBuffer<float> dist_, radius_, candValue_, centroids_, globalF_;
  cuda::DeviceBuffer<double> clusterScore_, globalD_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const PointSet& points, int k) {
  return std::make_unique<CudaBackend>(points, k);
}

}  // namespace kernellab::clustering

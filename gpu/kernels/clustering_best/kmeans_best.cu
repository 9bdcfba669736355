// SPDX-License-Identifier: MIT
// k-means, best variant (issue 10): exact labels at the speed of the TF32 tensor cores.
//
// Per iteration, on point-major points:
//  1. assign: centerPrepKernel (C' = C - mean(C) and the norms), then x.c' in TF32 and the label
//     of every point its proven bound decides, the others listed with their candidate centers.
//     Moving the centers by their mean changes no arg-min (it adds the same -2 x.m to every
//     center's distance) but shrinks |c'|, and with it the bound, when the centers sit close
//     together (the first iterations from first-K centers). Three paths compute x.c' (H200,
//     2026-12-02, N = 1e6, K = 100, D = 200, ms per assign):
//     - the fused TF32 assign (kmeans_tf32_assign.cuh: mma.sync, a pipeline per warp, the
//       product never stored, a tighter bound since the centers are rounded to nearest): the
//       default, 0.42;
//     - cuBLAS's TF32 GEMM (the N x K product stored) and assignBoundKernel, 0.49: where the
//       fused assign cannot run (before compute capability 8.0, K above 128, the centers too
//       big for shared memory);
//     - wgmma (kmeans_wgmma_assign.cuh, sm_90a), 0.49: only when asked for.
//  2. exactFixKernel: one warp per listed point re-decides it in double among its candidates.
//  3. the update by label (kmeans_update_sorted.cuh) and finalizeFromSumsKernel (shared with the
//     peers): the sums, the exact score as Q - 2 c.S + n |c|^2 in double, the next centers.
//
// KERNELLAB_KMEANS_ASSIGN=fused, =cublas or =wgmma forces a path (for measuring one against
// another).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "best_common.cuh"
#include "best_engines.h"
#include "cublas_loader.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"
#include "kmeans_parts.cuh"
#include "kmeans_tf32_assign.cuh"
#include "kmeans_wgmma_assign.cuh"

namespace kernellab::clustering::best {
namespace {

enum class AssignPath { Default, Wgmma, Cublas, Fused };

AssignPath forcedPath() {
  const char* v = std::getenv("KERNELLAB_KMEANS_ASSIGN");
  if (v && std::strcmp(v, "wgmma") == 0) return AssignPath::Wgmma;
  if (v && std::strcmp(v, "cublas") == 0) return AssignPath::Cublas;
  if (v && std::strcmp(v, "fused") == 0) return AssignPath::Fused;
  return AssignPath::Default;
}

class BestKMeans final : public KMeansDeviceState {
 public:
  BestKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream)
      : KMeansDeviceState(n, d, k, stream) {
    // The default: the fused mma.sync assign where it runs (the fastest measured, and it needs
    // no N x K product), else cuBLAS's TF32 product. The others only when asked for.
    const AssignPath forced = forcedPath();
    std::string why;
    if (forced == AssignPath::Wgmma) {
#ifdef KERNELLAB_HAVE_WGMMA
      wgmma_ = planWgmmaAssign(k, d, why);
#else
      why = "this build has no wgmma assign (it needs CUDA 12 or newer)";
#endif
      if (!wgmma_) throw InputError("KERNELLAB_KMEANS_ASSIGN=wgmma: " + why);
      pathNote_ = "KERNELLAB_KMEANS_ASSIGN=wgmma";
    } else if (forced == AssignPath::Cublas) {
      gemm_ = std::make_unique<CublasGemm>(stream, GemmPrecision::Tf32);
      pathNote_ = "KERNELLAB_KMEANS_ASSIGN=cublas";
    } else {
      plan_ = planTf32Assign(k, d, why);
      if (forced == AssignPath::Fused) {
        if (!plan_) throw InputError("KERNELLAB_KMEANS_ASSIGN=fused: " + why);
        pathNote_ = "KERNELLAB_KMEANS_ASSIGN=fused";
      } else if (!plan_) {  // the constructor names the missing library if cuBLAS is not there
        pathNote_ = why;
        gemm_ = std::make_unique<CublasGemm>(stream, GemmPrecision::Tf32);
      }
    }
    if (gemm_) g_.allocate(static_cast<size_t>(n) * k);
    // Candidate masks of the listed points, from either assign (the cuBLAS path up to 128 centers;
    // above that the re-decision scans G).
    if (wgmma_ || plan_ || k <= 32 * kMaskWords)
      masks_.allocate(static_cast<size_t>(n) * kMaskWords);
    // Both fused assigns round the centers to TF32 themselves; cuBLAS may truncate them.
    kappa_ = tf32BoundFactor(d, wgmma_ || plan_ ? Tf32Rounding::TruncatePointsRoundCenters
                                                : Tf32Rounding::TruncateBoth);
    cc_.allocate(static_cast<size_t>(k) * d);
    if (plan_) {  // the TF32 assign copies the centers' fragments; their padding stays zero
      fragments_.allocate(tf32FragmentWords(*plan_));
      KL_CUDA_CHECK(cudaMemsetAsync(fragments_.get(), 0, fragments_.bytes(), stream_));
    }
    cn_.allocate(size_t(k));
    cabs_.allocate(size_t(k));
    unsure_.allocate(static_cast<size_t>(n));
    unsureCount_.allocate(1);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    fixGrid_ = std::max(1, limits.sms * 8);
    if (const char* v = std::getenv("KERNELLAB_FIX_BATCH")) fixBatch_ = std::atoi(v) == 1 ? 1 : 4;
    prepSmem_ = sizeof(float) * static_cast<size_t>(d);
    // Beside the mean, the kernel's static partial sums (a double per thread).
    const size_t prepStatic = sizeof(double) * kPrepThreads;
    if (prepSmem_ + prepStatic > static_cast<size_t>(limits.sharedPerBlockOptin))
      throw InputError("best k-means keeps the centers' mean in shared memory: D = " +
                       std::to_string(d) + " needs " + std::to_string(prepSmem_) +
                       " bytes per block, this GPU allows " +
                       std::to_string(limits.sharedPerBlockOptin - prepStatic) +
                       "; use cublas or the seed variants");
    if (prepSmem_ + prepStatic > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(centerPrepKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(prepSmem_)));
    allocateState(d_points);
  }

  KMeansIteration iterate(int /*iteration*/) override {
    useNextCenters();
    KL_CUDA_CHECK(cudaMemsetAsync(unsureCount_.get(), 0, sizeof(int), stream_));
    cuda::EventPair assign, fix, update, finalize;
    assign.start(stream_);
    launchCenterPrep(centers_.get(), k_, d_, true, cc_.get(), cn_.get(), cabs_.get(), prepSmem_,
                     stream_, Tf32CenterFragments{fragments_.get(), plan_ ? plan_->nTiles : 0});
    KL_CUDA_CHECK_LAUNCH(stream_);
    Candidates cand{nullptr, g_.get(), cn_.get(), cabs_.get(), xnorm_.get(), kappa_};
    if (wgmma_) {
#ifdef KERNELLAB_HAVE_WGMMA
      launchWgmmaAssign(*wgmma_, x_, n_, d_, cc_.get(), cn_.get(), cabs_.get(), k_, xnorm_.get(),
                        kappa_, labels_.get(), unsure_.get(), unsureCount_.get(), masks_.get(),
                        stream_);
#endif
      cand.masks = masks_.get();
    } else if (plan_) {
      launchTf32Assign(*plan_, x_, n_, d_, fragments_.get(), cn_.get(), cabs_.get(), k_, xnorm_.get(),
                       kappa_, labels_.get(), unsure_.get(), unsureCount_.get(), masks_.get(),
                       stream_);
      cand.masks = masks_.get();
    } else {
      gemm_->product(x_, n_, d_, cc_.get(), k_, -2.f, g_.get());
      assignBoundKernel<<<static_cast<unsigned>((n_ + kPartThreads - 1) / kPartThreads),
                          kPartThreads, 0, stream_>>>(g_.get(), cn_.get(), cabs_.get(),
                                                      xnorm_.get(), n_, k_, kappa_, labels_.get(),
                                                      unsure_.get(), unsureCount_.get(),
                                                      masks_.get());
      KL_CUDA_CHECK_LAUNCH(stream_);
      cand.masks = masks_.get();  // null above 128 centers: the re-decision scans G
    }
    assign.stop(stream_);
    fix.start(stream_);
    launchExactFix(fixBatch_, fixGrid_, stream_, x_, n_, d_, centers_.get(), k_, cand,
                   unsure_.get(), unsureCount_.get(), labels_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    fix.stop(stream_);
    update.start(stream_);
    launchUpdate();
    update.stop(stream_);
    finalize.start(stream_);
    launchFinalize();
    finalize.stop(stream_);
    KMeansIteration it;
    it.kernelMs = {assign.elapsedMs(), fix.elapsedMs(), update.elapsedMs(), finalize.elapsedMs()};
    readScores(it);
    int unsure = 0;
    KL_CUDA_CHECK(cudaMemcpy(&unsure, unsureCount_.get(), sizeof unsure, cudaMemcpyDeviceToHost));
    it.rechecked = unsure;
    return it;
  }

  std::vector<std::string> kernelNames() const override {
    return {wgmma_  ? "kmeansWgmmaAssignKernel"
            : plan_ ? "kmeansTf32AssignKernel"
                    : "cublasGemmEx TF32 + assignBoundKernel",
            "exactFixKernel", updateName(), "finalizeFromSumsKernel"};
  }
  std::vector<int> grids() const override {
    const int assignGrid =
        wgmma_ ? wgmma_->grid
        : plan_ ? plan_->grid
                : static_cast<int>((n_ + kPartThreads - 1) / kPartThreads);
    return {assignGrid, fixGrid_, updateGrid(), k_};
  }
  std::vector<ResourceUsage> resources() const override {
    ResourceUsage assign;  // the cuBLAS path: cuBLAS picks its own kernel
#ifdef KERNELLAB_HAVE_WGMMA
    if (wgmma_) assign = wgmmaAssignResources(*wgmma_);
#endif
    if (plan_) assign = tf32AssignResources(*plan_);
    return {assign, exactFixResources(fixBatch_), updateResources(),
            finalizeResources()};
  }
  std::string strategy() const override {
    const std::string path = wgmma_ ? "wgmma-tf32" : plan_ ? "tf32-mma" : "cublas-tf32";
    return pathNote_.empty() ? path : path + " (" + pathNote_ + ")";
  }

 private:
  std::optional<WgmmaAssignPlan> wgmma_;  // KERNELLAB_KMEANS_ASSIGN=wgmma only (Hopper, sm_90a)
  std::optional<Tf32AssignPlan> plan_;
  std::string pathNote_;  // why this path, when it is not the default
  std::unique_ptr<CublasGemm> gemm_;
  float kappa_ = 0;
  int fixGrid_ = 1;
  int fixBatch_ = 4;  // KERNELLAB_FIX_BATCH=1: one candidate at a time
  size_t prepSmem_ = 0;
  cuda::DeviceBuffer<float> g_, cc_, cn_, cabs_;
  cuda::DeviceBuffer<uint32_t> fragments_;  // Tf32CenterFragments of cc_ (the TF32 assign's)
  cuda::DeviceBuffer<int> unsure_, unsureCount_;
  cuda::DeviceBuffer<uint32_t> masks_;
};

}  // namespace

std::unique_ptr<KMeansEngine> makeBestKMeans(const float* d_points, int64_t n, int d, int k,
                                             CUstream_st* stream) {
  return std::make_unique<BestKMeans>(d_points, n, d, k, stream);
}

}  // namespace kernellab::clustering::best

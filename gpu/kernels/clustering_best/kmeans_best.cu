// SPDX-License-Identifier: MIT
// k-means, best variant (issue 10): exact labels at the speed of the TF32 tensor cores.
//
// Per iteration:
//  1. Cc = C - mean(C) and the norms (centerPrepKernel), then G = -2 X Cc^T by cuBLAS on the TF32
//     tensor cores (0.35 ms at N = 1e6, K = 100, D = 200 on the H200 against 1.09 ms for the
//     fp32 SGEMM). Moving the centers by their mean changes no arg-min (the shift adds the same
//     -2 x.m to every center's distance) but shrinks |c'|, and with it the product's error bound,
//     when the centers sit close together (the first iterations from first-K centers).
//  2. assignBoundKernel: s_k = G + |c_k|^2 is within E_k = kappa |x| |c'_k| + 2^-23 |c_k|^2 of the
//     exact value (kmeans_parts.cu derives kappa). A point whose best s beats every other center's
//     s - E by more than its own E gets that label: it is the exact arg-min. The others are listed.
//  3. exactFixKernel: one warp per listed point re-decides it in double among the centers whose
//     intervals reach the best one.
//  4. updateSumsKernel and finalizeFromSumsKernel (shared with the peers): block-private sums,
//     the exact score as Q - 2 c.S + n |c|^2 in double, the next centers.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "best_common.cuh"
#include "best_engines.h"
#include "cublas_loader.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {
namespace {

class BestKMeans final : public KMeansDeviceState {
 public:
  BestKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream)
      : KMeansDeviceState(n, d, k, stream), gemm_(stream, GemmPrecision::Tf32) {
    kappa_ = tf32BoundFactor(d);
    g_.allocate(static_cast<size_t>(n) * k);
    cc_.allocate(static_cast<size_t>(k) * d);
    ct_.allocate(static_cast<size_t>(k) * d);
    cn_.allocate(size_t(k));
    cabs_.allocate(size_t(k));
    unsure_.allocate(static_cast<size_t>(n));
    unsureCount_.allocate(1);
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    fixGrid_ = std::max(1, limits.sms * 8);
    prepSmem_ = sizeof(float) * static_cast<size_t>(d);
    // The centers stay in global memory for the re-decisions (the lanes read consecutive centers:
    // L1 hits): with them in shared memory only 2 blocks fit per SM, and the re-decisions, which
    // wait on scattered reads of their points, ran at 24 % occupancy (ncu, H200).
    ctShared_ = false;
    fixSmem_ = fixSharedBytes(d, k, ctShared_);
    if (std::max(prepSmem_, fixSmem_) > static_cast<size_t>(limits.sharedPerBlockOptin))
      throw InputError(
          "best k-means stages a point per warp in shared memory: D = " + std::to_string(d) +
          " needs " + std::to_string(fixSmem_) + " bytes per block, this GPU allows " +
          std::to_string(limits.sharedPerBlockOptin) + "; use cublas or the seed variants");
    if (prepSmem_ > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(centerPrepKernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(prepSmem_)));
    if (fixSmem_ > 48 * 1024)
      KL_CUDA_CHECK(cudaFuncSetAttribute(
          exactFixKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(fixSmem_)));
    allocateState(d_points);
  }

  KMeansIteration iterate(int /*iteration*/) override {
    useNextCenters();
    KL_CUDA_CHECK(cudaMemsetAsync(unsureCount_.get(), 0, sizeof(int), stream_));
    cuda::EventPair gemm, assign, fix, update, finalize;
    gemm.start(stream_);
    centerPrepKernel<<<1, 1024, prepSmem_, stream_>>>(centers_.get(), k_, d_, true, cc_.get(),
                                                      cn_.get(), cabs_.get(), ct_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    gemm_.product(x_, n_, d_, cc_.get(), k_, -2.f, g_.get());
    gemm.stop(stream_);
    assign.start(stream_);
    assignBoundKernel<<<static_cast<unsigned>((n_ + kPartThreads - 1) / kPartThreads), kPartThreads,
                        0, stream_>>>(g_.get(), cn_.get(), cabs_.get(), xnorm_.get(), n_, k_,
                                      kappa_, labels_.get(), unsure_.get(), unsureCount_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    assign.stop(stream_);
    fix.start(stream_);
    exactFixKernel<<<fixGrid_, kFixThreads, fixSmem_, stream_>>>(
        x_, n_, d_, ct_.get(), k_, g_.get(), cn_.get(), cabs_.get(), xnorm_.get(), kappa_,
        unsure_.get(), unsureCount_.get(), ctShared_, labels_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    fix.stop(stream_);
    update.start(stream_);
    launchUpdate();
    update.stop(stream_);
    finalize.start(stream_);
    launchFinalize();
    finalize.stop(stream_);
    KMeansIteration it;
    it.kernelMs = {gemm.elapsedMs(), assign.elapsedMs(), fix.elapsedMs(), update.elapsedMs(),
                   finalize.elapsedMs()};
    readScores(it);
    int unsure = 0;
    KL_CUDA_CHECK(cudaMemcpy(&unsure, unsureCount_.get(), sizeof unsure, cudaMemcpyDeviceToHost));
    it.rechecked = unsure;
    return it;
  }

  std::vector<std::string> kernelNames() const override {
    return {gemm_.name(), "assignBoundKernel", "exactFixKernel", "updateSumsKernel",
            "finalizeFromSumsKernel"};
  }
  std::vector<int> grids() const override {
    return {0, static_cast<int>((n_ + kPartThreads - 1) / kPartThreads), fixGrid_, updateGrid(), 1};
  }
  std::vector<ResourceUsage> resources() const override {
    ResourceUsage none;  // cuBLAS picks its own kernel
    return {none, cuda::kernelResources(assignBoundKernel, kPartThreads, 0),
            cuda::kernelResources(exactFixKernel, kFixThreads, fixSmem_), updateResources(),
            finalizeResources()};
  }

 private:
  CublasGemm gemm_;
  float kappa_ = 0;
  int fixGrid_ = 1;
  size_t prepSmem_ = 0, fixSmem_ = 0;
  bool ctShared_ = false;
  cuda::DeviceBuffer<float> g_, cc_, ct_, cn_, cabs_;
  cuda::DeviceBuffer<int> unsure_, unsureCount_;
};

}  // namespace

std::unique_ptr<KMeansEngine> makeBestKMeans(const float* d_points, int64_t n, int d, int k,
                                             CUstream_st* stream) {
  return std::make_unique<BestKMeans>(d_points, n, d, k, stream);
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// The k-means peers, built the way common GPU libraries compute k-means (torch's cdist + argmin,
// cuML, FAISS): the distances' cross term by cuBLAS (G = -2 X C^T, N x K written to memory, fp32
// SGEMM or TF32 tensor cores), an arg-min kernel that adds the center norms, then the same
// block-private centroid update and exact score as the best engine. Their labels come from the
// GEMM form |x|^2 - 2 x.c + |c|^2 in float, so near ties can go to the wrong center: the runner
// reports them as approximate, with the count of labels that are not the nearest center.
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "best_common.cuh"
#include "best_engines.h"
#include "cublas_loader.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {
namespace {

class CublasKMeans final : public KMeansDeviceState {
 public:
  CublasKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream, bool tf32)
      : KMeansDeviceState(n, d, k, stream),
        gemm_(stream, tf32 ? GemmPrecision::Tf32 : GemmPrecision::Fp32) {
    g_.allocate(static_cast<size_t>(n) * k);
    cn_.allocate(size_t(k));
    allocateState(d_points);
  }

  KMeansIteration iterate(int /*iteration*/) override {
    useNextCenters();
    cuda::EventPair gemm, argmin, update, finalize;
    gemm.start(stream_);
    gemm_.product(x_, n_, d_, centers_.get(), k_, -2.f, g_.get());
    gemm.stop(stream_);
    argmin.start(stream_);
    launchCenterPrep(centers_.get(), k_, d_, false, nullptr, cn_.get(), nullptr, 0, stream_);
    KL_CUDA_CHECK_LAUNCH(stream_);
    argminKernel<<<static_cast<unsigned>((n_ + kPartThreads - 1) / kPartThreads), kPartThreads, 0,
                   stream_>>>(g_.get(), cn_.get(), n_, k_, labels_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    argmin.stop(stream_);
    update.start(stream_);
    launchUpdate();
    update.stop(stream_);
    finalize.start(stream_);
    launchFinalize();
    finalize.stop(stream_);
    KMeansIteration it;
    it.kernelMs = {gemm.elapsedMs(), argmin.elapsedMs(), update.elapsedMs(), finalize.elapsedMs()};
    readScores(it);
    return it;
  }

  std::vector<std::string> kernelNames() const override {
    return {gemm_.name(), "argminKernel", updateName(), "finalizeFromSumsKernel"};
  }
  std::vector<int> grids() const override {
    return {0, static_cast<int>((n_ + kPartThreads - 1) / kPartThreads), updateGrid(), k_};
  }
  std::vector<ResourceUsage> resources() const override {
    ResourceUsage none;  // cuBLAS picks its own kernel; its resources are not queryable here
    return {none, cuda::kernelResources(argminKernel, kPartThreads, 0), updateResources(),
            finalizeResources()};
  }

 private:
  CublasGemm gemm_;
  cuda::DeviceBuffer<float> g_, cn_;
};

}  // namespace

std::unique_ptr<KMeansEngine> makeCublasKMeans(const float* d_points, int64_t n, int d, int k,
                                               CUstream_st* stream, bool tf32) {
  return std::make_unique<CublasKMeans>(d_points, n, d, k, stream, tf32);
}

}  // namespace kernellab::clustering::best

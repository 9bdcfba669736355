// SPDX-License-Identifier: MIT
// The k-means peer, built the way common GPU libraries do it: the distances' cross term by an
// fp32 cuBLAS SGEMM (G = -2 X C^T, N x K written to memory), an arg-min kernel that adds the
// center norms, then an update-and-score kernel that reads the points again. Three passes over
// memory (X for the SGEMM, G for the arg-min, X for the update) where the fused engine makes one.
//
// cuBLAS is loaded at run time (dlopen), so the application starts and runs everything else on
// machines without the CUDA toolkit; the peer then reports why it cannot run.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <vector>

#include "best_common.cuh"
#include "best_engines.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_resources.h"
#include "kernellab/errors.h"

namespace kernellab::clustering::best {
namespace {

// The five cuBLAS entry points the peer needs, resolved once per process.
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*setMathMode)(cublasHandle_t, cublasMath_t) = nullptr;
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float*, const float*, int, const float*, int, const float*,
                          float*, int) = nullptr;
  std::string error;
};

const CublasApi& cublasApi() {
  static CublasApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    std::string tried;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      tried += std::string(tried.empty() ? "" : "; ") + dlerror();
    }
    if (!lib) {
      api.error = "cuBLAS could not be loaded: " + tried;
      return;
    }
    auto sym = [&](const char* s) {
      void* f = dlsym(lib, s);
      if (!f && api.error.empty()) api.error = std::string("cuBLAS lacks ") + s;
      return f;
    };
    api.create = reinterpret_cast<decltype(api.create)>(sym("cublasCreate_v2"));
    api.destroy = reinterpret_cast<decltype(api.destroy)>(sym("cublasDestroy_v2"));
    api.setStream = reinterpret_cast<decltype(api.setStream)>(sym("cublasSetStream_v2"));
    api.setMathMode = reinterpret_cast<decltype(api.setMathMode)>(sym("cublasSetMathMode"));
    api.sgemm = reinterpret_cast<decltype(api.sgemm)>(sym("cublasSgemm_v2"));
  });
  return api;
}

void checkCublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(static_cast<int>(s), "cublasStatus " + std::to_string(static_cast<int>(s)),
                    "cuBLAS call failed", what, __FILE__, __LINE__, false);
}

constexpr int kThreads = 256;

// |c_k|^2, one block per center.
__global__ void centerNormKernel(const float* __restrict__ C, int d, float* __restrict__ cnorm) {
  __shared__ float part[kThreads / 32];
  float s = 0.f;
  for (int q = threadIdx.x; q < d; q += blockDim.x) {
    const float v = C[static_cast<int64_t>(blockIdx.x) * d + q];
    s = fmaf(v, v, s);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < kThreads / 32; ++w) total += part[w];
    cnorm[blockIdx.x] = total;
  }
}

// One thread per point: arg-min over k of G[k][i] + |c_k|^2 (G column-major N x K, so a warp
// reads 32 consecutive floats of each column); the lower index at equal values.
__global__ void argminKernel(const float* __restrict__ G, const float* __restrict__ cnorm,
                             int64_t n, int k, int* __restrict__ labels) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float best = INFINITY;
  int bestK = 0;
  for (int kk = 0; kk < k; ++kk) {
    const float s = G[static_cast<int64_t>(kk) * n + i] + cnorm[kk];
    if (s < best) {
      best = s;
      bestK = kk;
    }
  }
  labels[i] = bestK;
}

// Update and score: persistent blocks, per-block partial sums in shared memory.
__global__ void __launch_bounds__(kThreads) updateScoreKernel(const float* __restrict__ X,
                                                              int64_t n, int d, int k, bool vec,
                                                              bool smemSums,
                                                              const int* __restrict__ labels,
                                                              const float* __restrict__ C,
                                                              double* sums, double* scores,
                                                              int* counts) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int warpLabels[kThreads];  // the 32 labels of each warp's current group
  double* scoreS = reinterpret_cast<double*>(smem);
  int* countS = reinterpret_cast<int*>(scoreS + k);
  // Double partial sums: a block adds thousands of points per cluster and dimension, and float
  // sums drifted by 2e-6 relative at N = 1e6 (the per-iteration check caught it on the H200).
  double* sumS = reinterpret_cast<double*>(countS + k + (k & 1));  // keep 8-byte alignment
  for (int e = threadIdx.x; e < k; e += blockDim.x) {
    scoreS[e] = 0.0;
    countS[e] = 0;
  }
  if (smemSums)
    for (int e = threadIdx.x; e < k * d; e += blockDim.x) sumS[e] = 0.0;
  __syncthreads();
  const int warp = threadIdx.x >> 5;
  const int64_t groups = (n + 31) / 32;
  for (int64_t grp = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + warp; grp < groups;
       grp += static_cast<int64_t>(gridDim.x) * (kThreads / 32)) {
    const int64_t w0 = grp * 32;
    const int valid = n - w0 >= 32 ? 32 : static_cast<int>(n - w0);
    // The group's labels in shared memory: accumulateWarp reads them from lanes that split the
    // dimensions, so some lanes are idle there (a shuffle would read inactive lanes).
    const int lane = threadIdx.x & 31;
    int* mine = warpLabels + warp * 32;
    mine[lane] = lane < valid ? __ldg(labels + w0 + lane) : 0;
    __syncwarp();
    accumulateWarp(X, n, d, vec, w0, valid, [mine](int i) { return mine[i]; }, C, d,
                   smemSums ? sumS : static_cast<double*>(nullptr), sums, scoreS, countS);
    __syncwarp();  // every lane is done with the labels before the next group overwrites them
  }
  __syncthreads();
  if (smemSums)
    for (int e = threadIdx.x; e < k * d; e += blockDim.x)
      if (sumS[e] != 0.0) atomicAdd(sums + e, sumS[e]);
  for (int e = threadIdx.x; e < k; e += blockDim.x)
    if (countS[e]) {
      atomicAdd(scores + e, scoreS[e]);
      atomicAdd(counts + e, countS[e]);
    }
}

class CublasKMeans final : public KMeansDeviceState {
 public:
  CublasKMeans(const float* d_points, int64_t n, int d, int k, cudaStream_t stream)
      : KMeansDeviceState(n, d, k, stream), x_(d_points) {
    const CublasApi& api = cublasApi();
    if (!api.error.empty()) throw InputError("the cublas peer cannot run here: " + api.error);
    if (n > INT_MAX) throw InputError("the cublas peer: N = " + std::to_string(n) + " is above cuBLAS's int limit");
    checkCublas(api.create(&handle_), "cublasCreate");
    checkCublas(api.setStream(handle_, stream_), "cublasSetStream");
    // fp32 SGEMM: no TF32 (the default math mode; NVIDIA_TF32_OVERRIDE=1 would change it).
    checkCublas(api.setMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    const cuda::LaunchLimits limits = cuda::currentLaunchLimits();
    const int optin = limits.sharedPerBlockOptin, sms = limits.sms;
    const size_t fixed = sizeof(double) * k + sizeof(int) * (k + 1) + 16;
    smemSums_ = fixed + sizeof(double) * size_t(k) * d <= static_cast<size_t>(optin);
    smem_ = fixed + (smemSums_ ? sizeof(double) * size_t(k) * d : 0);
    KL_CUDA_CHECK(cudaFuncSetAttribute(updateScoreKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem_)));
    int perSM = 0;
    KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, updateScoreKernel, kThreads, smem_));
    updateGrid_ = std::max(1, sms * std::max(1, perSM));
    g_.allocate(static_cast<size_t>(n) * k);
    cnorm_.allocate(size_t(k));
    allocateState();
  }

  ~CublasKMeans() override {
    if (handle_) cublasApi().destroy(handle_);
  }

  KMeansIteration iterate(int /*iteration*/) override {
    useNextCenters();
    cuda::EventPair gemm, argmin, update, finalize;
    const float alpha = -2.f, beta = 0.f;
    gemm.start(stream_);
    checkCublas(cublasApi().sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n_), k_, d_,
                                  &alpha, x_, static_cast<int>(n_), centers_.get(), d_, &beta,
                                  g_.get(), static_cast<int>(n_)),
                "cublasSgemm");
    gemm.stop(stream_);
    argmin.start(stream_);
    centerNormKernel<<<k_, kThreads, 0, stream_>>>(centers_.get(), d_, cnorm_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    argminKernel<<<static_cast<unsigned>((n_ + kThreads - 1) / kThreads), kThreads, 0, stream_>>>(
        g_.get(), cnorm_.get(), n_, k_, labels_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
    argmin.stop(stream_);
    update.start(stream_);
    updateScoreKernel<<<updateGrid_, kThreads, smem_, stream_>>>(
        x_, n_, d_, k_, n_ % 4 == 0, smemSums_, labels_.get(), centers_.get(), sums_.get(),
        scores_.get(), counts_.get());
    KL_CUDA_CHECK_LAUNCH(stream_);
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
    return {"cublasSgemm", "argminKernel", "updateScoreKernel", "kmeansFinalizeKernel"};
  }
  std::vector<int> grids() const override {
    return {0, static_cast<int>((n_ + kThreads - 1) / kThreads), updateGrid_, 1};
  }
  std::vector<ResourceUsage> resources() const override {
    ResourceUsage none;  // cuBLAS picks its own kernel; its resources are not queryable here
    return {none, cuda::kernelResources(argminKernel, kThreads, 0),
            cuda::kernelResources(updateScoreKernel, kThreads, smem_),
            cuda::kernelResources(kmeansFinalizeKernel, 1024, 0)};
  }

 private:
  const float* x_;
  cublasHandle_t handle_ = nullptr;
  bool smemSums_ = false;
  size_t smem_ = 0;
  int updateGrid_ = 1;
  cuda::DeviceBuffer<float> g_, cnorm_;
};

}  // namespace

std::unique_ptr<KMeansEngine> makeCublasKMeans(const float* d_points, int64_t n, int d, int k,
                                               CUstream_st* stream) {
  return std::make_unique<CublasKMeans>(d_points, n, d, k, stream);
}

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// cuBLAS through dlopen: the entry points the k-means engines use, resolved once per process.
#include <dlfcn.h>

#include <climits>
#include <mutex>

#include "cublas_loader.h"
#include "cuda/cuda_check.h"
#include "kernellab/errors.h"

namespace kernellab::clustering::best {
namespace {

struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*setMathMode)(cublasHandle_t, cublasMath_t) = nullptr;
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float*, const float*, int, const float*, int, const float*, float*,
                          int) = nullptr;
  cublasStatus_t (*gemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                           int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                           cublasGemmAlgo_t) = nullptr;
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
    api.gemmEx = reinterpret_cast<decltype(api.gemmEx)>(sym("cublasGemmEx"));
  });
  return api;
}

void checkCublas(cublasStatus_t s, const char* what, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(static_cast<int>(s), "cublasStatus " + std::to_string(static_cast<int>(s)),
                    "cuBLAS call failed", what, __FILE__, line, false);
}

}  // namespace

CublasGemm::CublasGemm(cudaStream_t stream, GemmPrecision precision) : precision_(precision) {
  const CublasApi& api = cublasApi();
  if (!api.error.empty()) throw InputError("cuBLAS is needed here and cannot run: " + api.error);
  checkCublas(api.create(&handle_), "cublasCreate", __LINE__);
  checkCublas(api.setStream(handle_, stream), "cublasSetStream", __LINE__);
  // fp32: the default math mode, no TF32 (NVIDIA_TF32_OVERRIDE=1 in the environment would change
  // it); TF32 is asked for per call through the compute type.
  checkCublas(api.setMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode", __LINE__);
}

CublasGemm::~CublasGemm() {
  if (handle_) cublasApi().destroy(handle_);
}

const char* CublasGemm::name() const {
  return precision_ == GemmPrecision::Tf32 ? "cublasGemmEx TF32" : "cublasSgemm";
}

void CublasGemm::product(const float* X, int64_t n, int d, const float* C, int k, float alpha,
                         float* G) {
  if (n > INT_MAX)
    throw InputError("cuBLAS takes int sizes: N = " + std::to_string(n) + " is above " +
                     std::to_string(INT_MAX));
  const CublasApi& api = cublasApi();
  const float beta = 0.f;
  const int ni = static_cast<int>(n);
  // Column-major: X as stored is d x n (ld d), used transposed; C as stored is d x k (ld d).
  if (precision_ == GemmPrecision::Fp32) {
    checkCublas(
        api.sgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, ni, k, d, &alpha, X, d, C, d, &beta, G, ni),
        "cublasSgemm", __LINE__);
  } else {
    checkCublas(api.gemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, ni, k, d, &alpha, X, CUDA_R_32F, d,
                           C, CUDA_R_32F, d, &beta, G, CUDA_R_32F, ni, CUBLAS_COMPUTE_32F_FAST_TF32,
                           CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx (TF32)", __LINE__);
  }
}

}  // namespace kernellab::clustering::best

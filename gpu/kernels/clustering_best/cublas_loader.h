// SPDX-License-Identifier: MIT
// cuBLAS, loaded at run time (dlopen): nothing links it, so the application starts and runs
// everything else on machines without the CUDA toolkit; the engines that need it then report why
// they cannot run. One handle per engine; the product -2 X C^T in fp32 or TF32.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace kernellab::clustering::best {

enum class GemmPrecision {
  Fp32,  // cublasSgemm in the default math mode: fp32 FMA, no tensor cores
  Tf32,  // cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32: TF32 tensor cores, fp32 accumulation
};

// A cuBLAS handle on a stream. Throws InputError (the library and dlerror()) when cuBLAS cannot
// be loaded, CudaError when a cuBLAS call fails.
class CublasGemm {
 public:
  CublasGemm(cudaStream_t stream, GemmPrecision precision);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // G (n x k, column-major: G[kk * n + i]) = alpha * X C^T, with X and C point-major (n x d and
  // k x d row-major: X[i * d + q], C[kk * d + q]).
  void product(const float* X, int64_t n, int d, const float* C, int k, float alpha, float* G);
  GemmPrecision precision() const { return precision_; }
  // "cublasSgemm" or "cublasGemmEx TF32"
  const char* name() const;

 private:
  cublasHandle_t handle_ = nullptr;
  GemmPrecision precision_;
};

}  // namespace kernellab::clustering::best

// SPDX-License-Identifier: MIT
// A kernel that traps: the worker's GPU-fault test hook (device_fault.h).
#include "cuda/cuda_check.h"
#include "kernellab/device_fault.h"

namespace kernellab {
namespace {

__global__ void trapKernel() { __trap(); }

}  // namespace

bool trapOnDevice() {
  trapKernel<<<1, 1>>>();
  KL_CUDA_CHECK(cudaGetLastError());
  KL_CUDA_CHECK(cudaDeviceSynchronize());  // the trap surfaces here, sticky
  return true;
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
#include "cuda/kernel_resources.h"

#include "cuda/cuda_check.h"

namespace kernellab::cuda {

ResourceUsage compiledResources(const void* kernel, int threadsPerBlock, size_t dynamicShared) {
  cudaFuncAttributes a{};
  KL_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  ResourceUsage r;
  r.registersPerThread = a.numRegs;
  r.staticSharedBytes = static_cast<int>(a.sharedSizeBytes);
  r.dynamicSharedBytes = static_cast<int>(dynamicShared);
  r.localBytesPerThread = static_cast<int>(a.localSizeBytes);
  r.maxThreadsPerBlock = a.maxThreadsPerBlock;
  r.threadsPerBlock = threadsPerBlock;
  return r;
}

ResourceUsage kernelResources(const void* kernel, int threadsPerBlock, size_t dynamicShared) {
  ResourceUsage r = compiledResources(kernel, threadsPerBlock, dynamicShared);
  int blocks = 0;
  KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threadsPerBlock,
                                                              dynamicShared));
  r.maxActiveBlocksPerSM = blocks;
  return r;
}

LaunchLimits currentLaunchLimits() {
  int device = 0;
  LaunchLimits l;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&l.sharedPerBlockOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&l.sms, cudaDevAttrMultiProcessorCount, device));
  return l;
}

}  // namespace kernellab::cuda

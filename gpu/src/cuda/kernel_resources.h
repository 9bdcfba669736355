// SPDX-License-Identifier: MIT
// What the runtime reports about a compiled kernel for one launch shape, and the device limits
// launches are sized by (CUDA translation units).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernellab/result.h"

namespace kernellab::cuda {

// Registers, static shared and local memory and the kernel's thread limit from
// cudaFuncGetAttributes, with the launch's threads and dynamic shared memory. Blocks per SM stay
// 0: a launch the kernel's limits refuse has no occupancy to ask for.
ResourceUsage compiledResources(const void* kernel, int threadsPerBlock, size_t dynamicShared);

// compiledResources plus cudaOccupancyMaxActiveBlocksPerMultiprocessor for that launch.
ResourceUsage kernelResources(const void* kernel, int threadsPerBlock, size_t dynamicShared);

// The current device's opt-in shared memory per block and its SM count: what the engines that
// fill the GPU with one wave of blocks size their launches by.
struct LaunchLimits {
  int sharedPerBlockOptin = 0;
  int sms = 0;
};
LaunchLimits currentLaunchLimits();

// The same for a typed kernel pointer (__global__ functions of any signature).
template <class Kernel>
ResourceUsage kernelResources(Kernel* kernel, int threadsPerBlock, size_t dynamicShared) {
  return kernelResources(reinterpret_cast<const void*>(kernel), threadsPerBlock, dynamicShared);
}
template <class Kernel>
ResourceUsage compiledResources(Kernel* kernel, int threadsPerBlock, size_t dynamicShared) {
  return compiledResources(reinterpret_cast<const void*>(kernel), threadsPerBlock, dynamicShared);
}

}  // namespace kernellab::cuda

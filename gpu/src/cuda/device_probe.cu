// SPDX-License-Identifier: MIT
// Finds CUDA devices and reads their facts; keeps CUDA's own error text when there are none.
#include <string>

#include "backend_internal.h"
#include "kernellab/backend.h"
#include "cuda/cuda_check.h"

namespace kernellab::detail {

namespace {
std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}
int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) return 0;
  return v;
}
}  // namespace

void probeCuda(BackendStatus& status) {
  status.cudaBuilt = true;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    status.cudaUsable = false;
    int driver = 0;
    cudaDriverGetVersion(&driver);  // 0 without a driver
    status.cudaReason = explainMissingGpu(cudaGetErrorName(e), cudaGetErrorString(e), probeGpuPresence(),
                                          driver, CUDART_VERSION);
    cudaGetLastError();  // clear it: the probe's failure must not leak into later calls
    return;
  }
  if (count == 0) {
    status.cudaUsable = false;
    status.cudaReason = "cudaGetDeviceCount found 0 devices";
    return;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp p{};
    const cudaError_t pe = cudaGetDeviceProperties(&p, dev);
    if (pe != cudaSuccess) {
      status.cudaUsable = false;
      status.cudaReason = describe(pe);
      return;
    }
    DeviceInfo d;
    d.backend = "cuda";
    d.name = p.name;
    d.ccMajor = p.major;
    d.ccMinor = p.minor;
    d.smCount = p.multiProcessorCount;
    d.globalMemBytes = p.totalGlobalMem;
    d.l2Bytes = static_cast<uint64_t>(p.l2CacheSize);
    d.maxThreadsPerBlock = p.maxThreadsPerBlock;
    d.maxThreadsPerSM = p.maxThreadsPerMultiProcessor;
    d.maxBlocksPerSM = p.maxBlocksPerMultiProcessor;
    d.regsPerSM = p.regsPerMultiprocessor;
    d.regsPerBlock = p.regsPerBlock;
    d.sharedPerBlock = p.sharedMemPerBlock;
    d.sharedPerBlockOptin = p.sharedMemPerBlockOptin;
    d.sharedPerSM = p.sharedMemPerMultiprocessor;
    d.reservedSharedPerBlock = static_cast<int>(p.reservedSharedMemPerBlock);
    d.warpSize = p.warpSize;
    d.memoryBusBits = p.memoryBusWidth;
    // CUDA 13 removed clockRate and memoryClockRate from cudaDeviceProp; attributes remain.
    d.memoryClockKHz = attribute(cudaDevAttrMemoryClockRate, dev);
    d.clockKHz = attribute(cudaDevAttrClockRate, dev);
    d.driverVersion = driver;
    d.runtimeVersion = runtime;
    status.cudaDevices.push_back(d);
  }
  // Touch the context now so a broken driver shows up here, not in the middle of a run.
  const cudaError_t fe = cudaFree(nullptr);
  if (fe != cudaSuccess) {
    status.cudaUsable = false;
    status.cudaReason = describe(fe);
    return;
  }
  status.cudaUsable = true;
}

uint64_t cudaFreeMemory() {
  size_t freeBytes = 0, total = 0;
  if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) return 0;
  return freeBytes;
}

}  // namespace kernellab::detail

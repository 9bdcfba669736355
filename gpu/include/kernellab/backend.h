// SPDX-License-Identifier: MIT
// Which backends work on this machine, and why CUDA does not when it does not.
#pragma once

#include <string>

#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab {

// Probes once per process (cudaGetDeviceCount and device properties); later calls return the
// cached answer, updated if a sticky CUDA error has since made the context unusable.
BackendStatus backendStatus();

// After a sticky error (illegal address, launch failure, ...) the CUDA context of this process is
// dead: every later request runs on the CPU and says why.
void markCudaUnusable(const std::string& reason);

// The facts of the host CPU (name from /proc/cpuinfo, hardware threads, memory).
DeviceInfo cpuDeviceInfo();

// Resolves auto/cpu/cuda into what will run. Throws InputError when CUDA is asked for explicitly
// and cannot be used (naming the CUDA error). `note` says why the choice was made.
struct BackendDecision {
  bool useCuda = false;
  DeviceInfo device;
  std::string note;   // "NVIDIA H200 (CUDA 13.0)" or "CPU: cudaErrorNoDevice: no CUDA-capable ..."
};
BackendDecision decideBackend(BackendChoice choice);

// Free memory the decided backend can use now: device memory for CUDA; for the CPU, what the
// host has available (MemAvailable, ulimit -v, the cgroup).
uint64_t availableMemory(const BackendDecision& d);

// What the machine has of an NVIDIA driver, looked at without CUDA.
struct GpuPresence {
  bool deviceNodes = false;     // /dev/nvidia* exists (the kernel module is loaded)
  bool driverLibrary = false;   // libcuda.so.1 loads
  std::string driverLibraryError;
};
GpuPresence probeGpuPresence();
// The reason CUDA cannot run, naming which case it is: "no NVIDIA driver: ...", "NVIDIA driver
// too old: ...", "no CUDA device: ...", with CUDA's own error at the end. Versions in CUDA's
// encoding (13000 = 13.0); driverVersion 0 when unknown.
std::string explainMissingGpu(const std::string& cudaErrorName, const std::string& cudaErrorText,
                              const GpuPresence& presence, int driverVersion, int runtimeVersion);

// One line for a status bar: "CUDA: NVIDIA H200, cc 9.0, 132 SMs" or "CPU: <the CUDA error>".
std::string backendSummary();

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// Why no GPU works here, told apart: no NVIDIA driver, a driver too old for this build's CUDA
// runtime, or a driver without a device. CUDA's runtime answers "insufficient driver" for the
// first two alike, which would ask a laptop user to update a driver they do not have.
#include "kernellab/backend.h"

#include <dlfcn.h>
#include <filesystem>

namespace kernellab {
namespace {

std::string cudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

GpuPresence probeGpuPresence() {
  GpuPresence p;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) {
      p.deviceNodes = true;
      break;
    }
  }
  // The driver's user-space library; the CUDA runtime loads the same one.
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    p.driverLibrary = true;
    dlclose(lib);
  } else if (const char* why = dlerror()) {
    p.driverLibraryError = why;
  }
  return p;
}

std::string explainMissingGpu(const std::string& cudaErrorName, const std::string& cudaErrorText,
                              const GpuPresence& p, int driverVersion, int runtimeVersion) {
  const std::string cuda = " (CUDA: " + cudaErrorName + ": " + cudaErrorText + ")";
  if (!p.driverLibrary && !p.deviceNodes)
    return "no NVIDIA driver: no /dev/nvidia* device and no libcuda.so.1 on this machine, so there "
           "is no GPU to use" + cuda;
  if (!p.driverLibrary)
    return "NVIDIA driver incomplete: /dev/nvidia* exists but libcuda.so.1 cannot be loaded" +
           (p.driverLibraryError.empty() ? std::string() : " (" + p.driverLibraryError + ")") + cuda;
  if (cudaErrorName == "cudaErrorInsufficientDriver")
    return "NVIDIA driver too old: it supports CUDA " +
           (driverVersion > 0 ? cudaVersionText(driverVersion) : std::string("(version unknown)")) +
           ", this build's runtime needs CUDA " + cudaVersionText(runtimeVersion) +
           "; update the driver" + cuda;
  if (cudaErrorName == "cudaErrorNoDevice" || !p.deviceNodes)
    return "no CUDA device: the NVIDIA driver is installed but finds no GPU" +
           std::string(p.deviceNodes ? "" : " (no /dev/nvidia* device: is the GPU or its kernel module missing?)") +
           cuda;
  return cudaErrorName + ": " + cudaErrorText;
}

}  // namespace kernellab

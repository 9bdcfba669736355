// SPDX-License-Identifier: MIT
// Backend discovery and choice. The CPU backend always works; CUDA works when a device does.
#include "kernellab/backend.h"

#include <unistd.h>

#include <fstream>
#include <mutex>

#include "backend_internal.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"

namespace kernellab {
namespace {

std::mutex& statusMutex() {
  static std::mutex m;
  return m;
}

BackendStatus& mutableStatus() {
  static BackendStatus status = [] {
    BackendStatus s;
    s.cpu = cpuDeviceInfo();
    detail::probeCuda(s);
    return s;
  }();
  return status;
}

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        return name;
      }
    }
  }
  return "CPU";
}

std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

DeviceInfo cpuDeviceInfo() {
  DeviceInfo d;
  d.backend = "cpu";
  d.name = cpuModelName();
  d.smCount = hardwareThreads();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0) d.globalMemBytes = static_cast<uint64_t>(pages) * pageSize;
  // The CPU executor emulates CUDA's launch limits so that a request valid here is valid there.
  d.maxThreadsPerBlock = 1024;
  d.warpSize = 32;
  return d;
}

BackendStatus backendStatus() {
  std::lock_guard<std::mutex> lock(statusMutex());
  return mutableStatus();
}

void markCudaUnusable(const std::string& reason) {
  std::lock_guard<std::mutex> lock(statusMutex());
  BackendStatus& s = mutableStatus();
  s.cudaUsable = false;
  s.cudaReason = "CUDA context lost after a sticky error: " + reason;
}

BackendDecision decideBackend(BackendChoice choice) {
  const BackendStatus s = backendStatus();
  BackendDecision d;
  if (choice == BackendChoice::Cpu) {
    d.device = s.cpu;
    d.note = "CPU (requested)";
    return d;
  }
  if (s.cudaUsable && !s.cudaDevices.empty()) {
    d.useCuda = true;
    d.device = s.cudaDevices.front();
    d.note = d.device.name + " (CUDA runtime " + versionText(d.device.runtimeVersion) +
             ", driver " + versionText(d.device.driverVersion) + ")";
    return d;
  }
  if (choice == BackendChoice::Cuda)
    throw InputError("--backend cuda: CUDA cannot be used here: " + s.cudaReason);
  d.device = s.cpu;
  d.note = "CPU: " + s.cudaReason;
  return d;
}

std::string backendSummary() {
  const BackendStatus s = backendStatus();
  if (s.cudaUsable && !s.cudaDevices.empty()) {
    const DeviceInfo& g = s.cudaDevices.front();
    return "CUDA: " + g.name + ", cc " + std::to_string(g.ccMajor) + "." +
           std::to_string(g.ccMinor) + ", " + std::to_string(g.smCount) + " SMs";
  }
  return "CPU: " + s.cudaReason;
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// The probe of a build without nvcc: CUDA was never compiled in.
#include "backend_internal.h"

namespace kernellab::detail {

void probeCuda(BackendStatus& status) {
  status.cudaBuilt = false;
  status.cudaUsable = false;
  status.cudaReason = "this build has no CUDA backend (nvcc was not found at configure time)";
}

uint64_t cudaFreeMemory() { return 0; }

}  // namespace kernellab::detail

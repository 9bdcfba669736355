// SPDX-License-Identifier: MIT
// Between backend.cpp and the CUDA (or no-CUDA) probe.
#pragma once

#include "kernellab/result.h"

namespace kernellab::detail {

// Fills cudaBuilt, cudaUsable, cudaReason and cudaDevices.
void probeCuda(BackendStatus& status);
// Free device memory in bytes on the current device (0 when CUDA is not usable).
uint64_t cudaFreeMemory();

}  // namespace kernellab::detail

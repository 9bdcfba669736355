// SPDX-License-Identifier: MIT
// One runner per kernel family; runExperiment dispatches to them.
#pragma once

#include "kernellab/backend.h"
#include "kernellab/experiment.h"

namespace kernellab::detail {

// Throws InputError when the request cannot run on the decided backend.
void validateTranspose(const RunRequest& r, const BackendDecision& d);
RunResult runTranspose(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

// k-means and k-centers (gpu/kernels/clustering/clustering_family.cpp).
void validateClustering(const RunRequest& r, const BackendDecision& d);
RunResult runClustering(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);
void validateKnn(const RunRequest& r, const BackendDecision& d);
RunResult runKnn(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

// Free memory the backend can use: device memory for CUDA, physical memory for the CPU.
uint64_t availableMemory(const BackendDecision& d);

}  // namespace kernellab::detail

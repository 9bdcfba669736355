// SPDX-License-Identifier: MIT
// One address tracer per kernel family (each in its family folder); traceBlock dispatches here.
// A new family adds its tracer below and one case in access_families.cpp.
#pragma once

#include <string>
#include <vector>

#include "kernellab/access_model.h"

namespace kernellab::access::detail {

// kernels/transpose/transpose_access.cpp
BlockTrace traceTransposeBlock(const AccessQuery& query, ThreadRange keep);

// kernels/clustering/clustering_access.cpp: k-means and k-centers, the seed variants.
BlockTrace traceClusteringBlock(const AccessQuery& query, ThreadRange keep);
const std::vector<KernelChoice>& clusteringKernels(Family family);
bool canTraceClustering(Family family, const std::string& variant);

// kernels/knn/knn_access.cpp: the four window-KNN variants.
BlockTrace traceKnnBlock(const AccessQuery& query, ThreadRange keep);

// Where a tracer puts an output buffer: after the inputs, aligned as cudaMalloc aligns large
// allocations (2 MiB), so sector and partition arithmetic sees realistic addresses.
inline uint64_t alignedAfter(uint64_t bytes) {
  constexpr uint64_t kAlign = 2ull << 20;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace kernellab::access::detail

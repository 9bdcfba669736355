// SPDX-License-Identifier: MIT
// One address tracer per kernel family (each in its family folder); traceBlock dispatches here.
// A new family adds its tracer below and one case in access_families.cpp.
#pragma once

#include "kernellab/access_model.h"

namespace kernellab::access::detail {

// kernels/transpose/transpose_access.cpp
BlockTrace traceTransposeBlock(const AccessQuery& query);

// Where a tracer puts an output buffer: after the inputs, aligned as cudaMalloc aligns large
// allocations (2 MiB), so sector and partition arithmetic sees realistic addresses.
inline uint64_t alignedAfter(uint64_t bytes) {
  constexpr uint64_t kAlign = 2ull << 20;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace kernellab::access::detail

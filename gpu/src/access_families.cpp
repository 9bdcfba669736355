// SPDX-License-Identifier: MIT
// traceBlock: which family's tracer records a block. Families without a tracer say so.
#include "access_tracers.h"
#include "kernellab/errors.h"

namespace kernellab::access {

BlockTrace traceBlock(const AccessQuery& query) {
  switch (query.request.family) {
    case Family::Transpose:
      return detail::traceTransposeBlock(query);
    // Clustering (coalesced X[d*N+i] vs interleaved X[i*D+d] reads) and window KNN plug in here:
    // case Family::KMeans: return detail::traceKMeansBlock(query);
    default:
      break;
  }
  throw InputError(std::string("--family ") + toString(query.request.family) +
                   ": no access tracer for this family in this build (transpose)");
}

}  // namespace kernellab::access

// SPDX-License-Identifier: MIT
// traceBlock: which family's tracer records a block; which kernels and variants can be traced.
#include "access_tracers.h"
#include "kernellab/errors.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"

namespace kernellab::access {

namespace {

// Transpose and KNN variants are one kernel each: --kernel has nothing to choose there.
void refuseKernelChoice(const AccessQuery& q) {
  if (q.kernel.empty()) return;
  throw InputError("--kernel " + q.kernel + ": " + toString(q.request.family) +
                   " variants launch one kernel each (--kernel chooses among kmeans's assign, "
                   "centroids, score and kcenters's distance, select)");
}

}  // namespace

const std::vector<KernelChoice>& tracedKernels(Family family) {
  static const std::vector<KernelChoice> none;
  if (family == Family::KMeans || family == Family::KCenters)
    return detail::clusteringKernels(family);
  return none;
}

bool canTrace(Family family, const std::string& variant) {
  switch (family) {
    case Family::Transpose:
      return transpose::variantFromString(variant).has_value();
    case Family::KMeans:
    case Family::KCenters:
      return detail::canTraceClustering(family, variant);
    case Family::Knn:
      return knn::variantFromString(variant).has_value();
  }
  return false;
}

BlockTrace traceBlock(const AccessQuery& query, ThreadRange keep) {
  switch (query.request.family) {
    case Family::Transpose:
      refuseKernelChoice(query);
      return detail::traceTransposeBlock(query, keep);
    case Family::KMeans:
    case Family::KCenters:
      return detail::traceClusteringBlock(query, keep);
    case Family::Knn:
      refuseKernelChoice(query);
      return detail::traceKnnBlock(query, keep);
  }
  throw InputError(std::string("--family ") + toString(query.request.family) +
                   ": no access tracer for this family in this build");
}

}  // namespace kernellab::access

// SPDX-License-Identifier: MIT
// The pieces of the clustering families (k-means and k-centers) that their descriptors
// (clustering_descriptor.cpp) put together; each lives in its own file of this folder.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "kernellab/family.h"

namespace kernellab::detail {

// clustering_family.cpp: throws InputError when the request cannot run on the decided backend;
// runs a validated request.
void validateClustering(const RunRequest& r, const BackendDecision& d);
RunResult runClustering(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

}  // namespace kernellab::detail

namespace kernellab::access::detail {

// clustering_access.cpp: k-means and k-centers, the seed variants.
BlockTrace traceClusteringBlock(const AccessQuery& query, ThreadRange keep);
const std::vector<KernelChoice>& clusteringKernels(Family family);
bool canTraceClustering(Family family, const std::string& variant);

}  // namespace kernellab::access::detail

namespace kernellab::clustering {

// clustering_verify_cases.cpp: `verify`'s cases of one of the two families.
std::vector<VerifyCase> verifyCases(Family family, bool quick);

// clustering_bench.cpp: a run's details after its table (per variant: iterations, inertia,
// cluster sizes, each kernel's launches and times, the phases; then the seed's speed-up and gain
// of every variant against the slowest), and `bench clustering|kcenters|kmeans` (`part`).
void printClusteringDetails(std::ostream& out, const RunResult& run);
void printClusteringSpeedups(std::ostream& out, const RunResult& run);
bool bench(const BenchOptions& o, const std::string& part, std::ostream& out, ResultsFile& file);

// clustering_bench_best.cpp: `bench best`, the issue-7 variants against the ceilings of the same
// run. Needs CUDA (InputError with the reason otherwise).
bool benchBest(const BenchOptions& o, std::ostream& out, ResultsFile& file);

}  // namespace kernellab::clustering

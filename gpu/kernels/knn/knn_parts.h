// SPDX-License-Identifier: MIT
// The pieces of the window-KNN family that its descriptor (knn_descriptor.cpp) puts together;
// each lives in its own file of this folder.
#pragma once

#include <iosfwd>
#include <vector>

#include "kernellab/family.h"

namespace kernellab::detail {

// knn_family.cpp: throws InputError when the request cannot run on the decided backend; runs a
// validated request.
void validateKnn(const RunRequest& r, const BackendDecision& d);
RunResult runKnn(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

}  // namespace kernellab::detail

namespace kernellab::access::detail {

// knn_access.cpp: the four window-KNN variants.
BlockTrace traceKnnBlock(const AccessQuery& query, ThreadRange keep);

}  // namespace kernellab::access::detail

namespace kernellab::knn {

// knn_verify_cases.cpp: `verify`'s cases.
std::vector<VerifyCase> verifyCases(bool quick);

// knn_bench.cpp: `bench knn`: the seed's image and a large one, per variant the time, the shared
// memory per block and the resident blocks per SM.
bool bench(const BenchOptions& o, std::ostream& out, ResultsFile& file);

}  // namespace kernellab::knn

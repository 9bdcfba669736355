// SPDX-License-Identifier: MIT
// The pieces of the reduction family that its descriptor (reduction_descriptor.cpp) puts
// together; each lives in its own file of this folder.
#pragma once

#include <iosfwd>
#include <vector>

#include "kernellab/family.h"

namespace kernellab::reduction {

// reduction_family.cpp: throws InputError when the request cannot run on the decided backend;
// runs a validated request.
void validateRun(const RunRequest& r, const BackendDecision& d);
RunResult run(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

// reduction_verify_cases.cpp: `verify`'s cases: awkward N, every block size, both operations.
std::vector<VerifyCase> verifyCases(bool quick);

// reduction_bench.cpp: `bench reduction`: every variant's bandwidth as a share of the copy
// ceiling measured in the same run, for the sum and the max.
bool bench(const BenchOptions& o, std::ostream& out, ResultsFile& file);

}  // namespace kernellab::reduction

namespace kernellab::access::detail {

// reduction_access.cpp: one block of a variant's first pass, recorded.
BlockTrace traceReductionBlock(const AccessQuery& query, ThreadRange keep);

}  // namespace kernellab::access::detail

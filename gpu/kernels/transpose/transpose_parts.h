// SPDX-License-Identifier: MIT
// The pieces of the transpose family that its descriptor (transpose_descriptor.cpp) puts
// together; each lives in its own file of this folder.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "kernellab/family.h"
#include "kernellab/transpose.h"

namespace kernellab::detail {

// transpose_family.cpp: throws InputError when the request cannot run on the decided backend;
// runs a validated request.
void validateTranspose(const RunRequest& r, const BackendDecision& d);
RunResult runTranspose(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks);

}  // namespace kernellab::detail

namespace kernellab::access::detail {

// transpose_access.cpp: one block of a variant through the phase functions, recorded.
BlockTrace traceTransposeBlock(const AccessQuery& query, ThreadRange keep);

}  // namespace kernellab::access::detail

namespace kernellab::transpose {

// transpose_cpu.cpp: makeGeometry for the device that will run the variant. bulkCopy: whether it
// can run the bulk-rows strategy (the CPU executor always can; a CUDA device when
// bulkRowsRunsOn says so); without it the shape rule falls back to its earlier choice, and a
// forced bulk-rows is an InputError.
Geometry makeGeometryOn(const RunRequest& r, Variant v, int maxThreadsPerBlock, bool bulkCopy);

// transpose_cpu.cpp: the name of the kernel that runs the best variant's strategy for this
// geometry ("transposeBulkRowsKernel", "transposeNarrowWidthKernel<3>", ...): what the CUDA run
// reports and what the access lens names.
std::string bestKernelName(const Geometry& g);

// transpose_verify_cases.cpp: `verify`'s cases: awkward sizes and every launch shape.
std::vector<VerifyCase> verifyCases(bool quick);

// transpose_bench.cpp: `bench transpose`: every shape's best against cudaMemcpy D2D of the same
// run (docs/BENCHMARKS.md).
bool bench(const BenchOptions& o, std::ostream& out, ResultsFile& file);

}  // namespace kernellab::transpose

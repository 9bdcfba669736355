// SPDX-License-Identifier: MIT
// The parallel-reduction family: the sum of N floats, or their maximum and its index (the
// reduction k-centers needs), with each classic optimization step as a variant (Harris 2007),
// cub::DeviceReduce as the peer and cudaMemcpy D2D as the ceiling. See docs/reduction.md.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/family_id.h"
#include "kernellab/reduction_phases.h"
#include "kernellab/request.h"
#include "kernellab/result.h"
#include "kernellab/variant_table.h"

namespace kernellab {

// The reduction's part of a request: RunRequest::section<ReductionProblem>(); JSON "reduction".
struct ReductionProblem {
  int64_t n = int64_t(1) << 24;  // floats to reduce (64 MB)
  reduction::Operation op = reduction::Operation::Sum;
  int blocks = 0;  // the grid-stride variant's blocks (0: enough to fill the device once)
};

// What a reduction variant produced: VariantResult::detail<ReductionOutput>(); JSON "reduction".
struct ReductionOutput {
  double value = 0;             // the sum, or the maximum
  int64_t index = -1;           // the maximum's index (-1 for a sum)
  std::vector<int64_t> passes;  // elements into each pass (n, the first pass's blocks, ..., 1)
};
void to_json(nlohmann::json& j, const ReductionOutput& v);
void from_json(const nlohmann::json& j, ReductionOutput& v);

}  // namespace kernellab

namespace kernellab::reduction {

inline constexpr Family kFamily{"reduction"};

using VariantInfo = EnumVariantInfo<Variant>;
const std::vector<VariantInfo>& variants();
const VariantInfo& info(Variant v);
std::optional<Variant> variantFromString(const std::string& id);
// "all" or ids. Without CUDA, "all" leaves out cub and naming it is an error with the reason.
std::vector<Variant> parseVariants(const std::vector<std::string>& ids, bool cuda,
                                   const std::string& whyNoCuda = {});

const char* toString(Operation op);  // "sum", "max"
std::optional<Operation> operationFromString(const std::string& s);

// Point indices are 32-bit in the kernels.
inline constexpr int64_t kMaxElements = 2147483647;

// The grid-stride variant's blocks when the request says 0: every SM's resident blocks once.
int autoBlocks(const DeviceInfo& device, int tpb);

// Every pass of a variant, first to last (the last has one block): a pass's blocks are the next
// pass's elements. Throws InputError for threads per block that are not a power of two in
// 32..1024, or a grid beyond CUDA's limit.
std::vector<Geometry> plan(const ReductionProblem& p, Variant v, int tpb, int autoGrid);

// Checks N, threads per block, blocks, repetitions and memory; throws InputError.
void validate(const RunRequest& r, const DeviceInfo& device, uint64_t availableBytes);

// Seeded input: 24-bit values in (-1, 1), never zero, so a misplaced element changes the sum.
std::vector<float> makeInput(int64_t n, uint64_t seed);

// The CPU reference, in double: the sum and the sum of magnitudes (for the error bound), the
// maximum and its first index.
struct Reference {
  double sum = 0;
  double absSum = 0;
  float max = 0;
  int64_t index = -1;
};
Reference reference(const std::vector<float>& in);

// The CPU executor: every pass through the shared phase functions, block by block on CPU threads,
// phase by phase inside a block (the barriers), the warp stage's shuffles through a lane buffer.
// Every shared and global index is bounds-checked (std::logic_error names it).
float executeSum(const std::vector<Geometry>& passes, const float* in);
ValueIndex executeMax(const std::vector<Geometry>& passes, const float* in);

// The rounding error of a float sum whose elements each pass through at most `depth` additions
// (any order): |computed - exact| <= gamma(depth) * sum |x| with gamma(h) = h u / (1 - h u),
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2002, eq. 4.4), plus the
// double reference's own error (n 2^-53 sum |x|).
double sumTolerance(int64_t depth, double absSum, int64_t n);
// The depth of a variant's passes (sumDepth of each, reduction_phases.h).
int64_t sumDepth(const std::vector<Geometry>& passes);
// cub::DeviceReduce's order is its own: each thread sums at most n / (SMs x 256) items in
// sequence (its grid has at least a block per SM, 256 threads each), then the block and grid
// trees (64 levels at the most); the bound is taken at that depth.
int64_t cubSumDepth(int64_t n, int sms);

// Sum: |value - reference| within sumTolerance; max: the value's bits and the index exactly.
Verification verifySum(double value, const Reference& ref, int64_t depth, int64_t n);
Verification verifyMax(float value, int64_t index, const Reference& ref);

}  // namespace kernellab::reduction

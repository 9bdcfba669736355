// SPDX-License-Identifier: MIT
// A results file is data, never a command: before any of it is used, every array index and size
// in it is range-checked against the run's own request. parseResultsFile and readResultsFile call
// this; the window calls it (through them) before a file reaches the history.
#pragma once

#include <cstdint>
#include <string>

#include "kernellab/result.h"

namespace kernellab {

// Limits of what a results file may say (runs we write stay far inside them).
inline constexpr int kMaxRecordedSmId = 65535;  // %smid is not contiguous, but a GPU has < 2^16

// Throws InputError naming the field by its path and the limit, e.g.
// "runs[0].variants[1].clustering.labels[5] = 2147483646 is outside -1..15 (K = 16)". Checks:
//  - schema_version 1..kSchemaVersion for the file and every run; kind "kernellab-results";
//  - sweep: every axis has a name and values; there are no more runs than the axes' product;
//  - the request of every run that ran (has variants): sizes, K, D and launch shape >= 0, point
//    and pixel counts within the 32-bit indices the kernels use;
//  - clustering outputs: labels in -1..K-1 (-1: no cluster, the kernels' poison) and N of them,
//    centers K x D (k-centers: at most K rows), center indices in 0..N-1 (at most K), cluster
//    sizes K non-negative counts, iterations >= 0, chosen points in -1..N-1;
//  - knn outputs: indices and distances rows x cols x k, every index in -1..pixels-1;
//  - kernels: grid, block, launches, samples and resources >= 0; per-iteration kernel times
//    either absent or one per kernel; schedules: SM ids 0..kMaxRecordedSmId, end >= start;
//  - device: SM count 0..65536.
void validateResultsFile(const ResultsFile& file);

// The checks' messages, shared by the families' checkStored and checkLimits (family.h): each
// throws InputError "<field> = <value> is outside <min>..<max> (<why>)", "... is above the limit
// of <max>", or "<field> <why>".
[[noreturn]] void refuseField(const std::string& field, const std::string& why);
void checkWithin(int64_t value, int64_t min, int64_t max, const std::string& field,
                 const std::string& why = {});
void checkAtMost(int64_t value, int64_t max, const std::string& field);

}  // namespace kernellab

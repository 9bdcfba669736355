// SPDX-License-Identifier: MIT
// KernelLab's predictions held against the GPU's counters of a profiled run (issue 13): per
// variant and kernel, the access model's global sectors per request and shared-memory bank
// conflicts, the occupancy calculator's theoretical occupancy, and the bandwidth figures' ideal
// bytes against the DRAM bytes moved (the L2 hit rate, the achieved occupancy and the warp
// execution efficiency beside them, measured only). One computation for the CLI (`kernellab-cli
// profile` prints it), the window (Access, Timing and Occupancy tabs) and reports. The tolerances
// are documented in docs/models.md, "Model beside measurement".
#pragma once

#include <string>
#include <vector>

#include "kernellab/result.h"

namespace kernellab {

struct CounterComparison {
  std::string variant;
  std::string kernel;    // the function name, as ncu prints it
  std::string quantity;  // "global load sectors per request"
  std::string unit;      // "", "%", "MB"
  double predicted = 0;
  double measured = 0;
  bool hasPrediction = true;  // false: a measurement with no model beside it
  bool agrees = true;         // within the quantity's tolerance
  std::string note;           // what the model is, the tolerance, why the two may differ
};

// Ratios (sectors per request, conflicts per request, DRAM bytes): they agree within 10 % of the
// larger, or within 0.5 absolute (a third of a sector of 4, half a conflict).
inline constexpr double kCounterTolerance = 0.10;
inline constexpr double kCounterSlack = 0.5;
bool countersAgree(double predicted, double measured);
// Occupancy in percent: ncu rounds to whole warps, so one percentage point.
inline constexpr double kOccupancySlackPct = 1.0;

// Whether any variant of the run carries counters.
bool hasCounters(const RunResult& run);

// Per profiled variant that has a tracer, per traced kernel: global load and store sectors per
// request and shared load and store bank conflicts per request, the model's taken from warp 0 of
// the grid's middle block. Traces one block per kernel (seconds for a large clustering run): call
// it off a GUI thread. A request that names input files is not traced (a results file is data:
// its paths are not read); `skipped` then says why, as it does for a kernel that cannot be traced.
std::vector<CounterComparison> accessComparison(const RunResult& run,
                                                std::vector<std::string>* skipped = nullptr);

// Per profiled kernel with a resource record: the calculator's theoretical occupancy against
// ncu's, and ncu's achieved occupancy (no model).
std::vector<CounterComparison> occupancyComparison(const RunResult& run);

// Per profiled kernel: DRAM bytes read + written against the ideal bytes of the bandwidth figures
// (each input read once, each output written once, times the launches), the L2 hit rate and the
// warp execution efficiency (measured only).
std::vector<CounterComparison> memoryComparison(const RunResult& run);

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// The GPU's own counters beside KernelLab's models (issue 13): the fixed metric set that
// `kernellab-cli profile` asks Nsight Compute (ncu) for, the reading of ncu's CSV output, and per
// kernel the quantities the models predict: global sectors per request, shared-memory bank
// conflicts, achieved and theoretical occupancy, DRAM bytes, the L2 hit rate, divergence.
#pragma once

#include <string>
#include <vector>

namespace kernellab {

// One kernel of a variant as ncu measured it, summed (counts) or averaged (rates) over its
// launches in the profiled run. Rates that ncu did not report stay -1.
struct MeasuredCounters {
  std::string kernel;  // the function name as ncu prints it (--print-kernel-base function)
  int launches = 0;
  double durationNs = 0;  // all launches, under the profiler: not a benchmark time
  double globalLoadSectors = 0, globalLoadRequests = 0;
  double globalStoreSectors = 0, globalStoreRequests = 0;
  double sharedLoadRequests = 0, sharedStoreRequests = 0;  // warp-level shared instructions
  double sharedLoadBankConflicts = 0, sharedStoreBankConflicts = 0;
  double dramBytesRead = 0, dramBytesWritten = 0;
  double l2HitRatePct = -1;
  double achievedOccupancyPct = -1;
  double theoreticalOccupancyPct = -1;
  double threadsPerInstruction = -1;  // active threads per executed warp instruction (32: none off)

  double loadSectorsPerRequest() const {
    return globalLoadRequests > 0 ? globalLoadSectors / globalLoadRequests : 0.0;
  }
  double storeSectorsPerRequest() const {
    return globalStoreRequests > 0 ? globalStoreSectors / globalStoreRequests : 0.0;
  }
  // Extra shared-memory wavefronts per request: 0 without conflicts, 31 for a 32-way conflict.
  double loadConflictsPerRequest() const {
    return sharedLoadRequests > 0 ? sharedLoadBankConflicts / sharedLoadRequests : 0.0;
  }
  double storeConflictsPerRequest() const {
    return sharedStoreRequests > 0 ? sharedStoreBankConflicts / sharedStoreRequests : 0.0;
  }
  double warpExecutionEfficiency() const {  // 0..1, or -1 when not measured
    return threadsPerInstruction >= 0 ? threadsPerInstruction / 32.0 : -1.0;
  }
};

// How a results file's counters were collected: they come from a profiled run, whose times are
// the profiler's (kernels replayed, clocks as found), never benchmark times.
struct ProfileInfo {
  // The layout of the counters in results files (the metric set and MeasuredCounters' fields).
  static constexpr int kCountersVersion = 1;
  int countersVersion = kCountersVersion;
  std::string tool;                  // "Nsight Compute 2025.3.1" (ncu --version)
  std::vector<std::string> metrics;  // the metric names asked for
  std::string note;                  // e.g. "profiled run: warm-up 0, 1 repetition, no ceilings"
};

// The metrics `kernellab-cli profile` collects (Hopper and later names; every model has its
// counterpart among them).
const std::vector<std::string>& profileMetrics();

// The launches of an ncu CSV report (`ncu --csv --print-kernel-base function --metrics ...`, one
// row per launch and metric), grouped by kernel name in order of first launch. Throws InputError
// when the text is not such a report (no header with "Kernel Name", "Metric Name" and "Metric
// Value"), naming what is missing. Values may carry thousands separators; "n/a" counts as not
// reported.
std::vector<MeasuredCounters> parseNcuCsv(const std::string& text);

// The counters of `kernel` (a KernelLab kernel name: its first word is the function name) among
// `measured`, or nullptr.
const MeasuredCounters* countersFor(const std::vector<MeasuredCounters>& measured,
                                    const std::string& kernel);

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// KernelLab's predictions held against the GPU's counters of a profiled run (issue 13): the
// access model's sectors per request and bank conflicts per variant, and the bandwidth figures'
// ideal bytes against the DRAM bytes moved, with the L2 hit rate beside them. Pure functions of a
// run; the access comparison traces one block per kernel, so callers run it off the GUI thread.
// The tolerances are documented in docs/models.md ("Model beside measurement").
#pragma once

#include <QVector>

#include "counters_table.h"
#include "kernellab/result.h"

namespace kernellab::app {

// Relative tolerance of a ratio-like quantity, and the absolute slack below which small values
// agree anyway (0.3 sectors of 4, half a conflict).
inline constexpr double kCounterTolerance = 0.10;
inline constexpr double kCounterSlack = 0.5;
bool countersAgree(double predicted, double measured);

// Per profiled variant with an access tracer and per traced kernel: global load and store sectors
// per request, shared-memory bank conflicts per request (loads, stores), the model's taken from
// the grid's middle block, warp 0.
QVector<widgets::CounterComparison> accessComparison(const RunResult& run);

// Per profiled kernel: DRAM bytes read + written against the ideal bytes (each input read once,
// each output written once), the L2 hit rate and the warp execution efficiency (no model).
QVector<widgets::CounterComparison> memoryComparison(const RunResult& run);

// Whether any variant of the run carries counters.
bool hasCounters(const RunResult& run);

}  // namespace kernellab::app

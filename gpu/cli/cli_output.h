// SPDX-License-Identifier: MIT
// How kernellab-cli writes results besides the run table (kernellab/run_table.h): CSV, and
// JSON-lines events for a worker.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "kernellab/result.h"

namespace kernellab::cli {

// A row per variant of every run; the columns are documented in docs/results-format.md.
void writeCsv(const std::string& path, const ResultsFile& file);
// One JSON object per line on stdout, flushed: what a GUI worker process reads.
void emitEvent(const nlohmann::json& event);

}  // namespace kernellab::cli

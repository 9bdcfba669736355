// SPDX-License-Identifier: MIT
// `kernellab-cli bench best`: the issue-7 variants against the ceilings of the same run.
#pragma once

#include "cli_commands.h"
#include "kernellab/result.h"

namespace kernellab::cli {

// Appends every run to `file`; false when a run failed to run or to verify. Needs CUDA
// (InputError with the reason otherwise).
bool benchBest(const CliOptions& o, BackendChoice backend, ResultsFile& file);

}  // namespace kernellab::cli

// SPDX-License-Identifier: MIT
// `kernellab-cli bench transpose`: the seed's square sizes with every variant,
// then the shapes of issue 18 (odd sizes, the point-cloud layouts) with copy,
// padded and best, each best ratio to cudaMemcpy D2D of the same run checked
// against its target.
#pragma once

#include "cli_commands.h"
#include "kernellab/result.h"

namespace kernellab::cli {

// Appends every run to `file`; false when a run failed to run or to verify (a
// missed speed target is printed, not a failure: the bench also runs on GPUs
// the targets were not set for).
bool benchTranspose(const CliOptions& o, BackendChoice backend, ResultsFile& file);

}  // namespace kernellab::cli

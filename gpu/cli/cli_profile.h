// SPDX-License-Identifier: MIT
// `kernellab-cli profile`: the experiment under Nsight Compute, the GPU's counters in the results
// file (issue 13). Exit 2 with one line when ncu is missing, no CUDA device works, or ncu may not
// read the counters; nothing is run then.
#pragma once

#include "cli_commands.h"

namespace kernellab::cli {

int cmdProfile(const CliOptions& o);

}  // namespace kernellab::cli

// SPDX-License-Identifier: MIT
// A run as text: the header (the family's summary, backend, ceilings), one row per variant,
// then what the family adds (its descriptor's details). What `kernellab-cli run`, `sweep`,
// `bench` and the families' benches print.
#pragma once

#include <iosfwd>

#include "kernellab/experiment.h"
#include "kernellab/result.h"

namespace kernellab {

void printRunTable(std::ostream& out, const RunResult& run);

// Progress lines on stderr ("[40%] running padded: repetition 3 of 10"), for benches.
RunHooks progressOnStderr();

}  // namespace kernellab

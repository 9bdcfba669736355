// SPDX-License-Identifier: MIT
// Ceilings measured in the same run as the kernels they judge.
#pragma once

#include <optional>

#include "kernellab/result.h"

namespace kernellab {

// The fp32 arithmetic peak of the current GPU: a kernel of independent fused multiply-add
// chains filling every SM, timed with CUDA events (2 operations per FMA). Empty without CUDA.
std::optional<Ceiling> measureFp32Peak(int warmup, int reps);

}  // namespace kernellab

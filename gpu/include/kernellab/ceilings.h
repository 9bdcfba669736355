// SPDX-License-Identifier: MIT
// Ceilings measured in the same run as the kernels they judge.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "kernellab/experiment.h"
#include "kernellab/result.h"

namespace kernellab {

// The fp32 arithmetic peak of the current GPU: a kernel of independent fused multiply-add
// chains filling every SM, timed with CUDA events (2 operations per FMA). Empty without CUDA.
std::optional<Ceiling> measureFp32Peak(int warmup, int reps);

// A bandwidth ceiling from `warmup + reps` calls of `copyOnceMs`, each of which copies once and
// returns its milliseconds on `clock`. `bytesMoved` counts the read and the write. Cancel is
// checked between copies (a 1 GiB matrix on the CPU takes a while per copy).
Ceiling measureCopyCeiling(const std::string& name, double bytesMoved, const std::string& clock,
                           int warmup, int reps, const RunHooks& hooks,
                           const std::function<double()>& copyOnceMs);

// The CPU backends' ceiling: std::memcpy of `bytes` from `from` to `to`, on the steady clock.
Ceiling hostCopyCeiling(void* to, const void* from, size_t bytes, int warmup, int reps,
                        const RunHooks& hooks);

}  // namespace kernellab

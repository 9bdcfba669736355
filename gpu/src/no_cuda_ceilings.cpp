// SPDX-License-Identifier: MIT
// Without a CUDA backend there is no GPU arithmetic ceiling to measure.
#include "kernellab/ceilings.h"

namespace kernellab {

std::optional<Ceiling> measureFp32Peak(int, int) { return std::nullopt; }

}  // namespace kernellab

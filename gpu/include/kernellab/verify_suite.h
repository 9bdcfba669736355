// SPDX-License-Identifier: MIT
// The cases `kernellab-cli verify` runs: every variant of every family over awkward sizes and
// launch shapes, each checked against the CPU reference.
#pragma once

#include <string>
#include <vector>

#include "kernellab/request.h"

namespace kernellab {

struct VerifyCase {
  std::string label;   // "transpose 1000x37 tile 32 tpb 256"
  RunRequest request;  // variants = all; repetitions small: this checks results, not speed
};

// Every family's cases (each descriptor's verifyCases, family.h), or only those of `families`.
// `quick` trims the lists for CPU-only CI runs; the full lists are what runs on a GPU.
std::vector<VerifyCase> verifySuite(bool quick, const std::vector<Family>& families = {});

}  // namespace kernellab

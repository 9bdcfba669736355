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

// `quick` trims the list for CPU-only CI runs; the full list is what runs on a GPU.
std::vector<VerifyCase> transposeVerifyCases(bool quick);
// k-means and k-centers: the seed's gold size (N=10, K=2, D=2), N not a multiple of the block nor
// of K, D above the block size, K = N and K = 1, at threads per block 64..1024 and odd ones.
std::vector<VerifyCase> clusteringVerifyCases(bool quick);
std::vector<VerifyCase> knnVerifyCases(bool quick);
std::vector<VerifyCase> verifySuite(bool quick, const std::vector<Family>& families = {});

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// The request the pruned-variant suites run: the seed's shared-coalesced variant beside pruned,
// on the CPU backend, first-K start, one repetition, labels kept (issue 15).
#pragma once

#include <cstdint>

#include "kernellab/clustering.h"
#include "kernellab/request.h"

namespace kltest {

inline kernellab::RunRequest seedAndPrunedRequest(kernellab::Family family, int64_t n, int k,
                                                  int d, kernellab::DatasetShape shape,
                                                  double noise) {
  using namespace kernellab;
  RunRequest r;
  r.family = family;
  r.variants = {"shared-coalesced", "pruned"};
  ClusteringProblem& p = r.section<ClusteringProblem>();
  p.n = n;
  p.k = k;
  p.d = d;
  p.shape = shape;
  p.noiseFraction = noise;
  p.init = InitMethod::First;
  p.keepLabels = true;
  r.launch.threadsPerBlock = 128;
  r.backend = BackendChoice::Cpu;
  r.warmup = 0;
  r.repetitions = 1;
  r.measureCeilings = false;
  return r;
}

}  // namespace kltest

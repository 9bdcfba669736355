// SPDX-License-Identifier: MIT
// What a pruned k-centers run read (issue 15), from its per-center records: the points whose
// float coordinates it read (IterationRecord::visited) and those whose 8-bit sketch it read
// (screened), as shares of N per center. One definition for the CLI's tables, the runner's byte
// counts and the window's chart.
#pragma once

#include <cstdint>
#include <vector>

#include "kernellab/result.h"

namespace kernellab {

struct PrunedReads {
  int centers = 0;        // the records that carry a count (0: not a pruned run)
  double floatShare = 0;  // mean over centers of visited / N
  double sketchShare = 0; // mean over centers of screened / N
  double distances = 0;   // mean over iterations or centers of the distances computed (pruned
                          // k-means; the lazy CPU k-centers; 0 where not counted)
  bool sketched = false;  // some record counts a sketch (the CUDA engine's eager pass; the CPU
                          // engine's lazy traversal, since session 17, reads none)
  int passes = -1;        // the centers whose launch ran a pass over the N points (the CUDA
                          // engine's several centers a pass; -1: not counted, one a center)
  // The passes over the N points per center: 1 where not counted.
  double passShare() const { return passes >= 0 && centers > 0 ? double(passes) / centers : 1.0; }
  // The coordinate bytes read per center over one full read (4 N D): a sketch code is a quarter
  // of a float coordinate.
  double byteShare() const { return floatShare + sketchShare / 4.0; }
};

PrunedReads prunedReads(const std::vector<IterationRecord>& iterations, int64_t n);
inline PrunedReads prunedReads(const VariantResult& v, int64_t n) {
  return prunedReads(v.iterations, n);
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
#include "kernellab/pruned_reads.h"

#include <algorithm>

namespace kernellab {

PrunedReads prunedReads(const std::vector<IterationRecord>& iterations, int64_t n) {
  PrunedReads r;
  if (n <= 0) return r;
  double visited = 0, screened = 0, distances = 0;
  for (const IterationRecord& it : iterations) {
    if (it.visited < 0) continue;
    visited += double(it.visited);
    screened += double(std::max<int64_t>(0, it.screened));  // -1: no sketch (the lazy CPU engine)
    r.sketched = r.sketched || it.screened >= 0;
    distances += double(std::max<int64_t>(0, it.distances));  // where counted
    if (it.pass >= 0) r.passes = std::max(r.passes, 0) + it.pass;
    ++r.centers;
  }
  if (r.centers == 0) return r;
  r.floatShare = visited / (double(n) * r.centers);
  r.sketchShare = screened / (double(n) * r.centers);
  r.distances = distances / r.centers;
  return r;
}

}  // namespace kernellab

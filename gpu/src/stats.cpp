// SPDX-License-Identifier: MIT
// Median, min and max of repeated timings.
#include <algorithm>

#include "kernellab/result.h"

namespace kernellab {

TimingStats summarize(std::vector<double> samplesMs, const std::string& clock) {
  TimingStats s;
  s.clock = clock;
  s.samples = static_cast<int>(samplesMs.size());
  if (samplesMs.empty()) return s;
  std::sort(samplesMs.begin(), samplesMs.end());
  const size_t n = samplesMs.size();
  s.minMs = samplesMs.front();
  s.maxMs = samplesMs.back();
  s.medianMs = n % 2 ? samplesMs[n / 2] : 0.5 * (samplesMs[n / 2 - 1] + samplesMs[n / 2]);
  return s;
}

}  // namespace kernellab

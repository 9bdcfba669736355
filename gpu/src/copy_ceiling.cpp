// SPDX-License-Identifier: MIT
#include <chrono>
#include <cstring>
#include <vector>

#include "kernellab/ceilings.h"

namespace kernellab {

Ceiling measureCopyCeiling(const std::string& name, double bytesMoved, const std::string& clock,
                           int warmup, int reps, const RunHooks& hooks,
                           const std::function<double()>& copyOnceMs) {
  Ceiling c;
  c.name = name;
  c.bytes = bytesMoved;
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    hooks.beforeLaunch(i, warmup, reps);
    const double ms = copyOnceMs();
    if (i >= warmup) samples.push_back(ms);
  }
  c.timing = summarize(samples, clock);
  c.gbps = gigabytesPerSecond(c.bytes, c.timing.medianMs);
  return c;
}

Ceiling hostCopyCeiling(void* to, const void* from, size_t bytes, int warmup, int reps,
                        const RunHooks& hooks) {
  return measureCopyCeiling("memcpy (host)", 2.0 * static_cast<double>(bytes), "cpu-steady-clock",
                            warmup, reps, hooks, [&] {
                              const auto t0 = std::chrono::steady_clock::now();
                              std::memcpy(to, from, bytes);
                              return std::chrono::duration<double, std::milli>(
                                         std::chrono::steady_clock::now() - t0)
                                  .count();
                            });
}

}  // namespace kernellab

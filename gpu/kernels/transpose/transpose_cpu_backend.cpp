// SPDX-License-Identifier: MIT
// The transpose backend on CPU threads: every variant runs through the executor, so its index
// functions are checked without a GPU. Timings are CPU timings and labelled so.
#include <chrono>
#include <cstring>
#include <limits>

#include "kernellab/ceilings.h"
#include "kernellab/transpose.h"
#include "transpose_backend.h"

namespace kernellab::transpose {
namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(const float* in, int64_t width, int64_t height)
      : in_(in), count_(width * height), out_(static_cast<size_t>(count_)) {}

  TimedVariant run(Variant v, const Geometry& g, int warmup, int reps, bool /*record*/,
                   const RunHooks& hooks) override {
    TimedVariant t;
    t.clock = "cpu-steady-clock";
    std::fill(out_.begin(), out_.end(), std::numeric_limits<float>::quiet_NaN());
    for (int i = 0; i < warmup; ++i) {
      hooks.beforeLaunch(i, warmup, reps);
      executeOnCpu(v, g, in_, out_.data());
    }
    for (int i = 0; i < reps; ++i) {
      hooks.beforeLaunch(warmup + i, warmup, reps);
      const auto t0 = std::chrono::steady_clock::now();
      executeOnCpu(v, g, in_, out_.data());
      t.samplesMs.push_back(msSince(t0));
    }
    return t;
  }

  void download(float* out) override {
    std::memcpy(out, out_.data(), out_.size() * sizeof(float));
  }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    return hostCopyCeiling(out_.data(), in_, out_.size() * sizeof(float), warmup, reps, hooks);
  }

 private:
  const float* in_;
  int64_t count_;
  std::vector<float> out_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const float* in, int64_t width, int64_t height) {
  return std::make_unique<CpuBackend>(in, width, height);
}

}  // namespace kernellab::transpose

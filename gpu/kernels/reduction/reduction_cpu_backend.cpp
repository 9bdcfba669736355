// SPDX-License-Identifier: MIT
// The reduction backend on CPU threads: every variant runs through the executor, so its index
// functions are checked without a GPU. Timings are CPU timings and labelled so.
#include <chrono>
#include <limits>
#include <vector>

#include "kernellab/ceilings.h"
#include "reduction_backend.h"

namespace kernellab::reduction {
namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(const float* in, int64_t n) : in_(in), n_(n) {}

  TimedVariant run(Variant v, Operation op, const std::vector<Geometry>& passes, int warmup,
                   int reps, const RunHooks& hooks) override {
    TimedVariant t;
    t.clock = "cpu-steady-clock";
    t.kernel = info(v).kernel;
    answer_ = Answer{std::numeric_limits<float>::quiet_NaN(), -1};  // poison
    auto once = [&] {
      if (op == Operation::Sum) {
        answer_ = Answer{executeSum(passes, in_), -1};
      } else {
        const ValueIndex m = executeMax(passes, in_);
        answer_ = Answer{m.value, m.index};
      }
    };
    for (int i = 0; i < warmup; ++i) {
      hooks.beforeLaunch(i, warmup, reps);
      once();
    }
    for (int i = 0; i < reps; ++i) {
      hooks.beforeLaunch(warmup + i, warmup, reps);
      const auto t0 = std::chrono::steady_clock::now();
      once();
      t.samplesMs.push_back(msSince(t0));
    }
    return t;
  }

  Answer answer() override { return answer_; }

  Ceiling copyCeiling(int warmup, int reps, const RunHooks& hooks) override {
    copy_.resize(static_cast<size_t>(n_));
    return hostCopyCeiling(copy_.data(), in_, copy_.size() * sizeof(float), warmup, reps, hooks);
  }

 private:
  const float* in_;
  int64_t n_;
  Answer answer_;
  std::vector<float> copy_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const float* in, int64_t n) {
  return std::make_unique<CpuBackend>(in, n);
}

}  // namespace kernellab::reduction

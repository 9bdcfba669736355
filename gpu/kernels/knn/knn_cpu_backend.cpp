// SPDX-License-Identifier: MIT
// The KNN backend on CPU threads: every variant runs through the executor, so its phase functions
// are checked without a GPU. Timings are CPU timings and labelled so.
#include <chrono>
#include <stdexcept>

#include "knn_backend.h"
#include "kernellab/text.h"

namespace kernellab::knn {

std::string sharedMemoryRefusal(Variant v, const Geometry& g, uint64_t limitBytes,
                                const std::string& deviceName) {
  const uint64_t bytes = sharedBytes(g);
  if (bytes <= limitBytes) return {};
  return std::string(info(v).id) + " needs " + std::to_string(bytes) +
         " B of shared memory per block (" + std::to_string(g.sharedPitch) + " pixels x " +
         std::to_string(g.components) + " components x 4 B); " + deviceName + " allows at most " +
         std::to_string(limitBytes) + " B per block with opt-in";
}

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class CpuBackend final : public Backend {
 public:
  CpuBackend(const Image& img, int k) : img_(img) { out_.reset(img.pixels(), k); }

  TimedVariant run(Variant v, const Geometry& g, int warmup, int reps,
                   const RunHooks& hooks) override {
    TimedVariant t;
    t.clock = "cpu-steady-clock";
    // Same limit as the reference GPU's opt-in, so the CPU shows the same refusals.
    t.error = sharedMemoryRefusal(v, g, kEmulatedSharedOptinBytes,
                                  "the CPU executor (emulating the H200)");
    if (!t.error.empty()) {
      t.refused = true;
      return t;
    }
    out_.reset(g.pixels, g.k);
    try {
      for (int i = 0; i < warmup; ++i) {
        hooks.beforeLaunch(i, warmup, reps);
        executeOnCpu(v, g, img_, out_);
      }
      for (int i = 0; i < reps; ++i) {
        hooks.beforeLaunch(warmup + i, warmup, reps);
        const auto t0 = std::chrono::steady_clock::now();
        executeOnCpu(v, g, img_, out_);
        t.samplesMs.push_back(msSince(t0));
      }
    } catch (const std::logic_error& e) {
      // An out-of-range index in the phase functions: what memcheck would report on the GPU.
      t.error = e.what();
      t.samplesMs.clear();
    }
    return t;
  }

  void download(Lists& out) override { out = out_; }

 private:
  const Image& img_;
  Lists out_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const Image& img, int k) {
  return std::make_unique<CpuBackend>(img, k);
}

}  // namespace kernellab::knn

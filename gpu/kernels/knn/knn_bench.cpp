// SPDX-License-Identifier: MIT
// `kernellab-cli bench knn`: the seed's image and a large one, with each variant's time, shared
// memory per block and resident blocks per SM.
#include <limits>
#include <ostream>

#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/knn.h"
#include "kernellab/run_table.h"
#include "kernellab/text.h"
#include "knn_parts.h"

namespace kernellab::knn {

// bench knn: the seed's image (377 x 329, one PCA component, W = 14, k = 8) and a large one
// (4096 x 4096, C = 8): time, shared memory per block and resident blocks per SM per variant.
// A variant refused for a device limit (the whole window of a wide image in shared memory) is
// part of the answer, not a failure of the bench.
bool bench(const BenchOptions& o, std::ostream& out, ResultsFile& file) {
  const std::vector<std::string> images =
      o.sizes.empty() ? std::vector<std::string>{"377x329x1", "4096x4096x8"} : o.sizes;
  bool ok = true;
  for (const auto& image : images) {
    RunRequest r;
    r.family = knn::kFamily;
    r.variants = {"all"};
    const auto dims = parseDims(image, "--sizes", std::numeric_limits<int>::max());
    KnnProblem& knnProblem = r.section<KnnProblem>();
    knnProblem.rows = static_cast<int>(dims[0]);
    knnProblem.cols = static_cast<int>(dims[1]);
    knnProblem.components = dims.size() > 2 ? static_cast<int>(dims[2]) : 1;
    knnProblem.window = 14;
    knnProblem.k = 8;
    r.launch.threadsPerBlock = 256;
    const bool large = static_cast<double>(knnProblem.rows) * knnProblem.cols > 4e6;
    r.warmup = 1;
    r.repetitions = o.reps ? *o.reps : (large ? 3 : 20);
    r.backend = o.backend;
    RunResult run;
    try {
      run = runExperiment(r, o.hooks);  // validates first: nothing runs for a refused size
    } catch (const InputError& e) {
      if (!o.sizes.empty()) throw;  // the user's own size: a bad input
      // A default size this backend cannot take (the large image on the CPU): say so, go on.
      out << "\nknn " << image << ": skipped: " << e.what() << "\n";
      file.runs.push_back(skippedRun(r, e.what()));
      continue;
    }
    out << "\n";
    printRunTable(out, run);
    double globalMs = 0;
    for (const auto& v : run.variants)
      if (v.variant == "global" && v.ok) globalMs = v.total.medianMs;
    out << "knn " << image << " per variant: time relative to global, shared memory per "
        << "block, resident blocks per SM\n";
    for (const auto& v : run.variants) {
      const bool verified = v.ok && (!v.verification.performed || v.verification.passed);
      if (!verified && !v.refused) ok = false;
      out << "  " << v.variant << ": ";
      if (!v.ok) {
        out << (v.refused ? "refused: " : "failed: ") << v.error << "\n";
        continue;
      }
      const auto* res = v.kernels.empty() || !v.kernels.front().resources
                            ? nullptr
                            : &*v.kernels.front().resources;
      out << formatFixed(v.total.medianMs, 3) << " ms"
          << (globalMs > 0 ? " (x" + formatFixed(v.total.medianMs / globalMs, 2) + ")" : "") << ", "
          << (v.detail<KnnDetails>()
                  ? formatBytes(double(v.detail<KnnDetails>()->sharedBytesPerBlock))
                  : "?")
          << " shared/block, "
          << (res ? std::to_string(res->maxActiveBlocksPerSM) + " blocks/SM, " +
                        std::to_string(res->registersPerThread) + " registers"
                  : std::string("blocks/SM n/a on the CPU"))
          << (verified ? "" : ", NOT VERIFIED") << "\n";
    }
    file.runs.push_back(run);
  }
  return ok;
}

}  // namespace kernellab::knn

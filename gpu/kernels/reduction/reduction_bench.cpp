// SPDX-License-Identifier: MIT
// `kernellab-cli bench reduction`: for the sum and the max, every variant's time, bandwidth and
// share of the copy ceiling (cudaMemcpy D2D, or memcpy) measured in the same run.
#include <iomanip>
#include <ostream>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/reduction.h"
#include "kernellab/run_table.h"
#include "kernellab/text.h"
#include "reduction_parts.h"

namespace kernellab::reduction {

bool bench(const BenchOptions& o, std::ostream& out, ResultsFile& file) {
  std::vector<int64_t> sizes;
  for (const std::string& s : o.sizes) sizes.push_back(parseInteger(s, "--sizes"));
  if (sizes.empty())  // 64 MB and 1 GB of floats on a GPU; the CPU executor takes smaller ones
    sizes = o.cuda ? std::vector<int64_t>{int64_t(1) << 24, int64_t(1) << 28}
                   : std::vector<int64_t>{int64_t(1) << 20, int64_t(1) << 22};
  bool ok = true;
  for (Operation op : {Operation::Sum, Operation::MaxIndex})
    for (int64_t n : sizes) {
      RunRequest r;
      r.family = kFamily;
      r.variants = {"all"};
      r.section<ReductionProblem>().n = n;
      r.section<ReductionProblem>().op = op;
      r.launch.threadsPerBlock = 256;
      r.warmup = 2;
      r.repetitions = o.reps ? *o.reps : 20;
      r.backend = o.backend;
      RunResult run;
      try {
        run = runExperiment(r, o.hooks);
      } catch (const InputError& e) {
        if (!o.sizes.empty()) throw;  // the user's own size: a bad input
        out << "\nreduction " << toString(op) << " N=" << n << ": skipped: " << e.what() << "\n";
        file.runs.push_back(skippedRun(r, e.what()));
        continue;
      }
      out << "\n";
      printRunTable(out, run);
      const Ceiling* ceiling = run.ceilings.empty() ? nullptr : &run.ceilings.front();
      out << "reduction " << toString(op) << " of " << formatCount(n) << " floats ("
          << formatBytes(4.0 * double(n)) << " read once): bandwidth as a share of the copy ceiling"
          << (ceiling ? " (" + ceiling->name + ", " + formatFixed(ceiling->gbps, 1) +
                            " GB/s read + write, measured in this run)"
                      : std::string(" (no ceiling measured)"))
          << "\n"
          << std::left << std::setw(24) << "  variant" << std::right << std::setw(11) << "ms"
          << std::setw(11) << "GB/s" << std::setw(12) << "x ceiling"
          << "  verified\n";
      for (const VariantResult& v : run.variants) {
        const bool verified = v.ok && (!v.verification.performed || v.verification.passed);
        if (!verified) ok = false;
        out << "  " << std::left << std::setw(22) << v.variant << std::right;
        if (!v.ok) {
          out << "  not run: " << v.error << "\n";
          continue;
        }
        out << std::setw(11) << formatFixed(v.total.medianMs, 4) << std::setw(11)
            << formatFixed(v.gbps, 1) << std::setw(12)
            << (v.fractionOfMemcpy > 0 ? formatFixed(v.fractionOfMemcpy, 3) : std::string("-"))
            << "  "
            << (!v.verification.performed ? "-"
                : verified                ? "yes"
                                          : "NO")
            << "\n";
      }
      file.runs.push_back(run);
    }
  return ok;
}

}  // namespace kernellab::reduction

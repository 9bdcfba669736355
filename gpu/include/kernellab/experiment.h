// SPDX-License-Identifier: MIT
// Runs a request on the chosen backend and returns the result: the one entry point the GUI's
// run controller, the CLI and the tests share.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab {

struct RunHooks {
  // Stage text and overall fraction 0..1; called between launches, never from inside one.
  std::function<void(const std::string& stage, double fraction)> progress;
  // Live data: one k-means iteration or one k-centers center of one variant, with the current
  // labels when the request keeps them (may be empty).
  std::function<void(const std::string& variant, const IterationRecord& record,
                     const ClusteringOutput& current)>
      iteration;
  // Set to true from another thread to stop between launches; the run throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;

  void report(const std::string& stage, double fraction) const {
    if (progress) progress(stage, fraction);
  }
  // Hooks for one part of the work: its progress 0..1 lands in [begin, end] of this one's, its
  // stage text after `stage` ("running padded: repetition 3 of 20"). Cancel and live data pass
  // through. A part reports as it goes, so progress moves with the work and never backwards.
  RunHooks within(double begin, double end, const std::string& stage) const;
  bool cancelled() const { return cancel && cancel->load(); }
  void throwIfCancelled() const;
  // Before launch `index` (0-based) of a timed loop of `warmup` + `reps` launches: checks Cancel
  // and reports "warm-up 1 of 3" or "repetition 4 of 20" with the share of the loop done.
  void beforeLaunch(int index, int warmup, int reps) const;
};

// Checks the request against the backend that would run it; throws InputError naming the value
// and the limit (sizes, threads per block, tile, memory, files).
void validateRequest(const RunRequest& request);

// Runs every requested variant. Bad input throws InputError before anything runs; a cancel throws
// Cancelled. CUDA failures inside a variant are recorded in that variant (ok = false, the CUDA
// error text); a sticky error marks CUDA unusable for the rest of the process.
RunResult runExperiment(const RunRequest& request, const RunHooks& hooks = {});

// A run that did not run, kept with its request and why ("skipped: <why>"): a sweep point or a
// bench size the backend refused.
RunResult skippedRun(const RunRequest& request, const std::string& why);

// Every run of a sweep: the base request with each combination of the axes' values (a product,
// first axis outermost). Invalid points are kept as runs with ok = false and the reason, so one
// bad combination does not lose the others.
ResultsFile runSweep(const RunRequest& base, const std::vector<SweepAxis>& axes,
                     const RunHooks& hooks = {});

// Every run of a results file again (its stored requests, in order, under its sweep axes): a
// stored sweep reproduced. Runs that cannot run now are kept with ok = false and the reason.
ResultsFile rerunResults(const ResultsFile& stored, const RunHooks& hooks = {});

// Which variants a family offers, for the CLI's help and the window's switches, with what each
// can do (its descriptor's variants(), family.h).
struct VariantDescription {
  std::string id;
  std::string title;
  std::string explanation;
  bool cudaOnly = false;  // no CPU executor: runs only on the CUDA backend ("best", "cublas")
  bool recordsSchedule = false;  // a recording instance writes per-block %smid / %globaltimer
};
// The family's variants; empty for a family this build does not have.
std::vector<VariantDescription> describeVariants(Family family);

// "kernellab-cli 0.1.0"-style identification written into results.
std::string toolVersion();

}  // namespace kernellab

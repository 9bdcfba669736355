// SPDX-License-Identifier: MIT
// runExperiment: decide the backend, validate, dispatch to the family runner, catch CUDA errors
// once at this boundary.
#include "kernellab/experiment.h"

#include "backend_internal.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/host_memory.h"
#include "kernellab/text.h"

#ifndef KERNELLAB_VERSION
#define KERNELLAB_VERSION "0.0.0"
#endif

namespace kernellab {

void RunHooks::throwIfCancelled() const {
  if (cancelled()) throw Cancelled();
}

void RunHooks::beforeLaunch(int index, int warmup, int reps) const {
  throwIfCancelled();
  if (!progress) return;
  const int total = warmup + reps;
  const std::string what = index < warmup
                               ? "warm-up " + std::to_string(index + 1) + " of " + std::to_string(warmup)
                               : "repetition " + std::to_string(index - warmup + 1) + " of " + std::to_string(reps);
  report(what, total > 0 ? double(index) / double(total) : 0.0);
}

RunHooks RunHooks::within(double begin, double end, const std::string& stage) const {
  RunHooks part = *this;
  if (!progress) return part;
  part.progress = [parent = progress, begin, end, stage](const std::string& detail, double f) {
    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    parent(detail.empty() ? stage : stage + ": " + detail, begin + (end - begin) * f);
  };
  return part;
}

std::string toolVersion() { return std::string("kernellab ") + KERNELLAB_VERSION; }

uint64_t availableMemory(const BackendDecision& d) {
  if (d.useCuda) return detail::cudaFreeMemory();
  // What is free now (MemAvailable, ulimit -v, the cgroup), not the machine's total RAM.
  const HostMemory host = availableHostMemory();
  return host.known ? host.availableBytes : d.device.globalMemBytes;
}

void validateRequest(const RunRequest& request) {
  const FamilyDescriptor& family = familyDescriptor(request.family);
  family.validate(request, decideBackend(request.backend));
}

RunResult runExperiment(const RunRequest& request, const RunHooks& hooks) {
  // Once per run: the family, the backend and the request's validation; then the run itself.
  const FamilyDescriptor& family = familyDescriptor(request.family);
  const BackendDecision d = decideBackend(request.backend);
  family.validate(request, d);
  RunResult res;
  try {
    res = family.run(request, d, hooks);
  } catch (const CudaError& e) {
    // A CUDA failure outside a single refused launch: report it; if sticky, CUDA is already
    // marked unusable and the next request runs on the CPU with this reason.
    res.request = request;
    res.device = d.device;
    res.backend = "cuda";
    res.backendNote = d.note;
    res.ok = false;
    res.message = std::string(e.sticky() ? "CUDA context lost: " : "CUDA error: ") + e.what();
  }
  res.schemaVersion = kSchemaVersion;
  res.createdAt = isoTimestampUtc();
  res.tool = toolVersion();
  if (res.ok) {
    for (const auto& v : res.variants) {
      if (!v.ok || (v.verification.performed && !v.verification.passed)) res.ok = false;
    }
  }
  if (!res.ok && res.message.empty()) {
    int failed = 0;
    for (const auto& v : res.variants)
      if (!v.ok || (v.verification.performed && !v.verification.passed)) ++failed;
    res.message = std::to_string(failed) + " variant(s) failed to run or to verify";
  }
  return res;
}

RunResult skippedRun(const RunRequest& request, const std::string& why) {
  RunResult run;
  run.request = request;
  run.ok = false;
  run.message = "skipped: " + why;
  run.createdAt = isoTimestampUtc();
  run.tool = toolVersion();
  return run;
}

namespace {

// One point of a sweep: `apply` turns `r` into the point's request (it may throw InputError for a
// bad value), then it is validated and run; a point that cannot run is kept with ok = false, the
// reason, and its request as far as it was built.
template <class Apply>
RunResult runPoint(Apply&& apply, RunRequest r, const std::string& label, size_t i, size_t count,
                   const RunHooks& hooks) {
  hooks.throwIfCancelled();
  try {
    apply(r);
    const RunHooks inner = hooks.within(double(i) / double(count), double(i + 1) / double(count), label);
    return runExperiment(r, inner);  // validates the point first (InputError: skipped)
  } catch (const InputError& e) {
    return skippedRun(r, e.what());
  }
}

}  // namespace

ResultsFile runSweep(const RunRequest& base, const std::vector<SweepAxis>& axes,
                     const RunHooks& hooks) {
  ResultsFile file;
  file.sweep = axes;
  // Build the product of the axes' values, first axis outermost.
  std::vector<std::vector<std::pair<std::string, std::string>>> points{{}};
  for (const auto& axis : axes) {
    if (axis.values.empty()) throw InputError("sweep axis '" + axis.name + "' has no values");
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& p : points)
      for (const auto& value : axis.values) {
        auto q = p;
        q.emplace_back(axis.name, value);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  for (size_t i = 0; i < points.size(); ++i) {
    std::string label;
    for (const auto& [axis, value] : points[i])
      label += (label.empty() ? "" : ", ") + axis + "=" + value;
    auto apply = [&](RunRequest& r) {
      for (const auto& [axis, value] : points[i]) r = applySweepValue(r, axis, value);
    };
    file.runs.push_back(runPoint(apply, base, label, i, points.size(), hooks));
  }
  return file;
}

ResultsFile rerunResults(const ResultsFile& stored, const RunHooks& hooks) {
  ResultsFile file;
  file.sweep = stored.sweep;
  const size_t count = stored.runs.size();
  for (size_t i = 0; i < count; ++i) {
    const std::string label = "run " + std::to_string(i + 1) + " of " + std::to_string(count);
    file.runs.push_back(
        runPoint([](RunRequest&) {}, stored.runs[i].request, label, i, count, hooks));
  }
  return file;
}

std::vector<VariantDescription> describeVariants(Family family) {
  const FamilyDescriptor* f = findFamily(family);
  return f ? f->variants() : std::vector<VariantDescription>{};
}

}  // namespace kernellab

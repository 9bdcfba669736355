// SPDX-License-Identifier: MIT
// Predictions against counters (model_vs_counters.h).
#include "kernellab/model_vs_counters.h"

#include <algorithm>
#include <cmath>

#include "kernellab/access_model.h"
#include "kernellab/family.h"
#include "kernellab/occupancy.h"
#include "kernellab/text.h"

namespace kernellab {
namespace {

struct Predicted {
  double ldSectors = 0, ldRequests = 0, stSectors = 0, stRequests = 0;
  double shLdExtra = 0, shLdRequests = 0, shStExtra = 0, shStRequests = 0;
};

Predicted predict(const access::WarpReport& rep) {
  Predicted p;
  for (const auto& r : rep.requests) {
    const bool load = r.kind == access::Kind::Load;
    if (r.space == access::Space::Global) {
      (load ? p.ldSectors : p.stSectors) += r.sectors;
      (load ? p.ldRequests : p.stRequests) += 1;
    } else {
      // A conflict is a pass beyond the fewest the words need (what ncu counts as a conflict).
      (load ? p.shLdExtra : p.shStExtra) += std::max(0, r.wavefronts - r.idealWavefronts);
      (load ? p.shLdRequests : p.shStRequests) += 1;
    }
  }
  return p;
}

// "transposePaddedKernel<...> (tile 32)" -> "transposePaddedKernel": the name ncu prints.
std::string functionName(const std::string& name) {
  return name.substr(0, std::min(name.find(' '), name.find('<')));
}

CounterComparison compared(const std::string& variant, const std::string& kernel,
                           const std::string& quantity, double predicted, double measured,
                           const std::string& note) {
  CounterComparison c;
  c.variant = variant;
  c.kernel = kernel;
  c.quantity = quantity;
  c.predicted = predicted;
  c.measured = measured;
  c.agrees = countersAgree(predicted, measured);
  c.note = note;
  return c;
}

CounterComparison measuredOnly(const std::string& variant, const std::string& kernel,
                               const std::string& quantity, double measured,
                               const std::string& unit, const std::string& note) {
  CounterComparison c;
  c.variant = variant;
  c.kernel = kernel;
  c.quantity = quantity;
  c.measured = measured;
  c.unit = unit;
  c.hasPrediction = false;
  c.note = note;
  return c;
}

// Whether the request reads files (points, centers, an image): the tracer would read them.
bool namesFiles(const RunRequest& request) {
  const FamilyDescriptor* f = findFamily(request.family);
  if (!f || !f->files) return false;
  RunRequest copy = request;
  for (const std::string* path : f->files(copy))
    if (path && !path->empty()) return true;
  return false;
}

}  // namespace

bool countersAgree(double predicted, double measured) {
  const double diff = std::abs(predicted - measured);
  return diff <= kCounterSlack ||
         diff <= kCounterTolerance * std::max(std::abs(predicted), std::abs(measured));
}

bool hasCounters(const RunResult& run) {
  return std::any_of(run.variants.begin(), run.variants.end(),
                     [](const VariantResult& v) { return !v.counters.empty(); });
}

std::vector<CounterComparison> accessComparison(const RunResult& run,
                                                std::vector<std::string>* skipped) {
  std::vector<CounterComparison> out;
  const Family family = run.request.family;
  if (!hasCounters(run)) return out;
  if (namesFiles(run.request)) {
    if (skipped)
      skipped->push_back("the run's request reads input files: the access model is not traced "
                         "from a results file (its paths are not opened)");
    return out;
  }
  std::vector<std::string> kernels;
  for (const auto& k : access::tracedKernels(family)) kernels.push_back(k.id);
  if (kernels.empty()) kernels.push_back(std::string());  // the variant's one kernel
  for (const VariantResult& v : run.variants) {
    if (v.counters.empty()) continue;
    if (!access::canTrace(family, v.variant)) {
      if (skipped) skipped->push_back(v.variant + ": no access model (library or GPU-only code)");
      continue;
    }
    for (const std::string& kernel : kernels) {
      access::AccessQuery q;
      q.request = run.request;
      q.variant = v.variant;
      q.kernel = kernel;
      q.ccMajor = run.device.ccMajor > 0 ? run.device.ccMajor : 9;
      access::WarpReport rep;
      try {
        // Warp 0's requests are what the rows compare: the other warps are not traced (a k-means
        // assign block of 8 warps took 6.6 s and 640 MB traced whole, per variant and block).
        rep = access::analyzeWarp(q);  // block (0, 0): the grid's size
        q.block = {rep.gridDim.x / 2, rep.gridDim.y / 2};
        rep = access::analyzeWarp(q);  // the middle block: no edge
      } catch (const std::exception& e) {
        if (skipped) skipped->push_back(v.variant + " " + kernel + ": " + e.what());
        continue;
      }
      const MeasuredCounters* m = countersFor(v.counters, rep.kernel);
      if (!m) continue;
      const Predicted p = predict(rep);
      const std::string ker = functionName(rep.kernel);
      const std::string why =
          "model: warp 0 of block (" + std::to_string(q.block.x) + ", " +
          std::to_string(q.block.y) +
          "), from the kernel's own index functions; counters: every launch of the profiled run. "
          "Tolerance 10 % or 0.5. They differ where edge blocks and other warps behave otherwise, "
          "where the hardware merges a warp's requests, and where a request's work depends on data";
      if (p.ldRequests > 0 || m->globalLoadRequests > 0)
        out.push_back(compared(v.variant, ker, "global load sectors per request",
                               p.ldRequests > 0 ? p.ldSectors / p.ldRequests : 0.0,
                               m->loadSectorsPerRequest(), why));
      if (p.stRequests > 0 || m->globalStoreRequests > 0)
        out.push_back(compared(v.variant, ker, "global store sectors per request",
                               p.stRequests > 0 ? p.stSectors / p.stRequests : 0.0,
                               m->storeSectorsPerRequest(), why));
      if (p.shLdRequests > 0 || m->sharedLoadRequests > 0)
        out.push_back(compared(v.variant, ker, "shared load bank conflicts per request",
                               p.shLdRequests > 0 ? p.shLdExtra / p.shLdRequests : 0.0,
                               m->loadConflictsPerRequest(), why));
      if (p.shStRequests > 0 || m->sharedStoreRequests > 0)
        out.push_back(compared(v.variant, ker, "shared store bank conflicts per request",
                               p.shStRequests > 0 ? p.shStExtra / p.shStRequests : 0.0,
                               m->storeConflictsPerRequest(), why));
    }
  }
  return out;
}

std::vector<CounterComparison> occupancyComparison(const RunResult& run) {
  std::vector<CounterComparison> out;
  for (const occupancy::DeviceCheck& c : occupancy::checkRun(run)) {
    const VariantResult* v = nullptr;
    for (const auto& x : run.variants)
      if (x.variant == c.variant) v = &x;
    const MeasuredCounters* m = v ? countersFor(v->counters, c.kernel) : nullptr;
    if (!m) continue;
    const std::string ker = functionName(c.kernel);
    if (m->theoreticalOccupancyPct >= 0) {
      CounterComparison t;
      t.variant = c.variant;
      t.kernel = ker;
      t.quantity = "theoretical occupancy";
      t.unit = "%";
      t.predicted = 100.0 * c.detail.occupancy;
      t.measured = m->theoreticalOccupancyPct;
      t.agrees = std::abs(t.predicted - t.measured) <= kOccupancySlackPct;
      t.note = "model: the occupancy calculator on the kernel's registers, shared memory and "
               "block size (its binding limit decides); ncu's sm__maximum_warps_per_active_cycle. "
               "Tolerance one percentage point";
      out.push_back(t);
    }
    if (m->achievedOccupancyPct >= 0)
      out.push_back(measuredOnly(
          c.variant, ker, "achieved occupancy", m->achievedOccupancyPct, "%",
          "warps resident on average while the SM was active: below the theoretical occupancy "
          "where blocks end unevenly (the tail of the grid) or wait at barriers"));
  }
  return out;
}

std::vector<CounterComparison> memoryComparison(const RunResult& run) {
  std::vector<CounterComparison> out;
  for (const VariantResult& v : run.variants)
    for (const MeasuredCounters& m : v.counters) {
      double ideal = 0;
      for (const KernelResult& k : v.kernels)
        if (functionName(k.name) == m.kernel) ideal = k.bytes * k.launches;
      if (ideal > 0) {
        CounterComparison c = compared(
            v.variant, m.kernel, "DRAM bytes (read + written)", ideal / 1e6,
            (m.dramBytesRead + m.dramBytesWritten) / 1e6,
            "model: the bandwidth figures' ideal bytes (each input read once, each output written "
            "once) over " + std::to_string(m.launches) +
                " launch(es). More measured: re-reads that L2 could not keep, partial sectors; "
                "less: L2 hits across launches");
        c.unit = "MB";
        out.push_back(c);
      }
      if (m.l2HitRatePct >= 0)
        out.push_back(measuredOnly(v.variant, m.kernel, "L2 hit rate", m.l2HitRatePct, "%",
                                   "the models assume every byte comes from DRAM; the hit rate "
                                   "says how much L2 served instead"));
      if (m.threadsPerInstruction >= 0)
        out.push_back(measuredOnly(v.variant, m.kernel, "warp execution efficiency",
                                   100.0 * m.warpExecutionEfficiency(), "%",
                                   "active threads per executed warp instruction over 32: below "
                                   "100 % where lanes diverge or sit idle"));
    }
  return out;
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// The clustering families' tables for kernellab-cli: a run's details (after its table) and
// `bench clustering|kcenters|kmeans` (the thesis's figure 19 beside the measured times, the
// bandwidth floor, the k-means kernel table).
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "clustering_parts.h"
#include "kernellab/backend.h"
#include "kernellab/checked_number.h"
#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/pruned_reads.h"
#include "kernellab/text.h"

namespace kernellab::clustering {
namespace {

std::string ms(double v) { return formatFixed(v, v >= 100 ? 2 : (v >= 1 ? 3 : 4)); }

std::string sci(double v) {
  std::ostringstream s;
  s << std::setprecision(6) << v;
  return s.str();
}

const VariantResult* findVariant(const RunResult& run, const std::string& id) {
  for (const auto& v : run.variants)
    if (v.variant == id) return &v;
  return nullptr;
}

RunRequest benchRequest(Family f, int64_t n, int k, int d, int tpb, int reps, int maxIter,
                        BackendChoice backend) {
  RunRequest r;
  r.family = f;
  // The seed's four: the engines of `bench best` do not depend on threads per block.
  r.variants = {"shared-coalesced", "global-coalesced", "shared-interleaved", "global-interleaved"};
  ClusteringProblem& problem = r.section<ClusteringProblem>();
  problem.n = n;
  problem.k = k;
  problem.d = d;
  problem.init = InitMethod::First;
  problem.maxIterations = maxIter;
  // The seed's experiments and the thesis's figures: Campaign's score rule with epsilon 0, so
  // each run times maxIter iterations unless the score stops changing (no per-iteration label
  // read-back, as in the library the thesis measured).
  problem.stopRule = StopRule::ScoreChange;
  problem.epsilon = 0;
  r.section<ClusteringProblem>().keepLabels =
      false;  // a million labels per variant would swamp the JSON
  r.launch.threadsPerBlock = tpb;
  r.warmup = 1;
  r.repetitions = reps;
  r.backend = backend;
  return r;
}

std::string verifiedText(const VariantResult& v) {
  if (!v.ok) return "not run";
  if (!v.verification.performed) return "-";
  return v.verification.passed ? "yes" : "NO";
}

}  // namespace

void printClusteringDetails(std::ostream& out, const RunResult& run) {
  for (const auto& v : run.variants) {
    if (!v.ok || !v.detail<ClusteringOutput>()) continue;
    const ClusteringOutput& c = *v.detail<ClusteringOutput>();
    out << "  " << v.variant << ": ";
    if (run.request.family == kKCenters)
      out << c.centerIndices.size() << " centers from point "
          << (c.centerIndices.empty() ? -1 : c.centerIndices.front()) << ", final radius^2 "
          << (v.iterations.empty() ? std::string("-") : sci(v.iterations.back().score));
    else
      out << describeStop(c.stopReason, c.iterations);
    out << ", inertia " << sci(c.inertia);
    if (!c.clusterSizes.empty()) {
      const auto [lo, hi] = std::minmax_element(c.clusterSizes.begin(), c.clusterSizes.end());
      out << ", cluster sizes " << *lo << ".." << *hi;
    }
    out << "\n";
    // The pruned k-centers variant counts, per center, the points whose float coordinates and
    // whose 8-bit sketch it read.
    const int64_t n = run.request.section<ClusteringProblem>().n;
    const PrunedReads reads = prunedReads(v, n);
    // The pruned k-means counts, per iteration, the points it read and the distances it computed.
    const int k = run.request.section<ClusteringProblem>().k;
    if (reads.centers > 0 && run.request.family == kKMeans)
      out << "    points read: " << formatFixed(100.0 * reads.floatShare, 2)
          << " % of N per iteration, distances computed: "
          << formatFixed(100.0 * reads.distances / (double(n) * std::max(1, k)), 2)
          << " % of N x K (iteration 1: " << v.iterations.front().visited << " of " << n
          << " points; iteration " << v.iterations.back().iteration << ": "
          << v.iterations.back().visited << ")\n";
    else if (reads.centers > 0)
      out << "    coordinate bytes read: " << formatFixed(100.0 * reads.byteShare(), 1)
          << " % of N x K x 4 D (float coordinates: " << formatFixed(100.0 * reads.floatShare, 1)
          << " % of N x K"
          << (reads.sketched ? ", 8-bit sketch: " + formatFixed(100.0 * reads.sketchShare, 1) + " %"
                             : std::string(", no sketch"))
          << (reads.distances > 0 ? "; point-center distances summed: " +
                                        formatFixed(100.0 * reads.distances / double(n), 1) +
                                        " % of N x K"
                                  : std::string())
          << "; center 1: " << v.iterations.front().visited << " of " << n << " points, center "
          << v.iterations.back().iteration << ": " << v.iterations.back().visited << ")"
          << (reads.passes >= 0 ? "; " + std::to_string(reads.passes) +
                                      " passes over the points for " +
                                      std::to_string(reads.centers) + " centers"
                                : std::string())
          << "\n";
    for (const auto& k : v.kernels) {
      out << "    " << std::left << std::setw(24) << k.name << std::right << std::setw(5)
          << k.launches << " x " << std::setw(9) << ms(k.timing.medianMs)
          << " ms = " << std::setw(10) << ms(k.totalMs) << " ms per run";
      // (The pruned k-centers on the CPU is host code, not a grid of blocks: no grid to name.)
      if (k.gridX > 0) out << ", grid " << k.gridX << " x " << k.blockX;
      if (k.resources)
        out << ", " << k.resources->registersPerThread << " regs, "
            << k.resources->staticSharedBytes + k.resources->dynamicSharedBytes << " B smem, "
            << k.resources->maxActiveBlocksPerSM << " blocks/SM";
      out << "\n";
    }
    out << "    phases:";
    for (size_t i = 0; i < v.phases.size(); ++i)
      out << (i ? "," : "") << " " << v.phases[i].name << " " << ms(v.phases[i].ms) << " ms";
    out << "\n";
  }
  printClusteringSpeedups(out, run);
}

void printClusteringSpeedups(std::ostream& out, const RunResult& run) {
  // The seed's formulas against the slowest variant of this run.
  const VariantResult* slowest = nullptr;
  int ran = 0;
  for (const auto& v : run.variants)
    if (v.ok && v.total.medianMs > 0) {
      ++ran;
      if (!slowest || v.total.medianMs > slowest->total.medianMs) slowest = &v;
    }
  if (ran < 2) return;
  out << "  speed-up S = T_old / T_new and gain % = (T_old - T_new) / T_old * 100 against "
      << slowest->variant << ":";
  for (const auto& v : run.variants) {
    if (!v.ok || &v == slowest || v.total.medianMs <= 0) continue;
    auto c = clustering::compareVariants(run, slowest->variant, v.variant);
    if (c)
      out << " " << v.variant << " S = " << formatFixed(c->speedup, 2) << " ("
          << formatFixed(c->gainPercent, 1) << "%);";
  }
  out << "\n";
}

bool bench(const BenchOptions& o, const std::string& part, std::ostream& out, ResultsFile& file) {
  const BackendChoice backend = o.backend;
  const int64_t n = o.n.empty() ? 1000000 : parseInteger(o.n, "--n");
  const int k = o.k.empty() ? 100 : parseIntegerAs<int>(o.k, "--k");
  const int d = o.d.empty() ? 200 : parseIntegerAs<int>(o.d, "--d");
  std::vector<int> tpbs;
  if (o.tpb.empty())
    tpbs = {64, 128, 256, 512, 1024};
  else
    for (const auto& t : splitList(o.tpb)) tpbs.push_back(parseIntegerAs<int>(t, "--tpb"));
  const int reps = o.reps.value_or(3);
  const int maxIter = o.maxIterations.value_or(10);
  const bool seedWorkload = n == 1000000 && k == 100 && d == 200;
  if (!decideBackend(backend).useCuda && seedWorkload && o.n.empty())
    throw InputError("bench " + part +
                     " at the seed's N=1000000 K=100 D=200 would take hours on the "
                     "CPU executor; run it on a GPU, or pass smaller --n/--k/--d");
  const bool doCenters = part == "clustering" || part == "kcenters";
  const bool doMeans = part == "clustering" || part == "kmeans";
  // Validate every configuration before anything runs: bad input exits 2 with nothing timed
  // (each run validates again, once, when it runs).
  for (int tpb : tpbs) {
    if (doCenters) validateRequest(benchRequest(kKCenters, n, k, d, tpb, reps, maxIter, backend));
    if (doMeans) validateRequest(benchRequest(kKMeans, n, k, d, tpb, reps, maxIter, backend));
  }
  bool ok = true;
  const auto& variants = clustering::variants();

  if (doCenters) {
    std::vector<RunResult> runs;
    for (int tpb : tpbs) {
      RunResult run =
          runExperiment(benchRequest(kKCenters, n, k, d, tpb, reps, maxIter, backend), o.hooks);
      ok = ok && run.ok;
      runs.push_back(run);
      file.runs.push_back(std::move(run));
    }
    const RunResult& first = runs.front();
    const bool cuda = first.backend == "cuda";
    out << "\nk-centers, the seed's figure 19: N=" << n << " K=" << k << " D=" << d
        << "; kernel time of one run (" << k << " centers) in ms\n"
        << "measured: " << first.device.name << " ("
        << (cuda ? "CUDA events" : "CPU executor, CPU timings") << "), median of " << reps
        << " after 1 warm-up; beside it: " << clustering::kPublishedSource
        << (seedWorkload ? "" : " (measured at N=1e6 K=100 D=200: not comparable, shown as -)")
        << "\n";
    out << std::right << std::setw(5) << "TPB";
    for (const auto& v : variants) out << " | " << std::left << std::setw(21) << v.title;
    out << "\n" << std::right << std::setw(5) << "";
    for (size_t i = 0; i < variants.size(); ++i)
      out << " | " << std::setw(10) << "measured" << std::setw(11) << "published";
    out << "\n";
    const auto& published = clustering::publishedFigure19();
    const auto& publishedTpb = clustering::publishedTpb();
    for (size_t r = 0; r < runs.size(); ++r) {
      out << std::setw(5) << tpbs[r];
      const auto at = std::find(publishedTpb.begin(), publishedTpb.end(), tpbs[r]);
      for (const auto& v : variants) {
        const VariantResult* vr = findVariant(runs[r], v.id);
        std::string measured = vr && vr->ok ? ms(vr->total.medianMs) : "failed";
        if (vr && vr->ok && vr->verification.performed && !vr->verification.passed) measured += "!";
        std::string pub = "-";
        if (seedWorkload && at != publishedTpb.end())
          for (const auto& p : published)
            if (p.variant == v.id) pub = formatFixed(p.ms[at - publishedTpb.begin()], 2);
        out << " | " << std::setw(10) << measured << std::setw(11) << pub;
      }
      out << "\n";
    }
    out << "The thesis's times below 256 threads per block come from runs that skipped points "
           "(its grid was sized for 256 threads); every run here processes and verifies every "
           "point (! marks a failed verification).\n";

    // Bandwidth floor: K passes over the N x D floats at the copy rate measured in the same run.
    out << "\nk-centers against its bandwidth floor (K passes over N*D*4 bytes at the "
        << (cuda ? "cudaMemcpy D2D" : "memcpy") << " rate of the same run): x floor\n";
    out << std::setw(5) << "TPB" << std::setw(13) << "floor ms";
    for (const auto& v : variants) out << std::setw(20) << v.id;
    out << "\n";
    for (size_t r = 0; r < runs.size(); ++r) {
      const double gbps = runs[r].ceilings.empty() ? 0.0 : runs[r].ceilings.front().gbps;
      const double floorMs = gbps > 0 ? double(k) * double(n) * d * 4.0 / (gbps * 1e9) * 1e3 : 0.0;
      out << std::setw(5) << tpbs[r] << std::setw(13) << (floorMs > 0 ? ms(floorMs) : "-");
      for (const auto& v : variants) {
        const VariantResult* vr = findVariant(runs[r], v.id);
        out << std::setw(20)
            << (vr && vr->ok && floorMs > 0 ? formatFixed(vr->total.medianMs / floorMs, 2) : "-");
      }
      out << "\n";
    }

    // The seed's two comparisons at 512 threads per block (or the largest measured).
    size_t at = 0;
    for (size_t r = 0; r < tpbs.size(); ++r)
      if (tpbs[r] <= 512) at = r;
    const RunResult& cmp = runs[at];
    auto line = [&](const char* what, const std::string& a, const std::string& b) {
      auto c = clustering::compareVariants(cmp, a, b);
      out << "  " << what << " (" << a << " -> " << b << "): ";
      if (!c) {
        out << "-\n";
        return;
      }
      out << "S = " << formatFixed(c->speedup, 2) << ", gain " << formatFixed(c->gainPercent, 2)
          << "%";
      const auto pt = std::find(publishedTpb.begin(), publishedTpb.end(), tpbs[at]);
      if (pt != publishedTpb.end()) {
        double pa = 0, pb = 0;
        for (const auto& p : published) {
          if (p.variant == a) pa = p.ms[pt - publishedTpb.begin()];
          if (p.variant == b) pb = p.ms[pt - publishedTpb.begin()];
        }
        out << "   (published: S = " << formatFixed(clustering::speedup(pa, pb), 2) << ", gain "
            << formatFixed(clustering::gainPercent(pa, pb), 2) << "%)";
      }
      out << "\n";
    };
    out << "\nSpeed-up S = T_old / T_new and gain % = (T_old - T_new) / T_old * 100 at " << tpbs[at]
        << " threads per block:\n";
    line("coalescing", "global-interleaved", "global-coalesced");
    line("shared memory", "global-coalesced", "shared-coalesced");
  }

  if (doMeans) {
    out << "\nk-means, Campaign's three kernels: N=" << n << " K=" << k << " D=" << d
        << ", first K points as centers, up to " << maxIter
        << " iterations; ms per launch (median), ms per run = all launches of one run\n";
    out << std::setw(5) << "TPB"
        << "  " << std::left << std::setw(20) << "variant" << std::right << std::setw(15)
        << "calcCentroids" << std::setw(18) << "assignToClusters" << std::setw(11) << "calcScore"
        << std::setw(7) << "iter" << std::setw(13) << "ms per run" << std::setw(11) << "x floor"
        << "  verified\n";
    for (int tpb : tpbs) {
      RunResult run =
          runExperiment(benchRequest(kKMeans, n, k, d, tpb, reps, maxIter, backend), o.hooks);
      ok = ok && run.ok;
      const double gbps = run.ceilings.empty() ? 0.0 : run.ceilings.front().gbps;
      for (const auto& v : run.variants) {
        out << std::setw(5) << tpb << "  " << std::left << std::setw(20) << v.variant << std::right;
        if (!v.ok) {
          out << "  not run: " << v.error << "\n";
          continue;
        }
        for (size_t q = 0; q < 3; ++q)
          out << std::setw(q == 0 ? 15 : (q == 1 ? 18 : 11))
              << (q < v.kernels.size() && v.kernels[q].launches > 0
                      ? ms(v.kernels[q].timing.medianMs)
                      : "-");
        const int iterations =
            v.detail<ClusteringOutput>() ? v.detail<ClusteringOutput>()->iterations : 0;
        // Floor: each launch of each kernel reads the N x D points once.
        int launches = 0;
        for (const auto& kr : v.kernels) launches += kr.launches;
        const double floorMs =
            gbps > 0 ? double(launches) * double(n) * d * 4.0 / (gbps * 1e9) * 1e3 : 0;
        out << std::setw(7) << iterations << std::setw(13) << ms(v.total.medianMs) << std::setw(11)
            << (floorMs > 0 ? formatFixed(v.total.medianMs / floorMs, 2) : "-") << "  "
            << verifiedText(v) << "\n";
      }
      file.runs.push_back(std::move(run));
    }
    out << "x floor: ms per run over one pass of the points per launch at the copy rate of the "
           "same run (assign reads them K times, so it sits far above 1 by design).\n";
  }
  if (!ok)
    out << "FAILED: a clustering run failed to run or to verify (see the JSON for details)\n";
  return ok;
}

}  // namespace kernellab::clustering

// SPDX-License-Identifier: MIT
// Clustering family runner (k-centers and k-means): validation, the dataset and its initial
// centers, the copy ceiling, then every requested variant: buffers allocated and filled (timed),
// outputs poisoned, the algorithm run per center or per iteration with each kernel timed, the
// results downloaded (timed) and checked point by point against the CPU reference.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>

#include "clustering_backend.h"
#include "clustering_budget.h"
#include "family_runners.h"
#include "fault_injection.h"
#include "kernellab/checked_number.h"
#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/text.h"
#include "kmeans_stop.h"

namespace kernellab::detail {

using namespace kernellab::clustering;

namespace {

// ---- caches: the same dataset, initial centers and references serve every variant of a run and
// every run of a sweep or bench over the same data (a reference at N = 1e6, D = 200 costs seconds).

template <class T>
class RecentCache {
 public:
  explicit RecentCache(size_t capacity) : capacity_(capacity) {}
  std::shared_ptr<const T> get(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [k, v] : entries_)
      if (k == key) return v;
    return nullptr;
  }
  void put(const std::string& key, std::shared_ptr<const T> value) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.insert(entries_.begin(), {key, std::move(value)});
    if (entries_.size() > capacity_) entries_.pop_back();
  }
  template <class Make>
  std::shared_ptr<const T> getOrMake(const std::string& key, Make&& make) {
    if (auto hit = get(key)) return hit;
    auto made = std::make_shared<const T>(make());
    put(key, made);
    return made;
  }

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::shared_ptr<const T>>> entries_;
};

// One dataset only: at the seed's size it is 800 MB, and a window keeps the process alive.
RecentCache<PointSet>& pointCache() {
  static RecentCache<PointSet> c(1);
  return c;
}
RecentCache<InitialCenters>& initCache() {
  static RecentCache<InitialCenters> c(2);
  return c;
}
RecentCache<KCentersReference>& kcentersCache() {
  static RecentCache<KCentersReference> c(2);
  return c;
}
RecentCache<KMeansReference>& kmeansCache() {
  static RecentCache<KMeansReference> c(2);
  return c;
}

std::string datasetKey(const RunRequest& r) {
  const ClusteringProblem& p = r.clustering;
  if (!p.inputPath.empty()) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(p.inputPath, ec);
    const auto time = std::filesystem::last_write_time(p.inputPath, ec);
    return "file:" + p.inputPath + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(ec ? 0 : time.time_since_epoch().count());
  }
  return std::string("gen:") + toString(p.shape) + ":" + std::to_string(p.n) + ":" +
         std::to_string(p.k) + ":" + std::to_string(p.d) + ":" + formatFixed(p.radius, 6) + ":" +
         formatFixed(p.noiseFraction, 6) + ":" + std::to_string(r.seed);
}

std::shared_ptr<const PointSet> dataset(const RunRequest& r) {
  return pointCache().getOrMake(datasetKey(r), [&] { return makePoints(r.clustering, r.seed); });
}

std::string initKey(const RunRequest& r) {
  const ClusteringProblem& p = r.clustering;
  return datasetKey(r) + "|init:" + toString(p.init) + ":" + std::to_string(p.k) + ":" +
         std::to_string(r.seed) + ":" + p.centersPath;
}

// ---- sizes ----------------------------------------------------------------------------------

struct Shape {
  int64_t n = 0;
  int d = 0;
  std::string what;  // how to name the size in messages
};

Shape shapeOf(const RunRequest& r) {
  const ClusteringProblem& p = r.clustering;
  Shape s;
  if (!p.inputPath.empty()) {
    auto pts = dataset(r);
    s.n = pts->n;
    s.d = pts->d;
    s.what = "the " + std::to_string(s.n) + " points of " + p.inputPath;
    return s;
  }
  if (p.n < 1) throw InputError("--n " + std::to_string(p.n) + " must be at least 1");
  if (p.d < 1) throw InputError("--d " + std::to_string(p.d) + " must be at least 1");
  s.n = p.n;
  s.d = p.d;
  s.what = "--n " + std::to_string(p.n);
  return s;
}

int gridFor(int64_t n, int tpb) { return static_cast<int>((n + tpb - 1) / tpb); }

// Effective bytes of one launch: each input read once, each output written once.
double kernelBytes(Family f, size_t kernel, int64_t n, int d, int k, int grid) {
  const double points = 4.0 * double(n) * d, perPoint = 4.0 * double(n),
               centres = 4.0 * double(k) * d;
  if (f == Family::KCenters)
    return kernel == 0 ? points + 3.0 * perPoint + 8.0 * grid  // points, distance in/out, labels
                       : 8.0 * grid + 8.0;                     // candidates in, radius + center out
  switch (kernel) {
    case 0:
      return points + perPoint + centres;  // calcCentroids
    case 1:
      return points + centres + perPoint;  // assign: labels out
    default:
      return points + perPoint + centres + 12.0 * k;  // score: per-cluster score + count
  }
}

// The engines' kernels (issue 7), in kernelNames(family, variant) order.
double engineKernelBytes(Family f, Engine e, size_t kernel, int64_t n, int d, int k) {
  const double points = 4.0 * double(n) * d, perPoint = 4.0 * double(n),
               centres = 4.0 * double(k) * d;
  if (f == Family::KCenters) return points + 3.0 * perPoint;  // points, distance in/out, labels
  const double g = 4.0 * double(n) * k;                       // the N x K product
  const double finalize = 3.0 * centres + 24.0 * k;           // sums in, centers in and out
  const double update = points + perPoint + 8.0 * double(n);  // points, labels, |x|^2
  if (e == Engine::Best) {
    switch (kernel) {
      case 0:
        return points + centres + 2.0 * perPoint;  // assign: points, centers, |x| in, labels out
      case 1:
        return 0.0;  // re-decisions: depends on the data
      case 2:
        return update;
      default:
        return finalize;
    }
  }
  switch (kernel) {
    case 0:
      return points + centres + g;  // GEMM: G written
    case 1:
      return g + perPoint;  // arg-min: G read, labels out
    case 2:
      return update;
    default:
      return finalize;
  }
}

// Floating-point operations of the distance work: 2 N K D for a full point-center product
// (k-means), 3 N D per center for k-centers (difference, multiply, add).
double engineKernelFlops(Family f, Engine e, size_t kernel, int64_t n, int d, int k) {
  if (f == Family::KCenters) return 3.0 * double(n) * d;
  (void)e;
  return kernel == 0 ? 2.0 * double(n) * k * d : 0.0;  // the product; the rest is bytes
}

std::vector<int> kernelGrids(Family f, int64_t n, int k, int tpb) {
  if (f == Family::KCenters) return {gridFor(n, tpb), 1};
  return {k, gridFor(n, tpb), k};
}

std::vector<float> gatherRows(const PointSet& s, const std::vector<int64_t>& indices) {
  std::vector<float> out;
  for (int64_t i : indices)
    if (i >= 0 && i < s.n)
      out.insert(out.end(), s.values.begin() + i * s.d, s.values.begin() + (i + 1) * s.d);
  return out;
}

std::vector<int64_t> histogram(const std::vector<int32_t>& labels, int k) {
  std::vector<int64_t> h(static_cast<size_t>(k), 0);
  for (int32_t l : labels)
    if (l >= 0 && l < k) ++h[static_cast<size_t>(l)];
  return h;
}

}  // namespace

namespace {

// Refuses a run whose buffers (clustering_budget.h) do not fit in the memory available now.
void checkBudget(const RunRequest& r, const BackendDecision& d,
                 const std::vector<VariantInfo>& list, int64_t n, int dims, bool loaded,
                 const std::string& size) {
  BudgetInput in;
  in.family = r.family;
  in.n = n;
  in.d = dims;
  in.k = r.clustering.k;
  in.tpb = r.launch.threadsPerBlock;
  in.variants = list;
  in.measureCeilings = r.measureCeilings;
  in.useCuda = d.useCuda;
  in.pointsLoaded = loaded;
  in.generated = r.clustering.inputPath.empty();
  in.fixedPointStop =
      r.family == Family::KMeans && r.clustering.stopRule == StopRule::FixedPoint;
  const MemoryNeed need = estimateMemory(in);
  if (d.useCuda) {
    const uint64_t available = availableMemory(d);
    if (available > 0 && need.deviceBytes() > double(available))
      throw InputError(size + " needs " + formatBytes(need.deviceBytes()) + " of device memory (" +
                       describeParts(need.device) + "); " + d.device.name + " has " +
                       formatBytes(double(available)) + " available");
  }
  const HostMemory host = availableHostMemory();
  if (host.known && need.hostBytes() > double(host.availableBytes))
    throw InputError(size + " needs " + formatBytes(need.hostBytes()) + " of host memory (" +
                     describeParts(need.host) + "); " + formatBytes(double(host.availableBytes)) +
                     " is available (" + host.limitedBy + ")");
}

void checkDimensions(int64_t dims, const std::string& what) {
  if (dims > kMaxDimensions)
    throw InputError(what + " has D = " + std::to_string(dims) + " dimensions; at most " +
                     std::to_string(kMaxDimensions) +
                     " (beyond, float32 distances carry more than 25 % rounding error and "
                     "verification cannot tell a wrong label from rounding)");
}

}  // namespace

void validateClustering(const RunRequest& r, const BackendDecision& d) {
  const ClusteringProblem& p = r.clustering;
  const std::vector<VariantInfo> list = parseVariants(r.variants, r.family, d.useCuda, d.note);
  if (r.repetitions < 1 || r.repetitions > 100000)
    throw InputError("--reps " + std::to_string(r.repetitions) + " is outside 1..100000");
  if (r.warmup < 0 || r.warmup > 1000)
    throw InputError("--warmup " + std::to_string(r.warmup) + " is outside 0..1000");
  const int tpb = r.launch.threadsPerBlock;
  if (tpb < 1 || tpb > 1024)
    throw InputError("--tpb " + std::to_string(tpb) + " is outside 1..1024");
  if (tpb > d.device.maxThreadsPerBlock)
    throw InputError("--tpb " + std::to_string(tpb) + " is above this device's limit of " +
                     std::to_string(d.device.maxThreadsPerBlock) + " threads per block");
  if (p.k < 1) throw InputError("--k " + std::to_string(p.k) + " must be at least 1");
  if (r.family == Family::KMeans) {
    if (p.maxIterations < 1 || p.maxIterations > 1000000)
      throw InputError("--max-iter " + std::to_string(p.maxIterations) + " is outside 1..1000000");
    if (!(p.epsilon >= 0) || !std::isfinite(p.epsilon))
      throw InputError("--epsilon " + numberText(p.epsilon) + " must be a number >= 0");
  } else {
    firstCenter(PointSet{1, 1, {0.0f}, {}, {}}, p.init, r.seed);  // refuses kmeans++ and given
  }
  if (p.inputPath.empty()) {
    if (!(p.radius > 0) || !std::isfinite(p.radius))
      throw InputError("radius " + numberText(p.radius) + " must be a positive number");
    if (!(p.noiseFraction >= 0 && p.noiseFraction < 1))
      throw InputError("--noise " + numberText(p.noiseFraction) + " is outside [0, 1)");
  }
  // A points file: its size from the .npy header (or the CSV's first lines) and the memory it
  // and the run will need, before the file itself is read.
  const bool cached = static_cast<bool>(pointCache().get(datasetKey(r)));
  if (!p.inputPath.empty() && !cached) {
    const PointsFileShape peek = peekPointsShape(p.inputPath);
    const std::string what = "--input " + p.inputPath;
    checkDimensions(peek.d, what);
    checkBudget(r, d, list, peek.n, peek.d, false,
                what + " (" + (peek.exact ? "" : "about ") + std::to_string(peek.n) +
                    " points of D = " + std::to_string(peek.d) + ")");
  }
  const Shape s = shapeOf(r);
  checkDimensions(s.d, p.inputPath.empty() ? "--d" : "--input " + p.inputPath);
  if (s.n > kMaxPoints)
    throw InputError("--n " + std::to_string(s.n) + " is above " + std::to_string(kMaxPoints) +
                     " (point indices are 32-bit)");
  if (p.k > s.n)
    throw InputError("--k " + std::to_string(p.k) + " is larger than " + s.what +
                     " (K clusters need at least K points)");
  std::vector<float> given;
  if (r.family == Family::KMeans && p.init == InitMethod::Given) {
    if (p.centersPath.empty()) throw InputError("--init given needs --centers FILE");
    given = loadCenters(p.centersPath, p.k, s.d);
  }
  // Loaded points are in memory now: their squared distances must fit float32 (generated points
  // are checked in runClustering, once made).
  if (!p.inputPath.empty()) checkCoordinateRange(*dataset(r), given, "--input " + p.inputPath);
  const std::string size = "--n " + std::to_string(s.n) + " --d " + std::to_string(s.d);
  checkBudget(r, d, list, s.n, s.d, !p.inputPath.empty() || cached, size);
}

namespace {

struct RunContext {
  const RunRequest& r;
  const BackendDecision& d;
  const RunHooks& hooks;
  const PointSet& s;
  Backend& backend;
  const InitialCenters* init = nullptr;  // k-means
  int64_t first = 0;                     // k-centers
};

VariantResult runVariant(const RunContext& ctx, const VariantInfo& v) {
  const RunRequest& r = ctx.r;
  const Family fam = r.family;
  const PointSet& s = ctx.s;
  const int k = r.clustering.k;
  const int tpb = r.launch.threadsPerBlock;
  const std::vector<std::string>& names = kernelNames(fam, v);
  const bool engine = v.engine != Engine::Seed;
  const size_t nk = names.size();
  Backend& backend = ctx.backend;

  VariantResult vr;
  vr.variant = v.id;
  std::vector<PhaseTiming> phases;
  std::vector<std::vector<double>> launchMs(nk);
  std::vector<std::vector<double>> repKernelMs(nk);
  std::vector<double> repTotal;
  std::vector<double> repCheckMs;  // k-means, fixed-point rule: reading labels back per repetition
  std::vector<int> launches(nk, 0);
  std::vector<IterationRecord> records;
  std::vector<std::vector<IterationRecord>> timedRecords;  // per timed repetition
  std::vector<std::optional<ResourceUsage>> resources;
  ClusteringOutput out;
  std::vector<double> scores;
  std::vector<float> radii, distances;
  std::vector<int32_t> lastCounts;
  double copyBackMs = 0;

  try {
    try {
      backend.prepare(v, fam, tpb, phases);
    } catch (const InputError& e) {
      // An engine that cannot serve this shape or machine (its shared-memory plan, cuBLAS not
      // installed): the variant is reported as not run with the reason; the others still run.
      std::vector<PhaseTiming> ignored;
      backend.release(ignored);
      vr.ok = false;
      vr.error = e.what();
      return vr;
    }
    resources = backend.resources();
    const int runs = r.warmup + r.repetitions;
    // Progress moves with every iteration (center) of every repetition; verification against
    // the CPU reference takes the last share.
    const double shares = runs + (r.verify ? 1.0 : 0.0);
    auto progress = [&](int rep, int step, int steps) {
      const std::string what = (rep < r.warmup ? "warm-up " + std::to_string(rep + 1) + " of " + std::to_string(r.warmup)
                                               : "repetition " + std::to_string(rep - r.warmup + 1) + " of " + std::to_string(r.repetitions)) +
                               (steps > 1 ? (fam == Family::KCenters ? ", center " : ", iteration ") + std::to_string(step + 1) : std::string());
      ctx.hooks.report(what, (rep + double(step) / std::max(1, steps)) / shares);
    };
    for (int rep = 0; rep < runs; ++rep) {
      ctx.hooks.throwIfCancelled();
      progress(rep, 0, 1);
      // Live data from the first run; every run computes the same result.
      const bool live = rep == 0 && static_cast<bool>(ctx.hooks.iteration);
      const bool liveLabels = live && r.clustering.keepLabels;
      std::vector<IterationRecord> recs;
      std::vector<double> kernelTotal(nk, 0.0);
      std::vector<int> repLaunches(nk, 0);
      auto account = [&](const std::vector<double>& ms, bool firstIteration) {
        for (size_t q = 0; q < nk; ++q) {
          // The seed's calcCentroids does not run in the first iteration (no assignment yet).
          if (fam == Family::KMeans && !engine && q == 0 && firstIteration) continue;
          kernelTotal[q] += ms[q];
          ++repLaunches[q];
          if (rep >= r.warmup) launchMs[q].push_back(ms[q]);
        }
      };
      if (fam == Family::KCenters && engine) {
        // The best engine runs all K centers on the GPU without a round trip: one time for the
        // whole run; the centers and radii are read back afterwards.
        const std::optional<KCentersRun> all = backend.kcentersRunAll(ctx.first, k);
        if (!all) throw std::logic_error("clustering backend has no k-centers engine");
        radii = all->radii;
        kernelTotal[0] = all->ms;
        repLaunches[0] = k;
        if (rep >= r.warmup) launchMs[0].push_back(all->ms / k);
        for (int j = 0; j < k; ++j) {
          IterationRecord rec;
          rec.iteration = j + 1;
          rec.score = radii[static_cast<size_t>(j)];
          rec.chosenPoint = static_cast<int>(all->centers[static_cast<size_t>(j)]);
          recs.push_back(rec);
        }
        out.centerIndices = all->centers;
        if (live) {
          ClusteringOutput current;
          current.centerIndices = all->centers;
          current.centers = gatherRows(s, current.centerIndices);
          current.iterations = k;
          if (liveLabels) backend.downloadLabels(current.labels);
          ctx.hooks.iteration(v.id, recs.back(), current);
        }
      } else if (fam == Family::KCenters) {
        backend.kcentersBegin(ctx.first);
        std::vector<int64_t> centers{ctx.first};
        radii.clear();
        for (int j = 0; j < k; ++j) {
          ctx.hooks.throwIfCancelled();
          progress(rep, j, k);
          const KCentersStep step = backend.kcentersStep(j, k);
          IterationRecord rec;
          rec.iteration = j + 1;
          rec.score = step.radius;
          rec.kernelMs = step.kernelMs;
          rec.chosenPoint = static_cast<int>(centers[static_cast<size_t>(j)]);
          recs.push_back(rec);
          radii.push_back(step.radius);
          if (j + 1 < k) centers.push_back(step.next);
          account(step.kernelMs, false);
          if (live) {
            ClusteringOutput current;
            current.centerIndices.assign(centers.begin(), centers.begin() + j + 1);
            current.centers = gatherRows(s, current.centerIndices);
            current.iterations = j + 1;
            if (liveLabels) backend.downloadLabels(current.labels);
            ctx.hooks.iteration(v.id, rec, current);
          }
        }
        out.centerIndices = centers;
      } else {
        backend.kmeansBegin(ctx.init->values);
        scores.clear();
        // The stop decision for every engine (kmeans_stop.h): the fixed-point rule reads each
        // iteration's labels back (untimed by the kernel events; its own phase below).
        KMeansStop stop(r.clustering);
        std::vector<int32_t> labels;
        double checkMs = 0;
        for (int it = 0; it < r.clustering.maxIterations; ++it) {
          ctx.hooks.throwIfCancelled();
          progress(rep, it, r.clustering.maxIterations);
          const KMeansStep step = backend.kmeansStep(it);
          double score = 0;
          for (double c : step.clusterScore) score += c;
          scores.push_back(score);
          lastCounts = step.clusterCount;
          labels.clear();
          if (stop.needsLabels())
            checkMs += backend.downloadLabels(labels);
          else if (liveLabels)
            backend.downloadLabels(labels);
          const bool done = stop.afterIteration(it, score, labels);
          IterationRecord rec;
          rec.iteration = it + 1;
          rec.score = score;
          rec.kernelMs = step.kernelMs;
          rec.rechecked = v.engine == Engine::Best ? step.rechecked : -1;
          rec.labelsChanged = stop.labelsChanged();
          recs.push_back(rec);
          account(step.kernelMs, it == 0);
          if (live) {
            ClusteringOutput current;
            backend.downloadCentroids(current.centers);
            current.iterations = it + 1;
            current.inertia = score;
            current.clusterSizes.assign(step.clusterCount.begin(), step.clusterCount.end());
            if (liveLabels) current.labels = labels;
            ctx.hooks.iteration(v.id, rec, current);
          }
          if (done) break;
        }
        out.stopReason = stop.reason();
        if (stop.needsLabels() && rep >= r.warmup) repCheckMs.push_back(checkMs);
      }
      if (rep >= r.warmup) {
        double total = 0;
        for (size_t q = 0; q < nk; ++q) {
          repKernelMs[q].push_back(kernelTotal[q]);
          total += kernelTotal[q];
        }
        repTotal.push_back(total);
        timedRecords.push_back(std::move(recs));
        launches = repLaunches;
      }
    }
    // The iterations reported are those of the median repetition (by total kernel time; the
    // lower middle one of an even count), so their sum is the median the charts show.
    if (!repTotal.empty()) {
      std::vector<size_t> order(repTotal.size());
      for (size_t q = 0; q < order.size(); ++q) order[q] = q;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return repTotal[a] < repTotal[b]; });
      records = std::move(timedRecords[order[(order.size() - 1) / 2]]);
      vr.iterationsFrom = "median";
    }
    copyBackMs += backend.downloadLabels(out.labels);
    if (fam == Family::KCenters)
      copyBackMs += backend.downloadDistances(distances);
    else
      copyBackMs += backend.downloadCentroids(out.centers);
    if (r.recordSchedule) {
      // After the downloads: the recorded launch repeats work whose results are already out.
      if (auto rec = backend.recordSchedule(k - 1)) {
        const size_t q = fam == Family::KCenters ? 0 : 1;  // the per-point kernel
        const double plain = summarize(launchMs[q], backend.clock()).medianMs;
        vr.schedule = std::move(rec->blocks);
        if (plain > 0) vr.scheduleOverheadPct = 100.0 * (rec->ms - plain) / plain;
      }
    }

    // Results.
    if (fam == Family::KCenters) {
      out.iterations = k;
      out.centers = gatherRows(s, out.centerIndices);
      double inertia = 0;
      for (float dd : distances) inertia += dd;
      out.inertia = inertia;
      out.clusterSizes = histogram(out.labels, k);
    } else {
      out.iterations = static_cast<int>(scores.size());
      out.inertia = scores.empty() ? 0.0 : scores.back();
      out.clusterSizes.assign(lastCounts.begin(), lastCounts.end());
    }

    // The testing hook that proves verification catches a wrong result (fault_injection.h).
    if (faultInjectedFor(v.id) && !out.labels.empty()) {
      int32_t& l = out.labels[out.labels.size() / 2];
      l = k > 1 ? (l + 1) % k : -1;
    }

    if (r.verify) {
      ctx.hooks.report("verifying against the CPU reference", double(runs) / shares);
      if (fam == Family::KCenters) {
        const std::string key =
            datasetKey(r) + "|kcenters:" + std::to_string(k) + ":" + std::to_string(ctx.first);
        auto ref =
            kcentersCache().getOrMake(key, [&] { return referenceKCenters(s, k, ctx.first); });
        vr.verification = verifyKCenters(s, *ref, out, distances, radii);
      } else {
        // The cuBLAS peers' labels are approximate by design: their path leaves the reference's
        // at the first near tie, so they are checked from their own state, labels counted.
        const bool approximate = approximateLabels(v.engine);
        if (!approximate) {
          const std::string key = initKey(r) + "|kmeans:" + std::to_string(out.iterations);
          auto ref = kmeansCache().getOrMake(
              key, [&] { return referenceKMeans(s, ctx.init->values, k, out.iterations, -1.0); });
          vr.verification = verifyKMeans(s, *ref, out, scores);
        }
        if (approximate || !vr.verification.passed) {
          // Float rounding may order two equal distances the other way than the reference, and one
          // point changing cluster moves the next centers: the run then follows another, equally
          // valid path. Replay it (untimed, deterministic) and check every iteration from its own
          // state; a wrong kernel fails there too, and the reported result must be the replay's.
          const Verification independent = vr.verification;
          KMeansStepCheck check(s, ctx.init->values, k, approximate);
          backend.kmeansBegin(ctx.init->values);
          std::vector<int32_t> labels;
          std::vector<float> centers;
          for (int it = 0; it < out.iterations; ++it) {
            ctx.hooks.throwIfCancelled();
            const KMeansStep step = backend.kmeansStep(it);
            backend.downloadLabels(labels);
            backend.downloadCentroids(centers);
            double score = 0;
            for (double c : step.clusterScore) score += c;
            check.iteration(centers, labels, score, step.clusterCount);
          }
          vr.verification = check.finish(out);
          if (vr.verification.passed && !approximate)
            vr.verification.note =
                "left the reference's path after a tie (first difference: " + independent.note +
                "); " + vr.verification.note;
        }
      }
    }
  } catch (const CudaError& e) {
    if (e.sticky()) throw;  // the context is gone; runExperiment reports it
    std::vector<PhaseTiming> ignored;
    backend.release(ignored);
    vr.ok = false;
    vr.error = e.what();  // a refused launch or allocation: reported, never timed
    return vr;
  }

  // Timings.
  const std::string clock = backend.clock();
  const std::vector<int> grids = engine ? backend.engineGrids() : kernelGrids(fam, s.n, k, tpb);
  // An engine that chose its path on this device names its kernels and the path itself.
  std::vector<std::string> engineNames = engine ? backend.engineKernelNames() : std::vector<std::string>();
  if (engineNames.size() != nk) engineNames.clear();
  if (engine) vr.strategy = backend.engineStrategy();
  const int gridN = gridFor(s.n, tpb);
  for (size_t q = 0; q < nk; ++q) {
    KernelResult kr;
    kr.name = q < engineNames.size() ? engineNames[q] : names[q];
    kr.timing = summarize(launchMs[q], clock);
    kr.totalMs = summarize(repKernelMs[q], clock).medianMs;
    kr.launches = launches[q];
    kr.bytes = engine ? engineKernelBytes(fam, v.engine, q, s.n, s.d, k)
                      : kernelBytes(fam, q, s.n, s.d, k, gridN);
    kr.flops = engine ? engineKernelFlops(fam, v.engine, q, s.n, s.d, k) : 0.0;
    kr.gbps = gigabytesPerSecond(kr.bytes, kr.timing.medianMs);
    if (q < resources.size()) kr.resources = resources[q];
    kr.gridX = q < grids.size() ? grids[q] : 0;
    kr.gridY = 1;
    kr.blockX = engine ? (kr.resources ? kr.resources->threadsPerBlock : 0) : tpb;
    kr.blockY = 1;
    vr.bytes += kr.bytes * kr.launches;
    vr.kernels.push_back(std::move(kr));
  }
  vr.total = summarize(repTotal, clock);
  vr.gbps = gigabytesPerSecond(vr.bytes, vr.total.medianMs);
  phases.push_back({"kernels", vr.total.medianMs});
  if (!repCheckMs.empty())
    phases.push_back({"stop check (labels to host)", summarize(repCheckMs, clock).medianMs});
  phases.push_back({clock == "cuda-events" ? "device to host" : "copy results (host)", copyBackMs});
  backend.release(phases);
  vr.phases = std::move(phases);
  vr.iterations = std::move(records);

  if (!r.clustering.keepLabels) out.labels.clear();
  vr.clustering = std::move(out);
  return vr;
}

}  // namespace

RunResult runClustering(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks) {
  validateClustering(r, d);
  const std::vector<VariantInfo> list = parseVariants(r.variants, r.family, d.useCuda, d.note);
  RunResult res;
  res.request = r;
  res.device = d.device;
  res.backend = d.useCuda ? "cuda" : "cpu";
  res.backendNote = d.note;

  hooks.report(r.clustering.inputPath.empty() ? "generating the points"
                                              : "loading " + r.clustering.inputPath,
               0.0);
  const std::shared_ptr<const PointSet> points = dataset(r);
  const PointSet& s = *points;
  if (!r.clustering.inputPath.empty()) {
    // The request that ran: a file's points decide N and D, whatever the request said.
    res.request.clustering.n = s.n;
    res.request.clustering.d = s.d;
  }
  std::shared_ptr<const InitialCenters> init;
  int64_t first = 0;
  if (r.family == Family::KMeans) {
    hooks.report("initial centers", 0.02);
    init = initCache().getOrMake(initKey(r), [&] {
      return initialCenters(s, r.clustering.k, r.clustering.init, r.seed, r.clustering.centersPath);
    });
  } else {
    first = firstCenter(s, r.clustering.init, r.seed);
  }
  // Generated points (a file's were checked by validateClustering): squared distances must fit
  // float32, also to given centers.
  if (r.clustering.inputPath.empty())
    checkCoordinateRange(
        s, init ? init->values : std::vector<float>{},
        std::string("the generated points (radius ") + numberText(r.clustering.radius) + ")");
  hooks.throwIfCancelled();

  std::unique_ptr<Backend> backend;
#ifdef KERNELLAB_HAVE_CUDA
  if (d.useCuda) backend = makeCudaBackend(s, r.clustering.k);
#endif
  if (!backend) backend = makeCpuBackend(s, r.clustering.k);

  if (r.measureCeilings)
    res.ceilings.push_back(backend->copyCeiling(r.warmup, r.repetitions, hooks.within(0.04, 0.05, "measuring the copy ceiling")));

  for (size_t i = 0; i < list.size(); ++i) {
    const RunHooks part = hooks.within(0.05 + 0.95 * double(i) / double(list.size()),
                                       0.05 + 0.95 * double(i + 1) / double(list.size()), "running " + list[i].id);
    const RunContext ctx{r, d, part, s, *backend, init.get(), first};
    VariantResult vr = runVariant(ctx, list[i]);
    if (!vr.ok || (vr.verification.performed && !vr.verification.passed)) res.ok = false;
    if (!res.ceilings.empty() && res.ceilings.front().gbps > 0)
      vr.fractionOfMemcpy = vr.gbps / res.ceilings.front().gbps;
    res.variants.push_back(std::move(vr));
  }
  hooks.report("done", 1.0);
  return res;
}

}  // namespace kernellab::detail

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
#include "clustering_parts.h"
#include "fault_injection.h"
#include "kernellab/checked_number.h"
#include "kernellab/clustering.h"
#include "kernellab/clustering_pruning.h"
#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/pruned_reads.h"
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
  const ClusteringProblem& p = r.section<ClusteringProblem>();
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
  return pointCache().getOrMake(datasetKey(r),
                                [&] { return makePoints(r.section<ClusteringProblem>(), r.seed); });
}

std::string initKey(const RunRequest& r) {
  const ClusteringProblem& p = r.section<ClusteringProblem>();
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
  const ClusteringProblem& p = r.section<ClusteringProblem>();
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
  if (f == clustering::kKCenters)
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

// The engines' kernels (issue 7), in kernelNames(family, variant) order. `visited`, `screened`:
// the pruned k-centers launch's mean points whose float coordinates and whose 8-bit sketch were
// read (the others read all N); for the pruned k-means, the mean points read and distances
// computed per iteration. `passShare`: the CUDA pruned k-centers' passes over the N points per
// center (several centers a pass).
double engineKernelBytes(Family f, Engine e, size_t kernel, int64_t n, int d, int k,
                         double visited, double screened, double passShare) {
  const double points = 4.0 * double(n) * d, perPoint = 4.0 * double(n),
               centres = 4.0 * double(k) * d;
  // Pruned on CUDA (a sketch read: screened > 0): per pass, every point's label and distance read
  // for the tests (8 bytes) and its distance read again by the next batch's plan, which lists the
  // points above the threshold; the screened points' sketch (16 codes per 16 bytes) and error
  // bound, the visited points' coordinates, and at most their distance and label written; the
  // sketch's build (its ranges from a sample of the points, its codes and bounds written by the
  // first launch, whose reads are its visited points) spread over the K launches. Not counted: the
  // plans' listed rows (at most 4,096 a center, mostly from L2). The lazy CPU engine
  // (no sketch): the units' bounds and last centers, the visited points' coordinates, labels and
  // distances (the labels of units it brought up to date without reading a coordinate: not
  // counted).
  if (f == clustering::kKCenters && e == Engine::Pruned) {
    if (!(screened > 0)) return 8.0 * std::ceil(double(n) / 32.0) + visited * (4.0 * d + 16.0);
    const double sketchBytes = 16.0 * ((d + 15) / 16) + 4.0;
    const double build =
        (points / kSketchRangeSample + double(n) * sketchBytes) / std::max(1, k);
    return 3.0 * perPoint * passShare + screened * sketchBytes + visited * (4.0 * d + 8.0) +
           build;
  }
  if (f == clustering::kKCenters)
    return points + 3.0 * perPoint;                           // points, distance in/out, labels
  // Pruned k-means: move (sums in, centers in and out), bounds (label and both bounds in, the
  // bounds out), the read points' rows and state, the sums of the changed points (data-dependent:
  // counted 0), the score (sums and centers in).
  if (e == Engine::Pruned) {
    switch (kernel) {
      case 0: return 8.0 * double(k) * d + 2.0 * centres + 32.0 * k;
      case 1: return 20.0 * double(n);
      case 2: return visited * (4.0 * d + 12.0);
      case 3: return 0.0;
      default: return 8.0 * double(k) * d + centres + 16.0 * k;
    }
  }
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
// (k-means), 3 N D per center for k-centers (difference, multiply, add). Pruned, 3 D per distance
// summed: `distances` where the engine counts them (the pruned k-means; the lazy CPU k-centers,
// whose read points each sum a distance to every center their unit missed), else one per visited
// point plus the screened points' sketch distances (the eager CUDA k-centers).
double engineKernelFlops(Family f, Engine e, size_t kernel, int64_t n, int d, int k,
                         double visited, double screened, double distances) {
  if (f == clustering::kKCenters && e == Engine::Pruned)
    return 3.0 * (distances > 0 ? distances : visited + screened) * d;
  if (f == clustering::kKCenters) return 3.0 * double(n) * d;
  if (e == Engine::Pruned) return kernel == 2 ? 3.0 * distances * d : 0.0;
  return kernel == 0 ? 2.0 * double(n) * k * d : 0.0;  // the product; the rest is bytes
}

std::vector<int> kernelGrids(Family f, int64_t n, int k, int tpb) {
  if (f == clustering::kKCenters) return {gridFor(n, tpb), 1};
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
  in.k = r.section<ClusteringProblem>().k;
  in.tpb = r.launch.threadsPerBlock;
  in.variants = list;
  in.measureCeilings = r.measureCeilings;
  in.useCuda = d.useCuda;
  in.pointsLoaded = loaded;
  in.generated = r.section<ClusteringProblem>().inputPath.empty();
  in.fixedPointStop = r.family == clustering::kKMeans &&
                      r.section<ClusteringProblem>().stopRule == StopRule::FixedPoint;
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
  const ClusteringProblem& p = r.section<ClusteringProblem>();
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
  if (r.family == clustering::kKMeans) {
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
  if (r.family == clustering::kKMeans && p.init == InitMethod::Given) {
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

// The unpruned computation with the pruned engine's arithmetic in this run, or "" (issue 15): on
// CUDA the best engine (the same fused FMA sum); on the CPU any seed variant (float
// s += diff * diff, dimension 0 first, whatever the layout and scratch switches),
// shared-coalesced first.
std::string prunedTwin(const std::vector<VariantInfo>& list, bool cuda) {
  auto has = [&](const std::string& id) {
    return std::any_of(list.begin(), list.end(), [&](const VariantInfo& v) { return v.id == id; });
  };
  if (!has("pruned")) return {};
  if (cuda) return has("best") ? "best" : "";
  if (has("shared-coalesced")) return "shared-coalesced";
  for (const VariantInfo& v : list)
    if (v.engine == Engine::Seed) return v.id;
  return {};
}

// Puts the bit-for-bit comparison with the twin into the pruned variant's verification (the
// reference's check stays): a difference fails it.
void checkPrunedAgainstTwin(VariantResult& pruned, const KCentersOutputs& p,
                            const KCentersOutputs& t) {
  const Verification bits = comparePrunedKCenters(p, t);
  Verification& ver = pruned.verification;
  if (bits.passed) {
    ver.note += (ver.note.empty() ? "" : "; ") + bits.note;
    return;
  }
  ver.passed = false;
  ver.mismatches += bits.mismatches;
  ver.note = bits.note + (ver.note.empty() ? "" : "; " + ver.note);
}

struct RunContext {
  const RunRequest& r;
  const BackendDecision& d;
  const RunHooks& hooks;
  const PointSet& s;
  Backend& backend;
  const InitialCenters* init = nullptr;  // k-means
  int64_t first = 0;                     // k-centers
};

// One repetition of a variant as it runs: each kernel's time and launches, and its records.
struct Repetition {
  Repetition(int index, size_t kernels, bool timed, bool live, bool liveLabels)
      : index(index),
        kernelMs(kernels, 0.0),
        launches(kernels, 0),
        timed(timed),
        live(live),
        liveLabels(liveLabels) {}
  int index;
  std::vector<double> kernelMs;  // each kernel's total over the repetition
  std::vector<int> launches;
  std::vector<IterationRecord> records;
  bool timed;       // after the warm-up
  bool live;        // reports its iterations to RunHooks::iteration (the first repetition)
  bool liveLabels;  // ... with the labels
  bool checkedLabels = false;  // k-means, fixed-point rule: labels read back for the stop decision
  double checkMs = 0;          // ... taking this long
};

// One variant of a clustering run: prepare the backend, warm up and time the repetitions
// (k-centers' loop over centers, the fused engine's single launch, or k-means's loop over
// iterations), download the result, record the schedule, verify against the CPU reference
// (k-means: replayed from its own state when it left the reference's path at a tie), then put
// the timings together.
class VariantRun {
 public:
  // `keep`: where to put the k-centers outputs for the pruned variant's bit-for-bit check.
  VariantRun(const RunContext& ctx, const VariantInfo& v, KCentersOutputs* keep = nullptr)
      : keep_(keep),
        ctx_(ctx),
        v_(v),
        r_(ctx.r),
        p_(ctx.r.section<ClusteringProblem>()),
        s_(ctx.s),
        backend_(ctx.backend),
        family_(ctx.r.family),
        k_(p_.k),
        tpb_(ctx.r.launch.threadsPerBlock),
        names_(kernelNames(family_, v)),
        engine_(v.engine != Engine::Seed),
        kernels_(names_.size()),
        launchMs_(kernels_),
        repKernelMs_(kernels_),
        launches_(kernels_, 0) {
    vr_.variant = v.id;
  }

  VariantResult run() {
    try {
      if (!prepare()) return std::move(vr_);
      const int runs = r_.warmup + r_.repetitions;
      for (int rep = 0; rep < runs; ++rep) {
        ctx_.hooks.throwIfCancelled();
        progress(rep, 0, 1);
        // Live data from the first run; every run computes the same result.
        const bool live = rep == 0 && static_cast<bool>(ctx_.hooks.iteration);
        Repetition current(rep, kernels_, rep >= r_.warmup, live, live && p_.keepLabels);
        if (family_ == kKCenters && engine_)
          kcentersAtOnce(current);
        else if (family_ == kKCenters)
          kcentersLoop(current);
        else
          kmeansLoop(current);
        if (current.timed) keep(std::move(current));
      }
      reportMedianRepetition();
      download();
      if (r_.recordSchedule) recordSchedule();
      finishOutput();
      // What the kernels produced, before the fault-injection hook below changes a label.
      if (keep_ && family_ == kKCenters && r_.verify)
        *keep_ = {v_.id, out_.centerIndices, radii_, distances_, out_.labels};
      // The testing hook that proves verification catches a wrong result (fault_injection.h).
      if (faultInjectedFor(v_.id) && !out_.labels.empty()) {
        int32_t& l = out_.labels[out_.labels.size() / 2];
        l = k_ > 1 ? (l + 1) % k_ : -1;
      }
      if (r_.verify) verify();
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is gone; runExperiment reports it
      std::vector<PhaseTiming> ignored;
      backend_.release(ignored);
      vr_.ok = false;
      vr_.error = e.what();  // a refused launch or allocation: reported, never timed
      return std::move(vr_);
    }
    putTimings();
    if (!p_.keepLabels) out_.labels.clear();
    vr_.details.set(std::move(out_));
    return std::move(vr_);
  }

 private:
  // An engine that cannot serve this shape or machine (its shared-memory plan, cuBLAS not
  // installed) is reported as not run with the reason; the other variants still run.
  bool prepare() {
    try {
      backend_.prepare(v_, family_, tpb_, phases_);
    } catch (const InputError& e) {
      std::vector<PhaseTiming> ignored;
      backend_.release(ignored);
      vr_.ok = false;
      vr_.error = e.what();
      return false;
    }
    resources_ = backend_.resources();
    return true;
  }

  // Progress moves with every iteration (center) of every repetition; verification against the
  // CPU reference takes the last share.
  double shares() const { return r_.warmup + r_.repetitions + (r_.verify ? 1.0 : 0.0); }
  void progress(int rep, int step, int steps) const {
    const std::string what =
        (rep < r_.warmup ? "warm-up " + std::to_string(rep + 1) + " of " + std::to_string(r_.warmup)
                         : "repetition " + std::to_string(rep - r_.warmup + 1) + " of " +
                               std::to_string(r_.repetitions)) +
        (steps > 1
             ? (family_ == kKCenters ? ", center " : ", iteration ") + std::to_string(step + 1)
             : std::string());
    ctx_.hooks.report(what, (rep + double(step) / std::max(1, steps)) / shares());
  }

  // One launch of each kernel (a center or an iteration) into the repetition's times.
  void account(Repetition& rep, const std::vector<double>& ms, bool firstIteration) {
    for (size_t q = 0; q < kernels_; ++q) {
      // The seed's calcCentroids does not run in the first iteration (no assignment yet).
      if (family_ == kKMeans && !engine_ && q == 0 && firstIteration) continue;
      rep.kernelMs[q] += ms[q];
      ++rep.launches[q];
      if (rep.timed) launchMs_[q].push_back(ms[q]);
    }
  }

  // A timed repetition's totals (warm-ups are dropped).
  void keep(Repetition&& rep) {
    double total = 0;
    for (size_t q = 0; q < kernels_; ++q) {
      repKernelMs_[q].push_back(rep.kernelMs[q]);
      total += rep.kernelMs[q];
    }
    repTotal_.push_back(total);
    if (rep.checkedLabels) repCheckMs_.push_back(rep.checkMs);
    timedRecords_.push_back(std::move(rep.records));
    launches_ = rep.launches;
  }

  void reportIteration(const Repetition& rep, const IterationRecord& rec,
                       const ClusteringOutput& current) const {
    if (rep.live) ctx_.hooks.iteration(v_.id, rec, current);
  }

  // The live state of k-centers after `chosen` centers.
  ClusteringOutput kcentersState(const std::vector<int64_t>& centers, size_t chosen, bool labels) {
    ClusteringOutput current;
    current.centerIndices.assign(centers.begin(), centers.begin() + chosen);
    current.centers = gatherRows(s_, current.centerIndices);
    current.iterations = static_cast<int>(chosen);
    if (labels) backend_.downloadLabels(current.labels);
    return current;
  }

  // The best k-centers engine runs all K centers on the GPU without a round trip: one time for
  // the whole run; the centers and radii are read back afterwards.
  // The pruned engine (issue 15) does the same on both backends and counts, per center, the
  // points whose coordinates it read (IterationRecord::visited).
  void kcentersAtOnce(Repetition& rep) {
    const std::optional<KCentersRun> all =
        backend_.kcentersRunAll(ctx_.first, k_, ctx_.hooks.cancel);
    ctx_.hooks.throwIfCancelled();  // a host run stops between centers, its result incomplete
    if (!all) throw std::logic_error("clustering backend has no k-centers engine");
    radii_ = all->radii;
    rep.kernelMs[0] = all->ms;
    rep.launches[0] = k_;
    if (rep.timed) launchMs_[0].push_back(all->ms / k_);
    const bool counted = all->visited.size() == static_cast<size_t>(k_);
    for (int j = 0; j < k_; ++j) {
      IterationRecord rec;
      rec.iteration = j + 1;
      rec.score = radii_[static_cast<size_t>(j)];
      rec.chosenPoint = static_cast<int>(all->centers[static_cast<size_t>(j)]);
      if (counted) rec.visited = all->visited[static_cast<size_t>(j)];
      if (all->screened.size() == static_cast<size_t>(k_))
        rec.screened = all->screened[static_cast<size_t>(j)];
      if (all->distances.size() == static_cast<size_t>(k_))
        rec.distances = all->distances[static_cast<size_t>(j)];
      if (all->passes.size() == static_cast<size_t>(k_))
        rec.pass = all->passes[static_cast<size_t>(j)];
      rep.records.push_back(rec);
    }
    out_.centerIndices = all->centers;
    if (rep.live)
      reportIteration(rep, rep.records.back(),
                      kcentersState(all->centers, all->centers.size(), rep.liveLabels));
  }

  // The seed's k-centers: per center, the distance kernel then the max-reduction that picks
  // the farthest point as the next center.
  void kcentersLoop(Repetition& rep) {
    backend_.kcentersBegin(ctx_.first);
    std::vector<int64_t> centers{ctx_.first};
    radii_.clear();
    for (int j = 0; j < k_; ++j) {
      ctx_.hooks.throwIfCancelled();
      progress(rep.index, j, k_);
      const KCentersStep step = backend_.kcentersStep(j, k_);
      IterationRecord rec;
      rec.iteration = j + 1;
      rec.score = step.radius;
      rec.kernelMs = step.kernelMs;
      rec.chosenPoint = static_cast<int>(centers[static_cast<size_t>(j)]);
      rep.records.push_back(rec);
      radii_.push_back(step.radius);
      if (j + 1 < k_) centers.push_back(step.next);
      account(rep, step.kernelMs, false);
      if (rep.live)
        reportIteration(rep, rec, kcentersState(centers, size_t(j + 1), rep.liveLabels));
    }
    out_.centerIndices = centers;
  }

  // k-means: per iteration the engine's kernels (the seed's calcCentroids, assign, score), until
  // the request's stop rule (kmeans_stop.h, the same for every engine). The fixed-point rule reads
  // each iteration's labels back (untimed by the kernel events; its own phase).
  void kmeansLoop(Repetition& rep) {
    backend_.kmeansBegin(ctx_.init->values);
    scores_.clear();
    KMeansStop stop(p_);
    std::vector<int32_t> labels;
    for (int it = 0; it < p_.maxIterations; ++it) {
      ctx_.hooks.throwIfCancelled();
      progress(rep.index, it, p_.maxIterations);
      const KMeansStep step = backend_.kmeansStep(it);
      const double score = sumOf(step.clusterScore);
      scores_.push_back(score);
      lastCounts_ = step.clusterCount;
      labels.clear();
      if (stop.needsLabels())
        rep.checkMs += backend_.downloadLabels(labels);
      else if (rep.liveLabels)
        backend_.downloadLabels(labels);
      const bool done = stop.afterIteration(it, score, labels);
      IterationRecord rec;
      rec.iteration = it + 1;
      rec.score = score;
      rec.kernelMs = step.kernelMs;
      rec.rechecked =
          v_.engine == Engine::Best || v_.engine == Engine::Pruned ? step.rechecked : -1;
      rec.visited = step.visited;
      rec.distances = step.distances;
      rec.labelsChanged = stop.labelsChanged();
      rep.records.push_back(rec);
      account(rep, step.kernelMs, it == 0);
      if (rep.live) {
        ClusteringOutput current;
        backend_.downloadCentroids(current.centers);
        current.iterations = it + 1;
        current.inertia = score;
        current.clusterSizes.assign(step.clusterCount.begin(), step.clusterCount.end());
        if (rep.liveLabels) current.labels = labels;
        reportIteration(rep, rec, current);
      }
      if (done) break;
    }
    out_.stopReason = stop.reason();
    rep.checkedLabels = stop.needsLabels();
  }

  static double sumOf(const std::vector<double>& parts) {
    double sum = 0;
    for (double c : parts) sum += c;
    return sum;
  }

  // The iterations reported are those of the median repetition (by total kernel time; the lower
  // middle one of an even count), so their sum is the median the charts show.
  void reportMedianRepetition() {
    if (repTotal_.empty()) return;
    std::vector<size_t> order(repTotal_.size());
    for (size_t q = 0; q < order.size(); ++q) order[q] = q;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return repTotal_[a] < repTotal_[b]; });
    records_ = std::move(timedRecords_[order[(order.size() - 1) / 2]]);
    vr_.iterationsFrom = "median";
  }

  void download() {
    copyBackMs_ += backend_.downloadLabels(out_.labels);
    if (family_ == kKCenters)
      copyBackMs_ += backend_.downloadDistances(distances_);
    else
      copyBackMs_ += backend_.downloadCentroids(out_.centers);
  }

  // After the downloads: the recorded launch repeats work whose results are already out.
  void recordSchedule() {
    if (auto rec = backend_.recordSchedule(k_ - 1)) {
      const size_t q = family_ == kKCenters ? 0 : 1;  // the per-point kernel
      const double plain = summarize(launchMs_[q], backend_.clock()).medianMs;
      vr_.schedule = std::move(rec->blocks);
      if (plain > 0) vr_.scheduleOverheadPct = 100.0 * (rec->ms - plain) / plain;
    }
  }

  void finishOutput() {
    if (family_ == kKCenters) {
      out_.iterations = k_;
      out_.centers = gatherRows(s_, out_.centerIndices);
      double inertia = 0;
      for (float dd : distances_) inertia += dd;
      out_.inertia = inertia;
      out_.clusterSizes = histogram(out_.labels, k_);
    } else {
      out_.iterations = static_cast<int>(scores_.size());
      out_.inertia = scores_.empty() ? 0.0 : scores_.back();
      out_.clusterSizes.assign(lastCounts_.begin(), lastCounts_.end());
    }
  }

  void verify() {
    ctx_.hooks.report("verifying against the CPU reference",
                      double(r_.warmup + r_.repetitions) / shares());
    if (family_ == kKCenters) {
      const std::string key =
          datasetKey(r_) + "|kcenters:" + std::to_string(k_) + ":" + std::to_string(ctx_.first);
      auto ref =
          kcentersCache().getOrMake(key, [&] { return referenceKCenters(s_, k_, ctx_.first); });
      vr_.verification = verifyKCenters(s_, *ref, out_, distances_, radii_);
      return;
    }
    // The cuBLAS peers' labels are approximate by design: their path leaves the reference's at
    // the first near tie, so they are checked from their own state, labels counted.
    const bool approximate = approximateLabels(v_.engine);
    if (!approximate) {
      const std::string key = initKey(r_) + "|kmeans:" + std::to_string(out_.iterations);
      auto ref = kmeansCache().getOrMake(
          key, [&] { return referenceKMeans(s_, ctx_.init->values, k_, out_.iterations, -1.0); });
      vr_.verification = verifyKMeans(s_, *ref, out_, scores_);
    }
    if (approximate || !vr_.verification.passed) verifyKMeansByReplay(approximate);
  }

  // Float rounding may order two equal distances the other way than the reference, and one point
  // changing cluster moves the next centers: the run then follows another, equally valid path.
  // Replay it (untimed, deterministic) and check every iteration from its own state; a wrong
  // kernel fails there too, and the reported result must be the replay's.
  void verifyKMeansByReplay(bool approximate) {
    const Verification independent = vr_.verification;
    KMeansStepCheck check(s_, ctx_.init->values, k_, approximate);
    backend_.kmeansBegin(ctx_.init->values);
    std::vector<int32_t> labels;
    std::vector<float> centers;
    for (int it = 0; it < out_.iterations; ++it) {
      ctx_.hooks.throwIfCancelled();
      const KMeansStep step = backend_.kmeansStep(it);
      backend_.downloadLabels(labels);
      backend_.downloadCentroids(centers);
      check.iteration(centers, labels, sumOf(step.clusterScore), step.clusterCount);
    }
    vr_.verification = check.finish(out_);
    if (vr_.verification.passed && !approximate)
      vr_.verification.note =
          "left the reference's path after a tie (first difference: " + independent.note + "); " +
          vr_.verification.note;
  }

  // Per kernel: the median launch, the median total per repetition, bytes and bandwidth, the
  // resources and launch shape; then the variant's total and its phases.
  void putTimings() {
    const std::string clock = backend_.clock();
    const std::vector<int> grids =
        engine_ ? backend_.engineGrids() : kernelGrids(family_, s_.n, k_, tpb_);
    // An engine that chose its path on this device names its kernels and the path itself.
    std::vector<std::string> engineNames =
        engine_ ? backend_.engineKernelNames() : std::vector<std::string>();
    if (engineNames.size() != kernels_) engineNames.clear();
    if (engine_) vr_.strategy = backend_.engineStrategy();
    const int gridN = gridFor(s_.n, tpb_);
    // The pruned engines' work per launch: the mean of their counted centers or iterations (the
    // median repetition's records; every repetition reads the same points). k-centers: points
    // read in float and by their sketch; both: the distances computed, where counted.
    double visited = double(s_.n), screened = 0, distances = 0, passShare = 1.0;
    if (v_.engine == Engine::Pruned) {
      const PrunedReads reads = prunedReads(records_, s_.n);
      if (reads.centers > 0) {
        visited = reads.floatShare * double(s_.n);
        screened = reads.sketchShare * double(s_.n);
        distances = reads.distances;
        passShare = reads.passShare();
      }
    }
    for (size_t q = 0; q < kernels_; ++q) {
      KernelResult kr;
      kr.name = q < engineNames.size() ? engineNames[q] : names_[q];
      kr.timing = summarize(launchMs_[q], clock);
      kr.totalMs = summarize(repKernelMs_[q], clock).medianMs;
      kr.launches = launches_[q];
      kr.bytes = engine_ ? engineKernelBytes(family_, v_.engine, q, s_.n, s_.d, k_, visited,
                                             screened, passShare)
                         : kernelBytes(family_, q, s_.n, s_.d, k_, gridN);
      kr.flops = engine_ ? engineKernelFlops(family_, v_.engine, q, s_.n, s_.d, k_, visited,
                                             screened, distances)
                         : 0.0;
      kr.gbps = gigabytesPerSecond(kr.bytes, kr.timing.medianMs);
      if (q < resources_.size()) kr.resources = resources_[q];
      kr.gridX = q < grids.size() ? grids[q] : 0;
      kr.gridY = 1;
      kr.blockX = engine_ ? (kr.resources ? kr.resources->threadsPerBlock : 0) : tpb_;
      kr.blockY = 1;
      vr_.bytes += kr.bytes * kr.launches;
      vr_.kernels.push_back(std::move(kr));
    }
    vr_.total = summarize(repTotal_, clock);
    vr_.gbps = gigabytesPerSecond(vr_.bytes, vr_.total.medianMs);
    phases_.push_back({"kernels", vr_.total.medianMs});
    if (!repCheckMs_.empty())
      phases_.push_back({"stop check (labels to host)", summarize(repCheckMs_, clock).medianMs});
    phases_.push_back(
        {clock == "cuda-events" ? "device to host" : "copy results (host)", copyBackMs_});
    backend_.release(phases_);
    vr_.phases = std::move(phases_);
    vr_.iterations = std::move(records_);
  }

  KCentersOutputs* keep_;
  const RunContext& ctx_;
  const VariantInfo& v_;
  const RunRequest& r_;
  const ClusteringProblem& p_;
  const PointSet& s_;
  Backend& backend_;
  const Family family_;
  const int k_;
  const int tpb_;
  const std::vector<std::string>& names_;
  const bool engine_;
  const size_t kernels_;

  VariantResult vr_;
  std::vector<PhaseTiming> phases_;
  std::vector<std::optional<ResourceUsage>> resources_;
  // Timings over the timed repetitions.
  std::vector<std::vector<double>> launchMs_;     // every timed launch, per kernel
  std::vector<std::vector<double>> repKernelMs_;  // per kernel, its total per repetition
  std::vector<double> repTotal_;                  // the variant's kernels per repetition
  std::vector<double> repCheckMs_;                // k-means fixed-point rule: labels to host
  std::vector<int> launches_;                     // per kernel, per repetition
  std::vector<std::vector<IterationRecord>> timedRecords_;
  std::vector<IterationRecord> records_;  // the median repetition's
  // The result.
  ClusteringOutput out_;
  std::vector<double> scores_;            // k-means, per iteration of the last repetition
  std::vector<float> radii_, distances_;  // k-centers
  std::vector<int32_t> lastCounts_;
  double copyBackMs_ = 0;
};

}  // namespace

RunResult runClustering(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks) {
  const std::vector<VariantInfo> list = parseVariants(r.variants, r.family, d.useCuda, d.note);
  const ClusteringProblem& p = r.section<ClusteringProblem>();
  RunResult res;
  res.request = r;
  res.device = d.device;
  res.backend = d.useCuda ? "cuda" : "cpu";
  res.backendNote = d.note;

  hooks.report(p.inputPath.empty() ? "generating the points" : "loading " + p.inputPath, 0.0);
  const std::shared_ptr<const PointSet> points = dataset(r);
  const PointSet& s = *points;
  if (!p.inputPath.empty()) {
    // The request that ran: a file's points decide N and D, whatever the request said.
    res.request.section<ClusteringProblem>().n = s.n;
    res.request.section<ClusteringProblem>().d = s.d;
  }
  std::shared_ptr<const InitialCenters> init;
  int64_t first = 0;
  if (r.family == clustering::kKMeans) {
    hooks.report("initial centers", 0.02);
    init = initCache().getOrMake(
        initKey(r), [&] { return initialCenters(s, p.k, p.init, r.seed, p.centersPath); });
  } else {
    first = firstCenter(s, p.init, r.seed);
  }
  // Generated points (a file's were checked by validateClustering): squared distances must fit
  // float32, also to given centers.
  if (p.inputPath.empty())
    checkCoordinateRange(s, init ? init->values : std::vector<float>{},
                         std::string("the generated points (radius ") + numberText(p.radius) + ")");
  hooks.throwIfCancelled();

  std::unique_ptr<Backend> backend;
#ifdef KERNELLAB_HAVE_CUDA
  if (d.useCuda) backend = makeCudaBackend(s, p.k);
#endif
  if (!backend) backend = makeCpuBackend(s, p.k);

  if (r.measureCeilings)
    res.ceilings.push_back(backend->copyCeiling(r.warmup, r.repetitions, hooks.within(0.04, 0.05, "measuring the copy ceiling")));

  // The pruned k-centers variant beside its unpruned twin: both outputs kept for the comparison.
  const std::string twin = r.family == clustering::kKCenters ? prunedTwin(list, d.useCuda) : "";
  KCentersOutputs prunedBits, twinBits;
  for (size_t i = 0; i < list.size(); ++i) {
    const RunHooks part = hooks.within(0.05 + 0.95 * double(i) / double(list.size()),
                                       0.05 + 0.95 * double(i + 1) / double(list.size()), "running " + list[i].id);
    const RunContext ctx{r, d, part, s, *backend, init.get(), first};
    KCentersOutputs* keep = twin.empty()             ? nullptr
                            : list[i].id == "pruned" ? &prunedBits
                            : list[i].id == twin     ? &twinBits
                                                     : nullptr;
    VariantResult vr = VariantRun(ctx, list[i], keep).run();
    if (!res.ceilings.empty() && res.ceilings.front().gbps > 0)
      vr.fractionOfMemcpy = vr.gbps / res.ceilings.front().gbps;
    res.variants.push_back(std::move(vr));
  }
  if (!prunedBits.variant.empty() && !twinBits.variant.empty())
    for (VariantResult& v : res.variants)
      if (v.variant == "pruned" && v.ok && v.verification.performed)
        checkPrunedAgainstTwin(v, prunedBits, twinBits);
  for (const VariantResult& v : res.variants)
    if (!v.ok || (v.verification.performed && !v.verification.passed)) res.ok = false;
  hooks.report("done", 1.0);
  return res;
}

}  // namespace kernellab::detail

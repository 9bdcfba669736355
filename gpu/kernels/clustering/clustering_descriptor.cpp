// SPDX-License-Identifier: MIT
// The descriptors of the two clustering families, k-means and k-centers (kernellab/family.h):
// they share the request section, the runner, the results' section and the tables, and differ
// in their variants, their stop rule and their benches.
#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>

#include "clustering_parts.h"
#include "kernellab/checked_number.h"
#include "kernellab/clustering.h"
#include "kernellab/enum_names.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/family_json.h"
#include "kernellab/json_io.h"
#include "kernellab/results_validation.h"
#include "kernellab/text.h"

namespace kernellab {

// ---- the names of the request's clustering enums (JSON, the CLI, the window) -----------------

namespace {

constexpr std::array<std::pair<DataLayout, const char*>, 2> kLayouts{
    {{DataLayout::Coalesced, "coalesced"}, {DataLayout::Interleaved, "interleaved"}}};
constexpr std::array<std::pair<ScratchMemory, const char*>, 2> kMemories{
    {{ScratchMemory::Shared, "shared"}, {ScratchMemory::Global, "global"}}};
constexpr std::array<std::pair<InitMethod, const char*>, 4> kInits{
    {{InitMethod::First, "first"},
     {InitMethod::Random, "random"},
     {InitMethod::KMeansPlusPlus, "kmeans++"},
     {InitMethod::Given, "given"}}};
constexpr std::array<std::pair<DatasetShape, const char*>, 2> kShapes{
    {{DatasetShape::SeedGenerator, "seed"}, {DatasetShape::Blobs, "blobs"}}};
constexpr std::array<std::pair<StopRule, const char*>, 2> kStopRules{
    {{StopRule::FixedPoint, "fixed-point"}, {StopRule::ScoreChange, "score"}}};

}  // namespace

const char* toString(DataLayout l) { return nameOf(kLayouts, l); }
const char* toString(ScratchMemory m) { return nameOf(kMemories, m); }
const char* toString(InitMethod i) { return nameOf(kInits, i); }
const char* toString(DatasetShape s) { return nameOf(kShapes, s); }
const char* toString(StopRule s) { return nameOf(kStopRules, s); }
std::optional<DataLayout> layoutFromString(const std::string& s) { return valueOf(kLayouts, s); }
std::optional<ScratchMemory> memoryFromString(const std::string& s) {
  return valueOf(kMemories, s);
}
std::optional<InitMethod> initFromString(const std::string& s) { return valueOf(kInits, s); }
std::optional<DatasetShape> shapeFromString(const std::string& s) { return valueOf(kShapes, s); }
std::optional<StopRule> stopRuleFromString(const std::string& s) { return valueOf(kStopRules, s); }

namespace {

using clustering::kKCenters;
using clustering::kKMeans;

ClusteringProblem& problemOf(RunRequest& r) { return r.section<ClusteringProblem>(); }
const ClusteringProblem& problemOf(const RunRequest& r) { return r.section<ClusteringProblem>(); }

// ---- JSON ------------------------------------------------------------------------------------

// The fields that apply: the generator's for generated points, the path for a file (whose N and D
// the run records), the k-means knobs for k-means only; `all` writes every one (the window's
// saved settings).
template <class F, class V>
void problemFields(F& f, V& c, Family family, bool all) {
  const bool generated = c.inputPath.empty();
  const bool kmeans = family == kKMeans;
  f("n", c.n);
  f("k", c.k);
  f("d", c.d);
  f.named("init", c.init, initFromString);
  f("keep_labels", c.keepLabels);
  f.named("shape", c.shape, shapeFromString, all || generated);
  f.when(all || generated, "radius", c.radius);
  f.when(all || (generated && c.shape == DatasetShape::Blobs), "noise_fraction", c.noiseFraction);
  f.when(all || !generated, "input_path", c.inputPath);
  f.when(all || (kmeans && c.init == InitMethod::Given), "centers_path", c.centersPath);
  f.when(all || kmeans, "max_iterations", c.maxIterations);
  f.named("stop_rule", c.stopRule, stopRuleFromString, all || kmeans);
  f.when(all || (kmeans && c.stopRule == StopRule::ScoreChange), "epsilon", c.epsilon);
}

// Schema 1 had one k-means stop rule, Campaign's score rule, and recorded no stop reason: a file
// of that version says what it ran once read (the rule; the reason from its last two scores).
void upgradeRequest(RunRequest& r, int version) {
  if (version >= 2) return;
  if (clustering::isClustering(r.family) || r.sections.find<ClusteringProblem>())
    problemOf(r).stopRule = StopRule::ScoreChange;
}

void upgradeRun(RunResult& run, int version) {
  if (version >= 2 || run.request.family != kKMeans) return;
  const ClusteringProblem& p = problemOf(run.request);
  for (VariantResult& v : run.variants) {
    ClusteringOutput* out = v.detail<ClusteringOutput>();
    if (!out || out->stopReason != StopReason::None) continue;
    const auto& it = v.iterations;
    const bool met = it.size() >= 2 && std::fabs(it.back().score - it[it.size() - 2].score) <=
                                           p.epsilon * it[it.size() - 2].score;
    out->stopReason = met || out->iterations < p.maxIterations ? StopReason::ScoreRule
                                                               : StopReason::IterationLimit;
  }
}

// ---- the request's parameters ----------------------------------------------------------------

// --memory and --layout pick the variants "<memory>-<layout>" together (finishRequest); "all" on
// either takes both.
struct VariantAxes {
  std::vector<std::string> memories{"shared", "global"};
  std::vector<std::string> layouts{"coalesced", "interleaved"};
};

bool given(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<FamilyParameter> parameters(Family family) {
  const bool kmeans = family == kKMeans;
  std::vector<FamilyParameter> list;
  auto add = [&](FamilyParameter p) { list.push_back(std::move(p)); };
  // The file first: it decides N and D (finishRequest refuses --n and --d beside it).
  add({"input", "Points file", "points (.csv or .npy)",
       [](RunRequest& r, const std::string& v) { problemOf(r).inputPath = v; }, true});
  FamilyParameter n{"n", "N (points)", "number of points", [](RunRequest& r, const std::string& v) {
                      problemOf(r).n = parseInteger(v, "--n");
                    }};
  n.label = [](const RunRequest& r) { return "N=" + formatCount(problemOf(r).n); };
  n.number = [](const RunRequest& r) { return double(problemOf(r).n); };
  add(n);
  FamilyParameter k{"k", "K (clusters)", "clusters", [](RunRequest& r, const std::string& v) {
                      problemOf(r).k = parseIntegerAs<int>(v, "--k");
                    }};
  k.label = [](const RunRequest& r) { return "K=" + std::to_string(problemOf(r).k); };
  k.number = [](const RunRequest& r) { return double(problemOf(r).k); };
  add(k);
  FamilyParameter d{"d", "D (dimensions)", "dimensions", [](RunRequest& r, const std::string& v) {
                      problemOf(r).d = parseIntegerAs<int>(v, "--d");
                    }};
  d.label = [](const RunRequest& r) { return "D=" + std::to_string(problemOf(r).d); };
  d.number = [](const RunRequest& r) { return double(problemOf(r).d); };
  add(d);
  add({"shape", "Dataset", "seed | blobs (generated data)",
       [](RunRequest& r, const std::string& v) {
         auto s = shapeFromString(v);
         if (!s) throw InputError("--shape " + v + " is unknown (seed, blobs)");
         problemOf(r).shape = *s;
       },
       true});
  add({"radius", "Radius", "generated data: the clusters' spread (seed generator: radius / 100)",
       [](RunRequest& r, const std::string& v) {
         problemOf(r).radius = parseFinite(v, "--radius");
       },
       true});
  add({"noise", "Noise", "blobs: share of uniform noise points, 0..1",
       [](RunRequest& r, const std::string& v) {
         problemOf(r).noiseFraction = parseFinite(v, "--noise", 0.0, 1.0);
       },
       true});
  add({"init", "Initial centers",
       kmeans ? "first | random | kmeans++" : "first | random (the first center)",
       [](RunRequest& r, const std::string& v) {
         auto i = initFromString(v);
         if (!i || *i == InitMethod::Given)
           throw InputError("--init " + v +
                            " is unknown (first, random, kmeans++; --centers FILE gives centers)");
         problemOf(r).init = *i;
       },
       true});
  add({"memory", "Scratch memory", "shared | global | all (the variants' scratch)",
       [](RunRequest& r, const std::string& v) {
         if (toLower(v) == "all") return;
         if (!memoryFromString(v))
           throw InputError("--memory " + v + " is unknown (shared, global, all)");
         r.section<VariantAxes>().memories = {toLower(v)};
       },
       true});
  add({"layout", "Layout", "coalesced | interleaved | all (how the variants store the points)",
       [](RunRequest& r, const std::string& v) {
         if (toLower(v) == "all") return;
         if (!layoutFromString(v))
           throw InputError("--layout " + v + " is unknown (coalesced, interleaved, all)");
         r.section<VariantAxes>().layouts = {toLower(v)};
       },
       true});
  if (!kmeans) return list;
  add({"centers", "Initial centers file", "initial centers (.csv or .npy)",
       [](RunRequest& r, const std::string& v) {
         problemOf(r).centersPath = v;
         problemOf(r).init = InitMethod::Given;
       },
       true});
  add({"max-iter", "Max iterations", "iteration limit (default 300)",
       [](RunRequest& r, const std::string& v) {
         problemOf(r).maxIterations = parseIntegerAs<int>(v, "--max-iter");
       },
       true});
  add({"stop", "Stop rule",
       "fixed-point (default: stop when no point changes cluster) | score (Campaign's rule: the "
       "score changed by at most --epsilon of itself)",
       [](RunRequest& r, const std::string& v) {
         auto rule = stopRuleFromString(v);
         if (!rule) throw InputError("--stop " + v + " is unknown (fixed-point, score)");
         problemOf(r).stopRule = *rule;
       },
       true});
  add({"epsilon", "Epsilon",
       "the score rule's relative epsilon (default 1e-4; implies --stop score)",
       [](RunRequest& r, const std::string& v) {
         problemOf(r).epsilon = parseFinite(v, "--epsilon");
       },
       true});
  return list;
}

void finishRequest(RunRequest& r, const std::vector<std::string>& names) {
  ClusteringProblem& p = problemOf(r);
  if (given(names, "input") && !p.inputPath.empty())
    for (const char* size : {"n", "d"})
      if (given(names, size))
        throw InputError(std::string("--") + size + " " +
                         std::to_string(size[0] == 'n' ? p.n : int64_t(p.d)) +
                         " does not apply with --input " + p.inputPath +
                         ": the file's size is the problem's size");
  if (given(names, "epsilon")) {
    if (given(names, "stop") && p.stopRule == StopRule::FixedPoint)
      throw InputError("--epsilon " + formatFixed(p.epsilon, 6) +
                       " belongs to the score rule, but --stop says fixed-point");
    p.stopRule = StopRule::ScoreChange;  // --epsilon alone asks for Campaign's rule
  }
  if (const VariantAxes* axes = r.sections.find<VariantAxes>()) {
    r.variants.clear();
    for (const auto& m : axes->memories)
      for (const auto& l : axes->layouts) r.variants.push_back(m + "-" + l);
    r.sections.erase<VariantAxes>();
  }
}

// ---- texts -----------------------------------------------------------------------------------

// The generated data's shape where it is not the seed's generator (two runs that differ only in
// it, such as bench best's seed data and one broad cloud, must be told apart in the Runs list).
std::string shapeText(const ClusteringProblem& c) {
  if (!c.inputPath.empty() || c.shape != DatasetShape::Blobs) return {};
  return "blobs, " + formatGeneral(100.0 * c.noiseFraction, 6) + " % noise";
}

std::string summary(const RunRequest& r, bool detailed) {
  const ClusteringProblem& c = problemOf(r);
  const bool kmeans = r.family == kKMeans;
  const std::string shape = shapeText(c);
  if (!detailed) {
    const std::string data =
        c.inputPath.empty()
            ? "N=" + formatCount(c.n) + " K=" + std::to_string(c.k) + " D=" + std::to_string(c.d)
            : c.inputPath.substr(c.inputPath.find_last_of('/') + 1) + ", K=" + std::to_string(c.k);
    return std::string(kmeans ? "k-means " : "k-centers ") + data +
           (shape.empty() ? "" : " · " + shape) + " · TPB " +
           std::to_string(r.launch.threadsPerBlock);
  }
  std::string s = std::string(r.family.id()) + " N=" + std::to_string(c.n) +
                  " K=" + std::to_string(c.k) + " D=" + std::to_string(c.d) +
                  (c.inputPath.empty() ? "" : " (" + c.inputPath + ")") +
                  (shape.empty() ? "" : " (" + shape + ")") + ", " +
                  std::to_string(r.launch.threadsPerBlock) + " threads per block";
  if (kmeans) {
    s += ", stop ";
    s += c.stopRule == StopRule::FixedPoint
             ? std::string("at the fixed point")
             : "by the score rule (epsilon " + formatGeneral(c.epsilon, 6) + ")";
    s += " or after " + std::to_string(c.maxIterations) + " iterations";
  }
  return s;
}

std::string launchHint(const RunRequest& r) {
  const int tpb = std::max(1, r.launch.threadsPerBlock);
  return "One thread per point: " + formatCount((problemOf(r).n + tpb - 1) / tpb) + " blocks of " +
         std::to_string(tpb) + " threads.";
}

std::string labelsText(const RunResult& run) {
  for (const auto& v : run.variants)
    if (const ClusteringOutput* c = v.detail<ClusteringOutput>(); c && !c->labels.empty()) {
      std::string text;
      text.reserve(c->labels.size() * 3);
      for (int32_t l : c->labels) (text += std::to_string(l)) += '\n';
      return text;
    }
  return {};
}

// ---- stored runs -----------------------------------------------------------------------------

constexpr int64_t kMaxIndexed = 2147483647;  // 32-bit kernel indices

void sizeIs(size_t size, uint64_t expected, const std::string& field, const std::string& why) {
  if (size != expected)
    refuseField(field, "has " + std::to_string(size) + " entries; " + why + " needs " +
                           std::to_string(expected));
}

// What the views can handle: 32-bit point indices, K and D up to 2^20.
void checkLimits(const RunRequest& r, const std::string& at) {
  const ClusteringProblem& c = problemOf(r);
  checkAtMost(c.n, kMaxIndexed, at + ".clustering.n");
  checkAtMost(c.d, 1 << 20, at + ".clustering.d");
  checkAtMost(c.k, 1 << 20, at + ".clustering.k");
}

// What the request promises of its outputs (-1: a file's size, unknown from the request), then
// every variant's labels, centers, chosen points and sizes against it.
void checkStored(const RunResult& run, const std::string& at) {
  const ClusteringProblem& c = problemOf(run.request);
  checkWithin(c.k, 1, kMaxIndexed, at + ".request.clustering.k");
  if (c.maxIterations < 0)
    refuseField(at + ".request.clustering.max_iterations",
                "= " + std::to_string(c.maxIterations) + " is below 0");
  const int64_t k = c.k;
  int64_t points = -1, dims = -1;
  if (c.inputPath.empty()) {
    checkWithin(c.n, 1, kMaxIndexed, at + ".request.clustering.n", "point indices are 32-bit");
    checkWithin(c.d, 1, std::numeric_limits<int>::max(), at + ".request.clustering.d");
    points = c.n;
    dims = c.d;
  }
  for (size_t vi = 0; vi < run.variants.size(); ++vi) {
    const VariantResult& v = run.variants[vi];
    const std::string var = at + ".variants[" + std::to_string(vi) + "]";
    int64_t known = points;
    if (const ClusteringOutput* o = v.detail<ClusteringOutput>()) {
      const std::string out = var + ".clustering";
      if (!o->labels.empty()) {
        if (known >= 0) sizeIs(o->labels.size(), uint64_t(known), out + ".labels", "N");
        for (size_t i = 0; i < o->labels.size(); ++i)
          if (o->labels[i] < -1 || o->labels[i] >= k)
            refuseField(out + ".labels[" + std::to_string(i) + "]",
                        "= " + std::to_string(o->labels[i]) + " is outside -1.." +
                            std::to_string(k - 1) + " (K = " + std::to_string(k) + ")");
        if (known < 0) known = static_cast<int64_t>(o->labels.size());
      }
      if (!o->centers.empty() && dims > 0 &&
          (o->centers.size() % uint64_t(dims) != 0 ||
           o->centers.size() / uint64_t(dims) > uint64_t(k)))
        refuseField(out + ".centers", "has " + std::to_string(o->centers.size()) +
                                          " values; K x D is " + std::to_string(k) + " x " +
                                          std::to_string(dims));
      if (o->centerIndices.size() > uint64_t(k))
        refuseField(out + ".center_indices", "has " + std::to_string(o->centerIndices.size()) +
                                                 " entries; K is " + std::to_string(k));
      const int64_t lastPoint = known >= 0 ? known - 1 : kMaxIndexed;
      for (size_t i = 0; i < o->centerIndices.size(); ++i)
        checkWithin(o->centerIndices[i], 0, lastPoint,
                    out + ".center_indices[" + std::to_string(i) + "]", "a point index");
      if (o->iterations < 0)
        refuseField(out + ".iterations", "= " + std::to_string(o->iterations) + " is below 0");
      if (!o->clusterSizes.empty()) {
        sizeIs(o->clusterSizes.size(), uint64_t(k), out + ".cluster_sizes", "K");
        for (size_t i = 0; i < o->clusterSizes.size(); ++i)
          checkWithin(o->clusterSizes[i], 0, known >= 0 ? known : kMaxIndexed,
                      out + ".cluster_sizes[" + std::to_string(i) + "]", "a count of points");
      }
    }
    const int64_t lastPoint = points >= 0 ? points - 1 : kMaxIndexed;
    // A center's visited and screened points (pruned k-centers) are at most N: the request's, or the stored
    // labels' count for a points file.
    const int64_t mostVisited = known >= 0 ? known : kMaxIndexed;
    for (size_t i = 0; i < v.iterations.size(); ++i) {
      const std::string it = var + ".iterations[" + std::to_string(i) + "]";
      checkWithin(v.iterations[i].chosenPoint, -1, lastPoint, it + ".chosen_point",
                  "-1 or a point index");
      checkWithin(v.iterations[i].visited, -1, mostVisited, it + ".visited",
                  "-1 or a count of points, at most N");
      checkWithin(v.iterations[i].screened, -1, mostVisited, it + ".screened",
                  "-1 or a count of points, at most N");
      // Pruned k-means: at most every point against every center.
      const int64_t mostDistances =
          known >= 0 && k > 0 && known <= kMaxIndexed / k ? known * k : kMaxIndexed;
      checkWithin(v.iterations[i].distances, -1, mostDistances, it + ".distances",
                  "-1 or a count of point-center distances, at most N K");
    }
  }
}

// ---- the descriptor --------------------------------------------------------------------------

std::vector<VariantDescription> variants(Family family) {
  std::vector<VariantDescription> out;
  for (const auto& v : clustering::variants(family)) {
    VariantDescription d{v.id, v.title, v.explanation};
    d.cudaOnly = !clustering::runsOnCpu(v.engine);
    d.recordsSchedule = v.engine == clustering::Engine::Seed;
    out.push_back(d);
  }
  return out;
}

std::string cell(int64_t v) { return std::to_string(v); }

FamilyDescriptor makeDescriptor(Family family) {
  const bool kmeans = family == kKMeans;
  FamilyDescriptor f;
  f.family = family;
  f.title = kmeans ? "k-means" : "k-centers";
  f.about = kmeans
                ? "Seed 003 (Campaign): Lloyd's k-means with its three kernels, assign to the "
                  "nearest centroid, the centroid update by reduction and the score. Switches: "
                  "shared or global scratch memory, coalesced or interleaved points, threads per "
                  "block; beside them the GPU-only engines (best, the cuBLAS peers)."
                : "Seed 003 (Campaign): farthest-point k-centers, a parallel max-reduction per new "
                  "center. Switches: shared or global scratch memory, coalesced or interleaved "
                  "points, threads per block (the thesis's figure 19).";
  f.reportNote =
      kmeans ? "k-means: times in milliseconds per run of every iteration until the stop rule "
               "(median of the timed repetitions); a seed variant's iteration is Campaign's three "
               "kernels (assign to the nearest centroid, update the centroids, score). Labels and "
               "centroids are verified against a CPU reference that runs the same iterations from "
               "the same initial centers."
             : "k-centers: times in milliseconds per run choosing all K centers (median of the "
               "timed repetitions); each new center is the point farthest from those chosen, found "
               "by a parallel max-reduction. Every point is processed at every block size and "
               "verified against a CPU reference.";
  f.variants = [family] { return variants(family); };
  f.requestSections = {requestSection<ClusteringProblem>(
      "clustering", [](auto& w, auto& c, Family fam, bool all) { problemFields(w, c, fam, all); })};
  f.parameters = parameters(family);
  f.sweepAxes = {{"tpb", "64,128,256,512,1024"},
                 {"n", "10000,100000,1000000"},
                 {"k", "4,16,64"},
                 {"d", "2,8,32,128"}};
  f.finishRequest = finishRequest;
  f.demo = [kmeans](RunRequest& r) {
    // A demo that reads well: a few well-separated clusters, quick on the CPU too.
    ClusteringProblem& p = problemOf(r);
    p.n = 20000;
    p.k = 6;
    p.d = 3;
    p.shape = DatasetShape::Blobs;
    p.noiseFraction = 0.02;
    // k-means++ (what scikit-learn users expect): the seed's "first K points" can leave two
    // centers in one blob of this shuffled demo, a lesson for later, not a first impression.
    // k-centers chooses its centers itself, from the first point.
    p.init = kmeans ? InitMethod::KMeansPlusPlus : InitMethod::First;
    r.repetitions = 3;
    r.warmup = 1;
  };
  f.summary = summary;
  f.launchHint = launchHint;
  f.files = [kmeans](RunRequest& r) {
    ClusteringProblem& p = problemOf(r);
    std::vector<std::string*> files{&p.inputPath};
    if (kmeans) files.push_back(p.init == InitMethod::Given ? &p.centersPath : nullptr);
    return files;
  };
  f.labels = labelsText;
  f.validate = detail::validateClustering;
  f.run = detail::runClustering;
  f.resultSections = {resultSection<ClusteringOutput>("clustering")};
  f.upgradeRequest = upgradeRequest;
  f.upgradeRun = upgradeRun;
  f.checkLimits = checkLimits;
  f.checkStored = checkStored;
  f.details = clustering::printClusteringDetails;
  f.csvColumns = {
      {"n", [](const RunRequest& r, const VariantResult*) { return cell(problemOf(r).n); }},
      {"k", [](const RunRequest& r, const VariantResult*) { return cell(problemOf(r).k); }},
      {"d", [](const RunRequest& r, const VariantResult*) { return cell(problemOf(r).d); }},
      {"inertia",
       [](const RunRequest&, const VariantResult* v) {
         const ClusteringOutput* c = v ? v->detail<ClusteringOutput>() : nullptr;
         return c ? formatGeneral(c->inertia, 10) : std::string();
       }},
  };
  if (kmeans) {
    f.csvColumns.push_back({"iterations", [](const RunRequest&, const VariantResult* v) {
                              const ClusteringOutput* c =
                                  v ? v->detail<ClusteringOutput>() : nullptr;
                              return c ? cell(c->iterations) : std::string();
                            }});
    f.csvColumns.push_back({"stop_reason", [](const RunRequest&, const VariantResult* v) {
                              const ClusteringOutput* c =
                                  v ? v->detail<ClusteringOutput>() : nullptr;
                              return c ? std::string(toString(c->stopReason)) : std::string();
                            }});
  }
  f.verifyCases = [family](bool quick) { return clustering::verifyCases(family, quick); };
  f.canTrace = [family](const std::string& v) {
    return access::detail::canTraceClustering(family, v);
  };
  f.tracedKernels = [family]() -> const std::vector<access::KernelChoice>& {
    return access::detail::clusteringKernels(family);
  };
  f.traceBlock = access::detail::traceClusteringBlock;
  // The seed's clustering workload takes hours on the CPU executor: by default only with a GPU,
  // or with the sizes given.
  auto seedWorkload = [](const BenchOptions& o) { return o.cuda || !o.n.empty(); };
  if (kmeans) {
    f.benches = {
        {"clustering", "k-centers (figure 19) and k-means at the seed's workload", seedWorkload,
         [](const BenchOptions& o, std::ostream& out, ResultsFile& file) {
           return clustering::bench(o, "clustering", out, file);
         }},
        {"kmeans", "k-means alone", [](const BenchOptions&) { return false; },
         [](const BenchOptions& o, std::ostream& out, ResultsFile& file) {
           return clustering::bench(o, "kmeans", out, file);
         }},
        {"best", "the fastest variants against the ceilings of the same run (CUDA)",
         [](const BenchOptions& o) { return o.cuda; }, clustering::benchBest},
    };
  } else {
    f.benches = {{"kcenters", "k-centers alone", [](const BenchOptions&) { return false; },
                  [](const BenchOptions& o, std::ostream& out, ResultsFile& file) {
                    return clustering::bench(o, "kcenters", out, file);
                  }}};
  }
  return f;
}

}  // namespace

const FamilyDescriptor& kmeansFamily() {
  static const FamilyDescriptor f = makeDescriptor(kKMeans);
  return f;
}

const FamilyDescriptor& kcentersFamily() {
  static const FamilyDescriptor f = makeDescriptor(kKCenters);
  return f;
}

}  // namespace kernellab

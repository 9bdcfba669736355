// SPDX-License-Identifier: MIT
// Clustering address tracer: one block of a k-means kernel (assign, centroids, score) or a
// k-centers kernel (distance, select) of a seed variant, run through the block programs of
// clustering_phases.h, the code the CUDA kernels and the CPU executor run, after the launches
// before it (real values: the centroid update and the score branch on labels, k-centers on
// distances, the max-reduction's stores on the values it compares). The recording Block and Mem
// are in clustering_trace_policies.h.
#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include "clustering_parts.h"
#include "clustering_trace_policies.h"
#include "kernellab/backend.h"
#include "kernellab/block_executor.h"
#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/host_block.h"

namespace kernellab::access::detail {

namespace {

using namespace kernellab::clustering;
using namespace clustering_trace;

enum class Kernel { Assign, Centroids, Score, Distance, Select };

// ---- the query ----------------------------------------------------------------------------

struct KernelEntry {
  Kernel kernel;
  Family family;
  KernelChoice choice;
};

const std::vector<KernelEntry>& kernelTable() {
  static const std::vector<KernelEntry> table = {
      {Kernel::Assign,
       clustering::kKMeans,
       {"assign", "assignToClustersKernel",
        "one thread per point, the nearest of the K centroids (iteration 1; its addresses do not "
        "depend on the values)"}},
      {Kernel::Centroids,
       clustering::kKMeans,
       {"centroids", "calcCentroidsKernel",
        "block c walks all labels per dimension and sums cluster c's points (iteration 2: the "
        "labels of the first assign on the request's points)"}},
      {Kernel::Score,
       clustering::kKMeans,
       {"score", "calcScoreKernel",
        "block c sums the squared distances of cluster c's points to its centroid (iteration 1)"}},
      {Kernel::Distance,
       clustering::kKCenters,
       {"distance", "kcentersDistanceKernel",
        "one thread per point: distance to the new center, kept when nearer, block max-reduction "
        "(the second center's launch, the first that compares with earlier distances)"}},
      {Kernel::Select,
       clustering::kKCenters,
       {"select", "kcentersSelectKernel",
        "one block folds the distance blocks' candidates into the next center (second center)"}},
  };
  return table;
}

const KernelEntry& kernelFor(Family family, const std::string& id) {
  std::string known;
  for (const auto& e : kernelTable()) {
    if (e.family != family) continue;
    if (id.empty() || e.choice.id == id) return e;
    known += (known.empty() ? "" : ", ") + e.choice.id;
  }
  throw InputError("--kernel " + id + ": unknown " + toString(family) + " kernel (known: " + known +
                   ")");
}

VariantInfo seedVariant(Family family, const std::string& id) {
  for (const auto& v : variants(family)) {
    if (v.id != id) continue;
    if (v.engine != Engine::Seed)
      throw InputError(
          "--variant " + id + ": no access tracer for the engines (best, pruned, the cuBLAS " +
          "peers: their kernels are not KL_HD block programs); trace a seed variant: " +
          "shared-coalesced, global-coalesced, shared-interleaved, global-interleaved");
    return v;
  }
  std::string known;
  for (const auto& v : variants()) known += (known.empty() ? "" : ", ") + v.id;
  throw InputError("--variant " + id + ": unknown " + toString(family) +
                   " variant (known: " + known + ")");
}

std::string counted(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Everything one trace needs, fixed before any launch runs.
struct Setup {
  Family family;
  VariantInfo variant;
  Kernel kernel;
  std::string kernelName;
  int64_t n = 0;
  int d = 0;
  int k = 0;
  int size = 0;    // threads per block
  int gridN = 0;   // blocks of the per-point kernels
  int grid = 0;    // blocks of the traced kernel
  int block = 0;   // the traced block
  int center = 0;  // k-centers: which center's launch
  bool sharedScratch = true;
  std::array<BufPlan, kBufCount> plan;
};

void planBuffers(Setup& su) {
  const uint64_t n = uint64_t(su.n), d = uint64_t(su.d), k = uint64_t(su.k),
                 grid = uint64_t(su.gridN);
  const uint64_t slots = std::max<uint64_t>(grid, k) * uint64_t(su.size);
  // Global buffers one after the other, each at a cudaMalloc-like aligned address.
  struct Global {
    Buf buf;
    const char* name;
    int bytes;
    uint64_t count;
    bool allocated;
  };
  const bool kc = su.family == clustering::kKCenters;
  const Global globals[] = {
      {kPoints, "points", 4, n * d, true},
      {kLabels, "labels", 4, n, true},
      {kDist, "distances", 4, n, kc},
      {kCenterIndex, "centerIndex", 4, k, true},
      {kRadius, "radius", 4, k, true},
      {kCandValue, "candidateValue", 4, grid, true},
      {kCandIndex, "candidateIndex", 4, grid, true},
      {kCentroids, "centroids", 4, k * d, true},
      {kClusterScore, "clusterScore", 8, k, true},
      {kClusterCount, "clusterCount", 4, k, true},
      {kScratchF, "scratchF", 4, slots, !su.sharedScratch},
      {kScratchD, "scratchD", 8, slots, !su.sharedScratch},
      {kScratchI, "scratchI", 4, slots, !su.sharedScratch},
  };
  uint64_t cursor = 0;
  for (const Global& g : globals) {
    BufPlan& p = su.plan[size_t(g.buf)];
    p = {g.name, Space::Global, g.bytes, cursor};
    if (g.allocated) cursor = alignedAfter(cursor + g.count * uint64_t(g.bytes));
  }
  // The block's dynamic shared memory, carved as the kernel carves it.
  BlockNeeds needs{};
  switch (su.kernel) {
    case Kernel::Assign:
      needs = assignNeeds(su.sharedScratch);
      break;
    case Kernel::Centroids:
      needs = kCentroidNeeds;
      break;
    case Kernel::Score:
      needs = scoreNeeds(su.sharedScratch);
      break;
    case Kernel::Distance:
      needs = kDistanceNeeds;
      break;
    case Kernel::Select:
      needs = kSelectNeeds;
      break;
  }
  const SharedLayout l = sharedLayout(needs, su.sharedScratch, unsigned(su.size));
  su.plan[kStage] = {"stage", Space::Shared, 4, l.stage};
  if (su.sharedScratch) {
    su.plan[kScratchF] = {"scratchF", Space::Shared, 4, l.f};
    su.plan[kScratchD] = {"scratchD", Space::Shared, 8, l.d};
    su.plan[kScratchI] = {"scratchI", Space::Shared, 4, l.i};
  }
}

// An estimate of the accesses of `threads` threads of the block, to refuse a trace that cannot
// fit before any launch runs (the centroid update walks all N labels per dimension: at the seed's
// N = 1e6, D = 200 that is 2e8 accesses for one block). Clusters are taken as even.
double estimatedAccesses(const Setup& su, int threads) {
  const double size = su.size, n = double(su.n), d = su.d, k = su.k, share = threads / size;
  const double reduce = 6.0 * threads;  // every step's reads and writes, summed over the steps
  switch (su.kernel) {
    case Kernel::Assign:
      return threads * k * d * 2.0 + k * d * 2.0 + threads;
    case Kernel::Centroids:
      return d * (n * share + 2.0 * threads + reduce);
    case Kernel::Score:
      return (2.0 * n + 2.0 * d * n / k) * share + 2.0 * threads + reduce;
    case Kernel::Distance:
      return threads * (2.0 * d + 6.0) + 2.0 * d + reduce;
    case Kernel::Select:
      return double(su.gridN) * 2.0 * share + 2.0 * threads + reduce;
  }
  return 0;
}

// The launches before the traced one run on the CPU: their distance terms, bounded so that the
// lens answers in seconds (a full assign at the seed's N, K, D is 2e10 terms).
constexpr double kPrerequisiteTerms = 1e9;

double prerequisiteTerms(const Setup& su) {
  switch (su.kernel) {
    case Kernel::Centroids:
    case Kernel::Score:
      return double(su.n) * su.k * su.d;
    case Kernel::Distance:
      return double(su.n) * su.d * su.center;
    case Kernel::Select:
      return double(su.n) * su.d * (su.center + 1);
    case Kernel::Assign:
      break;
  }
  return 0;
}

// ---- launches ---------------------------------------------------------------------------------

// Runs `program` over every block of a launch without recording (the launches before the traced
// one), on the executor's HostBlock, blocks in parallel.
template <class State, class Program>
void launchAll(Arrays& a, int size, int grid, Program&& program) {
  forEachBlock({grid, 1}, [&](int bx, int) {
    thread_local std::vector<State> states;
    thread_local Workspace ws;
    ws.reset(size);
    TraceMem m{&a, &ws, nullptr, 0};
    HostBlock<State> blk(bx, size, grid, states, nullptr);
    program(blk, m);
  });
}

// Runs one block of a launch, recording.
template <class State, class Program>
void traceOne(Arrays& a, const Setup& su, Recorder& rec, Program&& program) {
  Workspace ws;
  ws.reset(su.size);
  std::vector<State> states;
  Tracing tracing(&rec, su.plan, su.size);
  TraceMem m{&a, &ws, &tracing, su.sharedScratch ? 0 : static_cast<int64_t>(su.block) * su.size};
  TraceBlock<State> blk(su.block, su.size, su.grid, states, tracing);
  program(blk, m);
}

template <class L>
std::string layoutText() {
  return std::is_same_v<L, CoalescedLayout> ? "coalesced layout X[d*N+i]"
                                            : "interleaved layout X[i*D+d]";
}

std::string pointsOfBlock(const Setup& su) {
  const int64_t first = int64_t(su.block) * su.size;
  const int64_t last = std::min<int64_t>(su.n, first + su.size) - 1;
  return "points " + std::to_string(first) + ".." + std::to_string(last);
}

// Runs the launches before the traced one (with real values) and traces the block.
template <class L>
std::string traceWith(const Setup& su, const PointSet* s, const PointsView<L>& X,
                      const RunRequest& r, Recorder& rec) {
  const bool staged = su.sharedScratch;  // the shared variants stage the centroid
  const std::string scratch =
      su.sharedScratch ? "scratch in shared memory" : "scratch in the block's global slice";
  Arrays a;
  const int k = su.k;
  const auto assignProgram = [&](auto& blk, TraceMem& m) {
    if (staged)
      assignBlock<L, true>(blk, m, X, k);
    else
      assignBlock<L, false>(blk, m, X, k);
  };
  if (su.family == clustering::kKMeans) {
    a.labels.assign(size_t(su.n), -1);
    a.clusterScore.assign(size_t(k), 0.0);
    a.clusterCount.assign(size_t(k), 0);
    std::string centres;
    if (su.kernel == Kernel::Assign) {
      a.centroids.assign(size_t(k) * size_t(su.d), 0.0f);  // addresses only: no values needed
    } else {
      const InitialCenters init = initialCenters(*s, k, r.section<ClusteringProblem>().init, r.seed,
                                                 r.section<ClusteringProblem>().centersPath);
      a.centroids = init.values;
      centres = init.how;
      launchAll<AssignThread>(a, su.size, su.gridN, assignProgram);  // iteration 1's assign
    }
    switch (su.kernel) {
      case Kernel::Assign:
        traceOne<AssignThread>(a, su, rec, assignProgram);
        return "block " + std::to_string(su.block) + " of " + std::to_string(su.grid) + ": " +
               pointsOfBlock(su) + ", one per thread, against " +
               counted(k, "centroid", "centroids") + " of D = " + std::to_string(su.d) + "; " +
               layoutText<L>() + "; " +
               (staged ? "each centroid staged in shared memory"
                       : "every thread reads the centroid from global memory");
      case Kernel::Centroids: {
        traceOne<SumThread>(a, su, rec, [&](auto& blk, TraceMem& m) { centroidsBlock(blk, m, X); });
        const int64_t members = std::count(a.labels.begin(), a.labels.end(), su.block);
        return "block " + std::to_string(su.block) + " owns cluster " + std::to_string(su.block) +
               " (" + counted(members, "point", "points") + " after the first assign from " +
               centres + "): it reads all " + std::to_string(su.n) +
               " labels per dimension, thread t points t, t+" + std::to_string(su.size) +
               ", ...; " + layoutText<L>() + "; " + scratch;
      }
      case Kernel::Score: {
        traceOne<SumThread>(a, su, rec, [&](auto& blk, TraceMem& m) {
          if (staged)
            scoreBlock<L, true>(blk, m, X);
          else
            scoreBlock<L, false>(blk, m, X);
        });
        const int64_t members = std::count(a.labels.begin(), a.labels.end(), su.block);
        return "block " + std::to_string(su.block) + " scores cluster " + std::to_string(su.block) +
               " (" + counted(members, "point", "points") + " after the first assign from " +
               centres + "), " + std::to_string(su.size) + " points per round; " + layoutText<L>() +
               "; " +
               (staged ? "centroid staged in shared memory, " : "centroid read from global, ") +
               scratch;
      }
      default:
        break;
    }
    throw std::logic_error("clustering access tracer: kernel not of k-means");
  }

  // k-centers: center 0 from the request's rule, then center j's distance and select launches.
  a.labels.assign(size_t(su.n), -1);
  a.dist.assign(size_t(su.n), 0.0f);
  a.centerIndex.assign(size_t(k), -1);
  a.radius.assign(size_t(k), 0.0f);
  a.candValue.assign(size_t(su.gridN), 0.0f);
  a.candIndex.assign(size_t(su.gridN), -1);
  a.centerIndex[0] =
      static_cast<int32_t>(firstCenter(*s, r.section<ClusteringProblem>().init, r.seed));
  const auto distanceProgram = [&](int j) {
    return [&, j](auto& blk, TraceMem& m) { kcentersDistanceBlock(blk, m, X, j); };
  };
  const auto selectProgram = [&](int j) {
    return [&, j](auto& blk, TraceMem& m) { kcentersSelectBlock(blk, m, su.gridN, j, k); };
  };
  for (int j = 0; j < su.center; ++j) {
    launchAll<KCentersThread>(a, su.size, su.gridN, distanceProgram(j));
    launchAll<KCentersThread>(a, su.size, 1, selectProgram(j));
  }
  const std::string which = "center " + std::to_string(su.center + 1) + " (point " +
                            std::to_string(a.centerIndex[size_t(su.center)]) + ")";
  if (su.kernel == Kernel::Distance) {
    traceOne<KCentersThread>(a, su, rec, distanceProgram(su.center));
    return "launch for " + which + ", block " + std::to_string(su.block) + " of " +
           std::to_string(su.grid) + ": " + pointsOfBlock(su) + ", one per thread" +
           (su.center > 0 ? ", each compared with its distance to the earlier centers" : "") +
           "; the center staged in shared memory; " + layoutText<L>() + "; " + scratch;
  }
  launchAll<KCentersThread>(a, su.size, su.gridN, distanceProgram(su.center));
  traceOne<KCentersThread>(a, su, rec, selectProgram(su.center));
  return "launch after " + which + "'s distances: the one block folds " +
         counted(su.gridN, "candidate", "candidates") + " (one per distance block), " +
         std::to_string(su.size) + " threads; " + scratch;
}

}  // namespace

const std::vector<KernelChoice>& clusteringKernels(Family family) {
  static const auto pick = [](Family f) {
    std::vector<KernelChoice> out;
    for (const auto& e : kernelTable())
      if (e.family == f) out.push_back(e.choice);
    return out;
  };
  static const std::vector<KernelChoice> kmeans = pick(clustering::kKMeans);
  static const std::vector<KernelChoice> kcenters = pick(clustering::kKCenters);
  return family == clustering::kKCenters ? kcenters : kmeans;
}

bool canTraceClustering(Family family, const std::string& variant) {
  for (const auto& v : variants(family))
    if (v.id == variant) return v.engine == Engine::Seed;
  return false;
}

BlockTrace traceClusteringBlock(const AccessQuery& q, ThreadRange keep) {
  Setup su;
  su.family = q.request.family;
  su.variant = seedVariant(su.family, q.variant);
  const KernelEntry& entry = kernelFor(su.family, q.kernel);
  su.kernel = entry.kernel;
  su.kernelName = entry.choice.name;
  su.sharedScratch = su.variant.memory == ScratchMemory::Shared;

  // The family's own validation, as `kernellab-cli run` on the CPU backend would do it.
  RunRequest r = q.request;
  r.variants = {su.variant.id};
  BackendDecision cpu;
  cpu.device = cpuDeviceInfo();
  kernellab::detail::validateClustering(r, cpu);

  // Values steer the traced kernels except assign; a points file is read for its size anyway.
  // Generated points are made only after the size check below (the seed's are 800 MB).
  const bool fromFile = !r.section<ClusteringProblem>().inputPath.empty();
  const bool needValues = su.kernel != Kernel::Assign || fromFile;
  PointSet points;
  if (fromFile) {
    points = makePoints(r.section<ClusteringProblem>(), r.seed);
    su.n = points.n;
    su.d = points.d;
  } else {
    su.n = r.section<ClusteringProblem>().n;
    su.d = r.section<ClusteringProblem>().d;
  }
  su.k = r.section<ClusteringProblem>().k;
  su.size = r.launch.threadsPerBlock;
  su.gridN = static_cast<int>((su.n + su.size - 1) / su.size);
  su.center = std::min(1, su.k - 1);
  switch (su.kernel) {
    case Kernel::Assign:
    case Kernel::Distance:
      su.grid = su.gridN;
      break;
    case Kernel::Centroids:
    case Kernel::Score:
      su.grid = su.k;
      break;
    case Kernel::Select:
      su.grid = 1;
      break;
  }
  if (q.block.x < 0 || q.block.x >= su.grid || q.block.y != 0)
    throw InputError("--block " + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                     " is outside the grid (0.." + std::to_string(su.grid - 1) + ", 0..0) of " +
                     su.kernelName);
  su.block = q.block.x;
  planBuffers(su);

  BlockTrace t;
  t.recorder.keepOnly(keep);
  const int recorded = keep.of(su.size);
  const double estimate = estimatedAccesses(su, recorded);
  const std::string size = "--n " + std::to_string(su.n) + " --k " + std::to_string(su.k) +
                           " --d " + std::to_string(su.d) + " --tpb " + std::to_string(su.size);
  if (estimate > double(t.recorder.maxRecords()))
    throw TraceTooLarge(su.kernelName + ": " + std::to_string(recorded) + " threads make about " +
                        std::to_string(static_cast<int64_t>(estimate)) + " accesses at " + size +
                        "; the access lens traces at most " +
                        std::to_string(t.recorder.maxRecords()) +
                        " (choose a smaller --n, --k or --d, or fewer threads per block)");
  // Room for the estimate (or the caller's count from a traced warp) up front: no reallocation
  // while a warp records its million accesses.
  t.recorder.reserve(std::max(q.expectedRecords, static_cast<size_t>(estimate)));
  const double before = prerequisiteTerms(su);
  if (before > kPrerequisiteTerms)
    throw InputError(su.kernelName +
                     " is traced after the launches before it, which run on the "
                     "CPU: " +
                     std::to_string(static_cast<int64_t>(before / 1e6)) + "e6 distance terms at " +
                     size + "; the access lens runs at most " +
                     std::to_string(static_cast<int64_t>(kPrerequisiteTerms / 1e6)) +
                     "e6 (choose a smaller problem)");
  if (needValues && !fromFile) points = makePoints(r.section<ClusteringProblem>(), r.seed);
  t.blockDim = {su.size, 1};
  t.gridDim = {su.grid, 1};
  t.blockIdx = {su.block, 0};
  t.kernel = su.kernelName;
  if (su.variant.layout == DataLayout::Coalesced) {
    if (needValues) {
      const ArrangedPoints<CoalescedLayout> arranged(points);
      t.description = traceWith(su, &points, arranged.view(), r, t.recorder);
    } else {
      t.description =
          traceWith(su, &points, PointsView<CoalescedLayout>::shapeOnly(su.n, su.d), r, t.recorder);
    }
  } else {
    if (needValues) {
      const ArrangedPoints<InterleavedLayout> arranged(points);
      t.description = traceWith(su, &points, arranged.view(), r, t.recorder);
    } else {
      t.description = traceWith(su, &points, PointsView<InterleavedLayout>::shapeOnly(su.n, su.d),
                                r, t.recorder);
    }
  }
  return t;
}

}  // namespace kernellab::access::detail

// SPDX-License-Identifier: MIT
// Range checks of a parsed results file (results_validation.h). A bad file is refused whole, with
// the path of the first bad field, before any view or the history sees it.
#include "kernellab/results_validation.h"

#include <limits>

#include "kernellab/errors.h"
#include "kernellab/input_text.h"

namespace kernellab {
namespace {

constexpr int64_t kMaxIndexed = std::numeric_limits<int32_t>::max();  // 32-bit kernel indices

[[noreturn]] void refuse(const std::string& field, const std::string& why) {
  throw InputError(field + " " + why);
}

void atLeast(int64_t v, int64_t min, const std::string& field) {
  if (v < min) refuse(field, "= " + std::to_string(v) + " is below " + std::to_string(min));
}

void within(int64_t v, int64_t min, int64_t max, const std::string& field,
            const std::string& why = {}) {
  if (v < min || v > max)
    refuse(field, "= " + std::to_string(v) + " is outside " + std::to_string(min) + ".." +
                      std::to_string(max) + (why.empty() ? "" : " (" + why + ")"));
}

void sizeIs(size_t size, uint64_t expected, const std::string& field, const std::string& why) {
  if (size != expected)
    refuse(field, "has " + std::to_string(size) + " entries; " + why + " needs " +
                      std::to_string(expected));
}

// Sizes a run's request promises for its outputs; -1 when the request cannot tell (file input).
struct Expect {
  int64_t points = -1;  // clustering N
  int64_t dims = -1;    // clustering D
  int64_t k = -1;       // clusters (clustering) or neighbours (knn)
  int64_t pixels = -1;  // knn rows x cols
};

Expect checkRequest(const RunRequest& r, const std::string& at, bool ran) {
  Expect e;
  const bool clustering = r.family == Family::KMeans || r.family == Family::KCenters;
  if (!ran) {
    // Not run (a skipped sweep point): the request only records what was asked. Outputs are
    // absent, so nothing below depends on its numbers.
    return e;
  }
  atLeast(r.transpose.width, 0, at + ".transpose.width");
  atLeast(r.transpose.height, 0, at + ".transpose.height");
  atLeast(r.launch.threadsPerBlock, 0, at + ".launch.threads_per_block");
  atLeast(r.launch.tile, 0, at + ".launch.tile");
  atLeast(r.launch.rowsPerThread, 0, at + ".launch.rows_per_thread");
  atLeast(r.launch.blockX, 0, at + ".launch.block_x");
  atLeast(r.launch.blockY, 0, at + ".launch.block_y");
  atLeast(r.warmup, 0, at + ".warmup");
  atLeast(r.repetitions, 0, at + ".repetitions");
  if (clustering) {
    const ClusteringProblem& c = r.clustering;
    within(c.k, 1, kMaxIndexed, at + ".clustering.k");
    atLeast(c.maxIterations, 0, at + ".clustering.max_iterations");
    e.k = c.k;
    if (c.inputPath.empty()) {
      within(c.n, 1, kMaxIndexed, at + ".clustering.n", "point indices are 32-bit");
      within(c.d, 1, std::numeric_limits<int>::max(), at + ".clustering.d");
      e.points = c.n;
      e.dims = c.d;
    }
  }
  if (r.family == Family::Knn) {
    const KnnProblem& q = r.knn;
    within(q.k, 0, kMaxIndexed, at + ".knn.k");
    e.k = q.k;
    if (q.inputPath.empty()) {
      within(q.rows, 1, kMaxIndexed, at + ".knn.rows");
      within(q.cols, 1, kMaxIndexed, at + ".knn.cols");
      within(q.components, 1, kMaxIndexed, at + ".knn.components");
      const int64_t pixels = int64_t(q.rows) * q.cols;
      within(pixels, 1, kMaxIndexed, at + ".knn rows x cols", "pixel indices are 32-bit");
      e.pixels = pixels;
    }
  }
  return e;
}

void checkClustering(const ClusteringOutput& c, Expect e, const std::string& at) {
  const int64_t k = e.k;
  if (!c.labels.empty()) {
    if (k < 1) refuse(at + ".labels", "are present but the request has no K");
    if (e.points >= 0) sizeIs(c.labels.size(), uint64_t(e.points), at + ".labels", "N");
    for (size_t i = 0; i < c.labels.size(); ++i)
      if (c.labels[i] < -1 || c.labels[i] >= k)
        refuse(at + ".labels[" + std::to_string(i) + "]",
               "= " + std::to_string(c.labels[i]) + " is outside -1.." + std::to_string(k - 1) +
                   " (K = " + std::to_string(k) + ")");
    if (e.points < 0) e.points = static_cast<int64_t>(c.labels.size());
  }
  if (!c.centers.empty() && e.dims > 0) {
    if (c.centers.size() % uint64_t(e.dims) != 0 ||
        c.centers.size() / uint64_t(e.dims) > uint64_t(k))
      refuse(at + ".centers", "has " + std::to_string(c.centers.size()) + " values; K x D is " +
                                  std::to_string(k) + " x " + std::to_string(e.dims));
  }
  if (c.centerIndices.size() > uint64_t(std::max<int64_t>(k, 0)))
    refuse(at + ".center_indices",
           "has " + std::to_string(c.centerIndices.size()) + " entries; K is " + std::to_string(k));
  const int64_t lastPoint = e.points >= 0 ? e.points - 1 : kMaxIndexed;
  for (size_t i = 0; i < c.centerIndices.size(); ++i)
    within(c.centerIndices[i], 0, lastPoint, at + ".center_indices[" + std::to_string(i) + "]",
           "a point index");
  atLeast(c.iterations, 0, at + ".iterations");
  if (!c.clusterSizes.empty()) {
    sizeIs(c.clusterSizes.size(), uint64_t(k), at + ".cluster_sizes", "K");
    for (size_t i = 0; i < c.clusterSizes.size(); ++i)
      within(c.clusterSizes[i], 0, e.points >= 0 ? e.points : kMaxIndexed,
             at + ".cluster_sizes[" + std::to_string(i) + "]", "a count of points");
  }
}

void checkKnn(const KnnDetails& d, Expect e, const std::string& at) {
  atLeast(d.candidatesPerPixel, 0, at + ".candidates_per_pixel");
  within(d.k, 0, kMaxIndexed, at + ".k");
  if (d.squaredDistances.size() != d.indices.size() && !d.squaredDistances.empty())
    refuse(at + ".squared_distances", "has " + std::to_string(d.squaredDistances.size()) +
                                          " entries; indices has " +
                                          std::to_string(d.indices.size()));
  if (d.indices.empty()) return;
  if (d.k < 1) refuse(at + ".indices", "are present but k is " + std::to_string(d.k));
  if (e.pixels >= 0)
    sizeIs(d.indices.size(), uint64_t(e.pixels) * uint64_t(d.k), at + ".indices",
           "rows x cols x k");
  else if (d.indices.size() % uint64_t(d.k) != 0)
    refuse(at + ".indices", "has " + std::to_string(d.indices.size()) +
                                " entries, not a multiple of k = " + std::to_string(d.k));
  const int64_t pixels = e.pixels >= 0 ? e.pixels : int64_t(d.indices.size() / uint64_t(d.k));
  for (size_t i = 0; i < d.indices.size(); ++i)
    if (d.indices[i] < -1 || d.indices[i] >= pixels)
      refuse(at + ".indices[" + std::to_string(i) + "]",
             "= " + std::to_string(d.indices[i]) + " is outside -1.." + std::to_string(pixels - 1) +
                 " (a pixel index)");
}

void checkVariant(const VariantResult& v, const Expect& e, Family family, const std::string& at) {
  for (size_t q = 0; q < v.kernels.size(); ++q) {
    const KernelResult& kr = v.kernels[q];
    const std::string k = at + ".kernels[" + std::to_string(q) + "]";
    atLeast(kr.gridX, 0, k + ".grid[0]");
    atLeast(kr.gridY, 0, k + ".grid[1]");
    atLeast(kr.blockX, 0, k + ".block[0]");
    atLeast(kr.blockY, 0, k + ".block[1]");
    atLeast(kr.launches, 0, k + ".launches");
    atLeast(kr.timing.samples, 0, k + ".timing.samples");
    if (kr.resources) {
      const ResourceUsage& r = *kr.resources;
      atLeast(r.registersPerThread, 0, k + ".resources.registers_per_thread");
      atLeast(r.staticSharedBytes, 0, k + ".resources.static_shared_bytes");
      atLeast(r.dynamicSharedBytes, 0, k + ".resources.dynamic_shared_bytes");
      atLeast(r.localBytesPerThread, 0, k + ".resources.local_bytes_per_thread");
      atLeast(r.maxThreadsPerBlock, 0, k + ".resources.max_threads_per_block");
      atLeast(r.maxActiveBlocksPerSM, 0, k + ".resources.max_active_blocks_per_sm");
      atLeast(r.threadsPerBlock, 0, k + ".resources.threads_per_block");
    }
  }
  atLeast(v.total.samples, 0, at + ".total.samples");
  const int64_t lastPoint = e.points >= 0 ? e.points - 1 : kMaxIndexed;
  for (size_t i = 0; i < v.iterations.size(); ++i) {
    const IterationRecord& r = v.iterations[i];
    const std::string it = at + ".iterations[" + std::to_string(i) + "]";
    atLeast(r.iteration, 0, it + ".iteration");
    within(r.chosenPoint, -1, lastPoint, it + ".chosen_point", "-1 or a point index");
    atLeast(r.rechecked, -1, it + ".rechecked");
    if (!r.kernelMs.empty() && r.kernelMs.size() != v.kernels.size())
      refuse(it + ".kernel_ms", "has " + std::to_string(r.kernelMs.size()) +
                                    " times; the variant has " + std::to_string(v.kernels.size()) +
                                    " kernels");
  }
  for (size_t i = 0; i < v.schedule.size(); ++i) {
    const BlockRecord& b = v.schedule[i];
    const std::string s = at + ".schedule[" + std::to_string(i) + "]";
    atLeast(b.blockId, 0, s + " block");
    within(b.smId, 0, kMaxRecordedSmId, s + " sm");
    atLeast(b.tileX, 0, s + " tile_x");
    atLeast(b.tileY, 0, s + " tile_y");
    if (b.endNs < b.startNs)
      refuse(s, "ends (" + std::to_string(b.endNs) + " ns) before it starts (" +
                    std::to_string(b.startNs) + " ns)");
  }
  if (v.clustering) {
    if (family != Family::KMeans && family != Family::KCenters)
      refuse(at + ".clustering", "is present in a " + std::string(toString(family)) + " run");
    checkClustering(*v.clustering, e, at + ".clustering");
  }
  if (v.knn) {
    if (family != Family::Knn)
      refuse(at + ".knn", "is present in a " + std::string(toString(family)) + " run");
    checkKnn(*v.knn, e, at + ".knn");
  }
}

}  // namespace

void validateResultsFile(const ResultsFile& file) {
  within(file.schemaVersion, 1, kSchemaVersion, "schema_version");
  if (file.kind != "kernellab-results")
    refuse("kind", "is '" + excerpt(file.kind) + "', not 'kernellab-results'");
  uint64_t product = 1;
  for (size_t a = 0; a < file.sweep.size(); ++a) {
    const SweepAxis& axis = file.sweep[a];
    const std::string at = "sweep[" + std::to_string(a) + "]";
    if (axis.name.empty()) refuse(at + ".axis", "is empty");
    if (axis.values.empty())
      refuse(at + ".values", "is empty (axis '" + excerpt(axis.name) + "' has no values)");
    if (__builtin_mul_overflow(product, uint64_t(axis.values.size()), &product))
      product = std::numeric_limits<uint64_t>::max();
  }
  if (!file.sweep.empty() && file.runs.size() > product)
    refuse("runs", "has " + std::to_string(file.runs.size()) + " runs; the sweep's axes make " +
                       std::to_string(product));
  for (size_t i = 0; i < file.runs.size(); ++i) {
    const RunResult& run = file.runs[i];
    const std::string at = "runs[" + std::to_string(i) + "]";
    within(run.schemaVersion, 1, kSchemaVersion, at + ".schema_version");
    within(run.device.smCount, 0, 65536, at + ".device.sm_count");
    atLeast(run.device.maxThreadsPerBlock, 0, at + ".device.max_threads_per_block");
    atLeast(run.device.warpSize, 0, at + ".device.warp_size");
    const Expect e = checkRequest(run.request, at + ".request", !run.variants.empty());
    for (size_t v = 0; v < run.variants.size(); ++v)
      checkVariant(run.variants[v], e, run.request.family,
                   at + ".variants[" + std::to_string(v) + "]");
  }
}

}  // namespace kernellab

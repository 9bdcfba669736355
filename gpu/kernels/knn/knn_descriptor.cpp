// SPDX-License-Identifier: MIT
// The window-KNN family's descriptor (kernellab/family.h): what the core, the CLI, the verify
// suite, the access lens and the window know of it.
#include <algorithm>
#include <limits>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/family_json.h"
#include "kernellab/knn.h"
#include "kernellab/results_validation.h"
#include "kernellab/text.h"
#include "knn_parts.h"

namespace kernellab {
namespace {

template <class F, class V>
void windowMismatchFields(F& f, V& v) {
  f("reference", v.reference);
  f("pixels", v.pixels);
  f("mismatched", v.mismatched);
  f("tie_swaps", v.tieSwaps);
  f("different_neighbours", v.differentNeighbours);
  f("mismatch_pct", v.mismatchPct);
  f("slots", v.slotsCompared);
  f("slots_mismatched", v.slotsMismatched);
  f("slot_tie_swaps", v.slotTieSwaps);
  f("slot_mismatch_pct", v.slotMismatchPct);
}

template <class F, class V>
void detailsFields(F& f, V& v) {
  f("window", v.window);
  f("shared_bytes_per_block", v.sharedBytesPerBlock);
  f("shared_opt_in", v.sharedOptIn);
  f("candidates_per_pixel", v.candidatesPerPixel);
  f("reference_pixels", v.referencePixels);
  f("reference_sampled", v.referenceSampled);
  f("versus_per_pixel", v.versusPerPixel);
  // The lists only when kept (request knn.keep_neighbours): they are large.
  const bool kept = !v.indices.empty();
  f.when(kept, "k", v.k);
  f.when(kept, "indices", v.indices);
  f.when(kept, "squared_distances", v.squaredDistances);
}

}  // namespace

KL_JSON_FIELDS(KnnWindowMismatch, windowMismatchFields)
KL_JSON_FIELDS(KnnDetails, detailsFields)

namespace {

using knn::kFamily;

KnnProblem& problemOf(RunRequest& r) { return r.section<KnnProblem>(); }
const KnnProblem& problemOf(const RunRequest& r) { return r.section<KnnProblem>(); }

RequestCodec requestSection() {
  return kernellab::requestSection<KnnProblem>(
      "knn",
      [](auto& f, auto& v, Family, bool) {
        f("rows", v.rows);
        f("cols", v.cols);
        f("components", v.components);
        f("window", v.window);
        f("k", v.k);
        f("input_path", v.inputPath);
        f("keep_neighbours", v.keepNeighbours);
      },
      [](auto& f, auto& v) {  // the block shape, in the request's "launch" object (schema 1)
        f("block_x", v.blockX);
        f("block_y", v.blockY);
      });
}

bool given(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

std::vector<FamilyParameter> parameters() {
  std::vector<FamilyParameter> list;
  list.push_back({"input", "Image file", "feature image (.npy: rows x cols [x C])",
                  [](RunRequest& r, const std::string& v) { problemOf(r).inputPath = v; }, true});
  FamilyParameter image{"image", "Image size", "ROWSxCOLS[xC] feature image",
                        [](RunRequest& r, const std::string& v) {
                          const auto dims = parseDims(v, "--image", kIntMax);
                          KnnProblem& p = problemOf(r);
                          p.rows = static_cast<int>(dims[0]);  // as the seed writes 377x329
                          p.cols = static_cast<int>(dims[1]);
                          if (dims.size() > 2) p.components = static_cast<int>(dims[2]);
                        }};
  image.label = [](const RunRequest& r) {
    return std::to_string(problemOf(r).rows) + "x" + std::to_string(problemOf(r).cols);
  };
  image.number = [](const RunRequest& r) {
    return double(problemOf(r).rows) * double(problemOf(r).cols);
  };
  list.push_back(image);
  FamilyParameter window{"window", "Window rows", "rows of the search window",
                         [](RunRequest& r, const std::string& v) {
                           problemOf(r).window = parseIntegerAs<int>(v, "--window");
                         }};
  window.label = [](const RunRequest& r) {
    return "window " + std::to_string(problemOf(r).window);
  };
  window.number = [](const RunRequest& r) { return double(problemOf(r).window); };
  list.push_back(window);
  list.push_back(
      {"k", "Neighbours k", "neighbours per pixel", [](RunRequest& r, const std::string& v) {
         problemOf(r).k = parseIntegerAs<int>(v, "--k");
       }});
  list.push_back({"block", "Block shape",
                  "block shape XxY in threads, x along a row (sets --tpb to X*Y); auto: from --tpb",
                  [](RunRequest& r, const std::string& v) {
                    if (toLower(v) == "auto") {  // derived from threads per block
                      problemOf(r).blockX = problemOf(r).blockY = 0;
                      return;
                    }
                    const auto [bx, by] = parseSize(v, "--block", kIntMax);
                    if (bx < 1 || by < 1 || bx > 1024 || by > 1024)
                      throw InputError("--block " + v + ": each side must be 1..1024 threads");
                    problemOf(r).blockX = static_cast<int>(bx);
                    problemOf(r).blockY = static_cast<int>(by);
                    r.launch.threadsPerBlock = static_cast<int>(bx * by);
                  }});
  return list;
}

// A file decides the image's size; --block and --tpb say the block's size twice.
void finishRequest(RunRequest& r, const std::vector<std::string>& names) {
  const KnnProblem& p = problemOf(r);
  if (given(names, "input") && !p.inputPath.empty() && given(names, "image"))
    throw InputError("--image " + std::to_string(p.rows) + "x" + std::to_string(p.cols) +
                     " does not apply with --input " + p.inputPath +
                     ": the file's size is the problem's size");
  if (given(names, "block") && given(names, "tpb") && p.blockX > 0 &&
      r.launch.threadsPerBlock != p.blockX * p.blockY)
    throw InputError("--block " + std::to_string(p.blockX) + "x" + std::to_string(p.blockY) +
                     " is " + std::to_string(p.blockX * p.blockY) + " threads but --tpb says " +
                     std::to_string(r.launch.threadsPerBlock));
}

std::string summary(const RunRequest& r, bool detailed) {
  const KnnProblem& p = problemOf(r);
  const std::string image =
      std::to_string(p.rows) + "x" + std::to_string(p.cols) + "x" + std::to_string(p.components);
  if (!detailed)
    return "knn " + image + " window " + std::to_string(p.window) + " k=" + std::to_string(p.k) +
           " · TPB " + std::to_string(r.launch.threadsPerBlock);
  return "knn image " + image + (p.inputPath.empty() ? "" : " (" + p.inputPath + ")") +
         ", window " + std::to_string(p.window) + " rows, k " + std::to_string(p.k) + ", block " +
         std::to_string(p.blockX) + "x" + std::to_string(p.blockY);
}

// The occupancy story before anything runs: each variant's shared memory per block.
std::string launchHint(const RunRequest& r) {
  const knn::ImageShape shape = knn::shapeFor(r);
  std::string shared;
  knn::Geometry g;
  for (const auto& v : knn::variants()) {
    g = knn::makeGeometry(shape, r, v.variant);
    shared += (shared.empty() ? "" : ", ") + std::string(v.id) + " " +
              formatKiB(double(knn::sharedBytes(g)));
  }
  const KnnProblem& p = problemOf(r);
  return "Block " + std::to_string(g.blockX) + " x " + std::to_string(g.blockY) + " threads (" +
         (p.blockX > 0 && p.blockY > 0 ? "the block shape; threads per block ignored"
                                       : "from threads per block") +
         "); grid " + formatCount(g.gridX) + " x " + formatCount(g.gridY) +
         " blocks. Shared memory per block: " + shared + ".";
}

// ---- stored runs -----------------------------------------------------------------------------

constexpr int64_t kMaxIndexed = std::numeric_limits<int32_t>::max();  // 32-bit kernel indices

// What the views can draw: sides up to 2^24, 32-bit pixel indices, up to 4096 neighbours and
// components.
void checkLimits(const RunRequest& r, const std::string& at) {
  const KnnProblem& q = problemOf(r);
  checkAtMost(q.k, 4096, at + ".knn.k");
  checkAtMost(q.rows, 1 << 24, at + ".knn.rows");
  checkAtMost(q.cols, 1 << 24, at + ".knn.cols");
  checkAtMost(int64_t(q.rows) * q.cols, kMaxIndexed, at + ".knn rows x cols");
  checkAtMost(q.components, 4096, at + ".knn.components");
  checkAtMost(q.blockX, 1 << 16, at + ".launch.block_x");
  checkAtMost(q.blockY, 1 << 16, at + ".launch.block_y");
}

void checkStored(const RunResult& run, const std::string& at) {
  const KnnProblem& q = problemOf(run.request);
  const std::string req = at + ".request";
  if (q.blockX < 0)
    refuseField(req + ".launch.block_x", "= " + std::to_string(q.blockX) + " is below 0");
  if (q.blockY < 0)
    refuseField(req + ".launch.block_y", "= " + std::to_string(q.blockY) + " is below 0");
  checkWithin(q.k, 0, kMaxIndexed, req + ".knn.k");
  int64_t pixels = -1;
  if (q.inputPath.empty()) {
    checkWithin(q.rows, 1, kMaxIndexed, req + ".knn.rows");
    checkWithin(q.cols, 1, kMaxIndexed, req + ".knn.cols");
    checkWithin(q.components, 1, kMaxIndexed, req + ".knn.components");
    pixels = int64_t(q.rows) * q.cols;
    checkWithin(pixels, 1, kMaxIndexed, req + ".knn rows x cols", "pixel indices are 32-bit");
  }
  for (size_t vi = 0; vi < run.variants.size(); ++vi) {
    const KnnDetails* d = run.variants[vi].detail<KnnDetails>();
    if (!d) continue;
    const std::string out = at + ".variants[" + std::to_string(vi) + "].knn";
    if (d->candidatesPerPixel < 0)
      refuseField(out + ".candidates_per_pixel",
                  "= " + std::to_string(d->candidatesPerPixel) + " is below 0");
    checkWithin(d->k, 0, kMaxIndexed, out + ".k");
    if (d->squaredDistances.size() != d->indices.size() && !d->squaredDistances.empty())
      refuseField(out + ".squared_distances", "has " + std::to_string(d->squaredDistances.size()) +
                                                  " entries; indices has " +
                                                  std::to_string(d->indices.size()));
    if (d->indices.empty()) continue;
    if (d->k < 1) refuseField(out + ".indices", "are present but k is " + std::to_string(d->k));
    if (pixels >= 0 && d->indices.size() != uint64_t(pixels) * uint64_t(d->k))
      refuseField(out + ".indices", "has " + std::to_string(d->indices.size()) +
                                        " entries; rows x cols x k needs " +
                                        std::to_string(uint64_t(pixels) * uint64_t(d->k)));
    if (pixels < 0 && d->indices.size() % uint64_t(d->k) != 0)
      refuseField(out + ".indices", "has " + std::to_string(d->indices.size()) +
                                        " entries, not a multiple of k = " + std::to_string(d->k));
    const int64_t lists = pixels >= 0 ? pixels : int64_t(d->indices.size() / uint64_t(d->k));
    for (size_t i = 0; i < d->indices.size(); ++i)
      if (d->indices[i] < -1 || d->indices[i] >= lists)
        refuseField(out + ".indices[" + std::to_string(i) + "]",
                    "= " + std::to_string(d->indices[i]) + " is outside -1.." +
                        std::to_string(lists - 1) + " (a pixel index)");
  }
}

std::vector<VariantDescription> variants() {
  std::vector<VariantDescription> out;
  for (const auto& v : knn::variants()) out.push_back({v.id, v.title, v.explanation});
  return out;
}

access::BlockTrace traceBlock(const access::AccessQuery& q, access::ThreadRange keep) {
  if (!q.kernel.empty())
    throw InputError("--kernel " + q.kernel + ": knn variants launch one kernel each");
  return access::detail::traceKnnBlock(q, keep);
}

FamilyDescriptor makeDescriptor() {
  FamilyDescriptor f;
  f.family = kFamily;
  f.title = "Window KNN";
  f.about =
      "Seed 002: for each pixel of a feature image, the k nearest pixels in feature space inside "
      "a window of rows around it. Global memory; the whole window in shared memory (few blocks "
      "fit); one window row at a time (many blocks); a rectangular window shared by a row of "
      "pixels (no divergent edges, a different window: its mismatches are classified).";
  f.reportNote =
      "Window KNN: times in milliseconds per run over the whole image (median of the timed "
      "repetitions); every neighbour list is compared with the CPU reference, and mismatches are "
      "split into tie swaps (same distances, other pixels) and different neighbours. Shared "
      "memory in KiB (1 KiB = 1024 B).";
  f.variants = variants;
  f.requestSections = {requestSection()};
  f.parameters = parameters();
  f.sweepAxes = {{"tpb", "64,128,256,512"},
                 {"block", "256x1,32x8,64x4"},
                 {"window", "4,8,14"},
                 {"image", "188x164,377x329"}};
  f.finishRequest = finishRequest;
  f.demo = [](RunRequest& r) {
    r.section<KnnProblem>() = KnnProblem{};  // the seed's image: 377 x 329, W = 14, k = 8
    r.repetitions = 3;
    r.warmup = 1;
  };
  f.summary = summary;
  f.launchHint = launchHint;
  f.files = [](RunRequest& r) { return std::vector<std::string*>{&problemOf(r).inputPath}; };
  f.validate = detail::validateKnn;
  f.run = detail::runKnn;
  f.resultSections = {resultSection<KnnDetails>("knn")};
  f.checkLimits = checkLimits;
  f.checkStored = checkStored;
  f.details = [](std::ostream& out, const RunResult& run) {
    // The CPU executor has no resource report: the shared memory each variant asks for still
    // tells the occupancy story.
    if (run.backend == "cuda") return;
    out << "Shared memory per block:";
    for (const auto& v : run.variants)
      if (const KnnDetails* d = v.detail<KnnDetails>())
        out << " " << v.variant << " " << formatKiB(double(d->sharedBytesPerBlock)) << ";";
    out << "\n";
  };
  f.csvColumns = {csvField("rows", &KnnProblem::rows),
                  csvField("cols", &KnnProblem::cols),
                  csvField("components", &KnnProblem::components),
                  csvField("window", &KnnProblem::window),
                  csvField("neighbours", &KnnProblem::k),
                  csvField("block_x", &KnnProblem::blockX),
                  csvField("block_y", &KnnProblem::blockY)};
  f.verifyCases = knn::verifyCases;
  f.canTrace = [](const std::string& v) { return knn::variantFromString(v).has_value(); };
  f.tracedKernels = []() -> const std::vector<access::KernelChoice>& {
    static const std::vector<access::KernelChoice> none;
    return none;
  };
  f.traceBlock = traceBlock;
  f.benches = {{"knn", "the seed's image and a 4096 x 4096 x 8 one, time and shared memory",
                [](const BenchOptions&) { return true; }, knn::bench, "ROWSxCOLS[xC]"}};
  return f;
}

}  // namespace

const FamilyDescriptor& knnFamily() {
  static const FamilyDescriptor f = makeDescriptor();
  return f;
}

}  // namespace kernellab

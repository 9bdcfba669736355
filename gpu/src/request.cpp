// SPDX-License-Identifier: MIT
// Names of the request's enums and the sweep helper.
#include "kernellab/request.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab {
namespace {

template <class E, size_t N>
const char* nameOf(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <class E, size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char*>, N>& table,
                         const std::string& s) {
  const std::string lower = toLower(s);
  for (const auto& [e, name] : table)
    if (lower == name) return e;
  return std::nullopt;
}

constexpr std::array<std::pair<Family, const char*>, 4> kFamilies{{
    {Family::Transpose, "transpose"},
    {Family::KCenters, "kcenters"},
    {Family::KMeans, "kmeans"},
    {Family::Knn, "knn"},
}};
constexpr std::array<std::pair<BackendChoice, const char*>, 3> kBackends{{
    {BackendChoice::Auto, "auto"}, {BackendChoice::Cpu, "cpu"}, {BackendChoice::Cuda, "cuda"}}};
constexpr std::array<std::pair<DataLayout, const char*>, 2> kLayouts{{
    {DataLayout::Coalesced, "coalesced"}, {DataLayout::Interleaved, "interleaved"}}};
constexpr std::array<std::pair<ScratchMemory, const char*>, 2> kMemories{{
    {ScratchMemory::Shared, "shared"}, {ScratchMemory::Global, "global"}}};
constexpr std::array<std::pair<InitMethod, const char*>, 4> kInits{{
    {InitMethod::First, "first"},
    {InitMethod::Random, "random"},
    {InitMethod::KMeansPlusPlus, "kmeans++"},
    {InitMethod::Given, "given"}}};
constexpr std::array<std::pair<DatasetShape, const char*>, 2> kShapes{{
    {DatasetShape::SeedGenerator, "seed"}, {DatasetShape::Blobs, "blobs"}}};
constexpr std::array<std::pair<StopRule, const char*>, 2> kStopRules{{
    {StopRule::FixedPoint, "fixed-point"}, {StopRule::ScoreChange, "score"}}};

}  // namespace

const char* toString(Family f) { return nameOf(kFamilies, f); }
const char* toString(BackendChoice b) { return nameOf(kBackends, b); }
const char* toString(DataLayout l) { return nameOf(kLayouts, l); }
const char* toString(ScratchMemory m) { return nameOf(kMemories, m); }
const char* toString(InitMethod i) { return nameOf(kInits, i); }
const char* toString(DatasetShape s) { return nameOf(kShapes, s); }
const char* toString(StopRule s) { return nameOf(kStopRules, s); }
std::optional<Family> familyFromString(const std::string& s) { return valueOf(kFamilies, s); }
std::optional<BackendChoice> backendFromString(const std::string& s) {
  return valueOf(kBackends, s);
}
std::optional<DataLayout> layoutFromString(const std::string& s) { return valueOf(kLayouts, s); }
std::optional<ScratchMemory> memoryFromString(const std::string& s) {
  return valueOf(kMemories, s);
}
std::optional<InitMethod> initFromString(const std::string& s) { return valueOf(kInits, s); }
std::optional<DatasetShape> shapeFromString(const std::string& s) { return valueOf(kShapes, s); }
std::optional<StopRule> stopRuleFromString(const std::string& s) { return valueOf(kStopRules, s); }

// Values stored in an int: larger ones are refused with this limit rather than wrapped.
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

RunRequest applySweepValue(const RunRequest& base, const std::string& axis,
                           const std::string& value) {
  RunRequest r = base;
  if (axis == "tpb") {
    r.launch.threadsPerBlock = parseIntegerAs<int>(value, "--tpb");
  } else if (axis == "tile") {
    r.launch.tile = parseIntegerAs<int>(value, "--tile");
  } else if (axis == "rows-per-thread") {
    r.launch.rowsPerThread = parseIntegerAs<int>(value, "--rows-per-thread");
  } else if (axis == "size") {
    const auto [w, h] = parseSize(value, "--size");
    r.transpose.width = w;
    r.transpose.height = h;
  } else if (axis == "n") {
    r.clustering.n = parseInteger(value, "--n");
  } else if (axis == "k") {
    // The CLI's --k means clusters or neighbours, by family; the other family's k stays as it was.
    const int k = parseIntegerAs<int>(value, "--k");
    if (r.family == Family::Knn)
      r.knn.k = k;
    else
      r.clustering.k = k;
  } else if (axis == "d") {
    r.clustering.d = parseIntegerAs<int>(value, "--d");
  } else if (axis == "image") {
    const auto dims = parseDims(value, "--image", kIntMax);
    r.knn.rows = static_cast<int>(dims[0]);  // ROWSxCOLS[xC], as the seed writes 377x329
    r.knn.cols = static_cast<int>(dims[1]);
    if (dims.size() > 2) r.knn.components = static_cast<int>(dims[2]);
  } else if (axis == "window") {
    r.knn.window = parseIntegerAs<int>(value, "--window");
  } else if (axis == "block") {
    const auto [bx, by] = parseSize(value, "--block", 1024);  // XxY threads, x along an image row
    r.launch.blockX = static_cast<int>(bx);
    r.launch.blockY = static_cast<int>(by);
    r.launch.threadsPerBlock = static_cast<int>(bx * by);
  } else {
    throw InputError("unknown sweep axis '" + axis +
                     "' (known: tpb, tile, rows-per-thread, size, n, k, d, image, window, block)");
  }
  return r;
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// JSON serialisation of requests and results. Readers accept missing optional fields (older
// files) and refuse files whose schema_version is newer than this build.
#include "kernellab/json_io.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <limits>
#include <type_traits>

#include "kernellab/atomic_file.h"
#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/input_file.h"
#include "kernellab/input_text.h"
#include "kernellab/results_validation.h"

namespace kernellab {

using nlohmann::json;

namespace {

template <class T>
struct IsNumberVector : std::false_type {};
template <class E>
struct IsNumberVector<std::vector<E>>
    : std::bool_constant<std::is_arithmetic_v<E> && !std::is_same_v<E, bool>> {};

// A number of E's range taken as it is, without building a message: a million labels must not
// cost a million strings. Anything else (a float for an int, out of range, not a number) returns
// false and goes through jsonNumber, which says what is wrong.
template <class E>
bool plainNumber(const json& v, E& out) {
  if constexpr (std::is_floating_point_v<E>) {
    if (!v.is_number()) return false;
    const double x = v.get<double>();
    const double limit = static_cast<double>(std::numeric_limits<E>::max());
    if (!std::isfinite(x) || x < -limit || x > limit) return false;
    out = static_cast<E>(x);
    return true;
  } else {
    if (v.is_number_unsigned()) {
      const uint64_t x = v.get<uint64_t>();
      if (x > static_cast<uint64_t>(std::numeric_limits<E>::max())) return false;
      out = static_cast<E>(x);
      return true;
    }
    if (!v.is_number_integer()) return false;
    const int64_t x = v.get<int64_t>();
    if (x < static_cast<int64_t>(std::numeric_limits<E>::min()) ||
        (x > 0 && static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<E>::max())))
      return false;
    out = static_cast<E>(x);
    return true;
  }
}

// Reads j[key] into out when present; a present field of the wrong type throws (caught and
// reported with the field name by the public parse functions). Numbers (and arrays of numbers)
// go through the checked layer: 100.7 is not an int, 1e10 is not a K, -1 is not a seed.
template <class T>
void opt(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  const std::string field = std::string("field '") + key + "'";
  try {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      out = jsonNumber<T>(*it, field);
    } else if constexpr (IsNumberVector<T>::value) {
      if (!it->is_array()) throw InputError(field + " must be a list of numbers");
      T values;
      values.reserve(it->size());
      using E = typename T::value_type;
      for (size_t i = 0; i < it->size(); ++i) {
        // nlohmann writes NaN (a poisoned output element) as null: read it back as NaN.
        if constexpr (std::is_floating_point_v<E>)
          if ((*it)[i].is_null()) {
            values.push_back(std::numeric_limits<E>::quiet_NaN());
            continue;
          }
        E x{};
        if (plainNumber((*it)[i], x))
          values.push_back(x);
        else
          values.push_back(jsonNumber<E>((*it)[i], field + " element " + std::to_string(i)));
      }
      out = std::move(values);
    } else {
      out = it->get<T>();
    }
  } catch (const json::exception& e) {
    throw InputError(field + ": " + e.what());
  }
}

template <class E, class FromString>
void optEnum(const json& j, const char* key, E& out, FromString fromString) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_string()) throw InputError(std::string("field '") + key + "' must be a string");
  auto v = fromString(it->get<std::string>());
  if (!v)
    throw InputError(std::string("field '") + key + "': unknown value '" +
                     excerpt(it->get<std::string>()) + "'");
  out = *v;
}

}  // namespace

namespace {

// The launch knobs the family reads: threads per block always, the tile and rows per thread for
// transpose, the block shape for KNN. `all` writes every knob (the window's saved settings).
json launchJson(const LaunchConfig& v, Family f, bool all) {
  json j{{"threads_per_block", v.threadsPerBlock}};
  if (all || f == Family::Transpose) {
    j["tile"] = v.tile;
    j["rows_per_thread"] = v.rowsPerThread;
  }
  if (all || f == Family::Knn) {
    j["block_x"] = v.blockX;
    j["block_y"] = v.blockY;
  }
  return j;
}

// The clustering fields that apply: the generator's for generated points, the path for a file
// (whose N and D the run records), and the k-means knobs for k-means only.
json clusteringJson(const ClusteringProblem& c, Family f, bool all) {
  const bool generated = c.inputPath.empty();
  const bool kmeans = f == Family::KMeans;
  json j{{"n", c.n},
         {"k", c.k},
         {"d", c.d},
         {"init", toString(c.init)},
         {"keep_labels", c.keepLabels}};
  if (all || generated) {
    j["shape"] = toString(c.shape);
    j["radius"] = c.radius;
  }
  if (all || (generated && c.shape == DatasetShape::Blobs)) j["noise_fraction"] = c.noiseFraction;
  if (all || !generated) j["input_path"] = c.inputPath;
  if (all || (kmeans && c.init == InitMethod::Given)) j["centers_path"] = c.centersPath;
  if (all || kmeans) {
    j["max_iterations"] = c.maxIterations;
    j["stop_rule"] = toString(c.stopRule);
  }
  if (all || (kmeans && c.stopRule == StopRule::ScoreChange)) j["epsilon"] = c.epsilon;
  return j;
}

json knnJson(const KnnProblem& v) {
  return json{{"rows", v.rows},
              {"cols", v.cols},
              {"components", v.components},
              {"window", v.window},
              {"k", v.k},
              {"input_path", v.inputPath},
              {"keep_neighbours", v.keepNeighbours}};
}

json requestJson(const RunRequest& v, bool all) {
  json j{{"family", toString(v.family)},
         {"variants", v.variants},
         {"launch", launchJson(v.launch, v.family, all)},
         {"warmup", v.warmup},
         {"repetitions", v.repetitions},
         {"seed", v.seed},
         {"backend", toString(v.backend)},
         {"verify", v.verify},
         {"record_schedule", v.recordSchedule},
         {"measure_ceilings", v.measureCeilings}};
  const bool clustering = v.family == Family::KMeans || v.family == Family::KCenters;
  if (all || v.family == Family::Transpose)
    j["transpose"] = {{"width", v.transpose.width}, {"height", v.transpose.height}};
  if (all || clustering) j["clustering"] = clusteringJson(v.clustering, v.family, all);
  if (all || v.family == Family::Knn) j["knn"] = knnJson(v.knn);
  return j;
}

}  // namespace

void to_json(json& j, const LaunchConfig& v) { j = launchJson(v, Family::Transpose, true); }
void from_json(const json& j, LaunchConfig& v) {
  opt(j, "threads_per_block", v.threadsPerBlock);
  opt(j, "tile", v.tile);
  opt(j, "rows_per_thread", v.rowsPerThread);
  opt(j, "block_x", v.blockX);
  opt(j, "block_y", v.blockY);
}

// A request carries the sections of its own family only (schema 2), so nothing in it describes
// another experiment; see requestWithAllSections for the window's saved settings.
void to_json(json& j, const RunRequest& v) { j = requestJson(v, false); }

json requestWithAllSections(const RunRequest& v) { return requestJson(v, true); }

void from_json(const json& j, RunRequest& v) {
  if (!j.is_object()) throw InputError("a request must be a JSON object");
  if (!j.contains("family")) throw InputError("request: field 'family' is missing");
  optEnum(j, "family", v.family, familyFromString);
  opt(j, "variants", v.variants);
  if (auto it = j.find("transpose"); it != j.end() && it->is_object()) {
    opt(*it, "width", v.transpose.width);
    opt(*it, "height", v.transpose.height);
  }
  if (auto it = j.find("clustering"); it != j.end() && it->is_object()) {
    auto& c = v.clustering;
    opt(*it, "n", c.n);
    opt(*it, "k", c.k);
    opt(*it, "d", c.d);
    optEnum(*it, "shape", c.shape, shapeFromString);
    opt(*it, "radius", c.radius);
    opt(*it, "noise_fraction", c.noiseFraction);
    opt(*it, "input_path", c.inputPath);
    opt(*it, "centers_path", c.centersPath);
    optEnum(*it, "init", c.init, initFromString);
    optEnum(*it, "stop_rule", c.stopRule, stopRuleFromString);
    opt(*it, "max_iterations", c.maxIterations);
    opt(*it, "epsilon", c.epsilon);
    opt(*it, "keep_labels", c.keepLabels);
  }
  if (auto it = j.find("knn"); it != j.end() && it->is_object()) {
    opt(*it, "rows", v.knn.rows);
    opt(*it, "cols", v.knn.cols);
    opt(*it, "components", v.knn.components);
    opt(*it, "window", v.knn.window);
    opt(*it, "k", v.knn.k);
    opt(*it, "input_path", v.knn.inputPath);
    opt(*it, "keep_neighbours", v.knn.keepNeighbours);
  }
  opt(j, "launch", v.launch);
  opt(j, "warmup", v.warmup);
  opt(j, "repetitions", v.repetitions);
  opt(j, "seed", v.seed);
  optEnum(j, "backend", v.backend, backendFromString);
  opt(j, "verify", v.verify);
  opt(j, "record_schedule", v.recordSchedule);
  opt(j, "measure_ceilings", v.measureCeilings);
}

void to_json(json& j, const SweepAxis& v) { j = json{{"axis", v.name}, {"values", v.values}}; }
void from_json(const json& j, SweepAxis& v) {
  opt(j, "axis", v.name);
  opt(j, "values", v.values);
}

void to_json(json& j, const DeviceInfo& v) {
  j = json{{"backend", v.backend},
           {"name", v.name},
           {"compute_capability", std::to_string(v.ccMajor) + "." + std::to_string(v.ccMinor)},
           {"cc_major", v.ccMajor},
           {"cc_minor", v.ccMinor},
           {"sm_count", v.smCount},
           {"global_mem_bytes", v.globalMemBytes},
           {"l2_bytes", v.l2Bytes},
           {"max_threads_per_block", v.maxThreadsPerBlock},
           {"max_threads_per_sm", v.maxThreadsPerSM},
           {"max_blocks_per_sm", v.maxBlocksPerSM},
           {"regs_per_sm", v.regsPerSM},
           {"regs_per_block", v.regsPerBlock},
           {"shared_per_block", v.sharedPerBlock},
           {"shared_per_block_optin", v.sharedPerBlockOptin},
           {"shared_per_sm", v.sharedPerSM},
           {"reserved_shared_per_block", v.reservedSharedPerBlock},
           {"warp_size", v.warpSize},
           {"memory_bus_bits", v.memoryBusBits},
           {"memory_clock_khz", v.memoryClockKHz},
           {"clock_khz", v.clockKHz},
           {"driver_version", v.driverVersion},
           {"runtime_version", v.runtimeVersion}};
}
void from_json(const json& j, DeviceInfo& v) {
  opt(j, "backend", v.backend);
  opt(j, "name", v.name);
  opt(j, "cc_major", v.ccMajor);
  opt(j, "cc_minor", v.ccMinor);
  opt(j, "sm_count", v.smCount);
  opt(j, "global_mem_bytes", v.globalMemBytes);
  opt(j, "l2_bytes", v.l2Bytes);
  opt(j, "max_threads_per_block", v.maxThreadsPerBlock);
  opt(j, "max_threads_per_sm", v.maxThreadsPerSM);
  opt(j, "max_blocks_per_sm", v.maxBlocksPerSM);
  opt(j, "regs_per_sm", v.regsPerSM);
  opt(j, "regs_per_block", v.regsPerBlock);
  opt(j, "shared_per_block", v.sharedPerBlock);
  opt(j, "shared_per_block_optin", v.sharedPerBlockOptin);
  opt(j, "shared_per_sm", v.sharedPerSM);
  opt(j, "reserved_shared_per_block", v.reservedSharedPerBlock);
  opt(j, "warp_size", v.warpSize);
  opt(j, "memory_bus_bits", v.memoryBusBits);
  opt(j, "memory_clock_khz", v.memoryClockKHz);
  opt(j, "clock_khz", v.clockKHz);
  opt(j, "driver_version", v.driverVersion);
  opt(j, "runtime_version", v.runtimeVersion);
}

void to_json(json& j, const BackendStatus& v) {
  j = json{{"cuda_built", v.cudaBuilt},
           {"cuda_usable", v.cudaUsable},
           {"cuda_reason", v.cudaReason},
           {"cuda_devices", v.cudaDevices},
           {"cpu", v.cpu}};
}

void to_json(json& j, const TimingStats& v) {
  j = json{{"median_ms", v.medianMs},
           {"min_ms", v.minMs},
           {"max_ms", v.maxMs},
           {"samples", v.samples},
           {"clock", v.clock}};
}
void from_json(const json& j, TimingStats& v) {
  opt(j, "median_ms", v.medianMs);
  opt(j, "min_ms", v.minMs);
  opt(j, "max_ms", v.maxMs);
  opt(j, "samples", v.samples);
  opt(j, "clock", v.clock);
}

void to_json(json& j, const ResourceUsage& v) {
  j = json{{"registers_per_thread", v.registersPerThread},
           {"static_shared_bytes", v.staticSharedBytes},
           {"dynamic_shared_bytes", v.dynamicSharedBytes},
           {"local_bytes_per_thread", v.localBytesPerThread},
           {"max_threads_per_block", v.maxThreadsPerBlock},
           {"max_active_blocks_per_sm", v.maxActiveBlocksPerSM},
           {"threads_per_block", v.threadsPerBlock}};
}
void from_json(const json& j, ResourceUsage& v) {
  opt(j, "registers_per_thread", v.registersPerThread);
  opt(j, "static_shared_bytes", v.staticSharedBytes);
  opt(j, "dynamic_shared_bytes", v.dynamicSharedBytes);
  opt(j, "local_bytes_per_thread", v.localBytesPerThread);
  opt(j, "max_threads_per_block", v.maxThreadsPerBlock);
  opt(j, "max_active_blocks_per_sm", v.maxActiveBlocksPerSM);
  opt(j, "threads_per_block", v.threadsPerBlock);
}

void to_json(json& j, const Verification& v) {
  j = json{{"performed", v.performed},   {"passed", v.passed},         {"reference", v.reference},
           {"compared", v.compared},     {"mismatches", v.mismatches}, {"max_error", v.maxError},
           {"tolerance", v.tolerance},   {"note", v.note}};
  if (v.approximate) {
    j["approximate"] = true;
    j["approximate_mismatches"] = v.approximateMismatches;
  }
}
void from_json(const json& j, Verification& v) {
  opt(j, "performed", v.performed);
  opt(j, "passed", v.passed);
  opt(j, "reference", v.reference);
  opt(j, "compared", v.compared);
  opt(j, "mismatches", v.mismatches);
  opt(j, "max_error", v.maxError);
  opt(j, "tolerance", v.tolerance);
  opt(j, "note", v.note);
  opt(j, "approximate", v.approximate);
  opt(j, "approximate_mismatches", v.approximateMismatches);
}

// Schedules can hold a million blocks: store them as compact rows, not objects.
void to_json(json& j, const BlockRecord& v) {
  j = json::array({v.blockId, v.smId, v.startNs, v.endNs, v.tileX, v.tileY});
}
void from_json(const json& j, BlockRecord& v) {
  if (!j.is_array() || j.size() != 6)
    throw InputError("schedule rows must be [block, sm, start_ns, end_ns, tile_x, tile_y]");
  // 65,536 rows of a recorded schedule: the plain case builds no message.
  if (plainNumber(j[0], v.blockId) && plainNumber(j[1], v.smId) && plainNumber(j[2], v.startNs) &&
      plainNumber(j[3], v.endNs) && plainNumber(j[4], v.tileX) && plainNumber(j[5], v.tileY))
    return;
  v.blockId = jsonNumber<int>(j[0], "schedule row block");
  v.smId = jsonNumber<int>(j[1], "schedule row sm");
  v.startNs = jsonNumber<uint64_t>(j[2], "schedule row start_ns");
  v.endNs = jsonNumber<uint64_t>(j[3], "schedule row end_ns");
  v.tileX = jsonNumber<int>(j[4], "schedule row tile_x");
  v.tileY = jsonNumber<int>(j[5], "schedule row tile_y");
}

void to_json(json& j, const KernelResult& v) {
  j = json{{"name", v.name},
           {"timing", v.timing},
           {"total_ms", v.totalMs},
           {"launches", v.launches},
           {"bytes", v.bytes},
           {"gbps", v.gbps},
           {"flops", v.flops},
           {"grid", {v.gridX, v.gridY}},
           {"block", {v.blockX, v.blockY}}};
  if (v.resources) j["resources"] = *v.resources;
}
void from_json(const json& j, KernelResult& v) {
  opt(j, "name", v.name);
  opt(j, "timing", v.timing);
  opt(j, "total_ms", v.totalMs);
  opt(j, "launches", v.launches);
  opt(j, "bytes", v.bytes);
  opt(j, "gbps", v.gbps);
  opt(j, "flops", v.flops);
  if (auto it = j.find("grid"); it != j.end() && it->is_array() && it->size() == 2) {
    v.gridX = jsonNumber<int>((*it)[0], "field 'grid'");
    v.gridY = jsonNumber<int>((*it)[1], "field 'grid'");
  }
  if (auto it = j.find("block"); it != j.end() && it->is_array() && it->size() == 2) {
    v.blockX = jsonNumber<int>((*it)[0], "field 'block'");
    v.blockY = jsonNumber<int>((*it)[1], "field 'block'");
  }
  if (auto it = j.find("resources"); it != j.end() && it->is_object())
    v.resources = it->get<ResourceUsage>();
}

void to_json(json& j, const PhaseTiming& v) { j = json{{"name", v.name}, {"ms", v.ms}}; }
void from_json(const json& j, PhaseTiming& v) {
  opt(j, "name", v.name);
  opt(j, "ms", v.ms);
}

void to_json(json& j, const IterationRecord& v) {
  j = json{{"iteration", v.iteration}, {"score", v.score}, {"kernel_ms", v.kernelMs}};
  if (v.chosenPoint >= 0) j["chosen_point"] = v.chosenPoint;
  if (v.rechecked >= 0) j["rechecked"] = v.rechecked;
  if (v.labelsChanged >= 0) j["labels_changed"] = v.labelsChanged;
}
void from_json(const json& j, IterationRecord& v) {
  opt(j, "iteration", v.iteration);
  opt(j, "score", v.score);
  opt(j, "kernel_ms", v.kernelMs);
  opt(j, "chosen_point", v.chosenPoint);
  opt(j, "rechecked", v.rechecked);
  opt(j, "labels_changed", v.labelsChanged);
}

void to_json(json& j, const ClusteringOutput& v) {
  j = json{{"labels", v.labels},
           {"centers", v.centers},
           {"center_indices", v.centerIndices},
           {"iterations", v.iterations},
           {"inertia", v.inertia},
           {"cluster_sizes", v.clusterSizes}};
  if (v.stopReason != StopReason::None) j["stop_reason"] = toString(v.stopReason);
}
void from_json(const json& j, ClusteringOutput& v) {
  opt(j, "labels", v.labels);
  opt(j, "centers", v.centers);
  opt(j, "center_indices", v.centerIndices);
  opt(j, "iterations", v.iterations);
  opt(j, "inertia", v.inertia);
  opt(j, "cluster_sizes", v.clusterSizes);
  optEnum(j, "stop_reason", v.stopReason, stopReasonFromString);
}

void to_json(json& j, const KnnWindowMismatch& v) {
  j = json{{"reference", v.reference},
           {"pixels", v.pixels},
           {"mismatched", v.mismatched},
           {"tie_swaps", v.tieSwaps},
           {"different_neighbours", v.differentNeighbours},
           {"mismatch_pct", v.mismatchPct},
           {"slots", v.slotsCompared},
           {"slots_mismatched", v.slotsMismatched},
           {"slot_tie_swaps", v.slotTieSwaps},
           {"slot_mismatch_pct", v.slotMismatchPct}};
}
void from_json(const json& j, KnnWindowMismatch& v) {
  opt(j, "reference", v.reference);
  opt(j, "pixels", v.pixels);
  opt(j, "mismatched", v.mismatched);
  opt(j, "tie_swaps", v.tieSwaps);
  opt(j, "different_neighbours", v.differentNeighbours);
  opt(j, "mismatch_pct", v.mismatchPct);
  opt(j, "slots", v.slotsCompared);
  opt(j, "slots_mismatched", v.slotsMismatched);
  opt(j, "slot_tie_swaps", v.slotTieSwaps);
  opt(j, "slot_mismatch_pct", v.slotMismatchPct);
}

void to_json(json& j, const KnnDetails& v) {
  j = json{{"window", v.window},
           {"shared_bytes_per_block", v.sharedBytesPerBlock},
           {"shared_opt_in", v.sharedOptIn},
           {"candidates_per_pixel", v.candidatesPerPixel},
           {"reference_pixels", v.referencePixels},
           {"reference_sampled", v.referenceSampled}};
  if (v.versusPerPixel) j["versus_per_pixel"] = *v.versusPerPixel;
  if (!v.indices.empty()) {
    j["k"] = v.k;
    j["indices"] = v.indices;
    j["squared_distances"] = v.squaredDistances;
  }
}
void from_json(const json& j, KnnDetails& v) {
  opt(j, "window", v.window);
  opt(j, "shared_bytes_per_block", v.sharedBytesPerBlock);
  opt(j, "shared_opt_in", v.sharedOptIn);
  opt(j, "candidates_per_pixel", v.candidatesPerPixel);
  opt(j, "reference_pixels", v.referencePixels);
  opt(j, "reference_sampled", v.referenceSampled);
  if (auto it = j.find("versus_per_pixel"); it != j.end() && it->is_object())
    v.versusPerPixel = it->get<KnnWindowMismatch>();
  opt(j, "k", v.k);
  opt(j, "indices", v.indices);
  opt(j, "squared_distances", v.squaredDistances);
}

void to_json(json& j, const VariantResult& v) {
  j = json{{"variant", v.variant},
           {"ok", v.ok},
           {"error", v.error},
           {"refused", v.refused},
           {"kernels", v.kernels},
           {"total", v.total},
           {"bytes", v.bytes},
           {"gbps", v.gbps},
           {"fraction_of_memcpy", v.fractionOfMemcpy},
           {"fraction_of_copy_kernel", v.fractionOfCopyKernel},
           {"phases", v.phases},
           {"iterations", v.iterations},
           {"verification", v.verification},
           {"schedule", v.schedule},
           {"schedule_overhead_pct", v.scheduleOverheadPct}};
  if (!v.strategy.empty()) j["strategy"] = v.strategy;
  if (!v.iterationsFrom.empty()) j["iterations_from"] = v.iterationsFrom;
  if (v.clustering) j["clustering"] = *v.clustering;
  if (v.knn) j["knn"] = *v.knn;
}
void from_json(const json& j, VariantResult& v) {
  opt(j, "variant", v.variant);
  opt(j, "ok", v.ok);
  opt(j, "error", v.error);
  opt(j, "refused", v.refused);
  opt(j, "kernels", v.kernels);
  opt(j, "total", v.total);
  opt(j, "bytes", v.bytes);
  opt(j, "gbps", v.gbps);
  opt(j, "fraction_of_memcpy", v.fractionOfMemcpy);
  opt(j, "fraction_of_copy_kernel", v.fractionOfCopyKernel);
  opt(j, "phases", v.phases);
  opt(j, "iterations", v.iterations);
  opt(j, "verification", v.verification);
  opt(j, "schedule", v.schedule);
  opt(j, "schedule_overhead_pct", v.scheduleOverheadPct);
  opt(j, "strategy", v.strategy);
  opt(j, "iterations_from", v.iterationsFrom);
  if (auto it = j.find("clustering"); it != j.end() && it->is_object())
    v.clustering = it->get<ClusteringOutput>();
  if (auto it = j.find("knn"); it != j.end() && it->is_object()) v.knn = it->get<KnnDetails>();
}

void to_json(json& j, const Ceiling& v) {
  j = json{{"name", v.name}, {"bytes", v.bytes}, {"timing", v.timing}, {"gbps", v.gbps}};
  if (v.gflops > 0) j["gflops"] = v.gflops;
}
void from_json(const json& j, Ceiling& v) {
  opt(j, "name", v.name);
  opt(j, "bytes", v.bytes);
  opt(j, "timing", v.timing);
  opt(j, "gbps", v.gbps);
  opt(j, "gflops", v.gflops);
}

void to_json(json& j, const RunResult& v) {
  j = json{{"schema_version", v.schemaVersion},
           {"created_at", v.createdAt},
           {"tool", v.tool},
           {"bandwidth_unit", "GB/s (1e9 bytes per second)"},
           {"request", v.request},
           {"device", v.device},
           {"backend", v.backend},
           {"backend_note", v.backendNote},
           {"ceilings", v.ceilings},
           {"variants", v.variants},
           {"ok", v.ok},
           {"message", v.message}};
}
void from_json(const json& j, RunResult& v) {
  if (!j.is_object()) throw InputError("a run must be a JSON object");
  opt(j, "schema_version", v.schemaVersion);
  opt(j, "created_at", v.createdAt);
  opt(j, "tool", v.tool);
  if (!j.contains("request")) throw InputError("run: field 'request' is missing");
  v.request = j.at("request").get<RunRequest>();
  opt(j, "device", v.device);
  opt(j, "backend", v.backend);
  opt(j, "backend_note", v.backendNote);
  opt(j, "ceilings", v.ceilings);
  opt(j, "variants", v.variants);
  opt(j, "ok", v.ok);
  opt(j, "message", v.message);
}

void to_json(json& j, const ResultsFile& v) {
  j = json{{"schema_version", v.schemaVersion}, {"kind", v.kind}, {"runs", v.runs}};
  if (!v.sweep.empty()) j["sweep"] = v.sweep;
}
void from_json(const json& j, ResultsFile& v) {
  opt(j, "schema_version", v.schemaVersion);
  opt(j, "kind", v.kind);
  opt(j, "sweep", v.sweep);
  opt(j, "runs", v.runs);
}

namespace {

// Schema 1 had one k-means stop rule, Campaign's score rule, and recorded no stop reason: a file
// of that version says what it ran once read (the rule; the reason from its last two scores).
void upgradeRequest(RunRequest& r, int version) {
  if (version < 2) r.clustering.stopRule = StopRule::ScoreChange;
}

void upgradeRun(RunResult& run, int fileVersion) {
  const int version = std::min(run.schemaVersion, fileVersion);
  if (version >= 2) return;
  upgradeRequest(run.request, version);
  if (run.request.family == Family::KMeans) {
    const double epsilon = run.request.clustering.epsilon;
    for (VariantResult& v : run.variants) {
      if (!v.clustering || v.clustering->stopReason != StopReason::None) continue;
      const auto& it = v.iterations;
      const bool met = it.size() >= 2 && std::fabs(it.back().score - it[it.size() - 2].score) <=
                                             epsilon * it[it.size() - 2].score;
      v.clustering->stopReason =
          met || v.clustering->iterations < run.request.clustering.maxIterations
              ? StopReason::ScoreRule
              : StopReason::IterationLimit;
    }
  }
  run.schemaVersion = kSchemaVersion;  // what it holds now, and what it is written as again
}

json parseJson(const std::string& text) {
  requireUtf8Text(text, "");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // The parser's message quotes the last token read, which can be megabytes long.
    throw InputError("not valid JSON (byte " + std::to_string(e.byte) +
                     "): " + excerpt(e.what(), 240));
  } catch (const json::exception& e) {
    // A number beyond double ("1e5676") is an out_of_range error, not a parse_error.
    throw InputError("not valid JSON: " + excerpt(e.what(), 240));
  }
}

// schema_version in full: 4294967297 is not version 1.
int64_t schemaVersionOf(const json& v, const char* what) {
  return jsonInt64(v, std::string(what) + " schema_version", std::numeric_limits<int64_t>::min(),
                   std::numeric_limits<int64_t>::max());
}

}  // namespace

ResultsFile parseResultsFile(const std::string& text) {
  json j = parseJson(text);
  if (!j.is_object()) throw InputError("not a KernelLab results file: the top level is not an object");
  if (!j.contains("schema_version") || !j["schema_version"].is_number())
    throw InputError("not a KernelLab results file: 'schema_version' is missing");
  const int64_t version = schemaVersionOf(j["schema_version"], "results file");
  if (version > kSchemaVersion)
    throw InputError("results file has schema_version " + std::to_string(version) +
                     ", newer than this build understands (" + std::to_string(kSchemaVersion) +
                     "); update KernelLab to open it");
  if (version < 1) throw InputError("results file has an invalid schema_version " +
                                    std::to_string(version));
  if (!j.contains("kind") || !j["kind"].is_string() || j["kind"] != "kernellab-results")
    throw InputError("not a KernelLab results file: 'kind' is not \"kernellab-results\"");
  if (!j.contains("runs") || !j["runs"].is_array())
    throw InputError("results file: 'runs' is missing or not a list");
  ResultsFile file;
  try {
    file = j.get<ResultsFile>();
  } catch (const json::exception& e) {
    throw InputError(std::string("results file: ") + excerpt(e.what(), 240));
  }
  for (RunResult& run : file.runs) upgradeRun(run, static_cast<int>(version));
  file.schemaVersion = kSchemaVersion;
  // Every index and size is range-checked before anything uses it (results_validation.h).
  validateResultsFile(file);
  return file;
}

namespace {
// A JSON file in memory becomes a DOM of ~16-byte values (a number is a few bytes of text), then
// the structures: about this many times its size while it is parsed.
constexpr double kJsonWorkFactor = 12.0;
constexpr uint64_t kMaxJsonBytes = uint64_t(4) << 30;  // 4 GiB: far above any run we write
std::string slurp(const std::string& path) {
  return readTextFile(path, kJsonWorkFactor, kMaxJsonBytes);
}
// Written whole or not at all (atomic_file.h).
void spill(const std::string& path, const std::string& text) { writeFileAtomically(path, text); }
}  // namespace

ResultsFile readResultsFile(const std::string& path) {
  const std::string text = slurp(path);  // its refusals name the path already
  try {
    return parseResultsFile(text);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

void writeResultsFile(const std::string& path, const ResultsFile& file, int indent) {
  spill(path, json(file).dump(indent) + "\n");
}

RunRequest parseRequest(const std::string& text) {
  json j = parseJson(text);
  // A bare request carries no version: it is read with this build's defaults.
  int64_t version = kSchemaVersion;
  if (j.is_object() && j.contains("schema_version")) {
    version = schemaVersionOf(j["schema_version"], "request");
    if (version > kSchemaVersion)
      throw InputError("request has schema_version " + std::to_string(version) +
                       ", newer than this build understands (" + std::to_string(kSchemaVersion) + ")");
    if (j.contains("request")) {
      j = j["request"];
    } else if (j.value("kind", std::string()) == "kernellab-results") {
      // A results file: the request of its one run (a sweep re-runs with `sweep --request`).
      const ResultsFile file = parseResultsFile(text);
      if (file.runs.size() != 1)
        throw InputError("this results file holds " + std::to_string(file.runs.size()) +
                         " runs; `kernellab-cli sweep --request FILE` re-runs them all");
      return file.runs.front().request;
    }
  }
  RunRequest r;
  try {
    r = j.get<RunRequest>();
  } catch (const json::exception& e) {
    throw InputError(std::string("request: ") + excerpt(e.what(), 240));
  }
  upgradeRequest(r, static_cast<int>(version));
  return r;
}

RunRequest readRequestFile(const std::string& path) {
  const std::string text = slurp(path);  // its refusals name the path already
  try {
    return parseRequest(text);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

void writeRequestFile(const std::string& path, const RunRequest& request) {
  spill(path, json{{"schema_version", kSchemaVersion}, {"request", request}}.dump(2) + "\n");
}

}  // namespace kernellab

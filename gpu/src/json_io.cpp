// SPDX-License-Identifier: MIT
// JSON serialisation of requests and results. Readers accept missing optional fields (older
// files) and refuse files whose schema_version is newer than this build.
#include "kernellab/json_io.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>

#include "kernellab/atomic_file.h"
#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/input_file.h"
#include "kernellab/input_text.h"
#include "kernellab/json_fields.h"
#include "kernellab/results_validation.h"

namespace kernellab {

using nlohmann::json;

using json_fields::opt;
using json_fields::optEnum;
using json_fields::plainNumber;

namespace {

template <class F, class V>
void launchFields(F& f, V& v) {
  f("threads_per_block", v.threadsPerBlock);
}

// What every request holds; the family's own sections follow (its descriptor's codecs).
template <class F, class V>
void requestFields(F& f, V& v) {
  f("variants", v.variants);
  f("launch", v.launch);
  f("warmup", v.warmup);
  f("repetitions", v.repetitions);
  f("seed", v.seed);
  f.named("backend", v.backend, backendFromString);
  f("verify", v.verify);
  f("record_schedule", v.recordSchedule);
  f("measure_ceilings", v.measureCeilings);
}

json requestJson(const RunRequest& v, bool all) {
  json j = json::object();
  j["family"] = toString(v.family);
  json_fields::Writer w(j);
  requestFields(w, v);
  if (all) {
    for (const RequestCodec* c : allRequestSections()) c->write(v, j, true);
  } else if (const FamilyDescriptor* f = findFamily(v.family)) {
    for (const RequestCodec& c : f->requestSections) c.write(v, j, false);
  }
  return j;
}

}  // namespace

KL_JSON_FIELDS(LaunchConfig, launchFields)

// A request carries the sections of its own family only (schema 2), so nothing in it describes
// another experiment; see requestWithAllSections for the window's saved settings.
void to_json(json& j, const RunRequest& v) { j = requestJson(v, false); }

json requestWithAllSections(const RunRequest& v) { return requestJson(v, true); }

void from_json(const json& j, RunRequest& v) {
  if (!j.is_object()) throw InputError("a request must be a JSON object");
  if (!j.contains("family")) throw InputError("request: field 'family' is missing");
  optEnum(j, "family", v.family, familyFromString);
  json_fields::Reader r(j);
  requestFields(r, v);
  for (const RequestCodec* c : allRequestSections()) c->read(j, v);
}

// ---- one field list per struct: each writes and reads it (json_fields.h) ----------------------

namespace {

template <class F, class V>
void sweepAxisFields(F& f, V& v) {
  f("axis", v.name);
  f("values", v.values);
}

template <class F, class V>
void deviceFields(F& f, V& v) {
  f("backend", v.backend);
  f("name", v.name);
  f.writeOnly("compute_capability", std::to_string(v.ccMajor) + "." + std::to_string(v.ccMinor));
  f("cc_major", v.ccMajor);
  f("cc_minor", v.ccMinor);
  f("sm_count", v.smCount);
  f("global_mem_bytes", v.globalMemBytes);
  f("l2_bytes", v.l2Bytes);
  f("max_threads_per_block", v.maxThreadsPerBlock);
  f("max_threads_per_sm", v.maxThreadsPerSM);
  f("max_blocks_per_sm", v.maxBlocksPerSM);
  f("regs_per_sm", v.regsPerSM);
  f("regs_per_block", v.regsPerBlock);
  f("shared_per_block", v.sharedPerBlock);
  f("shared_per_block_optin", v.sharedPerBlockOptin);
  f("shared_per_sm", v.sharedPerSM);
  f("reserved_shared_per_block", v.reservedSharedPerBlock);
  f("warp_size", v.warpSize);
  f("memory_bus_bits", v.memoryBusBits);
  f("memory_clock_khz", v.memoryClockKHz);
  f("clock_khz", v.clockKHz);
  f("driver_version", v.driverVersion);
  f("runtime_version", v.runtimeVersion);
}

template <class F, class V>
void backendStatusFields(F& f, V& v) {
  f("cuda_built", v.cudaBuilt);
  f("cuda_usable", v.cudaUsable);
  f("cuda_reason", v.cudaReason);
  f("cuda_devices", v.cudaDevices);
  f("cpu", v.cpu);
}

template <class F, class V>
void timingFields(F& f, V& v) {
  f("median_ms", v.medianMs);
  f("min_ms", v.minMs);
  f("max_ms", v.maxMs);
  f("samples", v.samples);
  f("clock", v.clock);
}

template <class F, class V>
void resourceFields(F& f, V& v) {
  f("registers_per_thread", v.registersPerThread);
  f("static_shared_bytes", v.staticSharedBytes);
  f("dynamic_shared_bytes", v.dynamicSharedBytes);
  f("local_bytes_per_thread", v.localBytesPerThread);
  f("max_threads_per_block", v.maxThreadsPerBlock);
  f("max_active_blocks_per_sm", v.maxActiveBlocksPerSM);
  f("threads_per_block", v.threadsPerBlock);
}

template <class F, class V>
void verificationFields(F& f, V& v) {
  f("performed", v.performed);
  f("passed", v.passed);
  f("reference", v.reference);
  f("compared", v.compared);
  f("mismatches", v.mismatches);
  f("max_error", v.maxError);
  f("tolerance", v.tolerance);
  f("note", v.note);
  f.when(v.approximate, "approximate", v.approximate);
  f.when(v.approximate, "approximate_mismatches", v.approximateMismatches);
}

template <class F, class V>
void kernelFields(F& f, V& v) {
  f("name", v.name);
  f("timing", v.timing);
  f("total_ms", v.totalMs);
  f("launches", v.launches);
  f("bytes", v.bytes);
  f("gbps", v.gbps);
  f("flops", v.flops);
  f.pair("grid", v.gridX, v.gridY);
  f.pair("block", v.blockX, v.blockY);
  f("resources", v.resources);
}

template <class F, class V>
void phaseFields(F& f, V& v) {
  f("name", v.name);
  f("ms", v.ms);
}

template <class F, class V>
void iterationFields(F& f, V& v) {
  f("iteration", v.iteration);
  f("score", v.score);
  f("kernel_ms", v.kernelMs);
  f.when(v.chosenPoint >= 0, "chosen_point", v.chosenPoint);
  f.when(v.rechecked >= 0, "rechecked", v.rechecked);
  f.when(v.labelsChanged >= 0, "labels_changed", v.labelsChanged);
  f.when(v.visited >= 0, "visited", v.visited);
  f.when(v.screened >= 0, "screened", v.screened);
  f.when(v.distances >= 0, "distances", v.distances);
  f.when(v.pass >= 0, "pass", v.pass);
}

template <class F, class V>
void clusteringOutputFields(F& f, V& v) {
  f("labels", v.labels);
  f("centers", v.centers);
  f("center_indices", v.centerIndices);
  f("iterations", v.iterations);
  f("inertia", v.inertia);
  f("cluster_sizes", v.clusterSizes);
  f.named("stop_reason", v.stopReason, stopReasonFromString, v.stopReason != StopReason::None);
}

// The GPU's counters of one kernel (a profiled run, issue 13). Rates ncu did not report stay -1
// and are left out of the file.
template <class F, class V>
void countersFields(F& f, V& v) {
  f("kernel", v.kernel);
  f("launches", v.launches);
  f("duration_ns", v.durationNs);
  f("global_load_sectors", v.globalLoadSectors);
  f("global_load_requests", v.globalLoadRequests);
  f("global_store_sectors", v.globalStoreSectors);
  f("global_store_requests", v.globalStoreRequests);
  f("shared_load_requests", v.sharedLoadRequests);
  f("shared_store_requests", v.sharedStoreRequests);
  f("shared_load_bank_conflicts", v.sharedLoadBankConflicts);
  f("shared_store_bank_conflicts", v.sharedStoreBankConflicts);
  f("dram_bytes_read", v.dramBytesRead);
  f("dram_bytes_written", v.dramBytesWritten);
  f.when(v.l2HitRatePct >= 0, "l2_hit_rate_pct", v.l2HitRatePct);
  f.when(v.achievedOccupancyPct >= 0, "achieved_occupancy_pct", v.achievedOccupancyPct);
  f.when(v.theoreticalOccupancyPct >= 0, "theoretical_occupancy_pct", v.theoreticalOccupancyPct);
  f.when(v.threadsPerInstruction >= 0, "threads_per_instruction", v.threadsPerInstruction);
}

// How the counters were collected; `counters_version` numbers the counters' own layout (the
// metric set and the fields above), so a reader can tell a later set from this one.
template <class F, class V>
void profileFields(F& f, V& v) {
  f("counters_version", v.countersVersion);
  f("tool", v.tool);
  f("metrics", v.metrics);
  f("note", v.note);
}

template <class F, class V>
void variantFields(F& f, V& v) {
  f("variant", v.variant);
  f("ok", v.ok);
  f("error", v.error);
  f("refused", v.refused);
  f("kernels", v.kernels);
  f("total", v.total);
  f("bytes", v.bytes);
  f("gbps", v.gbps);
  f("fraction_of_memcpy", v.fractionOfMemcpy);
  f("fraction_of_copy_kernel", v.fractionOfCopyKernel);
  f("phases", v.phases);
  f("iterations", v.iterations);
  f("verification", v.verification);
  f("schedule", v.schedule);
  f("schedule_overhead_pct", v.scheduleOverheadPct);
  f.when(!v.strategy.empty(), "strategy", v.strategy);
  f.when(!v.iterationsFrom.empty(), "iterations_from", v.iterationsFrom);
  f.when(!v.counters.empty(), "counters", v.counters);
}

template <class F, class V>
void ceilingFields(F& f, V& v) {
  f("name", v.name);
  f("bytes", v.bytes);
  f("timing", v.timing);
  f("gbps", v.gbps);
  f.when(v.gflops > 0, "gflops", v.gflops);
}

template <class F, class V>
void runFields(F& f, V& v) {
  f("schema_version", v.schemaVersion);
  f("created_at", v.createdAt);
  f("tool", v.tool);
  f.writeOnly("bandwidth_unit", "GB/s (1e9 bytes per second)");
  f.required("request", v.request);
  f("device", v.device);
  f("backend", v.backend);
  f("backend_note", v.backendNote);
  f("ceilings", v.ceilings);
  f("variants", v.variants);
  f("ok", v.ok);
  f("message", v.message);
  f("profile", v.profile);
}

template <class F, class V>
void resultsFileFields(F& f, V& v) {
  f("schema_version", v.schemaVersion);
  f("kind", v.kind);
  f.when(!v.sweep.empty(), "sweep", v.sweep);
  f("runs", v.runs);
}

}  // namespace

KL_JSON_FIELDS(SweepAxis, sweepAxisFields)
KL_JSON_FIELDS(DeviceInfo, deviceFields)
KL_JSON_FIELDS(BackendStatus, backendStatusFields)
KL_JSON_FIELDS(TimingStats, timingFields)
KL_JSON_FIELDS(ResourceUsage, resourceFields)
KL_JSON_FIELDS(Verification, verificationFields)
KL_JSON_FIELDS(KernelResult, kernelFields)
KL_JSON_FIELDS(PhaseTiming, phaseFields)
KL_JSON_FIELDS(IterationRecord, iterationFields)
KL_JSON_FIELDS(ClusteringOutput, clusteringOutputFields)
KL_JSON_FIELDS(Ceiling, ceilingFields)
KL_JSON_FIELDS(MeasuredCounters, countersFields)
KL_JSON_FIELDS(ProfileInfo, profileFields)
KL_JSON_FIELDS(ResultsFile, resultsFileFields)

// The family's sections of a variant (ClusteringOutput, KnnDetails, ...) under their keys.
void to_json(json& j, const VariantResult& v) {
  j = json::object();
  json_fields::Writer w(j);
  variantFields(w, v);
  for (const ResultCodec* c : allResultSections()) c->write(v, j);
}
void from_json(const json& j, VariantResult& v) {
  json_fields::Reader r(j);
  variantFields(r, v);
  for (const ResultCodec* c : allResultSections()) c->read(j, v);
}

void to_json(json& j, const RunResult& v) {
  j = json::object();
  json_fields::Writer w(j);
  runFields(w, v);
}
void from_json(const json& j, RunResult& v) {
  if (!j.is_object()) throw InputError("a run must be a JSON object");
  if (!j.contains("request")) throw InputError("run: field 'request' is missing");
  json_fields::Reader r(j);
  runFields(r, v);
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

namespace {

// A request or a run of an older schema, read with today's meaning: each family upgrades its
// own sections (clustering: schema 1 ran Campaign's score rule and recorded no stop reason).
void upgradeRequest(RunRequest& r, int version) {
  for (const FamilyDescriptor* f : families())
    if (f->upgradeRequest) f->upgradeRequest(r, version);
}

void upgradeRun(RunResult& run, int fileVersion) {
  const int version = std::min(run.schemaVersion, fileVersion);
  if (version >= kSchemaVersion) return;
  upgradeRequest(run.request, version);
  if (const FamilyDescriptor* f = findFamily(run.request.family))
    if (f->upgradeRun) f->upgradeRun(run, version);
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

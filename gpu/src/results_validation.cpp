// SPDX-License-Identifier: MIT
// Range checks of a parsed results file (results_validation.h). A bad file is refused whole, with
// the path of the first bad field, before any view or the history sees it.
#include "kernellab/results_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/input_text.h"
#include "kernellab/text.h"

namespace kernellab {
namespace {

constexpr int64_t kMaxIndexed = std::numeric_limits<int32_t>::max();  // 32-bit kernel indices

void atLeast(int64_t v, int64_t min, const std::string& field) {
  if (v < min) refuseField(field, "= " + std::to_string(v) + " is below " + std::to_string(min));
}

// What every request holds. A run that did not run (a skipped sweep point) only records what was
// asked: its outputs are absent, so nothing depends on its numbers.
void checkRequest(const RunRequest& r, const std::string& at) {
  atLeast(r.launch.threadsPerBlock, 0, at + ".launch.threads_per_block");
  atLeast(r.warmup, 0, at + ".warmup");
  atLeast(r.repetitions, 0, at + ".repetitions");
}

// A count or a rate of the GPU's counters: finite and not negative; a rate ncu did not report
// is -1 (exactly). Rates may pass 100 (ncu's L2 hit rate counts some sectors twice).
void checkCounter(double value, bool rate, const std::string& field) {
  if (rate && value == -1.0) return;
  if (!std::isfinite(value) || value < 0)
    refuseField(field, "= " + formatGeneral(value, 6) + " is not a count (finite, 0 or more)");
}

void checkCounters(const std::vector<MeasuredCounters>& counters, const std::string& at) {
  for (size_t i = 0; i < counters.size(); ++i) {
    const MeasuredCounters& c = counters[i];
    const std::string k = at + ".counters[" + std::to_string(i) + "]";
    if (c.kernel.empty() || c.kernel.size() > 4096)
      refuseField(k + ".kernel", "must name the kernel (1..4096 characters)");
    atLeast(c.launches, 0, k + ".launches");
    const std::pair<double, const char*> counts[] = {
        {c.durationNs, "duration_ns"},
        {c.globalLoadSectors, "global_load_sectors"},
        {c.globalLoadRequests, "global_load_requests"},
        {c.globalStoreSectors, "global_store_sectors"},
        {c.globalStoreRequests, "global_store_requests"},
        {c.sharedLoadRequests, "shared_load_requests"},
        {c.sharedStoreRequests, "shared_store_requests"},
        {c.sharedLoadBankConflicts, "shared_load_bank_conflicts"},
        {c.sharedStoreBankConflicts, "shared_store_bank_conflicts"},
        {c.dramBytesRead, "dram_bytes_read"},
        {c.dramBytesWritten, "dram_bytes_written"}};
    for (const auto& [value, name] : counts) checkCounter(value, false, k + "." + name);
    const std::pair<double, const char*> rates[] = {
        {c.l2HitRatePct, "l2_hit_rate_pct"},
        {c.achievedOccupancyPct, "achieved_occupancy_pct"},
        {c.theoreticalOccupancyPct, "theoretical_occupancy_pct"},
        {c.threadsPerInstruction, "threads_per_instruction"}};
    for (const auto& [value, name] : rates) checkCounter(value, true, k + "." + name);
  }
}

void checkVariant(const VariantResult& v, const FamilyDescriptor* family, const std::string& at) {
  checkCounters(v.counters, at);
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
  const int64_t lastPoint = kMaxIndexed;  // the family's checkStored knows the size
  for (size_t i = 0; i < v.iterations.size(); ++i) {
    const IterationRecord& r = v.iterations[i];
    const std::string it = at + ".iterations[" + std::to_string(i) + "]";
    atLeast(r.iteration, 0, it + ".iteration");
    checkWithin(r.chosenPoint, -1, lastPoint, it + ".chosen_point", "-1 or a point index");
    atLeast(r.rechecked, -1, it + ".rechecked");
    // Points read for a center: at most N, which the family's checkStored knows.
    checkWithin(r.visited, -1, kMaxIndexed, it + ".visited", "-1 or a count of points");
    checkWithin(r.screened, -1, kMaxIndexed, it + ".screened", "-1 or a count of points");
    atLeast(r.distances, -1, it + ".distances");  // at most N K: the family's checkStored
    checkWithin(r.pass, -1, 1, it + ".pass", "-1 (not counted), 0 or 1");
    if (!r.kernelMs.empty() && r.kernelMs.size() != v.kernels.size())
      refuseField(it + ".kernel_ms", "has " + std::to_string(r.kernelMs.size()) +
                                         " times; the variant has " +
                                         std::to_string(v.kernels.size()) + " kernels");
  }
  for (size_t i = 0; i < v.schedule.size(); ++i) {
    const BlockRecord& b = v.schedule[i];
    const std::string s = at + ".schedule[" + std::to_string(i) + "]";
    atLeast(b.blockId, 0, s + " block");
    checkWithin(b.smId, 0, kMaxRecordedSmId, s + " sm");
    atLeast(b.tileX, 0, s + " tile_x");
    atLeast(b.tileY, 0, s + " tile_y");
    if (b.endNs < b.startNs)
      refuseField(s, "ends (" + std::to_string(b.endNs) + " ns) before it starts (" +
                         std::to_string(b.startNs) + " ns)");
  }
  // Each section of the variant must be one its family writes (a "knn" object in a transpose run
  // is a crafted file).
  for (size_t i = 0; i < v.details.size(); ++i) {
    const void* type = v.details.typeAt(i);
    const bool ours =
        family && std::any_of(family->resultSections.begin(), family->resultSections.end(),
                              [&](const ResultCodec& c) { return c.type == type; });
    if (ours) continue;
    std::string key = "section";
    for (const ResultCodec* c : allResultSections())
      if (c->type == type) key = c->key;
    refuseField(at + "." + key,
                "is present in a " + std::string(family ? family->family.id() : "?") + " run");
  }
}

}  // namespace

void refuseField(const std::string& field, const std::string& why) {
  throw InputError(field + " " + why);
}

void checkWithin(int64_t v, int64_t min, int64_t max, const std::string& field,
                 const std::string& why) {
  if (v < min || v > max)
    refuseField(field, "= " + std::to_string(v) + " is outside " + std::to_string(min) + ".." +
                           std::to_string(max) + (why.empty() ? "" : " (" + why + ")"));
}

void checkAtMost(int64_t v, int64_t max, const std::string& field) {
  if (v > max)
    refuseField(field, "= " + std::to_string(v) + " is above the limit of " + std::to_string(max));
}

void validateResultsFile(const ResultsFile& file) {
  checkWithin(file.schemaVersion, 1, kSchemaVersion, "schema_version");
  if (file.kind != "kernellab-results")
    refuseField("kind", "is '" + excerpt(file.kind) + "', not 'kernellab-results'");
  uint64_t product = 1;
  for (size_t a = 0; a < file.sweep.size(); ++a) {
    const SweepAxis& axis = file.sweep[a];
    const std::string at = "sweep[" + std::to_string(a) + "]";
    if (axis.name.empty()) refuseField(at + ".axis", "is empty");
    if (axis.values.empty())
      refuseField(at + ".values", "is empty (axis '" + excerpt(axis.name) + "' has no values)");
    if (__builtin_mul_overflow(product, uint64_t(axis.values.size()), &product))
      product = std::numeric_limits<uint64_t>::max();
  }
  if (!file.sweep.empty() && file.runs.size() > product)
    refuseField("runs", "has " + std::to_string(file.runs.size()) +
                            " runs; the sweep's axes make " + std::to_string(product));
  for (size_t i = 0; i < file.runs.size(); ++i) {
    const RunResult& run = file.runs[i];
    const std::string at = "runs[" + std::to_string(i) + "]";
    checkWithin(run.schemaVersion, 1, kSchemaVersion, at + ".schema_version");
    if (run.profile)
      checkWithin(run.profile->countersVersion, 1, ProfileInfo::kCountersVersion,
                  at + ".profile.counters_version", "this build reads counters up to version " +
                                                        std::to_string(ProfileInfo::kCountersVersion));
    checkWithin(run.device.smCount, 0, 65536, at + ".device.sm_count");
    atLeast(run.device.maxThreadsPerBlock, 0, at + ".device.max_threads_per_block");
    atLeast(run.device.warpSize, 0, at + ".device.warp_size");
    const FamilyDescriptor* family = findFamily(run.request.family);
    if (family && family->checkLimits) family->checkLimits(run.request, at + ".request");
    if (run.variants.empty()) continue;
    checkRequest(run.request, at + ".request");
    for (size_t v = 0; v < run.variants.size(); ++v)
      checkVariant(run.variants[v], family, at + ".variants[" + std::to_string(v) + "]");
    if (family && family->checkStored) family->checkStored(run, at);
  }
}

}  // namespace kernellab

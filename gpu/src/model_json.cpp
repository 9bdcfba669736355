// SPDX-License-Identifier: MIT
// JSON of the models' answers for the CLI's --json files.
#include "kernellab/model_json.h"

#include <algorithm>

#include "kernellab/experiment.h"

namespace kernellab {

using nlohmann::json;

json toJson(const occupancy::ArchSpec& a) {
  return json{{"id", a.id},
              {"name", a.name},
              {"source", a.source},
              {"compute_capability", a.computeCapability()},
              {"sm_count", a.smCount},
              {"warp_size", a.warpSize},
              {"max_threads_per_block", a.maxThreadsPerBlock},
              {"max_threads_per_sm", a.maxThreadsPerSM},
              {"max_warps_per_sm", a.maxWarpsPerSM()},
              {"max_blocks_per_sm", a.maxBlocksPerSM},
              {"regs_per_sm", a.regsPerSM},
              {"max_regs_per_block", a.maxRegsPerBlock},
              {"max_regs_per_thread", a.maxRegsPerThread},
              {"reg_alloc_unit", a.regAllocUnit},
              {"reg_alloc_granularity",
               a.regGranularity == occupancy::RegisterGranularity::PerBlock ? "block" : "warp"},
              {"warp_alloc_granularity", a.warpAllocGranularity},
              {"shared_per_sm", a.sharedPerSM},
              {"max_shared_per_block", a.maxSharedPerBlock},
              {"shared_alloc_unit", a.sharedAllocUnit},
              {"reserved_shared_per_block", a.reservedSharedPerBlock},
              {"shared_banks", a.sharedBanks},
              {"banks_per_half_warp", a.banksPerHalfWarp}};
}

json toJson(const occupancy::Result& r) {
  json limits = json::array();
  for (const auto& l : r.limits)
    limits.push_back({{"limit", occupancy::toString(l.limit)},
                      {"blocks", l.bounded ? json(l.blocks) : json(nullptr)},
                      {"blocks_without_granularity",
                       l.bounded ? json(l.blocksWithoutGranularity) : json(nullptr)},
                      {"binding", std::find(r.binding.begin(), r.binding.end(), l.limit) !=
                                      r.binding.end()},
                      {"explanation", l.explanation}});
  json binding = json::array();
  for (auto l : r.binding) binding.push_back(occupancy::toString(l));
  json next = json::array();
  for (const auto& s : r.nextBlock)
    next.push_back({{"parameter", s.parameter},
                    {"from", s.from},
                    {"to", s.to},
                    {"blocks", s.blocks},
                    {"occupancy", s.occupancy},
                    {"text", s.text}});
  return json{{"arch", toJson(r.arch)},
              {"input",
               {{"threads_per_block", r.input.threadsPerBlock},
                {"registers_per_thread", r.input.registersPerThread},
                {"shared_bytes_per_block", r.input.sharedBytesPerBlock}}},
              {"warps_per_block", r.warpsPerBlock},
              {"registers_per_block_allocated", r.registersPerBlock},
              {"shared_per_block_allocated", r.sharedPerBlock},
              {"limits", limits},
              {"binding", binding},
              {"active_blocks", r.activeBlocks},
              {"active_warps", r.activeWarps},
              {"active_threads", r.activeThreads},
              {"max_warps", r.maxWarps},
              {"occupancy", r.occupancy},
              {"cannot_launch", r.cannotLaunch},
              {"next_block", next},
              {"next_block_text", r.nextBlockText}};
}

json toJson(const occupancy::Charts& c) {
  auto series = [](const std::vector<occupancy::ChartPoint>& pts) {
    json a = json::array();
    for (const auto& p : pts) a.push_back({p.x, p.activeBlocks, p.activeWarps, p.occupancy});
    return a;
  };
  return json{{"columns", {"x", "active_blocks", "active_warps", "occupancy"}},
              {"by_threads_per_block", series(c.byThreads)},
              {"by_registers_per_thread", series(c.byRegisters)},
              {"by_shared_bytes_per_block", series(c.bySharedMemory)}};
}

json toJson(const occupancy::DeviceCheck& c) {
  return json{{"variant", c.variant},
              {"kernel", c.kernel},
              {"threads_per_block", c.input.threadsPerBlock},
              {"registers_per_thread", c.input.registersPerThread},
              {"shared_bytes_per_block", c.input.sharedBytesPerBlock},
              {"device_blocks", c.deviceBlocks},
              {"calculator_blocks", c.calculatorBlocks},
              {"match", c.match}};
}

json toJson(const schedule::Model& m, bool withBlocks) {
  const auto& c = m.config;
  json waves = json::array();
  for (const auto& w : m.waves)
    waves.push_back({{"wave", w.wave},
                     {"first_block", w.firstBlock},
                     {"blocks", w.blockCount},
                     {"read_bytes", w.readBytes},
                     {"write_bytes", w.writeBytes},
                     {"partitions_read", w.partitionsRead},
                     {"partitions_written", w.partitionsWritten},
                     {"worst_read_share", w.worstReadShare},
                     {"worst_write_share", w.worstWriteShare}});
  json j{{"grid", {c.gridX, c.gridY}},
         {"tile", c.tile},
         {"element_bytes", c.elementBytes},
         {"matrix", {m.width, m.height}},
         {"mapping", schedule::toString(c.mapping)},
         {"sm_count", c.smCount},
         {"blocks_per_sm", c.blocksPerSM},
         {"resident_blocks", m.residentBlocks},
         {"partitions",
          {{"count", c.partitions.count},
           {"width_bytes", c.partitions.widthBytes},
           {"mapping", c.partitions.mapping == schedule::PartitionMapping::Hashed ? "hashed"
                                                                                  : "linear"}}},
         {"output_base", m.outputBase},
         {"mean_worst_write_share", m.meanWorstWriteShare},
         {"max_worst_write_share", m.maxWorstWriteShare},
         {"mean_worst_read_share", m.meanWorstReadShare},
         {"mean_partitions_written", m.meanPartitionsWritten},
         {"waves", waves}};
  if (withBlocks) {
    json blocks = json::array();
    for (const auto& b : m.blocks)
      blocks.push_back({b.blockId, b.blockIdx.x, b.blockIdx.y, b.tile.x, b.tile.y, b.wave, b.sm});
    j["block_columns"] = {"block_id", "bx", "by", "tile_x", "tile_y", "wave", "sm"};
    j["blocks"] = blocks;
  }
  return j;
}

namespace {
json totals(const access::Totals& t) {
  return json{{"global_requests", t.globalRequests}, {"sectors", t.sectors},
              {"ideal_sectors", t.idealSectors},     {"lines", t.lines},
              {"ideal_lines", t.idealLines},         {"efficiency", t.efficiency},
              {"shared_requests", t.sharedRequests}, {"wavefronts", t.wavefronts},
              {"ideal_wavefronts", t.idealWavefronts}, {"max_conflict", t.maxConflict}};
}
}  // namespace

json toJson(const access::WarpReport& r) {
  json buffers = json::array();
  for (const auto& b : r.buffers)
    buffers.push_back({{"name", b.name},
                       {"space", access::toString(b.space)},
                       {"element_bytes", b.elementBytes},
                       {"base", b.base}});
  json requests = json::array();
  for (const auto& q : r.requests) {
    json lanes = json::array();
    for (const auto& l : q.lanes) {
      json lane{{"lane", l.lane}, {"thread", l.thread}, {"element", l.element},
                {"address", l.address}};
      if (q.space == access::Space::Shared) lane["bank"] = l.bank;
      lanes.push_back(lane);
    }
    json jq{{"phase", q.phase},
            {"seq", q.seq},
            {"space", access::toString(q.space)},
            {"kind", access::toString(q.kind)},
            {"buffer", q.bufferName},
            {"active_lanes", q.lanes.size()},
            {"useful_bytes", q.usefulBytes},
            {"lanes", lanes}};
    if (q.space == access::Space::Global) {
      jq["sectors"] = q.sectors;
      jq["ideal_sectors"] = q.idealSectors;
      jq["lines"] = q.lines;
      jq["ideal_lines"] = q.idealLines;
      jq["efficiency"] = q.efficiency;
      jq["sector_addresses"] = q.sectorAddresses;
    } else {
      jq["bank_words"] = q.bankWords;
      jq["conflict_degree"] = q.conflictDegree;
      jq["wavefronts"] = q.wavefronts;
      jq["ideal_wavefronts"] = q.idealWavefronts;
    }
    requests.push_back(jq);
  }
  return json{{"family", r.family},
              {"variant", r.variant},
              {"kernel", r.kernel},
              {"description", r.description},
              {"block", {r.block.x, r.block.y}},
              {"block_dim", {r.blockDim.x, r.blockDim.y}},
              {"grid_dim", {r.gridDim.x, r.gridDim.y}},
              {"warp", r.warp},
              {"warps_per_block", r.warpsPerBlock},
              {"per_warp_traces", r.perWarpTraces},
              {"memory",
               {{"sector_bytes", r.memory.sectorBytes},
                {"line_bytes", r.memory.lineBytes},
                {"banks", r.memory.banks},
                {"bank_bytes", r.memory.bankBytes},
                {"half_warp_banks", r.memory.halfWarpBanks}}},
              {"buffers", buffers},
              {"requests", requests},
              {"warp_totals", totals(r.warpTotals)},
              {"block_totals", totals(r.blockTotals)}};
}

json modelFile(const std::string& kind, json body) {
  json j{{"kind", kind}, {"schema_version", 1}, {"tool", toolVersion()}};
  for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace kernellab

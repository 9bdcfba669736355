// SPDX-License-Identifier: MIT
// kernellab-cli occupancy | schedule | access: the models as readable tables and JSON files.
#include "cli_models.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "cli_commands.h"
#include "cli_numbers.h"
#include "kernellab/access_model.h"
#include "kernellab/atomic_file.h"
#include "kernellab/backend.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/model_json.h"
#include "kernellab/schedule_model.h"
#include "kernellab/text.h"

namespace kernellab::cli {

namespace {

std::string pct(double f, int decimals = 0) { return formatFixed(100.0 * f, decimals) + " %"; }

void writeJson(const std::string& path, const nlohmann::json& j) {
  if (path.empty()) return;
  writeFileAtomically(path, j.dump(2) + "\n");  // whole or not at all
}

occupancy::Input occupancyInput(const ModelOptions& o, int defaultSmem) {
  occupancy::Input in;
  in.threadsPerBlock = o.tpb;
  in.registersPerThread = o.regs;
  in.sharedBytesPerBlock = o.smem >= 0 ? o.smem : defaultSmem;
  return in;
}

bool isBinding(const occupancy::Result& r, occupancy::Limit l) {
  for (auto b : r.binding)
    if (b == l) return true;
  return false;
}

void printOccupancy(std::ostream& out, const occupancy::Result& r) {
  const auto& a = r.arch;
  out << a.name << "\n"
      << "  " << a.maxThreadsPerSM << " threads (" << a.maxWarpsPerSM() << " warps), "
      << a.maxBlocksPerSM << " blocks, " << a.regsPerSM << " registers, " << a.sharedPerSM
      << " B shared memory per SM\n"
      << "  registers allocated per " << (a.regGranularity == occupancy::RegisterGranularity::PerBlock ? "block" : "warp")
      << " in units of " << a.regAllocUnit << ", warps in groups of " << a.warpAllocGranularity
      << "; shared memory in units of " << a.sharedAllocUnit << " B";
  if (a.reservedSharedPerBlock > 0) out << " + " << a.reservedSharedPerBlock << " B reserved per block";
  out << "\n\nKernel: " << r.input.threadsPerBlock << " threads per block (" << r.warpsPerBlock
      << " warps), " << r.input.registersPerThread << " registers per thread, "
      << r.input.sharedBytesPerBlock << " B shared memory per block\n"
      << "Allocated per block: " << r.registersPerBlock << " registers, " << r.sharedPerBlock
      << " B shared memory\n\n";
  out << std::left << std::setw(15) << "limit" << std::right << std::setw(10) << "blocks/SM"
      << std::setw(12) << "unrounded" << "  why\n";
  for (const auto& l : r.limits) {
    out << std::left << std::setw(15) << occupancy::toString(l.limit) << std::right
        << std::setw(10) << (l.bounded ? std::to_string(l.blocks) : "-") << std::setw(12)
        << (l.bounded ? std::to_string(l.blocksWithoutGranularity) : "-") << "  "
        << l.explanation << (isBinding(r, l.limit) ? "   <- binding" : "") << "\n";
  }
  out << "\nActive: " << r.activeBlocks << (r.activeBlocks == 1 ? " block" : " blocks") << " per SM, " << r.activeWarps << " of "
      << r.maxWarps << " warps, " << r.activeThreads << " threads: occupancy "
      << pct(r.occupancy, 1) << "\n";
  if (!r.cannotLaunch.empty()) out << "Cannot launch: " << r.cannotLaunch << "\n";
  out << "Limited by: ";
  for (size_t i = 0; i < r.binding.size(); ++i)
    out << (i ? ", " : "") << occupancy::toString(r.binding[i]);
  out << "\nNext block: " << r.nextBlockText << "\n";
}

std::string tileText(BlockCoord t) {
  return "(" + std::to_string(t.x) + "," + std::to_string(t.y) + ")";
}

void printSchedule(std::ostream& out, const schedule::Model& m, int maxWaves) {
  out << "\n" << schedule::toString(m.config.mapping) << ": the busiest partition takes "
      << pct(m.meanWorstWriteShare, 1) << " of a wave's writes on average (worst "
      << pct(m.maxWorstWriteShare, 1) << "), " << formatFixed(m.meanPartitionsWritten, 1)
      << " of " << m.config.partitions.count << " partitions written; reads "
      << pct(m.meanWorstReadShare, 1) << "\n";
  out << std::right << std::setw(6) << "wave" << std::setw(8) << "blocks" << "  " << std::left
      << std::setw(18) << "tiles" << std::right << std::setw(9) << "written" << std::setw(13)
      << "worst write" << std::setw(12) << "worst read" << "  writes per partition (KiB)\n";
  const int n = std::min<int>(maxWaves, static_cast<int>(m.waves.size()));
  for (int i = 0; i < n; ++i) {
    const auto& w = m.waves[size_t(i)];
    const auto& first = m.blocks[size_t(w.firstBlock)];
    const auto& last = m.blocks[size_t(w.firstBlock + w.blockCount - 1)];
    out << std::setw(6) << w.wave << std::setw(8) << w.blockCount << "  " << std::left
        << std::setw(18) << (tileText(first.tile) + ".." + tileText(last.tile)) << std::right
        << std::setw(9) << w.partitionsWritten << std::setw(13) << pct(w.worstWriteShare, 1)
        << std::setw(12) << pct(w.worstReadShare, 1) << " ";
    for (uint64_t b : w.writeBytes) out << " " << formatFixed(double(b) / 1024.0, 0);
    out << "\n";
  }
  if (n < static_cast<int>(m.waves.size()))
    out << "  ... " << m.waves.size() - size_t(n) << " more waves (--waves N, or --json)\n";
}

std::string addressText(const access::Request& q) {
  if (q.lanes.empty()) return "-";
  std::string s = q.bufferName + "[" + std::to_string(q.lanes.front().element) + "]";
  if (q.lanes.size() == 1) return s;
  const int64_t stride = int64_t(q.lanes[1].address) - int64_t(q.lanes[0].address);
  bool regular = true;
  for (size_t i = 1; i < q.lanes.size(); ++i)
    regular = regular && int64_t(q.lanes[i].address) - int64_t(q.lanes[i - 1].address) == stride;
  return s + (regular ? " stride " + std::to_string(stride) + " B" : " irregular");
}

void printAccess(std::ostream& out, const access::WarpReport& r, bool lanes) {
  out << r.family << " " << r.variant << " (" << r.kernel << "), warp " << r.warp << " of "
      << r.warpsPerBlock << ": " << r.description << "\n";
  out << "Memory model: " << r.memory.sectorBytes << "-byte sectors, " << r.memory.lineBytes
      << "-byte lines; shared memory " << r.memory.banks << " banks x " << r.memory.bankBytes
      << " B " << (r.memory.halfWarpBanks ? "per half-warp (cc 1.x)" : "per warp") << "\n";
  out << "Buffers:";
  for (const auto& b : r.buffers)
    out << " " << b.name << " (" << access::toString(b.space)
        << (b.space == access::Space::Global ? ", base " + std::to_string(b.base) : "") << ")";
  out << "\n\n";
  out << std::right << std::setw(3) << "#" << std::setw(6) << "phase" << "  " << std::left
      << std::setw(12) << "access" << std::right << std::setw(6) << "lanes" << "  " << std::left
      << std::setw(28) << "addresses (lane 0, stride)" << std::right << std::setw(10)
      << "sectors" << std::setw(8) << "lines" << std::setw(12) << "efficiency"
      << "  shared banks\n";
  int i = 0;
  for (const auto& q : r.requests) {
    out << std::setw(3) << i++ << std::setw(6) << q.phase << "  " << std::left << std::setw(12)
        << (std::string(access::toString(q.kind)) + " " + access::toString(q.space))
        << std::right << std::setw(6) << q.lanes.size() << "  " << std::left << std::setw(28)
        << addressText(q) << std::right;
    if (q.space == access::Space::Global) {
      out << std::setw(10) << (std::to_string(q.sectors) + " (" + std::to_string(q.idealSectors) + ")")
          << std::setw(8) << (std::to_string(q.lines) + " (" + std::to_string(q.idealLines) + ")")
          << std::setw(12) << pct(q.efficiency, 1) << "\n";
    } else {
      int used = 0;
      for (int w : q.bankWords) used += w > 0;
      out << std::setw(30) << "" << "  " << used << (used == 1 ? " bank, " : " banks, ")
          << (q.conflictDegree <= 1 ? "conflict-free" : std::to_string(q.conflictDegree) + "-way conflict")
          << " (" << q.wavefronts << " wavefront" << (q.wavefronts == 1 ? "" : "s") << ")\n";
    }
    if (lanes) {
      for (const auto& l : q.lanes) {
        out << "        lane " << std::setw(2) << l.lane << "  thread (" << l.thread % r.blockDim.x
            << "," << l.thread / r.blockDim.x << ")  " << q.bufferName << "[" << l.element
            << "]  byte " << l.address;
        if (q.space == access::Space::Shared) out << "  bank " << l.bank;
        else out << "  sector " << l.address / uint64_t(r.memory.sectorBytes);
        out << "\n";
      }
    }
  }
  auto totals = [&](const char* what, const access::Totals& t) {
    out << what << ": " << t.globalRequests << " global requests, " << t.sectors << " sectors for "
        << t.idealSectors << " ideal (" << pct(t.efficiency, 1) << "), " << t.lines
        << " lines for " << t.idealLines << "; " << t.sharedRequests << " shared requests, "
        << t.wavefronts << " wavefronts for " << t.idealWavefronts << " ideal"
        << (!t.sharedRequests ? ""
            : t.maxConflict <= 1 ? " (conflict-free)"
                                 : " (worst " + std::to_string(t.maxConflict) + "-way)")
        << "\n";
  };
  out << "\n";
  totals("Warp", r.warpTotals);
  totals("Block", r.blockTotals);
  if (r.perWarpTraces)
    out << "(The block's accesses exceed one trace: its program ran once per warp, each run "
           "recording one warp.)\n";
}

}  // namespace

occupancy::ArchSpec resolveArch(const std::string& id) {
  if (toLower(id) != "device") return occupancy::archById(id);
  const BackendStatus s = backendStatus();
  if (!s.cudaUsable || s.cudaDevices.empty())
    throw InputError("--arch device: no usable CUDA device here (" +
                     (s.cudaReason.empty() ? std::string("CUDA backend not built") : s.cudaReason) +
                     "); pick a preset instead");
  return occupancy::archFromDevice(s.cudaDevices.front());
}

void addOccupancyOptions(CLI::App* cmd, ModelOptions& o) {
  cmd->add_option("--arch", o.arch,
                  "g80 | gt200 | gf100 | gk110 | volta | ampere | hopper | device (default hopper)");
  addIntOption(cmd, "--tpb", o.tpb, "Threads per block (default 256)");
  addIntOption(cmd, "--regs", o.regs, "Registers per thread (default 0: not limiting)");
  addIntOption(cmd, "--smem", o.smem,
               "Shared memory per block in bytes, static + dynamic (default 0)");
  cmd->add_option("--json", o.jsonPath, "Write the answer, every limit and the chart series as JSON");
}

void addScheduleOptions(CLI::App* cmd, ModelOptions& o) {
  cmd->add_option("--grid", o.grid, "Blocks across x down, e.g. 64x64 (a 2048x2048 matrix with tile 32)");
  cmd->add_option("--mapping", o.mapping, "cartesian | diagonal | both (default both)");
  cmd->add_option("--arch", o.arch, "SM count and resident blocks from this architecture (default gt200)");
  addIntOption(cmd, "--tile", o.tile, "Tile edge in elements (default 32)");
  addIntOption(cmd, "--tpb", o.tpb, "Threads per block of the modelled kernel (default 256)");
  addIntOption(cmd, "--regs", o.regs,
               "Registers per thread of the modelled kernel (default 0: not limiting)");
  addIntOption(cmd, "--smem", o.smem,
               "Shared memory per block (default: the padded tile, tile*(tile+1)*4 B)");
  addIntOption(cmd, "--blocks-per-sm", o.blocksPerSM,
               "Override the occupancy model's resident blocks per SM");
  addIntOption(cmd, "--sms", o.sms, "Override the architecture's SM count");
  addIntOption(cmd, "--partitions", o.partitions, "Memory partitions (default 8, GT200)");
  addIntOption(cmd, "--partition-bytes", o.partitionBytes,
               "Bytes per partition stripe (default 256)");
  cmd->add_flag("--hashed", o.hashed, "Hash addresses over partitions, as GPUs since cc 2.0 do (illustrative hash)");
  addIntOption(cmd, "--waves", o.waves, "Waves printed per mapping (default 6; --json has all)");
  cmd->add_option("--json", o.jsonPath, "Write both models (blocks, waves, partition loads) as JSON");
}

void addAccessOptions(CLI::App* cmd, ModelOptions& o) {
  cmd->add_option("--family", o.family, familyIds(" | ") + " (default transpose)");
  cmd->add_option("--variant", o.variant,
                  "Variant id: transpose naive|tiled|padded|copy|diagonal; kmeans, kcenters "
                  "shared-coalesced|global-coalesced|shared-interleaved|global-interleaved; knn "
                  "global|shared-window|shared-row|shared-row-rect");
  cmd->add_option("--kernel", o.kernel,
                  "kmeans: assign | centroids | score; kcenters: distance | select "
                  "(default the first)");
  addIntOption(cmd, "--warp", o.warp, "Warp within the block (default 0)");
  cmd->add_option("--block", o.block, "blockIdx as X,Y (default 0,0)");
  // The problem and launch as `kernellab-cli run` takes them (the families' parameters); KNN's
  // block shape is --block-shape here, --block being the traced blockIdx.
  addFamilyOptions(cmd, o.params, false, accessRenamed());
  addSeedOption(cmd, "--seed", o.seed, "Random seed of the generated data (default 1)");
  cmd->add_option("--arch", o.arch, "Bank model of this architecture: cc 1.x has 16 banks per half-warp (default hopper)");
  cmd->add_flag("--lanes", o.lanes, "Print every lane's element, byte address and sector or bank");
  cmd->add_option("--json", o.jsonPath, "Write the warp's requests and the totals as JSON");
}

const std::map<std::string, std::string>& accessRenamed() {
  static const std::map<std::string, std::string> renamed = {{"block", "block-shape"}};
  return renamed;
}

int cmdOccupancy(const ModelOptions& o) {
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  const occupancy::ArchSpec arch = resolveArch(o.arch);
  const occupancy::Input in = occupancyInput(o, 0);
  const occupancy::Result r = occupancy::calculate(arch, in);
  printOccupancy(std::cout, r);
  if (!o.jsonPath.empty())
    writeJson(o.jsonPath, modelFile("kernellab-occupancy",
                                    {{"result", toJson(r)},
                                     {"charts", toJson(occupancy::charts(arch, in))}}));
  return 0;
}

int cmdSchedule(const ModelOptions& o) {
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  const auto [gx, gy] = parseSize(o.grid, "--grid");
  if (gx > 65535 || gy > 65535)
    throw InputError("--grid " + o.grid + ": each side is at most 65535 blocks");
  const occupancy::ArchSpec spec = resolveArch(o.arch);
  std::vector<schedule::Mapping> mappings;
  if (toLower(o.mapping) == "both") mappings = {schedule::Mapping::Cartesian, schedule::Mapping::Diagonal};
  else mappings = {schedule::mappingFromString(o.mapping)};

  schedule::Config c;
  c.gridX = static_cast<int>(gx);
  c.gridY = static_cast<int>(gy);
  c.tile = o.tile;
  if (c.tile < 1 || c.tile > 64) throw InputError("--tile " + std::to_string(o.tile) + " is outside 1..64");
  c.smCount = o.sms > 0 ? o.sms : spec.smCount;
  const occupancy::Input in = occupancyInput(o, o.tile * (o.tile + 1) * 4);
  std::string residentWhy;
  if (o.blocksPerSM > 0) {
    c.blocksPerSM = o.blocksPerSM;
    residentWhy = "set by --blocks-per-sm";
  } else {
    const occupancy::Result occ = occupancy::calculate(spec, in);
    if (occ.activeBlocks == 0)
      throw InputError("the modelled kernel cannot launch on " + spec.id + ": " + occ.cannotLaunch);
    c.blocksPerSM = occ.activeBlocks;
    residentWhy = "binding: ";
    for (size_t i = 0; i < occ.binding.size(); ++i)
      residentWhy += std::string(i ? ", " : "") + occupancy::toString(occ.binding[i]);
    residentWhy += "; " + std::to_string(in.threadsPerBlock) + " threads, " +
                   std::to_string(in.registersPerThread) + " registers, " +
                   std::to_string(in.sharedBytesPerBlock) + " B shared per block";
  }
  c.partitions.count = o.partitions;
  c.partitions.widthBytes = o.partitionBytes;
  c.partitions.mapping = o.hashed ? schedule::PartitionMapping::Hashed : schedule::PartitionMapping::Linear;

  std::vector<schedule::Model> models;
  for (auto m : mappings) {
    c.mapping = m;
    models.push_back(schedule::simulate(c));
  }
  const schedule::Model& first = models.front();
  std::cout << "Block schedule: " << c.gridX << "x" << c.gridY << " blocks, tile " << c.tile
            << " (a " << first.width << "x" << first.height << " float matrix), on " << spec.name
            << "\nResident: " << c.blocksPerSM << " blocks per SM (" << residentWhy << ") x "
            << c.smCount << " SMs = " << first.residentBlocks << " blocks per wave, "
            << first.waves.size() << " waves\n"
            << "Memory: " << c.partitions.count << " partitions x " << c.partitions.widthBytes
            << " B, " << (o.hashed ? "hashed (illustrative)" : "linear: partition = address / " +
                                         std::to_string(c.partitions.widthBytes) + " mod " +
                                         std::to_string(c.partitions.count))
            << "; output matrix at byte " << first.outputBase << "\n"
            << "Partition camping mattered only before compute capability 2.0; later GPUs hash "
               "addresses across partitions.\n";
  for (const auto& m : models) printSchedule(std::cout, m, o.waves);
  if (!o.jsonPath.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& m : models) list.push_back(toJson(m));
    writeJson(o.jsonPath, modelFile("kernellab-schedule", {{"arch", toJson(spec)}, {"models", list}}));
  }
  return 0;
}

int cmdAccess(const ModelOptions& o) {
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  if (!familyFromString(o.family))
    throw InputError("--family " + o.family + " is unknown (" + familyIds() + ")");
  access::AccessQuery q;
  try {
    q.request = requestFromParams(o.family, o.params, false);
  } catch (const InputError& e) {
    // In this command's option names.
    std::string message = e.what();
    for (const auto& [name, option] : accessRenamed())
      for (size_t at = message.find("--" + name + " "); at != std::string::npos;
           at = message.find("--" + name + " ", at + option.size() + 2))
        message.replace(at, name.size() + 2, "--" + option);
    throw InputError(message);
  }
  if (o.seed) q.request.seed = *o.seed;
  // --memory / --layout (the clustering switches) name one variant, like --variant.
  const bool switches = !q.request.variants.empty();
  if (!o.variant.empty()) {
    if (switches)
      throw InputError("--variant " + o.variant + " and --layout / --memory: give one of them");
    q.variant = o.variant;
  } else if (switches && q.request.variants.size() == 1) {
    q.variant = q.request.variants.front();
  } else {
    throw InputError(switches ? "--layout / --memory: name one of each (shared|global, "
                                "coalesced|interleaved), or give --variant"
                              : "--variant is required (a variant id of the family)");
  }
  q.kernel = toLower(o.kernel);
  const auto [bx, by] = parseSize(o.block, "--block");
  q.block = {static_cast<int>(bx), static_cast<int>(by)};
  q.warp = o.warp;
  q.ccMajor = resolveArch(o.arch).ccMajor;
  const access::WarpReport r = access::analyze(q);
  printAccess(std::cout, r, o.lanes);
  if (!o.jsonPath.empty())  // a big block's report is large: build it only when asked
    writeJson(o.jsonPath, modelFile("kernellab-access", {{"report", toJson(r)}}));
  return 0;
}

int printOccupancyChecks(std::ostream& out, const std::vector<occupancy::DeviceCheck>& checks,
                         const std::string& deviceName) {
  // One row per distinct kernel configuration: the verify suite runs each many times.
  std::map<std::tuple<std::string, int, int, int>, occupancy::DeviceCheck> unique;
  for (const auto& c : checks)
    unique.emplace(std::make_tuple(c.kernel, c.input.threadsPerBlock, c.input.registersPerThread,
                                   c.input.sharedBytesPerBlock),
                   c);
  out << "occupancy: calculator vs cudaOccupancyMaxActiveBlocksPerMultiprocessor on " << deviceName
      << "\n"
      << std::left << std::setw(28) << "  kernel" << std::right << std::setw(6) << "tpb"
      << std::setw(6) << "regs" << std::setw(9) << "smem B" << std::setw(8) << "device"
      << std::setw(12) << "calculator" << "  binding\n";
  int bad = 0;
  for (const auto& [key, c] : unique) {
    std::string binding;
    for (size_t i = 0; i < c.detail.binding.size(); ++i)
      binding += std::string(i ? ", " : "") + occupancy::toString(c.detail.binding[i]);
    out << "  " << std::left << std::setw(26) << c.kernel << std::right << std::setw(6)
        << c.input.threadsPerBlock << std::setw(6) << c.input.registersPerThread << std::setw(9)
        << c.input.sharedBytesPerBlock << std::setw(8) << c.deviceBlocks << std::setw(12)
        << c.calculatorBlocks << "  " << binding << (c.match ? "" : "   MISMATCH") << "\n";
    if (!c.match) ++bad;
  }
  out << "occupancy: " << unique.size() << " kernel configurations, " << bad << " disagree\n";
  return bad;
}

}  // namespace kernellab::cli

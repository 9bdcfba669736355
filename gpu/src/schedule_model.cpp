// SPDX-License-Identifier: MIT
// Block-schedule model: dispatch in launch order as waves, per-wave partition loads of the
// transpose's reads and writes, and summaries of recorded schedules.
#include "kernellab/schedule_model.h"

#include <algorithm>
#include <map>

#include "kernellab/errors.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"
#include "kernellab/transpose_phases.h"

namespace kernellab::schedule {

namespace {

constexpr int64_t kMaxBlocks = 1 << 20;
constexpr uint64_t kOutputAlignment = 2ull << 20;  // cudaMalloc aligns large buffers to 2 MiB

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// Adds `bytes` starting at `start` to the partitions they fall in.
void addRange(uint64_t start, uint64_t bytes, const PartitionLayout& p,
              std::vector<uint64_t>& loads) {
  const uint64_t w = static_cast<uint64_t>(p.widthBytes);
  while (bytes > 0) {
    const uint64_t chunkEnd = (start / w + 1) * w;
    const uint64_t n = std::min(bytes, chunkEnd - start);
    loads[static_cast<size_t>(partitionOf(start, p))] += n;
    start += n;
    bytes -= n;
  }
}

void finishWave(WaveLoad& w) {
  uint64_t readSum = 0, writeSum = 0, readMax = 0, writeMax = 0;
  for (size_t i = 0; i < w.readBytes.size(); ++i) {
    readSum += w.readBytes[i];
    writeSum += w.writeBytes[i];
    readMax = std::max(readMax, w.readBytes[i]);
    writeMax = std::max(writeMax, w.writeBytes[i]);
    w.partitionsRead += w.readBytes[i] > 0;
    w.partitionsWritten += w.writeBytes[i] > 0;
  }
  w.worstReadShare = readSum ? double(readMax) / double(readSum) : 0.0;
  w.worstWriteShare = writeSum ? double(writeMax) / double(writeSum) : 0.0;
}

}  // namespace

const char* toString(Mapping m) { return m == Mapping::Diagonal ? "diagonal" : "cartesian"; }

Mapping mappingFromString(const std::string& s) {
  const std::string l = toLower(s);
  if (l == "cartesian" || l == "cart" || l == "row-major") return Mapping::Cartesian;
  if (l == "diagonal" || l == "diag") return Mapping::Diagonal;
  throw InputError("--mapping " + s + " is unknown (cartesian, diagonal)");
}

int partitionOf(uint64_t byteAddress, const PartitionLayout& p) {
  const uint64_t chunk = byteAddress / static_cast<uint64_t>(p.widthBytes);
  const uint64_t count = static_cast<uint64_t>(p.count);
  if (p.mapping == PartitionMapping::Linear) return static_cast<int>(chunk % count);
  // Hashed: consecutive chunks still go to distinct partitions within a period, but each period
  // is rotated by a hash of its index, so a column walk no longer stays on one partition.
  return static_cast<int>((chunk % count + mix(chunk / count)) % count);
}

BlockCoord tileOf(Mapping m, int bx, int by, int gridX, int gridY) {
  return m == Mapping::Diagonal ? transpose::diagonalTile(bx, by, gridX, gridY)
                                : transpose::cartesianTile(bx, by, gridX, gridY);
}

Model simulate(const Config& c) {
  if (c.gridX < 1 || c.gridY < 1)
    throw InputError("--grid " + std::to_string(c.gridX) + "x" + std::to_string(c.gridY) +
                     ": both sides must be at least 1 block");
  if (int64_t(c.gridX) * c.gridY > kMaxBlocks)
    throw InputError("--grid " + std::to_string(c.gridX) + "x" + std::to_string(c.gridY) +
                     " has " + std::to_string(int64_t(c.gridX) * c.gridY) +
                     " blocks; the model takes at most " + std::to_string(kMaxBlocks));
  if (c.tile < 1 || c.tile > 64)
    throw InputError("--tile " + std::to_string(c.tile) + " is outside 1..64");
  if (c.elementBytes < 1 || c.elementBytes > 16)
    throw InputError("element size " + std::to_string(c.elementBytes) + " is outside 1..16 bytes");
  if (c.smCount < 1 || c.smCount > 4096)
    throw InputError("--sms " + std::to_string(c.smCount) + " is outside 1..4096");
  if (c.blocksPerSM < 1 || c.blocksPerSM > 64)
    throw InputError("--blocks-per-sm " + std::to_string(c.blocksPerSM) +
                     " is outside 1..64 (0 blocks per SM: the kernel cannot launch)");
  if (c.partitions.count < 1 || c.partitions.count > 1024)
    throw InputError("--partitions " + std::to_string(c.partitions.count) + " is outside 1..1024");
  if (c.partitions.widthBytes < 1 || c.partitions.widthBytes > (1 << 20))
    throw InputError("--partition-bytes " + std::to_string(c.partitions.widthBytes) +
                     " is outside 1..1048576");

  Model m;
  m.config = c;
  m.width = int64_t(c.gridX) * c.tile;
  m.height = int64_t(c.gridY) * c.tile;
  const uint64_t inputBytes = uint64_t(m.width) * uint64_t(m.height) * uint64_t(c.elementBytes);
  m.outputBase = c.outputBase >= 0
                     ? uint64_t(c.outputBase)
                     : (inputBytes + kOutputAlignment - 1) / kOutputAlignment * kOutputAlignment;
  m.residentBlocks = c.smCount * c.blocksPerSM;

  const int total = c.gridX * c.gridY;
  m.blocks.reserve(static_cast<size_t>(total));
  const uint64_t eb = uint64_t(c.elementBytes);
  const uint64_t rowBytes = uint64_t(c.tile) * eb;
  for (int id = 0; id < total; ++id) {
    BlockPlacement b;
    b.blockId = id;
    b.blockIdx = {id % c.gridX, id / c.gridX};
    b.tile = tileOf(c.mapping, b.blockIdx.x, b.blockIdx.y, c.gridX, c.gridY);
    b.wave = id / m.residentBlocks;
    b.sm = (id % m.residentBlocks) % c.smCount;
    if (m.waves.size() <= size_t(b.wave)) {
      WaveLoad w;
      w.wave = b.wave;
      w.firstBlock = id;
      w.readBytes.assign(size_t(c.partitions.count), 0);
      w.writeBytes.assign(size_t(c.partitions.count), 0);
      m.waves.push_back(std::move(w));
    }
    WaveLoad& w = m.waves.back();
    ++w.blockCount;
    // The block reads rows t.y*tile.. of input columns t.x*tile.., and writes rows t.x*tile.. of
    // output columns t.y*tile.. (out[x * height + y] = in[y * width + x]).
    for (int r = 0; r < c.tile; ++r) {
      const uint64_t y = uint64_t(b.tile.y) * c.tile + r;
      addRange((y * uint64_t(m.width) + uint64_t(b.tile.x) * c.tile) * eb, rowBytes, c.partitions,
               w.readBytes);
      const uint64_t x = uint64_t(b.tile.x) * c.tile + r;
      addRange(m.outputBase + (x * uint64_t(m.height) + uint64_t(b.tile.y) * c.tile) * eb, rowBytes,
               c.partitions, w.writeBytes);
    }
    m.blocks.push_back(b);
  }
  double writeSum = 0, readSum = 0, partitionsSum = 0;
  for (auto& w : m.waves) {
    finishWave(w);
    writeSum += w.worstWriteShare;
    readSum += w.worstReadShare;
    partitionsSum += w.partitionsWritten;
    m.maxWorstWriteShare = std::max(m.maxWorstWriteShare, w.worstWriteShare);
  }
  const double n = double(m.waves.size());
  m.meanWorstWriteShare = writeSum / n;
  m.meanWorstReadShare = readSum / n;
  m.meanPartitionsWritten = partitionsSum / n;
  return m;
}

occupancy::Input transposeOccupancyInput(const RunRequest& r, int registersPerThread) {
  const int tile = r.section<TransposeProblem>().tile;
  return {r.launch.threadsPerBlock, registersPerThread, tile * (tile + 1) * static_cast<int>(sizeof(float))};
}

Config transposeConfig(const RunRequest& r, const occupancy::ArchSpec& arch, int registersPerThread) {
  const TransposeProblem& p = r.section<TransposeProblem>();
  const int tile = p.tile;
  if (tile < 1 || tile > 64) throw InputError("--tile " + std::to_string(tile) + " is outside 1..64");
  Config c;
  c.tile = tile;
  const int64_t gx = (p.width + tile - 1) / tile, gy = (p.height + tile - 1) / tile;
  if (gx < 1 || gy < 1 || gx > 65535 || gy > 65535)
    throw InputError("--size " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                     " gives a grid outside 1..65535 per side");
  c.gridX = static_cast<int>(gx);
  c.gridY = static_cast<int>(gy);
  c.smCount = arch.smCount;
  const occupancy::Result occ = occupancy::calculate(arch, transposeOccupancyInput(r, registersPerThread));
  if (occ.activeBlocks == 0)
    throw InputError("the padded transpose kernel cannot launch on " + arch.id + ": " + occ.cannotLaunch);
  c.blocksPerSM = occ.activeBlocks;
  return c;
}

std::vector<BlockRecord> simulatedRecords(const Model& m, uint64_t blockNs) {
  std::vector<BlockRecord> out;
  out.reserve(m.blocks.size());
  for (const auto& b : m.blocks) {
    BlockRecord r;
    r.blockId = b.blockId;
    r.smId = b.sm;
    r.startNs = uint64_t(b.wave) * blockNs;
    r.endNs = r.startNs + blockNs;
    r.tileX = b.tile.x;
    r.tileY = b.tile.y;
    out.push_back(r);
  }
  return out;
}

RecordedSummary summarizeRecorded(const std::vector<BlockRecord>& records, int gridX, int gridY) {
  RecordedSummary s;
  s.blocks = static_cast<int>(records.size());
  if (records.empty()) return s;
  s.startNs = records.front().startNs;
  s.endNs = records.front().endNs;
  double durations = 0;
  std::map<int, std::vector<std::pair<uint64_t, int>>> perSm;  // (time, +1 start / -1 end)
  std::vector<std::pair<uint64_t, int>> all;
  for (const auto& r : records) {
    s.startNs = std::min(s.startNs, r.startNs);
    s.endNs = std::max(s.endNs, r.endNs);
    s.maxSmId = std::max(s.maxSmId, r.smId);
    durations += double(r.endNs >= r.startNs ? r.endNs - r.startNs : 0);
    perSm[r.smId].push_back({r.startNs, +1});
    perSm[r.smId].push_back({r.endNs, -1});
    all.push_back({r.startNs, +1});
    all.push_back({r.endNs, -1});
  }
  s.smsUsed = static_cast<int>(perSm.size());
  s.spanUs = double(s.endNs - s.startNs) / 1000.0;
  s.meanBlockUs = durations / double(records.size()) / 1000.0;
  // A block that ends when another starts is not concurrent with it: ends sort first.
  auto peak = [](std::vector<std::pair<uint64_t, int>>& ev) {
    std::sort(ev.begin(), ev.end());
    int cur = 0, best = 0;
    for (const auto& e : ev) best = std::max(best, cur += e.second);
    return best;
  };
  for (auto& [sm, ev] : perSm) s.maxConcurrentPerSM = std::max(s.maxConcurrentPerSM, peak(ev));
  s.maxConcurrent = peak(all);
  // Every tile exactly once needs one record per block: only then is a per-tile count made (a
  // grid read from a file is never a size to allocate by on its own).
  if (gridX > 0 && gridY > 0 && int64_t(records.size()) == int64_t(gridX) * gridY) {
    std::vector<int> hits(size_t(gridX) * size_t(gridY), 0);
    bool ok = true;
    for (const auto& r : records) {
      if (r.tileX < 0 || r.tileX >= gridX || r.tileY < 0 || r.tileY >= gridY) {
        ok = false;
        continue;
      }
      ++hits[size_t(r.tileY) * size_t(gridX) + size_t(r.tileX)];
    }
    for (int h : hits) ok = ok && h == 1;
    s.tilesComplete = ok;
  }
  return s;
}

}  // namespace kernellab::schedule

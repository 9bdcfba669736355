// SPDX-License-Identifier: MIT
// Access-pattern model: the recorder, grouping a warp's accesses into requests, sectors and
// lines for global requests, banks and conflict degrees for shared ones.
#include "kernellab/access_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "kernellab/errors.h"

namespace kernellab::access {

const char* toString(Space s) { return s == Space::Shared ? "shared" : "global"; }
const char* toString(Kind k) { return k == Kind::Store ? "store" : "load"; }

int Recorder::addBuffer(std::string name, Space space, int elementBytes, uint64_t base) {
  buffers_.push_back({std::move(name), space, elementBytes, base});
  return static_cast<int>(buffers_.size()) - 1;
}

void Recorder::record(Kind kind, int buffer, int64_t element) {
  if (accesses_.size() >= maxRecords_)
    throw InputError("the block's address trace exceeds " + std::to_string(maxRecords_) +
                     " accesses; choose a smaller problem for the access view");
  const BufferInfo& b = buffers_.at(static_cast<size_t>(buffer));
  Access a;
  a.thread = thread_;
  a.phase = phase_;
  a.seq = seq_++;
  a.space = b.space;
  a.kind = kind;
  a.buffer = buffer;
  a.element = element;
  a.address = b.base + static_cast<uint64_t>(element) * static_cast<uint64_t>(b.elementBytes);
  accesses_.push_back(a);
}

MemoryModel MemoryModel::forComputeCapability(int major) {
  MemoryModel m;
  if (major == 1) {
    m.banks = 16;
    m.halfWarpBanks = true;
  }
  return m;
}

namespace {

void analyzeGlobal(Request& r, int elementBytes, const MemoryModel& mm) {
  std::set<uint64_t> sectors, lines, bytes;
  for (const auto& l : r.lanes) {
    for (int b = 0; b < elementBytes; ++b) bytes.insert(l.address + uint64_t(b));
    const uint64_t last = l.address + uint64_t(elementBytes) - 1;
    for (uint64_t s = l.address / mm.sectorBytes; s <= last / mm.sectorBytes; ++s) sectors.insert(s);
    for (uint64_t s = l.address / mm.lineBytes; s <= last / mm.lineBytes; ++s) lines.insert(s);
  }
  r.usefulBytes = static_cast<int>(bytes.size());
  r.sectors = static_cast<int>(sectors.size());
  r.lines = static_cast<int>(lines.size());
  r.idealSectors = (r.usefulBytes + mm.sectorBytes - 1) / mm.sectorBytes;
  r.idealLines = (r.usefulBytes + mm.lineBytes - 1) / mm.lineBytes;
  r.efficiency = r.sectors ? double(r.usefulBytes) / double(r.sectors * mm.sectorBytes) : 0.0;
  for (uint64_t s : sectors) r.sectorAddresses.push_back(s * uint64_t(mm.sectorBytes));
}

void analyzeShared(Request& r, int elementBytes, const MemoryModel& mm) {
  const int groupSize = mm.halfWarpBanks ? mm.warpSize / 2 : mm.warpSize;
  const int groups = mm.warpSize / groupSize;
  r.bankWords.assign(size_t(mm.banks), 0);
  std::set<uint64_t> bytes;
  for (int g = 0; g < groups; ++g) {
    std::vector<std::set<uint64_t>> words(size_t(mm.banks));
    bool active = false;
    for (auto& l : r.lanes) {
      if (l.lane / groupSize != g) continue;
      active = true;
      const uint64_t first = l.address / uint64_t(mm.bankBytes);
      const uint64_t last = (l.address + uint64_t(elementBytes) - 1) / uint64_t(mm.bankBytes);
      l.bank = static_cast<int>(first % uint64_t(mm.banks));
      for (uint64_t w = first; w <= last; ++w) words[size_t(w % uint64_t(mm.banks))].insert(w);
      for (int b = 0; b < elementBytes; ++b) bytes.insert(l.address + uint64_t(b));
    }
    if (!active) continue;
    int degree = 0;
    for (size_t b = 0; b < words.size(); ++b) {
      const int n = static_cast<int>(words[b].size());
      degree = std::max(degree, n);
      r.bankWords[b] = std::max(r.bankWords[b], n);
    }
    r.conflictDegree = std::max(r.conflictDegree, degree);
    r.wavefronts += degree;
  }
  r.usefulBytes = static_cast<int>(bytes.size());
}

}  // namespace

std::vector<Request> warpRequests(const BlockTrace& trace, int warp, const MemoryModel& mm) {
  const int threads = trace.blockDim.x * trace.blockDim.y;
  const int warps = (threads + mm.warpSize - 1) / mm.warpSize;
  if (warp < 0 || warp >= warps)
    throw InputError("--warp " + std::to_string(warp) + " is outside 0.." +
                     std::to_string(warps - 1) + " (" + std::to_string(threads) +
                     " threads per block = " + std::to_string(warps) + " warps)");
  const int first = warp * mm.warpSize;
  const int last = std::min(threads, first + mm.warpSize);
  using Key = std::tuple<int, int, int, int, int>;  // phase, seq, space, kind, buffer
  std::map<Key, size_t> index;
  std::vector<Request> out;
  const auto& buffers = trace.recorder.buffers();
  for (const Access& a : trace.recorder.accesses()) {
    if (a.thread < first || a.thread >= last) continue;
    const Key k{a.phase, a.seq, int(a.space), int(a.kind), a.buffer};
    auto it = index.find(k);
    if (it == index.end()) {
      Request r;
      r.phase = a.phase;
      r.seq = a.seq;
      r.space = a.space;
      r.kind = a.kind;
      r.buffer = a.buffer;
      r.bufferName = buffers.at(size_t(a.buffer)).name;
      it = index.emplace(k, out.size()).first;
      out.push_back(std::move(r));
    }
    LaneAccess l;
    l.lane = a.thread - first;
    l.thread = a.thread;
    l.element = a.element;
    l.address = a.address;
    out[it->second].lanes.push_back(l);
  }
  std::stable_sort(out.begin(), out.end(), [](const Request& x, const Request& y) {
    return std::tie(x.phase, x.seq) < std::tie(y.phase, y.seq);
  });
  for (auto& r : out) {
    std::sort(r.lanes.begin(), r.lanes.end(),
              [](const LaneAccess& x, const LaneAccess& y) { return x.lane < y.lane; });
    const int eb = buffers.at(size_t(r.buffer)).elementBytes;
    if (r.space == Space::Global) analyzeGlobal(r, eb, mm);
    else analyzeShared(r, eb, mm);
  }
  return out;
}

Totals totalsOf(const std::vector<Request>& requests, const MemoryModel& mm) {
  Totals t;
  const int groupSize = mm.halfWarpBanks ? mm.warpSize / 2 : mm.warpSize;
  for (const auto& r : requests) {
    if (r.space == Space::Global) {
      ++t.globalRequests;
      t.sectors += r.sectors;
      t.idealSectors += r.idealSectors;
      t.lines += r.lines;
      t.idealLines += r.idealLines;
    } else {
      ++t.sharedRequests;
      t.wavefronts += r.wavefronts;
      std::set<int> groups;
      for (const auto& l : r.lanes) groups.insert(l.lane / groupSize);
      t.idealWavefronts += static_cast<int>(groups.size());
      t.maxConflict = std::max(t.maxConflict, r.conflictDegree);
    }
  }
  t.efficiency = t.sectors ? double(t.idealSectors) / double(t.sectors) : 0.0;
  return t;
}

WarpReport analyze(const AccessQuery& q) {
  const BlockTrace trace = traceBlock(q);
  WarpReport r;
  r.family = toString(q.request.family);
  r.variant = q.variant;
  r.kernel = trace.kernel;
  r.description = trace.description;
  r.block = trace.blockIdx;
  r.blockDim = trace.blockDim;
  r.gridDim = trace.gridDim;
  r.warp = q.warp;
  r.memory = MemoryModel::forComputeCapability(q.ccMajor);
  const int threads = trace.blockDim.x * trace.blockDim.y;
  r.warpsPerBlock = (threads + r.memory.warpSize - 1) / r.memory.warpSize;
  r.buffers = trace.recorder.buffers();
  r.requests = warpRequests(trace, q.warp, r.memory);
  r.warpTotals = totalsOf(r.requests, r.memory);
  std::vector<Request> all;
  for (int w = 0; w < r.warpsPerBlock; ++w) {
    auto reqs = w == q.warp ? r.requests : warpRequests(trace, w, r.memory);
    all.insert(all.end(), reqs.begin(), reqs.end());
  }
  r.blockTotals = totalsOf(all, r.memory);
  return r;
}

}  // namespace kernellab::access

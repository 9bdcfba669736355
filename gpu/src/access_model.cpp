// SPDX-License-Identifier: MIT
// Access-pattern model: the recorder, grouping a warp's accesses into requests, sectors and
// lines for global requests, banks and conflict degrees for shared ones.
#include "kernellab/access_model.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <unordered_map>
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
  recordAt(kind, buffer, element, seq_++);
}

void Recorder::recordAt(Kind kind, int buffer, int64_t element, int64_t seq) {
  if (!keep_.contains(thread_)) return;
  if (accesses_.size() >= maxRecords_)
    throw TraceTooLarge("the block's address trace exceeds " + std::to_string(maxRecords_) +
                     " accesses; choose a smaller problem for the access view");
  const BufferInfo& b = buffers_.at(static_cast<size_t>(buffer));
  Access a;
  a.thread = thread_;
  a.phase = phase_;
  a.seq = seq;
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

ThreadRange warpThreads(int warp) {
  constexpr int kWarp = 32;
  return {warp * kWarp, kWarp};
}

// Distinct bytes of the lanes' [address, address + elementBytes) ranges.
int distinctBytes(std::vector<uint64_t> starts, int elementBytes) {
  std::sort(starts.begin(), starts.end());
  uint64_t covered = 0, end = 0;
  for (uint64_t a : starts) {
    const uint64_t from = std::max(a, end), to = a + uint64_t(elementBytes);
    if (to > from) covered += to - from;
    end = std::max(end, to);
  }
  return static_cast<int>(covered);
}

size_t distinctCount(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v.size();
}

void analyzeGlobal(Request& r, int elementBytes, const MemoryModel& mm) {
  std::vector<uint64_t> starts, sectors, lines;
  for (const auto& l : r.lanes) {
    starts.push_back(l.address);
    const uint64_t last = l.address + uint64_t(elementBytes) - 1;
    for (uint64_t s = l.address / mm.sectorBytes; s <= last / mm.sectorBytes; ++s)
      sectors.push_back(s);
    for (uint64_t s = l.address / mm.lineBytes; s <= last / mm.lineBytes; ++s)
      lines.push_back(s);
  }
  r.usefulBytes = distinctBytes(std::move(starts), elementBytes);
  r.sectors = static_cast<int>(distinctCount(sectors));
  r.lines = static_cast<int>(distinctCount(lines));
  r.idealSectors = (r.usefulBytes + mm.sectorBytes - 1) / mm.sectorBytes;
  r.idealLines = (r.usefulBytes + mm.lineBytes - 1) / mm.lineBytes;
  r.efficiency = r.sectors ? double(r.usefulBytes) / double(r.sectors * mm.sectorBytes) : 0.0;
  for (uint64_t s : sectors) r.sectorAddresses.push_back(s * uint64_t(mm.sectorBytes));
}

void analyzeShared(Request& r, int elementBytes, const MemoryModel& mm) {
  const int groupSize = mm.halfWarpBanks ? mm.warpSize / 2 : mm.warpSize;
  const int groups = mm.warpSize / groupSize;
  r.bankWords.assign(size_t(mm.banks), 0);
  std::vector<uint64_t> starts;
  for (int g = 0; g < groups; ++g) {
    std::vector<uint64_t> words;  // distinct words of this (half-)warp; bank = word mod banks
    for (auto& l : r.lanes) {
      if (l.lane / groupSize != g) continue;
      const uint64_t first = l.address / uint64_t(mm.bankBytes);
      const uint64_t last = (l.address + uint64_t(elementBytes) - 1) / uint64_t(mm.bankBytes);
      l.bank = static_cast<int>(first % uint64_t(mm.banks));
      for (uint64_t w = first; w <= last; ++w) words.push_back(w);
      starts.push_back(l.address);
    }
    if (words.empty()) continue;
    const int groupWords = static_cast<int>(distinctCount(words));
    std::vector<int> perBank(size_t(mm.banks), 0);
    for (uint64_t w : words) ++perBank[size_t(w % uint64_t(mm.banks))];
    int passes = 0;
    for (size_t b = 0; b < perBank.size(); ++b) {
      passes = std::max(passes, perBank[b]);
      r.bankWords[b] = std::max(r.bankWords[b], perBank[b]);
    }
    // One pass serves one word per bank: words wider than a bank (doubles) need more than one
    // pass even without a conflict, so the degree is the passes over the fewest possible.
    const int ideal = (groupWords + mm.banks - 1) / mm.banks;
    r.conflictDegree = std::max(r.conflictDegree, (passes + ideal - 1) / ideal);
    r.wavefronts += passes;
    r.idealWavefronts += ideal;
  }
  r.usefulBytes = distinctBytes(std::move(starts), elementBytes);
}

// Kahn's topological sort of the requests by the lanes' "runs before" edges; among requests
// that may run next, the earlier phase and then the first seen (thread 0's order) goes first.
// Edges of a lane that skipped requests only relate the ones it ran, so divergent lanes merge
// into one order. A cycle (two lanes disagreeing) cannot come from SIMT code; should a tracer
// produce one, the rest follows in first-seen order.
std::vector<Request> inProgramOrder(std::vector<Request> requests,
                                    const std::vector<std::pair<size_t, size_t>>& edges) {
  const size_t n = requests.size();
  std::vector<size_t> start(n + 1, 0), target(edges.size()), indegree(n, 0);
  for (const auto& [from, to] : edges) {
    ++start[from + 1];
    ++indegree[to];
  }
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (const auto& [from, to] : edges) target[fill[from]++] = to;
  using Entry = std::pair<int, size_t>;  // phase, first seen
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.emplace(requests[i].phase, i);
  std::vector<Request> out;
  out.reserve(n);
  std::vector<bool> done(n, false);
  while (out.size() < n) {
    if (ready.empty()) {  // a cycle: take the first one left
      for (size_t i = 0; i < n; ++i)
        if (!done[i]) {
          ready.emplace(requests[i].phase, i);
          indegree[i] = 0;
          break;
        }
    }
    const size_t i = ready.top().second;
    ready.pop();
    if (done[i]) continue;
    done[i] = true;
    out.push_back(std::move(requests[i]));
    for (size_t e = start[i]; e < start[i + 1]; ++e)
      if (--indegree[target[e]] == 0 && !done[target[e]])
        ready.emplace(requests[target[e]].phase, target[e]);
  }
  return out;
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
  using Key = std::tuple<int, int64_t, int, int, int>;  // phase, seq, space, kind, buffer
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = uint64_t(std::get<1>(k)) * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t(std::get<0>(k)) << 32) ^ (uint64_t(std::get<4>(k)) << 8) ^
           (uint64_t(std::get<2>(k)) << 1) ^ uint64_t(std::get<3>(k));
      return size_t(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, size_t, KeyHash> index;
  std::vector<Request> out;
  // Program order: each lane runs its requests in order, so consecutive requests of a lane are
  // an edge "runs before"; the requests are sorted topologically (ties: phase, first seen).
  std::vector<std::pair<size_t, size_t>> edges;
  std::vector<size_t> previous(size_t(mm.warpSize), SIZE_MAX);
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
    size_t& prev = previous[size_t(l.lane)];
    if (prev != SIZE_MAX && prev != it->second) edges.emplace_back(prev, it->second);
    prev = it->second;
  }
  out = inProgramOrder(std::move(out), edges);
  for (auto& r : out) {
    std::sort(r.lanes.begin(), r.lanes.end(),
              [](const LaneAccess& x, const LaneAccess& y) { return x.lane < y.lane; });
    const int eb = buffers.at(size_t(r.buffer)).elementBytes;
    if (r.space == Space::Global) analyzeGlobal(r, eb, mm);
    else analyzeShared(r, eb, mm);
  }
  return out;
}

namespace {

// Adds the requests' counts to t (efficiency left to the caller: it is a ratio of the sums).
void addRequests(Totals& t, const std::vector<Request>& requests) {
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
      t.idealWavefronts += r.idealWavefronts;
      t.maxConflict = std::max(t.maxConflict, r.conflictDegree);
    }
  }
}

void finishTotals(Totals& t) {
  t.efficiency = t.sectors ? double(t.idealSectors) / double(t.sectors) : 0.0;
}

}  // namespace

Totals totalsOf(const std::vector<Request>& requests, const MemoryModel&) {
  Totals t;
  addRequests(t, requests);
  finishTotals(t);
  return t;
}

namespace {

// The report's fields that come from one trace of the block (or of the query's warp).
WarpReport reportOf(const AccessQuery& q, const BlockTrace& trace, bool perWarp) {
  WarpReport r;
  r.perWarpTraces = perWarp;
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
  return r;
}

}  // namespace

WarpReport analyze(const AccessQuery& q) {
  // One trace of the whole block when it fits the recorder; otherwise one per warp. The chosen
  // warp's own trace comes first: its size times the warps tells (warps of a block trace alike)
  // whether the whole block would fit, so a block that loops long (a k-means assign block at
  // K = 100, D = 200: about 10 million accesses) goes to the per-warp traces at once instead of
  // filling the recorder in vain first.
  BlockTrace mine = traceBlock(q, warpThreads(q.warp));
  const int threads = mine.blockDim.x * mine.blockDim.y;
  const size_t warps = static_cast<size_t>((threads + 31) / 32);
  bool perWarp = mine.recorder.accesses().size() * warps > mine.recorder.maxRecords();
  BlockTrace trace;
  if (!perWarp) {
    try {
      trace = traceBlock(q);
    } catch (const TraceTooLarge&) {
      perWarp = true;
    }
  }
  if (perWarp) trace = std::move(mine);
  WarpReport r = reportOf(q, trace, perWarp);
  // The other warps' traces hold about as many accesses as this one's (room for a little more).
  AccessQuery other = q;
  other.expectedRecords = trace.recorder.accesses().size() + trace.recorder.accesses().size() / 16;
  // The block's totals, one warp at a time: only one other warp's requests are held at once.
  for (int w = 0; w < r.warpsPerBlock; ++w) {
    if (w == q.warp)
      addRequests(r.blockTotals, r.requests);
    else if (perWarp)
      addRequests(r.blockTotals, warpRequests(traceBlock(other, warpThreads(w)), w, r.memory));
    else
      addRequests(r.blockTotals, warpRequests(trace, w, r.memory));
  }
  finishTotals(r.blockTotals);
  return r;
}

WarpReport analyzeWarp(const AccessQuery& q) {
  return reportOf(q, traceBlock(q, warpThreads(q.warp)), false);
}

}  // namespace kernellab::access

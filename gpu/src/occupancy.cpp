// SPDX-License-Identifier: MIT
// Occupancy calculator: architecture presets, the per-limit arithmetic with allocation
// granularities, "what lets the next block in", chart series and the device cross-check.
#include "kernellab/occupancy.h"

#include <algorithm>
#include <climits>

#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab::occupancy {

namespace {

int roundUp(int x, int unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }
int divUp(int x, int y) { return (x + y - 1) / y; }

// Granularities by compute capability, from NVIDIA's CUDA Occupancy Calculator (cc 1.x, 2.x)
// and cuda_occupancy.h (cc 3.0 and later). Limits that the device reports are overwritten by
// archFromDevice; the presets spell them out.
bool applyGranularities(ArchSpec& a) {
  const int cc = a.ccMajor * 10 + a.ccMinor;
  a.warpSize = 32;
  a.reservedSharedPerBlock = 0;
  a.sharedBanks = 32;
  a.banksPerHalfWarp = false;
  if (a.ccMajor == 1) {
    a.regGranularity = RegisterGranularity::PerBlock;
    a.regAllocUnit = cc >= 12 ? 512 : 256;
    a.warpAllocGranularity = 2;
    a.sharedAllocUnit = 512;
    a.maxRegsPerThread = 124;
    a.sharedBanks = 16;
    a.banksPerHalfWarp = true;
    return true;
  }
  a.regGranularity = RegisterGranularity::PerWarp;
  if (a.ccMajor == 2) {
    a.regAllocUnit = 64;
    a.warpAllocGranularity = 2;
    a.sharedAllocUnit = 128;
    a.maxRegsPerThread = 63;
    return true;
  }
  if (a.ccMajor < 1 || a.ccMajor > 12) return false;
  a.regAllocUnit = 256;
  // Warps are allocated over the SM's sub-partitions (4; GP100, cc 6.0, has 2).
  a.warpAllocGranularity = (cc == 60) ? 2 : 4;
  a.sharedAllocUnit = a.ccMajor >= 8 ? 128 : 256;
  a.maxRegsPerThread = cc == 30 ? 63 : 255;
  if (a.ccMajor >= 8) a.reservedSharedPerBlock = 1024;
  return true;
}

ArchSpec make(const char* id, const char* name, int major, int minor, int sms, int maxTpb,
              int threadsPerSM, int blocksPerSM, int regsPerSM, int regsPerBlock, int sharedPerSM,
              int sharedPerBlock, const char* source) {
  ArchSpec a;
  a.id = id;
  a.name = name;
  a.ccMajor = major;
  a.ccMinor = minor;
  applyGranularities(a);
  a.smCount = sms;
  a.maxThreadsPerBlock = maxTpb;
  a.maxThreadsPerSM = threadsPerSM;
  a.maxBlocksPerSM = blocksPerSM;
  a.regsPerSM = regsPerSM;
  a.maxRegsPerBlock = regsPerBlock;
  a.sharedPerSM = sharedPerSM;
  a.maxSharedPerBlock = sharedPerBlock;
  a.source = source;
  return a;
}

std::string num(long long v) { return std::to_string(v); }

std::string pct(double f) { return formatFixed(100.0 * f, 0) + " %"; }

// The four limits and the result, without suggestions (the suggestion search calls this).
Result core(const ArchSpec& a, const Input& in) {
  Result r;
  r.arch = a;
  r.input = in;
  r.maxWarps = a.maxWarpsPerSM();
  const int warps = divUp(in.threadsPerBlock, a.warpSize);
  r.warpsPerBlock = warps;

  LimitResult threads;
  threads.limit = Limit::Threads;
  threads.blocks = r.maxWarps / warps;
  threads.blocksWithoutGranularity = threads.blocks;
  threads.explanation = num(a.maxThreadsPerSM) + " threads per SM / " + num(warps * a.warpSize) +
                        " per block";
  if (in.threadsPerBlock % a.warpSize != 0)
    threads.explanation += " (" + num(in.threadsPerBlock) + " threads occupy " + num(warps) +
                           " whole warps)";

  LimitResult slots;
  slots.limit = Limit::BlockSlots;
  slots.blocks = a.maxBlocksPerSM;
  slots.blocksWithoutGranularity = slots.blocks;
  slots.explanation = num(a.maxBlocksPerSM) + " block slots per SM";

  LimitResult regs;
  regs.limit = Limit::Registers;
  if (in.registersPerThread == 0) {
    regs.bounded = false;
    regs.explanation = "no registers: no limit";
  } else {
    const int plain = in.registersPerThread * in.threadsPerBlock;
    regs.blocksWithoutGranularity = a.regsPerSM / plain;
    if (a.regGranularity == RegisterGranularity::PerBlock) {
      // cc 1.x: the block's warps (in pairs) times registers per warp, rounded to the unit.
      r.registersPerBlock =
          roundUp(roundUp(warps, a.warpAllocGranularity) * a.warpSize * in.registersPerThread,
                  a.regAllocUnit);
      if (r.registersPerBlock > a.maxRegsPerBlock) {
        regs.blocks = 0;
        regs.explanation = num(r.registersPerBlock) + " registers per block exceed the " +
                           num(a.maxRegsPerBlock) + "-register limit per block";
      } else {
        regs.blocks = a.regsPerSM / r.registersPerBlock;
        regs.explanation = num(a.regsPerSM) + " registers per SM / " + num(r.registersPerBlock) +
                           " per block (" + num(plain) + " rounded up to the " +
                           num(a.regAllocUnit) + "-register unit)";
      }
    } else {
      // cc 2.0 on: each warp's registers rounded to the unit; warps fit in groups of the
      // warp allocation granularity (the SM's sub-partitions).
      const int perWarp = roundUp(in.registersPerThread * a.warpSize, a.regAllocUnit);
      r.registersPerBlock = perWarp * warps;
      const int assumed = perWarp * roundUp(warps, a.warpAllocGranularity);
      if (assumed > a.maxRegsPerBlock || r.registersPerBlock > a.maxRegsPerBlock) {
        regs.blocks = 0;
        regs.explanation = num(assumed) + " registers per block exceed the " +
                           num(a.maxRegsPerBlock) + "-register limit per block";
      } else {
        const int g = a.warpAllocGranularity;
        const int warpsFit = (a.regsPerSM / g) / perWarp * g;
        regs.blocks = warpsFit / warps;
        const int perWarpPlain = in.registersPerThread * a.warpSize;
        regs.explanation = num(a.regsPerSM) + " registers per SM hold " + num(warpsFit) +
                           " warps of " + num(perWarp) + " registers";
        if (perWarp != perWarpPlain)
          regs.explanation += " (" + num(perWarpPlain) + " rounded up to the " +
                              num(a.regAllocUnit) + "-register unit)";
        if (warpsFit != a.regsPerSM / perWarp)
          regs.explanation += " in whole groups of " + num(g);
        regs.explanation += " / " + num(warps) + " warps per block";
      }
    }
  }

  LimitResult shared;
  shared.limit = Limit::SharedMemory;
  const int total = in.sharedBytesPerBlock + a.reservedSharedPerBlock;
  if (total == 0) {
    shared.bounded = false;
    shared.explanation = "no shared memory: no limit";
  } else {
    r.sharedPerBlock = roundUp(total, a.sharedAllocUnit);
    shared.blocks = a.sharedPerSM / r.sharedPerBlock;
    shared.blocksWithoutGranularity = a.sharedPerSM / total;
    shared.explanation = num(a.sharedPerSM) + " B per SM / " + num(r.sharedPerBlock) +
                         " B per block (" + num(in.sharedBytesPerBlock) + " B";
    if (a.reservedSharedPerBlock > 0)
      shared.explanation += " + " + num(a.reservedSharedPerBlock) + " B reserved";
    shared.explanation += ", in " + num(a.sharedAllocUnit) + "-B units)";
  }

  r.limits = {threads, slots, regs, shared};
  int active = INT_MAX;
  for (const auto& l : r.limits)
    if (l.bounded) active = std::min(active, l.blocks);
  r.activeBlocks = active;
  for (const auto& l : r.limits)
    if (l.bounded && l.blocks == active) r.binding.push_back(l.limit);
  r.activeWarps = active * warps;
  r.activeThreads = active * in.threadsPerBlock;
  r.occupancy = r.maxWarps > 0 ? double(r.activeWarps) / r.maxWarps : 0.0;
  if (active == 0) {
    for (const auto& l : r.limits)
      if (l.bounded && l.blocks == 0)
        r.cannotLaunch += (r.cannotLaunch.empty() ? "" : "; ") + std::string(toString(l.limit)) +
                          ": " + l.explanation;
  }
  return r;
}

void validate(const ArchSpec& a, const Input& in) {
  if (in.threadsPerBlock < 1 || in.threadsPerBlock > a.maxThreadsPerBlock)
    throw InputError("--tpb " + num(in.threadsPerBlock) + " is outside 1.." +
                     num(a.maxThreadsPerBlock) + " (" + a.id + "'s threads per block)");
  if (in.registersPerThread < 0 || in.registersPerThread > a.maxRegsPerThread)
    throw InputError("--regs " + num(in.registersPerThread) + " is outside 0.." +
                     num(a.maxRegsPerThread) + " (" + a.id + "'s registers per thread)");
  if (in.sharedBytesPerBlock < 0 || in.sharedBytesPerBlock > a.maxSharedPerBlock)
    throw InputError("--smem " + num(in.sharedBytesPerBlock) + " is outside 0.." +
                     num(a.maxSharedPerBlock) + " bytes (" + a.id + "'s shared memory per block)");
}

void suggest(Result& r) {
  const ArchSpec& a = r.arch;
  const Input& in = r.input;
  if (r.activeBlocks > 0 && r.activeWarps >= r.maxWarps) {
    r.nextBlockText = "Full occupancy: " + num(r.activeWarps) + " of " + num(r.maxWarps) +
                      " warps are resident; another block could add no warps.";
    return;
  }
  const int target = r.activeBlocks + 1;
  if (target > a.maxBlocksPerSM) {
    r.nextBlockText = "All " + num(a.maxBlocksPerSM) +
                      " block slots are used: only larger blocks can raise occupancy.";
    return;
  }
  auto add = [&](const char* parameter, int from, int to, const Result& after, std::string what) {
    Suggestion s;
    s.parameter = parameter;
    s.from = from;
    s.to = to;
    s.blocks = after.activeBlocks;
    s.occupancy = after.occupancy;
    s.text = what + " " + num(from) + " -> " + num(to) + " (" + num(after.activeBlocks) +
             " blocks, " + pct(after.occupancy) + ")";
    r.nextBlock.push_back(std::move(s));
  };
  // Registers: the largest count below the current one that fits the target.
  for (int regs = in.registersPerThread - 1; regs >= 0; --regs) {
    Input t = in;
    t.registersPerThread = regs;
    const Result after = core(a, t);
    if (after.activeBlocks >= target) {
      add("registers", in.registersPerThread, regs, after, "registers per thread");
      break;
    }
  }
  // Shared memory: the largest allocation that fits `target` times, less the reservation.
  if (in.sharedBytesPerBlock > 0) {
    const int alloc = a.sharedPerSM / target / a.sharedAllocUnit * a.sharedAllocUnit;
    const int bytes = alloc - a.reservedSharedPerBlock;
    if (bytes >= 0 && bytes < in.sharedBytesPerBlock) {
      Input t = in;
      t.sharedBytesPerBlock = bytes;
      const Result after = core(a, t);
      if (after.activeBlocks >= target)
        add("shared", in.sharedBytesPerBlock, bytes, after, "shared memory per block (bytes)");
    }
  }
  // Threads per block: the largest whole number of warps below the current block that fits.
  for (int w = r.warpsPerBlock - 1; w >= 1; --w) {
    Input t = in;
    t.threadsPerBlock = w * a.warpSize;
    const Result after = core(a, t);
    if (after.activeBlocks >= target) {
      add("threads", in.threadsPerBlock, t.threadsPerBlock, after, "threads per block");
      break;
    }
  }
  if (r.nextBlock.empty()) {
    r.nextBlockText = "No single change of registers, shared memory or threads per block fits " +
                      num(target) + " blocks per SM.";
    return;
  }
  r.nextBlockText = "To fit " + num(target) + (target == 1 ? " block" : " blocks") + " per SM: ";
  for (size_t i = 0; i < r.nextBlock.size(); ++i)
    r.nextBlockText += (i ? "; or " : "") + r.nextBlock[i].text;
  r.nextBlockText += ".";
}

}  // namespace

std::string ArchSpec::computeCapability() const { return num(ccMajor) + "." + num(ccMinor); }

const char* toString(Limit l) {
  switch (l) {
    case Limit::Threads: return "threads";
    case Limit::BlockSlots: return "block slots";
    case Limit::Registers: return "registers";
    case Limit::SharedMemory: return "shared memory";
  }
  return "?";
}

const LimitResult& Result::limit(Limit l) const {
  for (const auto& x : limits)
    if (x.limit == l) return x;
  return limits.front();
}

const std::vector<ArchSpec>& presets() {
  static const std::vector<ArchSpec> table = [] {
    const char* seed = "seed 001 table (threads, block slots, registers, shared memory); "
                       "granularities from NVIDIA's CUDA Occupancy Calculator";
    const char* occ = "CUDA Programming Guide limits; granularities as cuda_occupancy.h";
    std::vector<ArchSpec> t;
    t.push_back(make("g80", "G80 (GeForce 8800 GTX), cc 1.0", 1, 0, 16, 512, 768, 8, 8192, 8192,
                     16384, 16384, seed));
    t.push_back(make("gt200", "GT200 (GeForce GTX 280), cc 1.3", 1, 3, 30, 512, 1024, 8, 16384,
                     16384, 16384, 16384, seed));
    t.push_back(make("gf100", "GF100 (GeForce GTX 480), cc 2.0", 2, 0, 15, 1024, 1536, 8, 32768,
                     32768, 49152, 49152, seed));
    t.push_back(make("gk110", "GK110 (GeForce GTX Titan), cc 3.5", 3, 5, 14, 1024, 2048, 16,
                     65536, 65536, 49152, 49152, occ));
    t.push_back(make("volta", "GV100 (Tesla V100), cc 7.0", 7, 0, 80, 1024, 2048, 32, 65536,
                     65536, 98304, 98304, occ));
    t.push_back(make("ampere", "GA100 (A100), cc 8.0", 8, 0, 108, 1024, 2048, 32, 65536, 65536,
                     167936, 166912, occ));
    t.push_back(make("hopper", "GH100 (H100 / H200), cc 9.0", 9, 0, 132, 1024, 2048, 32, 65536,
                     65536, 233472, 232448, occ));
    return t;
  }();
  return table;
}

ArchSpec archById(const std::string& id) {
  std::string key = toLower(id);
  if (key == "gk110" || key == "kepler" || key == "titan") key = "gk110";
  if (key == "gv100" || key == "v100") key = "volta";
  if (key == "ga100" || key == "a100") key = "ampere";
  if (key == "gh100" || key == "h100" || key == "h200") key = "hopper";
  if (key == "fermi") key = "gf100";
  for (const auto& a : presets())
    if (a.id == key) return a;
  std::string known;
  for (const auto& a : presets()) known += (known.empty() ? "" : ", ") + a.id;
  throw InputError("--arch " + id + " is unknown (known: " + known + ", device)");
}

ArchSpec archFromDevice(const DeviceInfo& d) {
  if (d.backend != "cuda")
    throw InputError("--arch device: the device is '" + (d.name.empty() ? d.backend : d.name) +
                     "', not a CUDA GPU");
  ArchSpec a;
  a.id = "device";
  a.ccMajor = d.ccMajor;
  a.ccMinor = d.ccMinor;
  a.name = d.name + ", cc " + a.computeCapability();
  a.source = "this device's properties; granularities for its compute capability";
  if (!applyGranularities(a))
    throw InputError("--arch device: compute capability " + a.computeCapability() +
                     " is unknown to this calculator");
  a.smCount = d.smCount;
  a.warpSize = d.warpSize > 0 ? d.warpSize : 32;
  a.maxThreadsPerBlock = d.maxThreadsPerBlock;
  a.maxThreadsPerSM = d.maxThreadsPerSM;
  a.maxBlocksPerSM = d.maxBlocksPerSM;
  if (a.maxBlocksPerSM <= 0) {
    // Older result files lack the field: the calculator's table by compute capability.
    const int cc = a.ccMajor * 10 + a.ccMinor;
    a.maxBlocksPerSM = a.ccMajor < 3 ? 8 : a.ccMajor == 3 ? 16 : (cc == 75 || cc == 86) ? 16
                                         : (cc == 89 || a.ccMajor == 12) ? 24 : 32;
  }
  a.regsPerSM = d.regsPerSM;
  a.maxRegsPerBlock = d.regsPerBlock;
  a.sharedPerSM = static_cast<int>(d.sharedPerSM);
  a.maxSharedPerBlock =
      static_cast<int>(d.sharedPerBlockOptin > 0 ? d.sharedPerBlockOptin : d.sharedPerBlock);
  if (d.reservedSharedPerBlock >= 0) a.reservedSharedPerBlock = d.reservedSharedPerBlock;
  if (a.maxThreadsPerSM <= 0 || a.regsPerSM <= 0 || a.sharedPerSM <= 0 ||
      a.maxThreadsPerBlock <= 0)
    throw InputError("--arch device: the device record of " + d.name +
                     " lacks its SM limits (threads, registers or shared memory per SM)");
  return a;
}

Result calculate(const ArchSpec& arch, const Input& input) {
  validate(arch, input);
  Result r = core(arch, input);
  suggest(r);
  return r;
}

Charts charts(const ArchSpec& a, const Input& input) {
  validate(a, input);
  Charts c;
  auto point = [&](int x, const Input& in) {
    const Result r = core(a, in);
    return ChartPoint{x, r.activeBlocks, r.activeWarps, r.occupancy};
  };
  for (int t = a.warpSize; t <= a.maxThreadsPerBlock; t += a.warpSize) {
    Input in = input;
    in.threadsPerBlock = t;
    c.byThreads.push_back(point(t, in));
  }
  for (int regs = 0; regs <= a.maxRegsPerThread; ++regs) {
    Input in = input;
    in.registersPerThread = regs;
    c.byRegisters.push_back(point(regs, in));
  }
  for (int s = 0; s <= a.maxSharedPerBlock; s += a.sharedAllocUnit) {
    Input in = input;
    in.sharedBytesPerBlock = s;
    c.bySharedMemory.push_back(point(s, in));
  }
  return c;
}

std::optional<DeviceCheck> checkAgainstDevice(const KernelResult& kernel, const DeviceInfo& device) {
  if (!kernel.resources || device.backend != "cuda") return std::nullopt;
  const ResourceUsage& u = *kernel.resources;
  DeviceCheck c;
  c.kernel = kernel.name;
  c.input.threadsPerBlock = u.threadsPerBlock > 0 ? u.threadsPerBlock : kernel.blockX * kernel.blockY;
  c.input.registersPerThread = u.registersPerThread;
  c.input.sharedBytesPerBlock = u.staticSharedBytes + u.dynamicSharedBytes;
  c.deviceBlocks = u.maxActiveBlocksPerSM;
  try {
    c.detail = calculate(archFromDevice(device), c.input);
    c.calculatorBlocks = c.detail.activeBlocks;
    c.match = c.calculatorBlocks == c.deviceBlocks;
  } catch (const InputError& e) {
    c.detail.cannotLaunch = e.what();
    c.calculatorBlocks = -1;
    c.match = false;
  }
  return c;
}

std::vector<DeviceCheck> checkRun(const RunResult& run) {
  std::vector<DeviceCheck> out;
  for (const auto& v : run.variants)
    for (const auto& k : v.kernels)
      if (auto c = checkAgainstDevice(k, run.device)) {
        c->variant = v.variant;
        out.push_back(std::move(*c));
      }
  return out;
}

}  // namespace kernellab::occupancy

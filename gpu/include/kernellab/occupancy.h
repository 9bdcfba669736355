// SPDX-License-Identifier: MIT
// Occupancy calculator (seed 001): how many blocks of a kernel fit on one SM, which resource
// (thread slots, block slots, registers, shared memory) stops the next one, and what to change.
//
// Pure functions of an architecture description and three numbers, so the window, the CLI and
// the tests all get the same answer without a GPU. The rules are those of NVIDIA's occupancy
// calculator: registers are allocated per block (compute capability 1.x) or per warp (2.0 on) in
// units, warps in groups, shared memory in units plus a per-block reservation (8.0 on).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernellab/result.h"

namespace kernellab::occupancy {

// How the register file is carved: whole blocks rounded to the unit (cc 1.x) or each warp's
// registers rounded to the unit (cc 2.0 and later).
enum class RegisterGranularity { PerBlock, PerWarp };

// One architecture: its SM's limits and the allocation granularities that make the difference
// between the plain division and what the hardware really fits.
struct ArchSpec {
  std::string id;       // "gt200", or "device"
  std::string name;     // "GT200 (GeForce GTX 280), cc 1.3"
  std::string source;   // where the numbers come from
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;      // SMs of the named GPU (the schedule model's wave width)
  int warpSize = 32;
  int maxThreadsPerBlock = 0;
  int maxThreadsPerSM = 0;
  int maxBlocksPerSM = 0;
  int regsPerSM = 0;
  int maxRegsPerBlock = 0;
  int maxRegsPerThread = 0;
  int regAllocUnit = 0;                 // registers
  RegisterGranularity regGranularity = RegisterGranularity::PerWarp;
  int warpAllocGranularity = 1;         // warps are counted in groups of this many
  int sharedPerSM = 0;                  // bytes usable by blocks (largest carveout)
  int maxSharedPerBlock = 0;            // bytes a block may ask for (opt-in limit where there is one)
  int sharedAllocUnit = 0;              // bytes
  int reservedSharedPerBlock = 0;       // bytes the driver keeps per block (1 KiB since cc 8.0)
  int sharedBanks = 32;                 // 16 on cc 1.x, serviced per half-warp
  bool banksPerHalfWarp = false;

  int maxWarpsPerSM() const { return maxThreadsPerSM / warpSize; }
  std::string computeCapability() const;
};

// The seed's G80, GT200 and GF100, then GK110 (GTX Titan), GV100, GA100 and GH100 (H200).
const std::vector<ArchSpec>& presets();
// "g80", "gt200", "gf100", "gk110", "volta", "ampere", "hopper" (a few aliases too); throws
// InputError listing the known ids.
ArchSpec archById(const std::string& id);
// The machine's own GPU: limits read from the device, granularities from its compute capability
// (1.0 up to 12.x). Throws InputError for a CPU DeviceInfo or an unknown compute capability.
ArchSpec archFromDevice(const DeviceInfo& device);

struct Input {
  int threadsPerBlock = 256;
  int registersPerThread = 0;
  int sharedBytesPerBlock = 0;   // static + dynamic, without the driver's reservation
};

enum class Limit { Threads, BlockSlots, Registers, SharedMemory };
const char* toString(Limit l);   // "threads", "block slots", "registers", "shared memory"

struct LimitResult {
  Limit limit = Limit::Threads;
  bool bounded = true;           // false: this resource does not limit (0 registers, 0 bytes)
  int blocks = 0;                // blocks per SM this resource allows (meaningful when bounded)
  // The plain division without allocation units (the seed's arithmetic): equal to `blocks` for
  // threads and block slots, often larger for registers and shared memory.
  int blocksWithoutGranularity = 0;
  std::string explanation;       // "1024 threads per SM / 256 per block"
};

// One change of one input that lets one more block in, and what it leads to.
struct Suggestion {
  std::string parameter;   // "registers", "shared", "threads"
  int from = 0;
  int to = 0;              // the largest value that fits the next block
  int blocks = 0;          // blocks per SM after the change
  double occupancy = 0;    // after the change, 0..1
  std::string text;
};

struct Result {
  ArchSpec arch;
  Input input;
  int warpsPerBlock = 0;
  int registersPerBlock = 0;       // allocated, after rounding
  int sharedPerBlock = 0;          // allocated, with the reservation and rounding
  std::vector<LimitResult> limits; // threads, block slots, registers, shared memory
  std::vector<Limit> binding;      // every limit that equals the result (ties included)
  int activeBlocks = 0;
  int activeWarps = 0;
  int activeThreads = 0;
  int maxWarps = 0;
  double occupancy = 0;            // activeWarps / maxWarps, 0..1
  std::string cannotLaunch;        // non-empty when not even one block fits, with the reason
  std::vector<Suggestion> nextBlock;
  std::string nextBlockText;       // one sentence: the suggestions, or why there are none

  const LimitResult& limit(Limit l) const;
};

// Throws InputError (value and limit named) when an input is outside what the architecture
// accepts at all: threads per block 1..max, registers 0..max per thread, shared memory
// 0..max per block. A block that the SM cannot hold (e.g. too many registers per block) is not
// an input error: the result has 0 blocks and says why, as a launch would fail.
Result calculate(const ArchSpec& arch, const Input& input);

struct ChartPoint {
  int x = 0;
  int activeBlocks = 0;
  int activeWarps = 0;
  double occupancy = 0;
};
struct Charts {
  std::vector<ChartPoint> byThreads;    // one warp steps up to the block limit
  std::vector<ChartPoint> byRegisters;  // 0 .. max registers per thread
  std::vector<ChartPoint> bySharedMemory;  // 0 .. max per block in allocation units
};
// Occupancy against each input with the other two held at `input`.
Charts charts(const ArchSpec& arch, const Input& input);

// The calculator next to the device's own answer (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
// for one kernel of a CUDA run.
struct DeviceCheck {
  std::string variant;
  std::string kernel;
  Input input;
  int deviceBlocks = 0;
  int calculatorBlocks = 0;
  bool match = false;
  Result detail;
};
// nullopt when the kernel carries no resource record (CPU runs) or the device is not a GPU.
std::optional<DeviceCheck> checkAgainstDevice(const KernelResult& kernel, const DeviceInfo& device);
// Every kernel of every variant of a run that has a resource record.
std::vector<DeviceCheck> checkRun(const RunResult& run);

}  // namespace kernellab::occupancy

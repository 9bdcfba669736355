// SPDX-License-Identifier: MIT
// Access-pattern model: from one block's address trace (access_trace.h), what each warp request
// costs. Global memory: the 32-byte sectors and 128-byte lines a request touches against the
// fewest that could carry its bytes (coalescing efficiency). Shared memory: the bank of every
// lane's word and the conflict degree (how many distinct words one bank must serve; lanes
// reading the same word share it by broadcast).
//
// Lanes are grouped into a request by (phase, sequence key, space, kind, buffer): the warp
// executes the same instruction stream, and a lane that skips an access (a bounds check, a
// data-dependent branch) is inactive in that request. The key is each thread's n-th access in
// the phase, or the tracer's own instruction key where lanes may skip inside a loop
// (access_trace.h).
#pragma once

#include <string>
#include <vector>

#include "kernellab/access_trace.h"
#include "kernellab/request.h"

namespace kernellab::access {

struct MemoryModel {
  int warpSize = 32;
  int sectorBytes = 32;
  int lineBytes = 128;
  int banks = 32;
  int bankBytes = 4;
  bool halfWarpBanks = false;   // cc 1.x: 16 banks, each half-warp is its own shared request
  // cc 1.x: 16 banks per half-warp (seed 000); since 2.0: 32 banks of 4 bytes per warp.
  static MemoryModel forComputeCapability(int major);
};

struct LaneAccess {
  int lane = 0;
  int thread = 0;
  int64_t element = 0;
  uint64_t address = 0;
  int bank = -1;         // shared only
};

struct Request {
  int phase = 0;
  int64_t seq = 0;
  Space space = Space::Global;
  Kind kind = Kind::Load;
  int buffer = 0;
  std::string bufferName;
  std::vector<LaneAccess> lanes;   // active lanes, by lane
  int usefulBytes = 0;             // distinct bytes the lanes ask for
  // Global memory.
  int sectors = 0;
  int idealSectors = 0;            // ceil(usefulBytes / sectorBytes)
  int lines = 0;
  int idealLines = 0;
  double efficiency = 0;           // usefulBytes / (sectors * sectorBytes)
  std::vector<uint64_t> sectorAddresses;   // sorted byte addresses of the touched sectors
  // Shared memory.
  std::vector<int> bankWords;      // distinct words per bank (all lanes; per half-warp on cc 1.x)
  int conflictDegree = 0;          // 1 = conflict-free, 32 = every lane in one bank: passes over
                                   // the fewest passes the words need (2 for a warp's doubles)
  int wavefronts = 0;              // passes the shared unit needs (sum over half-warps on 1.x)
  int idealWavefronts = 0;         // the fewest: ceil(distinct words / banks) per (half-)warp
};

struct Totals {
  int globalRequests = 0;
  int sectors = 0;
  int idealSectors = 0;
  int lines = 0;
  int idealLines = 0;
  double efficiency = 0;           // ideal sectors / sectors
  int sharedRequests = 0;
  int wavefronts = 0;              // shared passes
  int idealWavefronts = 0;         // sum of the requests' fewest passes
  int maxConflict = 0;
};

struct WarpReport {
  std::string family;
  std::string variant;
  std::string kernel;              // CUDA kernel name
  std::string description;
  BlockCoord block;
  Dim2 blockDim;
  Dim2 gridDim;
  int warp = 0;
  int warpsPerBlock = 0;
  MemoryModel memory;
  std::vector<BufferInfo> buffers;
  std::vector<Request> requests;   // in program order
  Totals warpTotals;
  Totals blockTotals;              // every warp of the block
  bool perWarpTraces = false;      // the block was too big to trace at once: traced per warp
};

// The requests of one warp of a traced block. Throws InputError when the warp is outside the
// block.
std::vector<Request> warpRequests(const BlockTrace& trace, int warp, const MemoryModel& memory);
Totals totalsOf(const std::vector<Request>& requests, const MemoryModel& memory);

// What to trace: a family's request (sizes, launch shape), one variant, one of its kernels, one
// block and warp.
struct AccessQuery {
  RunRequest request;          // family, problem size, launch configuration
  std::string variant;         // a variant id of the family
  std::string kernel;          // kmeans: assign | centroids | score; kcenters: distance | select;
                               // empty = the family's first (transpose and knn: the variant's one)
  BlockCoord block;            // blockIdx (the kernel's own mapping decides its tile)
  int warp = 0;
  int ccMajor = 9;             // which bank model: 1 = 16 banks per half-warp
  // Accesses the trace is expected to hold (0: unknown): the recorder reserves them up front.
  // analyze() sets it for the other warps' traces from the first warp's, since warps of a block
  // trace alike; a k-means assign warp records over a million accesses, and growing that vector
  // by doubling cost a quarter of opening such a profile.
  size_t expectedRecords = 0;
};

// A kernel of a family that launches several per variant, as --kernel names it.
struct KernelChoice {
  std::string id;              // "assign"
  std::string name;            // CUDA kernel name: "assignToClustersKernel"
  std::string what;            // one line: what it does and what data it traces with
};

// The kernels --kernel chooses from: k-means assign, centroids, score; k-centers distance,
// select. Empty for transpose and knn (each variant is one kernel).
const std::vector<KernelChoice>& tracedKernels(Family family);

// Whether a variant of the family has a tracer (the clustering "best" and "cublas" engines are
// GPU-only code, not KL_HD block programs, and have none).
bool canTrace(Family family, const std::string& variant);

// Traces the block with the family's own phase functions and analyses the warp; a block too big
// for one trace is traced warp by warp. Throws InputError for an unknown family, variant or
// kernel, a block outside the grid, a warp outside the block, a launch configuration the family
// refuses, or a warp whose trace alone would exceed the recorder's limit (TraceTooLarge).
WarpReport analyze(const AccessQuery& query);

// The same for the query's warp alone: only that warp's threads are recorded and blockTotals
// stays empty. What a comparison of per-request figures needs (model_vs_counters.cpp), at an
// eighth of analyze's work and memory for a block of 8 warps whose trace is too big for one go.
WarpReport analyzeWarp(const AccessQuery& query);

// The family's tracer (its descriptor's traceBlock, family.h). Records the accesses of the
// threads in `keep` (every thread by default); throws TraceTooLarge when they would exceed the
// recorder's limit.
BlockTrace traceBlock(const AccessQuery& query, ThreadRange keep = {});

// Where a tracer puts an output buffer: after the inputs, aligned as cudaMalloc aligns large
// allocations (2 MiB), so sector and partition arithmetic sees realistic addresses.
inline uint64_t alignedAfter(uint64_t bytes) {
  constexpr uint64_t kAlign = 2ull << 20;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace kernellab::access

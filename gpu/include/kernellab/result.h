// SPDX-License-Identifier: MIT
// The experiment result: device facts, timings, bandwidth, verification, resources, schedules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/hardware_counters.h"
#include "kernellab/request.h"

namespace kernellab {

// Bump when a field changes meaning or disappears; adding optional fields keeps the version.
// 2: a request carries only its family's sections, k-means has a stop rule (version 1 files
// ran Campaign's score rule; readers say so) and records why it stopped.
inline constexpr int kSchemaVersion = 2;

struct DeviceInfo {
  std::string backend;       // "cuda" or "cpu"
  std::string name;          // GPU name, or the CPU model
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;           // SMs, or CPU hardware threads
  uint64_t globalMemBytes = 0;
  uint64_t l2Bytes = 0;
  int maxThreadsPerBlock = 1024;
  int maxThreadsPerSM = 0;
  int maxBlocksPerSM = 0;
  int regsPerSM = 0;
  int regsPerBlock = 0;
  uint64_t sharedPerBlock = 0;        // default limit without opt-in
  uint64_t sharedPerBlockOptin = 0;
  uint64_t sharedPerSM = 0;
  int reservedSharedPerBlock = -1;    // driver's per-block reservation (1 KiB since cc 8.0); -1 unknown
  int warpSize = 32;
  int memoryBusBits = 0;
  int memoryClockKHz = 0;
  int clockKHz = 0;
  int driverVersion = 0;     // CUDA encoding: 13000 = 13.0
  int runtimeVersion = 0;
};

// Why the CUDA backend can or cannot be used here.
struct BackendStatus {
  bool cudaBuilt = false;
  bool cudaUsable = false;
  std::string cudaReason;    // the CUDA error text when unusable
  std::vector<DeviceInfo> cudaDevices;
  DeviceInfo cpu;
};

struct TimingStats {
  double medianMs = 0;
  double minMs = 0;
  double maxMs = 0;
  int samples = 0;
  std::string clock;         // "cuda-events" or "cpu-steady-clock"
};

struct ResourceUsage {
  int registersPerThread = 0;
  int staticSharedBytes = 0;
  int dynamicSharedBytes = 0;
  int localBytesPerThread = 0;
  int maxThreadsPerBlock = 0;       // the kernel's own limit (registers can lower it)
  int maxActiveBlocksPerSM = 0;     // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  int threadsPerBlock = 0;
};

struct Verification {
  bool performed = false;
  bool passed = false;
  std::string reference;      // what it was compared against
  uint64_t compared = 0;
  uint64_t mismatches = 0;
  double maxError = 0;
  double tolerance = 0;
  std::string note;           // e.g. tie swaps, first mismatch position
  // Labels approximate by design (the GEMM form, as common libraries compute them): `passed`
  // then means everything else checked out, and approximateMismatches counts the labels (over
  // every iteration) that are not the nearest center beyond a tie.
  bool approximate = false;
  uint64_t approximateMismatches = 0;
};

// One block's life on the GPU, recorded with %smid and %globaltimer.
struct BlockRecord {
  int blockId = 0;        // linear blockIdx in launch order
  int smId = 0;
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  int tileX = 0;          // logical tile after the blockIdx mapping
  int tileY = 0;
};

struct KernelResult {
  std::string name;             // e.g. "transposePaddedKernel"
  TimingStats timing;           // per launch (or per iteration total for iterative kernels)
  double totalMs = 0;           // all launches of this kernel in one repetition
  int launches = 1;             // launches per repetition
  double bytes = 0;             // effective bytes per launch: inputs read once + outputs written once
  double gbps = 0;              // bytes / median, decimal GB/s
  double flops = 0;             // arithmetic per launch when meaningful
  std::optional<ResourceUsage> resources;
  int gridX = 0, gridY = 0, blockX = 0, blockY = 0;
};

struct PhaseTiming {            // allocation, host-to-device, device-to-host, ...
  std::string name;
  double ms = 0;
};

struct IterationRecord {        // one k-means iteration or one k-centers center
  int iteration = 0;
  double score = 0;
  std::vector<double> kernelMs; // parallel to VariantResult::kernels
  int chosenPoint = -1;         // k-centers: index of the point chosen as the new center
  int64_t rechecked = -1;       // best k-means: points re-decided exactly (-1: not applicable)
  int64_t labelsChanged = -1;   // k-means, fixed-point rule: points whose cluster differs from the
                                // previous iteration's (-1: not counted, or the first iteration)
  int64_t visited = -1;         // pruned k-centers: points whose coordinates were read for this
                                // center (0..N; -1: not counted, every other variant reads all N)
  int64_t screened = -1;        // pruned k-centers: points whose 8-bit sketch (D bytes) was read
                                // for this center (0..N; -1: not counted)
                                // (pruned k-means: `visited` counts the points whose coordinates
                                // were read in this iteration, 0..N)
  int64_t distances = -1;       // pruned k-means: point-center distances computed in this
                                // iteration (0..N K; -1: not counted; the others compute N K);
                                // lazy CPU pruned k-centers: the distances this center's passes
                                // summed (each read point one per center its unit missed); CUDA
                                // pruned k-centers: the sketch and float distances to this center
  int pass = -1;                // CUDA pruned k-centers: 1 where this center's launch ran a pass
                                // over the N points (bringing them up to date with every center
                                // since the last pass), 0 where the plan chose the next center
                                // from the listed points without one (-1: not counted)
};

// Why a k-means run stopped (ClusteringOutput::stopReason).
enum class StopReason {
  None,            // not k-means (k-centers chooses exactly K centers)
  Converged,       // Lloyd's fixed point: the last iteration changed no point's cluster
  ScoreRule,       // Campaign's rule: the score changed by at most epsilon of itself
  IterationLimit,  // maxIterations ran without meeting the request's rule
};
const char* toString(StopReason r);  // "", "converged", "score-rule", "iteration-limit"
std::optional<StopReason> stopReasonFromString(const std::string& s);
// One line for tables and reports: "converged after 12 iterations (no point changed cluster)".
std::string describeStop(StopReason r, int iterations);

// The state of an iterative family (k-means, k-centers): a variant's result (VariantResult::
// detail<ClusteringOutput>()) and the live data of RunHooks::iteration and the worker's
// iteration frames.
struct ClusteringOutput {
  std::vector<int32_t> labels;  // empty when the request asked not to keep them
  std::vector<float> centers;   // K x D, point-major
  std::vector<int64_t> centerIndices;  // k-centers: chosen points, in order
  int iterations = 0;           // k-means: iterations run; k-centers: centers chosen
  StopReason stopReason{};      // k-means: why it stopped after `iterations` (None: k-centers)
  double inertia = 0;           // sum of squared distances to the assigned center
  std::vector<int64_t> clusterSizes;
};

struct VariantResult {
  std::string variant;          // id within the family
  bool ok = true;
  std::string error;            // launch refused, CUDA error text, ...
  bool refused = false;         // not run: the configuration exceeds a device limit (error says
                                // which, with the numbers); nothing was timed
  std::vector<KernelResult> kernels;
  TimingStats total;            // whole variant per repetition (sum of its kernels)
  double bytes = 0;
  double gbps = 0;
  double fractionOfMemcpy = 0;  // gbps over the cudaMemcpy D2D ceiling measured in the same run
  double fractionOfCopyKernel = 0;
  std::vector<PhaseTiming> phases;
  std::vector<IterationRecord> iterations;
  // Which timed repetition `iterations` comes from: "median" (the one whose total kernel time is
  // the median; the lower middle one of an even count), or empty in results written before this
  // was kept (then the last timed repetition).
  std::string iterationsFrom;
  Verification verification;
  std::vector<BlockRecord> schedule;
  double scheduleOverheadPct = 0;  // recorded vs uninstrumented median, when recorded
  std::string strategy;            // how the variant moved this shape, when it chooses (the
                                   // best transpose: "tile", "narrow-width", ...); else empty
  std::vector<MeasuredCounters> counters;  // the GPU's counters per kernel (a profiled run)
  // What the family adds to a variant (ClusteringOutput, KnnDetails, ...), by type; written to
  // JSON by the family's descriptor (family.h).
  Sections details;

  // The detail of type S, or nullptr when the variant has none.
  template <class S>
  const S* detail() const {
    return details.find<S>();
  }
  template <class S>
  S* detail() {
    return details.find<S>();
  }
};

struct Ceiling {
  std::string name;             // "cudaMemcpy D2D", "memcpy", or "fp32 FMA peak"
  double bytes = 0;             // read + write
  TimingStats timing;
  double gbps = 0;
  double gflops = 0;            // arithmetic ceilings: floating-point operations per ns
};

struct RunResult {
  int schemaVersion = kSchemaVersion;
  std::string createdAt;        // ISO 8601 UTC
  std::string tool;             // "kernellab-cli 0.1.0" or "kernellab 0.1.0"
  RunRequest request;
  DeviceInfo device;
  std::string backend;          // what ran: "cuda" or "cpu"
  std::string backendNote;      // why: e.g. "CPU: cudaErrorInsufficientDriver: ..."
  std::vector<Ceiling> ceilings;
  std::vector<VariantResult> variants;
  bool ok = true;               // every variant ran and verified
  std::string message;
  std::optional<ProfileInfo> profile;  // set when the run was profiled (kernellab-cli profile)
};

// A results file: one run, or a sweep of runs.
struct ResultsFile {
  int schemaVersion = kSchemaVersion;
  std::string kind = "kernellab-results";
  std::vector<SweepAxis> sweep;   // empty for a single run; several axes form a product
  std::vector<RunResult> runs;
};

// Summary statistics of repeated timings (median of an even count is the mean of the middle two).
TimingStats summarize(std::vector<double> samplesMs, const std::string& clock);

// Decimal GB/s: bytes over milliseconds.
inline double gigabytesPerSecond(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
}

}  // namespace kernellab

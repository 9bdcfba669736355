// SPDX-License-Identifier: MIT
// The reduction family, CPU side: the variant table, the passes of a variant, validation, the
// seeded input, the double reference, the CPU executor and the verification of a result.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"
#include "kernellab/reduction.h"
#include "kernellab/text.h"

namespace kernellab::reduction {

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> table = {
      {Variant::InterleavedDivergent, "interleaved-divergent", "Interleaved, divergent",
       "reduceInterleavedDivergentKernel",
       "Harris's kernel 1: at level s the threads whose index is a multiple of 2s combine; the "
       "branch splits every warp, most lanes idle."},
      {Variant::InterleavedStrided, "interleaved-strided", "Interleaved, bank conflicts",
       "reduceInterleavedStridedKernel",
       "Kernel 2: contiguous threads combine slot 2 s tid: no divergent warps, but 2s lanes "
       "share a shared-memory bank (up to 32-way conflicts)."},
      {Variant::Sequential, "sequential", "Sequential addressing", "reduceSequentialKernel",
       "Kernel 3: the lower half of the block combines with the upper half: no divergence within "
       "a warp, consecutive slots, conflict-free; half the threads idle from the first level."},
      {Variant::FirstAdd, "first-add", "First add during load", "reduceFirstAddKernel",
       "Kernel 4: each thread adds two elements while it loads them: half the blocks, no thread "
       "idle at the start."},
      {Variant::WarpShuffle, "warp-shuffle", "Last warp by shuffles", "reduceWarpShuffleKernel",
       "Kernel 5: the last 32 values by __shfl_down_sync, no barrier and no shared memory. The "
       "old unrolled last warp through a volatile shared array without __syncwarp races since "
       "Volta's independent thread scheduling; the shuffle's mask makes the exchange explicit."},
      {Variant::Unrolled, "unrolled", "Fully unrolled", "reduceUnrolledKernel",
       "Kernel 6: the block size a template constant, so every level is unrolled and its "
       "branches resolved at compile time; the same accesses as kernel 5, fewer instructions."},
      {Variant::GridStride, "grid-stride", "Several elements per thread", "reduceGridStrideKernel",
       "Kernel 7: a grid of one wave of blocks, each thread adding many elements in a "
       "grid-stride loop before the tree: bandwidth-bound, most work in registers."},
      {Variant::Cub, "cub", "CUB DeviceReduce (peer)", "cub::DeviceReduce",
       "The library's reduction (cub::DeviceReduce::Sum or ::ArgMax, shipped with the CUDA "
       "toolkit): tuned per architecture, vectorized loads. CUDA only."},
  };
  return table;
}

const VariantInfo& info(Variant v) { return variantEntry(variants(), v); }

std::optional<Variant> variantFromString(const std::string& id) {
  return variantFromId(variants(), id);
}

std::vector<Variant> parseVariants(const std::vector<std::string>& ids, bool cuda,
                                   const std::string& whyNoCuda) {
  const std::vector<Variant> list = parseVariantIds(variants(), ids, "reduction");
  const bool named = std::find(ids.begin(), ids.end(), "cub") != ids.end();
  std::vector<Variant> out;
  for (Variant v : list) {
    if (v == Variant::Cub && !cuda) {
      if (named)
        throw InputError("--variant cub runs only on the CUDA backend" +
                         (whyNoCuda.empty() ? std::string() : " (" + whyNoCuda + ")"));
      continue;  // "all" on the CPU: the peer is a library's GPU code
    }
    out.push_back(v);
  }
  return out;
}

const char* toString(Operation op) { return op == Operation::Sum ? "sum" : "max"; }

std::optional<Operation> operationFromString(const std::string& s) {
  const std::string lower = toLower(s);
  if (lower == "sum") return Operation::Sum;
  if (lower == "max") return Operation::MaxIndex;
  return std::nullopt;
}

int autoBlocks(const DeviceInfo& device, int tpb) {
  const int perSm = device.maxThreadsPerSM > 0 ? std::max(1, device.maxThreadsPerSM / tpb)
                                               : std::max(1, 2048 / tpb);
  const int limited = device.maxBlocksPerSM > 0 ? std::min(perSm, device.maxBlocksPerSM) : perSm;
  return std::max(1, device.smCount) * limited;
}

namespace {

constexpr int64_t kMaxGrid = 2147483647;  // CUDA's gridDim.x

void checkThreadsPerBlock(int tpb) {
  if (tpb < 32 || tpb > 1024 || (tpb & (tpb - 1)) != 0)
    throw InputError("--tpb " + std::to_string(tpb) +
                     ": the reduction's tree halves the block, so threads per block is a power of "
                     "two in 32..1024");
}

}  // namespace

std::vector<Geometry> plan(const ReductionProblem& p, Variant v, int tpb, int autoGrid) {
  checkThreadsPerBlock(tpb);
  if (p.n < 1 || p.n > kMaxElements)
    throw InputError("--n " + std::to_string(p.n) + " is outside 1.." +
                     std::to_string(kMaxElements) + " (indices are 32-bit)");
  std::vector<Geometry> passes;
  int64_t count = p.n;
  for (;;) {
    Geometry g;
    g.variant = v;
    g.count = count;
    g.tpb = tpb;
    g.log2Tpb = log2Of(tpb);
    const int64_t perBlock = loadOf(v) == Load::One ? tpb : 2 * int64_t(tpb);
    int64_t grid = (count + perBlock - 1) / perBlock;
    if (loadOf(v) == Load::GridStride)
      grid = std::min<int64_t>(grid, p.blocks > 0 ? p.blocks : std::max(1, autoGrid));
    if (grid > kMaxGrid)
      throw InputError("--n " + std::to_string(p.n) + " needs " + std::to_string(grid) +
                       " blocks of " + std::to_string(tpb) + " threads, above CUDA's " +
                       std::to_string(kMaxGrid));
    g.grid = static_cast<int>(grid);
    g.stride = grid * 2 * tpb;
    passes.push_back(g);
    if (grid == 1) break;
    count = grid;
  }
  return passes;
}

void validate(const RunRequest& r, const DeviceInfo& device, uint64_t availableBytes) {
  const ReductionProblem& p = r.section<ReductionProblem>();
  if (r.repetitions < 1 || r.repetitions > 100000)
    throw InputError("--reps " + std::to_string(r.repetitions) + " is outside 1..100000");
  if (r.warmup < 0 || r.warmup > 1000)
    throw InputError("--warmup " + std::to_string(r.warmup) + " is outside 0..1000");
  if (r.recordSchedule)
    throw InputError(
        "--record-schedule: the reduction records no block schedules (transpose and "
        "clustering do)");
  if (p.blocks < 0) throw InputError("--blocks " + std::to_string(p.blocks) + " must be >= 0");
  const int tpb = r.launch.threadsPerBlock;
  if (tpb > device.maxThreadsPerBlock)
    throw InputError("--tpb " + std::to_string(tpb) + " is above this device's limit of " +
                     std::to_string(device.maxThreadsPerBlock) + " threads per block");
  plan(p, Variant::Sequential, tpb, 1);  // N and the block size
  // The input, its copy for the ceiling and the partial results (at most one per block of the
  // first pass of kernel 1: N / 32 values of 8 bytes).
  const double needed =
      4.0 * double(p.n) * (r.measureCeilings ? 2.0 : 1.0) + 8.0 * double(p.n) / 16;
  if (availableBytes > 0 && needed > double(availableBytes))
    throw InputError("--n " + std::to_string(p.n) + " needs " + formatBytes(needed) + " of " +
                     (device.backend == "cuda" ? "device" : "host") + " memory; " + device.name +
                     " has " + formatBytes(double(availableBytes)) + " available");
}

std::vector<float> makeInput(int64_t n, uint64_t seed) {
  std::vector<float> in(static_cast<size_t>(n));
  const uint64_t salt = splitmix64(seed ^ 0x7265647563650000ull);  // "reduce"
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      // 24 random bits mapped to (-1, 1) \ {0}, exactly representable in float.
      const uint64_t bits = splitmix64(salt ^ static_cast<uint64_t>(i)) >> 40;
      in[static_cast<size_t>(i)] = (static_cast<float>(bits) + 0.5f) / 8388608.0f - 1.0f;
    }
  });
  return in;
}

Reference reference(const std::vector<float>& in) {
  // Chunks fixed by the size, combined in order: the same doubles on every machine.
  constexpr int64_t kChunks = 256;
  const int64_t n = static_cast<int64_t>(in.size());
  std::vector<double> sums(kChunks, 0.0), abs(kChunks, 0.0);
  std::vector<float> maxes(kChunks, -std::numeric_limits<float>::infinity());
  std::vector<int64_t> where(kChunks, -1);
  parallelChunks(n, kChunks, [&](int64_t c, int64_t b, int64_t e) {
    double s = 0, a = 0;
    float m = -std::numeric_limits<float>::infinity();
    int64_t at = -1;
    for (int64_t i = b; i < e; ++i) {
      const float x = in[static_cast<size_t>(i)];
      s += x;
      a += std::fabs(x);
      if (x > m) {
        m = x;
        at = i;
      }
    }
    sums[size_t(c)] = s;
    abs[size_t(c)] = a;
    maxes[size_t(c)] = m;
    where[size_t(c)] = at;
  });
  Reference r;
  r.max = -std::numeric_limits<float>::infinity();
  for (int64_t c = 0; c < kChunks; ++c) {
    r.sum += sums[size_t(c)];
    r.absSum += abs[size_t(c)];
    if (where[size_t(c)] >= 0 && maxes[size_t(c)] > r.max) {  // the earlier chunk wins a tie
      r.max = maxes[size_t(c)];
      r.index = where[size_t(c)];
    }
  }
  return r;
}

// ---- the CPU executor ------------------------------------------------------------------------

namespace {

// The executor's memory policy: the pass's input and the block's shared array, every index
// checked. The first pass reads the floats, later passes the previous pass's partial values.
template <class Op>
struct HostMem {
  using T = typename Op::T;
  const float* input = nullptr;  // first pass
  const T* partials = nullptr;   // later passes
  int64_t count = 0;
  T* shared = nullptr;
  int sharedSize = 0;

  T loadInput(int64_t i, int64_t) const {
    if (i < 0 || i >= count)
      throw std::logic_error("reduction: input index " + std::to_string(i) + " outside 0.." +
                             std::to_string(count - 1));
    return input ? Op::fromInput(input[i], i) : partials[i];
  }
  T loadShared(int i, int64_t) const {
    check(i);
    return shared[i];
  }
  void storeShared(int i, T v, int64_t) const {
    check(i);
    shared[i] = v;
  }
  void check(int i) const {
    if (i < 0 || i >= sharedSize)
      throw std::logic_error("reduction: shared index " + std::to_string(i) + " outside 0.." +
                             std::to_string(sharedSize - 1));
  }
};

// One pass: each block's phases in order, the threads of a phase one after another.
template <class Op>
void executePass(const Geometry& g, const float* input, const typename Op::T* partials,
                 typename Op::T* out) {
  using T = typename Op::T;
  forEachBlock({g.grid, 1}, [&](int block, int) {
    std::vector<T> shared(static_cast<size_t>(g.tpb), Op::identity());
    HostMem<Op> m{input, partials, g.count, shared.data(), g.tpb};
    for (int tid = 0; tid < g.tpb; ++tid) shared[size_t(tid)] = loadPhase<Op>(g, block, tid, m);
    const int levels = sharedLevels(g.variant, g.tpb);
    for (int level = 0; level < levels; ++level)  // a barrier after each level
      for (int tid = 0; tid < g.tpb; ++tid) treeStep<Op>(g.variant, g.tpb, level, tid, m);
    if (!warpStageOf(g.variant)) {
      out[block] = shared[0];
      return;
    }
    // Warp 0's shuffles: each step reads the partner's value from before the step (two buffers,
    // so the order the lanes run in does not matter).
    T lanes[kWarp], next[kWarp];
    for (int lane = 0; lane < kWarp; ++lane) lanes[lane] = warpEntry<Op>(g.tpb, lane, m);
    for (int step = 0; step < kWarpSteps; ++step) {
      const int offset = warpOffset(step);
      for (int lane = 0; lane < kWarp; ++lane)
        next[lane] =
            warpStep<Op>(lanes[lane], lane + offset < kWarp ? lanes[lane + offset] : lanes[lane]);
      std::copy(next, next + kWarp, lanes);
    }
    out[block] = lanes[0];
  });
}

template <class Op>
typename Op::T executeAll(const std::vector<Geometry>& passes, const float* in) {
  using T = typename Op::T;
  std::vector<T> a, b;
  const T* from = nullptr;
  for (size_t p = 0; p < passes.size(); ++p) {
    std::vector<T>& to = (p % 2 == 0) ? a : b;
    to.assign(static_cast<size_t>(passes[p].grid), Op::identity());
    executePass<Op>(passes[p], p == 0 ? in : nullptr, from, to.data());
    from = to.data();
  }
  return from[0];
}

}  // namespace

float executeSum(const std::vector<Geometry>& passes, const float* in) {
  return executeAll<SumOp>(passes, in);
}

ValueIndex executeMax(const std::vector<Geometry>& passes, const float* in) {
  return executeAll<MaxOp>(passes, in);
}

// ---- verification
// --------------------------------------------------------------------------------

double sumTolerance(int64_t depth, double absSum, int64_t n) {
  const double u = std::ldexp(1.0, -24);
  const double hu = double(depth) * u;
  const double gamma = hu < 1 ? hu / (1 - hu) : std::numeric_limits<double>::infinity();
  return gamma * absSum + double(n) * std::ldexp(1.0, -53) * absSum;
}

int64_t sumDepth(const std::vector<Geometry>& passes) {
  int64_t depth = 0;
  for (const Geometry& g : passes) depth += reduction::sumDepth(g);
  return depth;
}

int64_t cubSumDepth(int64_t n, int sms) {
  const int64_t threads = int64_t(std::max(1, sms)) * 256;
  return (n + threads - 1) / threads + 64;
}

Verification verifySum(double value, const Reference& ref, int64_t depth, int64_t n) {
  Verification v;
  v.performed = true;
  v.reference = "the sum in double (CPU)";
  v.compared = 1;
  v.tolerance = sumTolerance(depth, ref.absSum, n);
  v.maxError = std::fabs(value - ref.sum);
  v.passed = std::isfinite(value) && v.maxError <= v.tolerance;
  v.mismatches = v.passed ? 0 : 1;
  v.note = "sum " + formatGeneral(value, 9) + ", double reference " + formatGeneral(ref.sum, 12) +
           ": error " + formatGeneral(v.maxError, 3) + (v.passed ? " within" : " beyond") +
           " the bound " + formatGeneral(v.tolerance, 3) + " (gamma(" + std::to_string(depth) +
           ") x sum |x|: each element through at most " + std::to_string(depth) +
           " float additions)";
  return v;
}

Verification verifyMax(float value, int64_t index, const Reference& ref) {
  Verification v;
  v.performed = true;
  v.reference = "the first maximum (CPU)";
  v.compared = 1;
  v.tolerance = 0;
  uint32_t got = 0, want = 0;
  std::memcpy(&got, &value, 4);
  std::memcpy(&want, &ref.max, 4);
  v.passed = got == want && index == ref.index;
  v.mismatches = v.passed ? 0 : 1;
  v.maxError = std::isfinite(value) ? std::fabs(double(value) - double(ref.max)) : 0;
  v.note = "max " + formatGeneral(value, 9) + " at " + std::to_string(index) + ", reference " +
           formatGeneral(ref.max, 9) + " at " + std::to_string(ref.index) +
           " (exact: the value's bits and the first index)";
  return v;
}

}  // namespace kernellab::reduction

// SPDX-License-Identifier: MIT
// Transpose family, CPU side: the variant table, launch validation, the seeded input, the
// multithreaded reference and the CPU executor that runs each variant's shared index functions.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"
#include "kernellab/variant_table.h"
#include "transpose_parts.h"

namespace kernellab::transpose {

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> table = {
      {Variant::Copy, "copy", "Copy (ceiling)", "copyKernel",
       "Not a transpose: a row-major copy with the same blocks, the in-run "
       "bandwidth ceiling."},
      {Variant::Naive, "naive", "Naive", "transposeNaiveKernel",
       "Reads rows, writes columns straight to global memory: every warp store "
       "is strided."},
      {Variant::Tiled, "tiled", "Shared tile", "transposeTiledKernel",
       "Stages a tile in shared memory so reads and writes are both coalesced "
       "rows."},
      {Variant::Padded, "padded", "Tile + 1 padding", "transposePaddedKernel",
       "Pads each shared row by one float so a column read hits 32 different "
       "banks."},
      {Variant::Diagonal, "diagonal", "Diagonal order", "transposeDiagonalKernel",
       "Padded tile, blocks mapped along diagonals against partition camping "
       "(mattered before "
       "compute capability 2.0; later GPUs hash addresses across partitions)."},
      {Variant::Best, "best", "Best (by shape)", "transposeBestKernel",
       "Tuned on the H200, its strategy chosen by shape: the padded tile in "
       "stripes 4 tiles wide (one stripe when the matrix is at most 16 tiles wide) "
       "(8 elements per thread, 32x4 threads) for large matrices, "
       "sector-aligned output rows in 64 x 64 stripes for "
       "odd sizes, 40-wide tiles for widths that are a multiple of 40 (on compute "
       "capability 9.0 and later, from 120 to 200 floats such as D = 200: 64 whole rows per "
       "block fetched by one bulk copy), "
       "registers or staged rows for narrow point-cloud layouts (N "
       "x D, D <= 256)."},
  };
  return table;
}

const VariantInfo& info(Variant v) { return variantEntry(variants(), v); }

std::optional<Variant> variantFromString(const std::string& id) {
  return variantFromId(variants(), id);
}

std::vector<Variant> parseVariants(const std::vector<std::string>& ids) {
  return parseVariantIds(variants(), ids, "transpose");
}

namespace {

// CUDA's grid limits: x up to 2^31-1 blocks, y up to 65535.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridY = 65535;

}  // namespace

namespace {
// The best variant's tile shape, chosen on the H200 (docs/BENCHMARKS.md has the
// search): the padded 32x32 tile moved by 32x4 threads (8 elements each),
// launched in stripes 4 tiles wide (one stripe for matrices up to 16 tiles wide).
constexpr int kBestRows = 4;
constexpr int kBestGroup = 4;
// The aligned stripe's launch order: one column of blocks at a time (measured below).
constexpr int kStripeGroup = 1;
constexpr int kWholeWidthTiles = 16;
// The other strategies' blocks: 32 x 8 threads.
constexpr int kStrategyRows = 8;

// KERNELLAB_TRANSPOSE_STRATEGY forces one strategy of the best variant (for
// measuring the alternatives at one shape); empty or unset: the shape rule.
std::optional<Strategy> forcedStrategy(int64_t w, int64_t h) {
  const char* env = std::getenv("KERNELLAB_TRANSPOSE_STRATEGY");
  if (!env || !*env) return std::nullopt;
  const std::optional<Strategy> s = strategyFromString(env);
  if (!s)
    throw InputError(std::string("KERNELLAB_TRANSPOSE_STRATEGY=") + env +
                     " is not a strategy (tile, aligned-tile, aligned-stripe, tile-40, bulk-rows, "
                     "narrow-width, narrow-height, staged-rows, staged-cols)");
  if (!strategyApplies(*s, w, h))
    throw InputError(std::string("KERNELLAB_TRANSPOSE_STRATEGY=") + env + " cannot move a " +
                     std::to_string(w) + "x" + std::to_string(h) + " matrix (" +
                     strategyDescription(*s) + ")");
  return s;
}

// bulkCopy: whether the device that will run it can run bulk rows (transpose_parts.h).
Geometry bestGeometry(const RunRequest& r, int maxThreadsPerBlock, bool bulkCopy) {
  RunRequest shaped = r;
  shaped.section<TransposeProblem>().tile =
      32;  // validate the size with a valid shape; the best shape replaces it
  shaped.launch.threadsPerBlock = 256;
  const int64_t w = r.section<TransposeProblem>().width, h = r.section<TransposeProblem>().height;
  if (w < 1 || h < 1)
    throw InputError("--size " + std::to_string(w) + "x" + std::to_string(h) +
                     ": width and height must be at least 1");
  const std::optional<Strategy> forced = forcedStrategy(w, h);
  if (forced == Strategy::BulkRows && !bulkCopy)
    throw InputError(
        "KERNELLAB_TRANSPOSE_STRATEGY=bulk-rows needs the bulk copy of compute capability 9.0 and "
        "its " + std::to_string(bulkRowsStageBytes(w)) +
        "-byte stage within the per-block shared memory; the device that would run it lacks one "
        "or the other");
  const Strategy s = forced.value_or(chooseStrategy(w, h, bulkCopy));
  Geometry g;
  if (s == Strategy::Tile || s == Strategy::AlignedTile || s == Strategy::AlignedStripe ||
      s == Strategy::Tile40) {
    g = makeGeometry(shaped, Variant::Padded, maxThreadsPerBlock);
    g.blockRows = kBestRows;
    // The strategies' own block shapes: the stripe 64 x 64 (+8 rows above) with 32 x 8 threads,
    // the 40-wide tile 40 x 64 with 32 x 4.
    if (s == Strategy::AlignedStripe) {
      g.blockRows = kStrategyRows;
      g.gridX = static_cast<int>((w + kStripeWidth - 1) / kStripeWidth);
      g.gridY = static_cast<int>((h + kAlignShift - 1 + kStripeRows - 1) / kStripeRows);
    }
    if (s == Strategy::Tile40) {
      g.gridX = static_cast<int>((w + kTile40Width - 1) / kTile40Width);
      g.gridY = static_cast<int>((h + kTile40Rows - 1) / kTile40Rows);
    }
    // A matrix at most kWholeWidthTiles tiles wide walks in one stripe as wide as the matrix: the
    // resident blocks then read whole input rows (200 x 1e6, 800-byte rows: 0.866 of cudaMemcpy
    // against 0.844 in stripes of 4, which read each row in two visits far apart; H200,
    // 2026-12-02, docs/BENCHMARKS.md). Wider matrices keep stripes of 4 (8192^2: 0.932 at 4,
    // 0.90 at 32 and 64).
    g.group = g.gridX <= kWholeWidthTiles ? std::max(1, g.gridX) : kBestGroup;
    // The aligned stripe walks one column of blocks at a time (stripes 1 wide): five interleaved
    // runs each (H200, 2026-12-02 session 5) gave 8191 x 8193 0.904 mean at 1 against 0.900 at 2
    // and 0.895 at 4, and 16385 x 16383 0.876 against 0.869 and 0.857.
    if (s == Strategy::AlignedStripe && g.gridX > kWholeWidthTiles) g.group = kStripeGroup;
    // KERNELLAB_TRANSPOSE_GROUP: tiles per stripe of the launch order, for measuring alternatives.
    if (const char* env = std::getenv("KERNELLAB_TRANSPOSE_GROUP"); env && *env) {
      const long group = std::strtol(env, nullptr, 10);
      if (group < 1 || group > 1024)
        throw InputError(std::string("KERNELLAB_TRANSPOSE_GROUP=") + env + " must be 1..1024 tiles");
      g.group = static_cast<int>(group);
    }
    // Aligned tile: 32-row tiles down to row h - 1 + 7 (the last pieces start up to 7 rows early).
    if (s == Strategy::AlignedTile) g.gridY = static_cast<int>((h + kAlignShift - 1 + 31) / 32);
  } else {
    g.width = w;
    g.height = h;
    g.tile = 32;
    g.blockRows = kStrategyRows;
    g.pitch = 33;
    const int64_t threads = 32 * kStrategyRows;
    int64_t blocks = 0;
    if (s == Strategy::NarrowWidth) blocks = ((h + 3) / 4 + threads - 1) / threads;
    if (s == Strategy::NarrowHeight) blocks = ((w + 3) / 4 + threads - 1) / threads;
    if (s == Strategy::BulkRows) {  // 8 writer warps and the warp that issues the bulk copy
      g.blockRows = kBulkRowsWriterWarps + 1;
      blocks = (h + kBulkRowsGroup - 1) / kBulkRowsGroup;
    }
    if (s == Strategy::StagedRows || s == Strategy::StagedCols) {
      g.span = stagedSpan(s == Strategy::StagedRows ? w : h);
      // KERNELLAB_TRANSPOSE_SPAN: rows (columns) per staged block, for measuring alternatives.
      if (const char* env = std::getenv("KERNELLAB_TRANSPOSE_SPAN"); env && *env) {
        const long span = std::strtol(env, nullptr, 10);
        const int64_t side = s == Strategy::StagedRows ? w : h;
        if (span < 32 || span > 1024 || span % 32 != 0 || side * (span + 1) * 4 > 227 * 1024)
          throw InputError(std::string("KERNELLAB_TRANSPOSE_SPAN=") + env +
                           " must be a multiple of 32 in 32..1024 whose stage fits in 227 KiB");
        g.span = static_cast<int>(span);
      }
      blocks = ((s == Strategy::StagedRows ? h : w) + g.span - 1) / g.span;
    }
    if (blocks > kMaxGridX)
      throw InputError("--size " + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                       std::to_string(blocks) + " blocks; the CUDA grid limit is " +
                       std::to_string(kMaxGridX));
    g.gridX = static_cast<int>(blocks);
    g.gridY = 1;
  }
  g.strategy = s;
  return g;
}
}  // namespace

const char* toString(Strategy s) {
  switch (s) {
    case Strategy::Tile:
      return "tile";
    case Strategy::AlignedTile:
      return "aligned-tile";
    case Strategy::AlignedStripe:
      return "aligned-stripe";
    case Strategy::Tile40:
      return "tile-40";
    case Strategy::BulkRows:
      return "bulk-rows";
    case Strategy::NarrowWidth:
      return "narrow-width";
    case Strategy::NarrowHeight:
      return "narrow-height";
    case Strategy::StagedRows:
      return "staged-rows";
    case Strategy::StagedCols:
      return "staged-cols";
  }
  return "tile";
}

std::optional<Strategy> strategyFromString(const std::string& id) {
  for (Strategy s : {Strategy::Tile, Strategy::AlignedTile, Strategy::AlignedStripe,
                     Strategy::Tile40, Strategy::BulkRows, Strategy::NarrowWidth,
                     Strategy::NarrowHeight, Strategy::StagedRows, Strategy::StagedCols})
    if (id == toString(s)) return s;
  return std::nullopt;
}

std::string strategyDescription(Strategy s) {
  switch (s) {
    case Strategy::Tile:
      return "padded 32x32 tile, 32x4 threads, grouped launch order";
    case Strategy::AlignedTile:
      return "padded tile whose output row pieces start on 32-byte sectors (odd "
             "sizes: a "
             "partial head per output row, whole sectors after it)";
    case Strategy::AlignedStripe:
      return "output row pieces on 32-byte sectors like the aligned tile, a block moving 64 "
             "columns x 64 rows in two steps (72 rows staged, 32 x 8 threads), the second "
             "step's loads in flight while the first is written";
    case Strategy::Tile40:
      return "40 x 64 tile, 32x4 threads: a width that is a multiple of 40 (D = 200) fills "
             "whole tiles where 32-wide tiles leave the last one partly empty";
    case Strategy::BulkRows:
      return "64 whole input rows per block (one contiguous chunk) fetched into shared memory by "
             "one bulk copy (compute capability 9.0+), then 8 warps write 128-byte pieces of "
             "every output row; 32 x 9 threads, width a multiple of 4";
    case Strategy::NarrowWidth:
      return "width <= 16: each thread moves 4 rows x width in registers, "
             "16-byte loads and "
             "stores";
    case Strategy::NarrowHeight:
      return "height <= 16: each thread moves 4 columns x height in registers, "
             "16-byte loads "
             "and stores";
    case Strategy::StagedRows:
      return "width <= 256: a block stages 32 whole input rows in shared memory, "
             "then writes "
             "128-byte pieces of every output row";
    case Strategy::StagedCols:
      return "height <= 256: a block stages 32 columns of every input row in "
             "shared memory, "
             "then writes one contiguous run";
  }
  return {};
}

Geometry makeGeometry(const RunRequest& r, Variant v, int maxThreadsPerBlock) {
  return makeGeometryOn(r, v, maxThreadsPerBlock, true);
}

std::string bestKernelName(const Geometry& g) {
  switch (g.strategy) {
    case Strategy::Tile: return "transposeBestKernel";
    case Strategy::AlignedTile: return "transposeAlignedTileKernel";
    case Strategy::AlignedStripe: return "transposeAlignedStripeKernel";
    case Strategy::Tile40: return "transposeTile40Kernel";
    case Strategy::BulkRows: return "transposeBulkRowsKernel";
    case Strategy::StagedRows: return "transposeStagedRowsKernel";
    case Strategy::StagedCols: return "transposeStagedColsKernel";
    case Strategy::NarrowWidth:
      return "transposeNarrowWidthKernel<" + std::to_string(g.width) + ">";
    case Strategy::NarrowHeight:
      return "transposeNarrowHeightKernel<" + std::to_string(g.height) + ">";
  }
  return "transposeBestKernel";
}

Geometry makeGeometryOn(const RunRequest& r, Variant v, int maxThreadsPerBlock, bool bulkCopy) {
  if (v == Variant::Best) return bestGeometry(r, maxThreadsPerBlock, bulkCopy);
  const int tile = r.section<TransposeProblem>().tile;
  const int tpb = r.launch.threadsPerBlock;
  if (tile != 16 && tile != 32)
    throw InputError("--tile " + std::to_string(tile) + " is not supported (16 or 32)");
  if (tpb < 1 || tpb > 1024)
    throw InputError("--tpb " + std::to_string(tpb) + " is outside 1..1024");
  if (tpb > maxThreadsPerBlock)
    throw InputError("--tpb " + std::to_string(tpb) + " is above this device's limit of " +
                     std::to_string(maxThreadsPerBlock) + " threads per block");
  if (tpb % tile != 0)
    throw InputError("--tpb " + std::to_string(tpb) + " must be a multiple of the tile width " +
                     std::to_string(tile) + " (a block is tile x rows threads)");
  const int blockRows = tpb / tile;
  if (blockRows > tile || tile % blockRows != 0)
    throw InputError("--tpb " + std::to_string(tpb) + " with --tile " + std::to_string(tile) +
                     " gives " + std::to_string(blockRows) +
                     " rows of threads; it must divide the tile's " + std::to_string(tile) +
                     " rows (at most tile x tile = " + std::to_string(tile * tile) + " threads)");
  const int64_t w = r.section<TransposeProblem>().width, h = r.section<TransposeProblem>().height;
  if (w < 1 || h < 1)
    throw InputError("--size " + std::to_string(w) + "x" + std::to_string(h) +
                     ": width and height must be at least 1");
  Geometry g;
  g.width = w;
  g.height = h;
  g.tile = tile;
  g.blockRows = blockRows;
  const int64_t gx = (w + tile - 1) / tile;
  const int64_t gy = (h + tile - 1) / tile;
  if (gx > kMaxGridX)
    throw InputError("--size width " + std::to_string(w) + " needs " + std::to_string(gx) +
                     " blocks across; the CUDA grid limit is " + std::to_string(kMaxGridX));
  if (gy > kMaxGridY)
    throw InputError("--size height " + std::to_string(h) + " needs " + std::to_string(gy) +
                     " blocks down; the CUDA grid limit is " + std::to_string(kMaxGridY) +
                     " (at most " + std::to_string(kMaxGridY * tile) + " rows with tile " +
                     std::to_string(tile) + ")");
  g.gridX = static_cast<int>(gx);
  g.gridY = static_cast<int>(gy);
  g.pitch = (v == Variant::Padded || v == Variant::Diagonal) ? tile + 1 : tile;
  return g;
}

void validate(const RunRequest& r, const DeviceInfo& device, uint64_t availableBytes) {
  parseVariants(r.variants);
  makeGeometry(r, Variant::Padded, device.maxThreadsPerBlock);
  if (r.repetitions < 1 || r.repetitions > 100000)
    throw InputError("--reps " + std::to_string(r.repetitions) + " is outside 1..100000");
  if (r.warmup < 0 || r.warmup > 1000)
    throw InputError("--warmup " + std::to_string(r.warmup) + " is outside 0..1000");
  const double matrixBytes =
      4.0 * r.section<TransposeProblem>().width * r.section<TransposeProblem>().height;
  // Input and output live on the device; the host also keeps the reference for verification.
  const double needed = 2.0 * matrixBytes;
  if (availableBytes > 0 && needed > static_cast<double>(availableBytes))
    throw InputError("--size " + std::to_string(r.section<TransposeProblem>().width) + "x" +
                     std::to_string(r.section<TransposeProblem>().height) + " needs " +
                     formatBytes(needed) + " of " + (device.backend == "cuda" ? "device" : "host") +
                     " memory; " + device.name + " has " +
                     formatBytes(static_cast<double>(availableBytes)) + " available");
}

double effectiveBytes(int64_t width, int64_t height) {
  return 2.0 * 4.0 * static_cast<double>(width) * static_cast<double>(height);
}

std::vector<float> makeInput(int64_t width, int64_t height, uint64_t seed) {
  const int64_t n = width * height;
  std::vector<float> in(static_cast<size_t>(n));
  const uint64_t salt = splitmix64(seed);
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      // 24 random bits mapped to (-1, 1) \ {0}: distinct values expose misplaced elements.
      const uint64_t r = splitmix64(salt ^ static_cast<uint64_t>(i)) >> 40;
      in[static_cast<size_t>(i)] = (static_cast<float>(r) + 0.5f) / 8388608.0f - 1.0f;
    }
  });
  return in;
}

void referenceTranspose(const float* in, int64_t width, int64_t height, float* out) {
  constexpr int64_t kBlock = 64;  // keeps a source and a destination block in L1/L2
  const int64_t rowBlocks = (height + kBlock - 1) / kBlock;
  parallelForEach(rowBlocks, [&](int64_t rb) {
    const int64_t y0 = rb * kBlock, y1 = std::min(height, y0 + kBlock);
    for (int64_t x0 = 0; x0 < width; x0 += kBlock) {
      const int64_t x1 = std::min(width, x0 + kBlock);
      for (int64_t y = y0; y < y1; ++y)
        for (int64_t x = x0; x < x1; ++x) out[x * height + y] = in[y * width + x];
    }
  });
}

namespace {

// The executor's memory policy: plain host arrays, the shared tile per block.
struct HostMem {
  const float* in;
  float* out;
  float* shared;
  float loadGlobal(int64_t i) const { return in[i]; }
  void storeGlobal(int64_t i, float v) const { out[i] = v; }
  Vec4 loadGlobal4(int64_t i) const { return Vec4{in[i], in[i + 1], in[i + 2], in[i + 3]}; }
  void storeGlobal4(int64_t i, Vec4 v) const {
    out[i] = v.x;
    out[i + 1] = v.y;
    out[i + 2] = v.z;
    out[i + 3] = v.w;
  }
  float loadShared(int i) const { return shared[i]; }
  void storeShared(int i, float v) const { shared[i] = v; }
};

}  // namespace

void executeOnCpu(Variant v, const Geometry& g, const float* in, float* out) {
  const int phases = blockPhaseCount(v, g);
  const size_t sharedSize =
      static_cast<size_t>(v == Variant::Best ? sharedFloats(g) : g.tile * g.pitch);
  forEachBlock({g.gridX, g.gridY}, [&](int bx, int by) {
    // Fresh NaN-filled shared tile per block: a phase that reads what nobody wrote shows up.
    thread_local std::vector<float> shared;
    shared.assign(sharedSize, std::numeric_limits<float>::quiet_NaN());
    HostMem m{in, out, shared.data()};
    const BlockCoord t = tileFor(v, g, bx, by);
    runBlockPhases(Dim2{g.tile, g.blockRows}, phases,
                   [&](int p, int tx, int ty) { runBlockPhase(v, p, g, t, tx, ty, m); });
  });
}

Verification verifyTranspose(const float* expected, const float* actual, int64_t count) {
  Verification v;
  v.performed = true;
  v.reference = "CPU transpose (multithreaded, cache-blocked)";
  v.tolerance = 0;
  v.compared = static_cast<uint64_t>(count);
  int64_t first = -1;
  double maxErr = 0;
  uint64_t mismatches = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t a, b;
    std::memcpy(&a, &expected[i], 4);
    std::memcpy(&b, &actual[i], 4);
    if (a != b) {
      ++mismatches;
      if (first < 0) first = i;
      const double err = std::isnan(actual[i]) ? std::numeric_limits<double>::infinity()
                                               : std::fabs(double(actual[i]) - expected[i]);
      maxErr = std::max(maxErr, err);
    }
  }
  v.mismatches = mismatches;
  v.maxError = maxErr;
  v.passed = mismatches == 0;
  if (first >= 0)
    v.note = "first mismatch at output element " + std::to_string(first) + ": expected " +
             std::to_string(expected[first]) + ", got " + std::to_string(actual[first]) +
             (std::isnan(actual[first]) ? " (the poison: never written)" : "");
  else
    v.note = "bit-exact";
  return v;
}

}  // namespace kernellab::transpose

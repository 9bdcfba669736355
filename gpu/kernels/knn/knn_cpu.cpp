// SPDX-License-Identifier: MIT
// KNN family, CPU side: the variant table, launch geometry and validation, and the CPU executor
// that runs each variant's shared phase functions block by block.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/variant_table.h"
#include "kernellab/knn.h"
#include "kernellab/text.h"

namespace kernellab::knn {

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> table = {
      {Variant::Global, "global", "Global memory", "knnGlobalKernel",
       "Every thread reads its whole window from global memory; no shared memory, so occupancy "
       "is limited only by registers and threads."},
      {Variant::SharedWindow, "shared-window", "Whole window in shared", "knnSharedWindowKernel",
       "The block stages the union of its windows (about W + 1 rows) in shared memory once: "
       "fast reads, but a big tile lets few blocks share an SM (seed: slower than global)."},
      {Variant::SharedRow, "shared-row", "One row at a time", "knnSharedRowKernel",
       "One image row of the window in shared memory at a time, reused by every thread of the "
       "block, then the next: a small tile, many resident blocks."},
      {Variant::SharedRowRect, "shared-row-rect", "Row at a time, rectangular window",
       "knnSharedRowRectKernel",
       "As shared-row, but every pixel of an image row searches the same whole rows: no divergent "
       "partial rows, a larger window, possibly other (nearer) neighbours."},
  };
  return table;
}

const VariantInfo& info(Variant v) { return variantEntry(variants(), v); }

std::optional<Variant> variantFromString(const std::string& id) {
  return variantFromId(variants(), id);
}

std::vector<Variant> parseVariants(const std::vector<std::string>& ids) {
  return parseVariantIds(variants(), ids, "knn");
}

namespace {

constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridY = 65535;
// The CPU executor runs the kernels' per-thread code with bounds checks: a few ns per term.
constexpr double kCpuMaxTerms = 2e10;

std::string imageText(ImageShape s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + "x" + std::to_string(s.components);
}

}  // namespace

Geometry windowGeometry(ImageShape s, int window, int k) {
  if (s.rows < 1 || s.cols < 1)
    throw InputError("--image " + imageText(s) + ": rows and columns must be at least 1");
  if (s.components < 1 || s.components > kMaxComponents)
    throw InputError("--image " + imageText(s) + ": " + std::to_string(s.components) +
                     " components is outside 1.." + std::to_string(kMaxComponents));
  const int64_t pixels = static_cast<int64_t>(s.rows) * s.cols;
  if (pixels * s.components > std::numeric_limits<int32_t>::max())
    throw InputError("--image " + imageText(s) + " holds " +
                     std::to_string(pixels * s.components) +
                     " values; at most 2147483647 (32-bit indices) are supported");
  if (pixels < 2)
    throw InputError("--image " + imageText(s) + " has a single pixel: it has no neighbours");
  if (window < 1 || window > kMaxWindow)
    throw InputError("--window " + std::to_string(window) + " is outside 1.." +
                     std::to_string(kMaxWindow) + " rows");
  if (k < 1 || k > kMaxK)
    throw InputError("--k " + std::to_string(k) + " is outside 1.." + std::to_string(kMaxK));
  Geometry g;
  g.rows = s.rows;
  g.cols = s.cols;
  g.components = s.components;
  g.window = window;
  g.k = k;
  g.before = window / 2;
  g.pixels = pixels;
  g.span = std::min<int64_t>(static_cast<int64_t>(window) * s.cols, pixels - 1);
  g.rectRows = std::min(window + 1, s.rows);
  if (k > g.span)
    throw InputError("--k " + std::to_string(k) + " needs at least " + std::to_string(k + 1) +
                     " pixels in the window (the pixel and " + std::to_string(k) +
                     " candidates); a " + std::to_string(window) + "-row window of the " +
                     imageText(s) + " image holds " + std::to_string(g.span + 1));
  return g;
}

int64_t candidatesPerPixel(const Geometry& g, WindowShape w) {
  return w == WindowShape::Rectangular ? static_cast<int64_t>(g.rectRows) * g.cols - 1 : g.span;
}

double distanceTerms(const Geometry& g, WindowShape w) {
  return static_cast<double>(g.pixels) * static_cast<double>(candidatesPerPixel(g, w)) *
         g.components;
}

Geometry makeGeometry(ImageShape shape, const RunRequest& r, Variant v, int maxThreadsPerBlock) {
  Geometry g = windowGeometry(shape, r.section<KnnProblem>().window, r.section<KnnProblem>().k);
  int bx = r.section<KnnProblem>().blockX, by = r.section<KnnProblem>().blockY;
  const int tpb = r.launch.threadsPerBlock;
  if (bx < 0 || by < 0)
    throw InputError("--block " + std::to_string(bx) + "x" + std::to_string(by) +
                     ": block sides must be positive");
  if (bx == 0 || by == 0) {
    if (tpb < 1 || tpb > 1024)
      throw InputError("--tpb " + std::to_string(tpb) + " is outside 1..1024");
    if (bx == 0 && by == 0) {
      bx = tpb;
      by = 1;
    } else if (bx > 0) {
      if (tpb % bx != 0)
        throw InputError("--tpb " + std::to_string(tpb) + " is not a multiple of the block width " +
                         std::to_string(bx));
      by = tpb / bx;
    } else {
      if (tpb % by != 0)
        throw InputError("--tpb " + std::to_string(tpb) +
                         " is not a multiple of the block height " + std::to_string(by));
      bx = tpb / by;
    }
  }
  const int64_t threads = static_cast<int64_t>(bx) * by;
  const std::string blockText = "--block " + std::to_string(bx) + "x" + std::to_string(by);
  if (bx > 1024 || by > 1024 || threads > 1024)
    throw InputError(blockText + " is " + std::to_string(threads) +
                     " threads; CUDA allows at most 1024 per block (and 1024 per side)");
  if (threads > maxThreadsPerBlock)
    throw InputError(blockText + " is " + std::to_string(threads) +
                     " threads, above this device's limit of " +
                     std::to_string(maxThreadsPerBlock) + " per block");
  g.blockX = bx;
  g.blockY = by;
  const int64_t gx = (g.cols + bx - 1) / bx, gy = (g.rows + by - 1) / by;
  if (gx > kMaxGridX || gy > kMaxGridY)
    throw InputError(blockText + " on " + std::to_string(g.rows) + " rows needs " +
                     std::to_string(gy) + " blocks down; the CUDA grid limit is " +
                     std::to_string(kMaxGridY));
  g.gridX = static_cast<int>(gx);
  g.gridY = static_cast<int>(gy);

  switch (v) {
    case Variant::Global:
      g.sharedPitch = 0;
      break;
    case Variant::SharedWindow: {
      // The largest union of windows over the grid's blocks. Window starts slide by at most one
      // per pixel, so the union never exceeds (last - first) + span + 1 of a full block; exact
      // when grids are small enough to walk, that bound otherwise.
      int64_t widest = 0;
      if (gx * gy <= (int64_t{1} << 22)) {
        for (int y = 0; y < g.gridY; ++y)
          for (int x = 0; x < g.gridX; ++x) {
            const PixelRange u = blockWindowUnion(g, BlockCoord{x, y});
            widest = std::max(widest, u.hi - u.lo + 1);
          }
      } else {
        const int64_t reach = static_cast<int64_t>(std::min(by, g.rows) - 1) * g.cols +
                              std::min(bx, g.cols) - 1;
        widest = std::min(g.pixels, reach + g.span + 1);
      }
      g.sharedPitch = static_cast<int>(widest);
      break;
    }
    case Variant::SharedRow:
    case Variant::SharedRowRect:
      g.sharedPitch = g.cols;
      break;
  }
  g.sharedFloats = g.sharedPitch * g.components;
  return g;
}

void validate(const RunRequest& r, ImageShape shape, const DeviceInfo& device,
              uint64_t availableBytes) {
  const auto list = parseVariants(r.variants);
  const Geometry g = makeGeometry(shape, r, Variant::Global, device.maxThreadsPerBlock);
  if (r.repetitions < 1 || r.repetitions > 100000)
    throw InputError("--reps " + std::to_string(r.repetitions) + " is outside 1..100000");
  if (r.warmup < 0 || r.warmup > 1000)
    throw InputError("--warmup " + std::to_string(r.warmup) + " is outside 0..1000");
  const double imageBytes = 4.0 * g.pixels * g.components;
  const double listBytes = 8.0 * g.pixels * g.k;  // index + squared distance per slot
  const double needed = imageBytes + listBytes;
  if (availableBytes > 0 && needed > static_cast<double>(availableBytes))
    throw InputError("--image " + imageText(shape) + " with --k " + std::to_string(g.k) +
                     " needs " + formatBytes(needed) + " of " +
                     (device.backend == "cuda" ? "device" : "host") + " memory; " + device.name +
                     " has " + formatBytes(static_cast<double>(availableBytes)) + " available");
  if (device.backend != "cuda") {
    double worst = 0;
    for (Variant v : list) worst = std::max(worst, distanceTerms(g, windowOf(v)));
    if (worst > kCpuMaxTerms)
      throw InputError("--image " + imageText(shape) + " with --window " +
                       std::to_string(g.window) + " needs " + formatFixed(worst / 1e9, 1) +
                       "e9 distance terms per launch; the CPU backend runs at most " +
                       formatFixed(kCpuMaxTerms / 1e9, 0) +
                       "e9 (use a GPU, a smaller image or a smaller window)");
  }
}

void Lists::reset(int64_t pixels, int kk) {
  k = kk;
  index.assign(static_cast<size_t>(pixels * kk), -1);
  squaredDistance.assign(static_cast<size_t>(pixels * kk), std::numeric_limits<float>::quiet_NaN());
}

namespace {

// The executor's memory policy: host arrays, every index checked (what compute-sanitizer's
// memcheck does on the GPU), so CI catches an out-of-range index without a device.
struct HostMem {
  const float* image;
  int64_t imageCount;
  int32_t* index;
  float* distance;
  int64_t slots;
  float* shared;
  int sharedCount;

  [[noreturn]] static void outOfRange(const char* what, int64_t i, int64_t count) {
    throw std::logic_error(std::string("CPU executor: ") + what + " index " + std::to_string(i) +
                           " is outside 0.." + std::to_string(count - 1));
  }
  float loadGlobal(int64_t i) const {
    if (i < 0 || i >= imageCount) outOfRange("image", i, imageCount);
    return image[i];
  }
  void storeIndex(int64_t i, int32_t v) const {
    if (i < 0 || i >= slots) outOfRange("output", i, slots);
    index[i] = v;
  }
  void storeDistance(int64_t i, float v) const {
    if (i < 0 || i >= slots) outOfRange("output", i, slots);
    distance[i] = v;
  }
  float loadShared(int i) const {
    if (i < 0 || i >= sharedCount) outOfRange("shared", i, sharedCount);
    return shared[i];
  }
  void storeShared(int i, float v) const {
    if (i < 0 || i >= sharedCount) outOfRange("shared", i, sharedCount);
    shared[i] = v;
  }
};

template <int K, int CMAX>
void executeTyped(Variant v, const Geometry& g, const Image& img, Lists& out) {
  forEachBlock({g.gridX, g.gridY}, [&](int bx, int by) {
    // Fresh NaN-filled shared array per block: a scan that reads what nobody staged shows up.
    thread_local std::vector<float> shared;
    thread_local std::vector<ThreadState<K, CMAX>> states;
    shared.assign(static_cast<size_t>(std::max(1, g.sharedFloats)),
                  std::numeric_limits<float>::quiet_NaN());
    states.assign(static_cast<size_t>(g.blockX) * g.blockY, ThreadState<K, CMAX>{});
    HostMem m{img.planes.data(), static_cast<int64_t>(img.planes.size()),
              out.index.data(),  out.squaredDistance.data(),
              static_cast<int64_t>(out.index.size()), shared.data(), g.sharedFloats};
    const BlockCoord b{bx, by};
    runBlockPhases(Dim2{g.blockX, g.blockY}, phaseCount(v, g, b), [&](int p, int tx, int ty) {
      runPhase(v, p, g, b, tx, ty, states[static_cast<size_t>(ty) * g.blockX + tx], m);
    });
  });
}

}  // namespace

void executeOnCpu(Variant v, const Geometry& g, const Image& img, Lists& out) {
  if (out.k != g.k || static_cast<int64_t>(out.index.size()) != g.pixels * g.k)
    out.reset(g.pixels, g.k);
  const int slots = listSlotsFor(g.k), feats = featureSlotsFor(g.components);
  if (slots == 8) {
    if (feats == 1) return executeTyped<8, 1>(v, g, img, out);
    if (feats == 8) return executeTyped<8, 8>(v, g, img, out);
    return executeTyped<8, kMaxComponents>(v, g, img, out);
  }
  if (feats == 1) return executeTyped<kMaxK, 1>(v, g, img, out);
  if (feats == 8) return executeTyped<kMaxK, 8>(v, g, img, out);
  return executeTyped<kMaxK, kMaxComponents>(v, g, img, out);
}

}  // namespace kernellab::knn

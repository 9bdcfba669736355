// SPDX-License-Identifier: MIT
// Window-KNN address tracer: one block of a variant run through the phase functions of
// knn_phases.h (the code of the CUDA kernels and the CPU executor), thread by thread and phase by
// phase, with a Mem policy that records instead of reading the image. Addresses of these kernels
// never depend on pixel values (the neighbour list lives in registers), so no image is needed.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/knn.h"
#include "knn_backend.h"
#include "knn_parts.h"

namespace kernellab::access::detail {

namespace {

using namespace kernellab::knn;

// What a thread is doing when it touches memory; part of the instruction key, in program order.
enum Site : int64_t { kFeature = 0, kStage = 1, kCandidate = 2, kOutput = 3 };

// Where the current thread is: set before each runPhase call.
struct ThreadContext {
  int64_t pixel = -1;          // the thread's pixel, -1 outside the image
  int featuresLeft = 0;        // feature loads initThread still makes in this phase
  bool staging = false;        // a phase that copies pixels into shared memory
  int64_t candidateStart = 0;  // candidate of the loop's first iteration in this phase
  int64_t sharedFirst = 0;     // the image pixel at shared position 0 in this phase
  std::array<int64_t, 8> occurrences{};
};

// The Mem policy of knn_phases.h, recording. Instruction keys (access_trace.h): a thread skips
// its own pixel inside the candidate loop and, in the shared-row variants, starts its loop at a
// different candidate in a partial row, so the n-th access of each lane is not one warp
// instruction. The candidate loops are keyed by their iteration, q minus the loop's first
// candidate (from the same window functions the phase code calls); features, staging and the
// output by occurrence.
struct KnnTraceMem {
  Recorder* rec;
  const Geometry* g;
  int image, index, distance, shared;
  ThreadContext* ctx;

  static int64_t key(Site site, int64_t value) { return (int64_t(site) << 56) | value; }
  int64_t next(int slot) const { return ctx->occurrences[size_t(slot)]++; }

  float loadGlobal(int64_t e) const {
    if (ctx->featuresLeft > 0) {
      const int c = g->components - ctx->featuresLeft--;
      rec->recordAt(Kind::Load, image, e, key(kFeature, c));
    } else if (ctx->staging) {
      rec->recordAt(Kind::Load, image, e, key(kStage, next(0)));
    } else {
      const int64_t c = e / g->pixels, q = e % g->pixels;
      rec->recordAt(Kind::Load, image, e, candidateKey(q, c));
    }
    return 0.0f;
  }
  float loadShared(int x) const {
    const int64_t c = x / g->sharedPitch, q = ctx->sharedFirst + x % g->sharedPitch;
    rec->recordAt(Kind::Load, shared, x, candidateKey(q, c));
    return 0.0f;
  }
  void storeShared(int x, float) const {
    rec->recordAt(Kind::Store, shared, x, key(kStage, next(1)));
  }
  void storeIndex(int64_t i, int32_t) const {
    rec->recordAt(Kind::Store, index, i, key(kOutput, next(2)));
  }
  void storeDistance(int64_t i, float) const {
    rec->recordAt(Kind::Store, distance, i, key(kOutput, next(3)));
  }
  int64_t candidateKey(int64_t q, int64_t c) const {
    const int64_t n = q - ctx->candidateStart;
    if (n < 0) throw std::logic_error("knn access tracer: candidate before the loop's start");
    return key(kCandidate, n * g->components + c);
  }
};

std::string variantList() {
  std::string known;
  for (const auto& i : variants()) known += std::string(known.empty() ? "" : ", ") + i.id;
  return known;
}

// One block's accesses, counted before tracing: candidates x components per pixel, the staged
// pixels and the outputs.
double estimatedAccesses(Variant v, const Geometry& g, BlockCoord b, int threads) {
  const double perPixel = double(candidatesPerPixel(g, windowOf(v))) * g.components;
  double staged = 0;
  if (v == Variant::SharedWindow) {
    const PixelRange u = blockWindowUnion(g, b);
    staged = double(u.hi - u.lo + 1) * g.components;
  } else if (v != Variant::Global) {
    const RowSpan rows = blockRows(g, b, v == Variant::SharedRowRect);
    staged = double(rows.hi - rows.lo + 1) * g.cols * g.components;
  }
  const double share = threads / (double(g.blockX) * g.blockY);
  return threads * (perPixel + g.components + 2.0 * g.k) + 2.0 * staged * share;
}

template <int K, int CMAX>
void traceTyped(Variant v, const Geometry& g, BlockCoord b, Recorder& rec) {
  const uint64_t imageBytes = 4ull * uint64_t(g.pixels) * uint64_t(g.components);
  const uint64_t listBytes = 4ull * uint64_t(g.pixels) * uint64_t(g.k);
  const uint64_t indexBase = alignedAfter(imageBytes);
  ThreadContext ctx;
  KnnTraceMem m{
      &rec,
      &g,
      rec.addBuffer("image", Space::Global, 4, 0),
      rec.addBuffer("neighbourIndex", Space::Global, 4, indexBase),
      rec.addBuffer("neighbourDistance", Space::Global, 4, alignedAfter(indexBase + listBytes)),
      -1,
      &ctx};
  if (v != Variant::Global) m.shared = rec.addBuffer("shared", Space::Shared, 4, 0);

  const bool rowVariant = v == Variant::SharedRow || v == Variant::SharedRowRect;
  const RowSpan rows = rowVariant ? blockRows(g, b, v == Variant::SharedRowRect) : RowSpan{};
  const PixelRange unionWindow = blockWindowUnion(g, b);
  const int initPhase = v == Variant::SharedWindow ? 1 : 0;
  std::vector<ThreadState<K, CMAX>> states(size_t(g.blockX) * size_t(g.blockY));
  runBlockPhases(Dim2{g.blockX, g.blockY}, phaseCount(v, g, b), [&](int p, int tx, int ty) {
    // The thread's pixel as initThread computes it.
    const int r = b.y * g.blockY + ty, col = b.x * g.blockX + tx;
    const bool inside = r < g.rows && col < g.cols;
    ctx = ThreadContext{};
    ctx.pixel = inside ? int64_t(r) * g.cols + col : -1;
    ctx.featuresLeft = inside && p == initPhase ? g.components : 0;
    if (inside) ctx.candidateStart = pixelWindow(g, ctx.pixel).lo;
    switch (v) {
      case Variant::Global:
        break;
      case Variant::SharedWindow:
        ctx.staging = p == 0;
        ctx.sharedFirst = unionWindow.lo;
        break;
      case Variant::SharedRow:
      case Variant::SharedRowRect: {
        const int nRows = rows.hi - rows.lo + 1;
        ctx.staging = p < 2 * nRows && p % 2 == 0;
        const int64_t rowStart = int64_t(rows.lo + p / 2) * g.cols;
        ctx.sharedFirst = rowStart;
        // The scan of this row starts at the row, or inside it where the pixel's window does.
        if (v == Variant::SharedRowRect || !inside)
          ctx.candidateStart = rowStart;
        else
          ctx.candidateStart = std::max(rowStart, ctx.candidateStart);
        break;
      }
    }
    rec.beginThread(p, tx + ty * g.blockX);
    runPhase(v, p, g, b, tx, ty, states[size_t(ty) * size_t(g.blockX) + size_t(tx)], m);
  });
}

}  // namespace

BlockTrace traceKnnBlock(const AccessQuery& q, ThreadRange keep) {
  const auto v = variantFromString(q.variant);
  if (!v)
    throw InputError("--variant " + q.variant + ": unknown knn variant (known: " + variantList() +
                     ")");
  const ImageShape shape = shapeFor(q.request);
  const Geometry g = makeGeometry(shape, q.request, *v);
  const std::string refusal = sharedMemoryRefusal(*v, g, kEmulatedSharedOptinBytes, "the H200");
  if (!refusal.empty()) throw InputError(refusal);
  if (q.block.x < 0 || q.block.x >= g.gridX || q.block.y < 0 || q.block.y >= g.gridY)
    throw InputError("--block " + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
                     " is outside the grid (0.." + std::to_string(g.gridX - 1) + ", 0.." +
                     std::to_string(g.gridY - 1) + ")");
  BlockTrace t;
  t.recorder.reserve(q.expectedRecords);
  t.recorder.keepOnly(keep);
  const int recorded = keep.of(g.blockX * g.blockY);
  const double estimate = estimatedAccesses(*v, g, q.block, recorded);
  if (estimate > double(t.recorder.maxRecords()))
    throw TraceTooLarge(
        std::string(info(*v).kernel) + ": " + std::to_string(recorded) + " threads make about " +
        std::to_string(static_cast<int64_t>(estimate)) + " accesses (" + std::to_string(recorded) +
        " pixels x " + std::to_string(candidatesPerPixel(g, windowOf(*v))) + " candidates x " +
        std::to_string(g.components) + " components); the access lens traces at most " +
        std::to_string(t.recorder.maxRecords()) +
        " (choose a smaller --window, fewer components or a smaller --block-shape)");
  t.blockDim = {g.blockX, g.blockY};
  t.gridDim = {g.gridX, g.gridY};
  t.blockIdx = q.block;
  t.kernel = info(*v).kernel;
  const int slots = listSlotsFor(g.k), feats = featureSlotsFor(g.components);
  if (slots == 8) {
    if (feats == 1)
      traceTyped<8, 1>(*v, g, q.block, t.recorder);
    else if (feats == 8)
      traceTyped<8, 8>(*v, g, q.block, t.recorder);
    else
      traceTyped<8, kMaxComponents>(*v, g, q.block, t.recorder);
  } else {
    if (feats == 1)
      traceTyped<kMaxK, 1>(*v, g, q.block, t.recorder);
    else if (feats == 8)
      traceTyped<kMaxK, 8>(*v, g, q.block, t.recorder);
    else
      traceTyped<kMaxK, kMaxComponents>(*v, g, q.block, t.recorder);
  }

  const BlockPixels bp = blockPixels(g, q.block);
  t.description =
      "block (" + std::to_string(q.block.x) + "," + std::to_string(q.block.y) +
      "): pixels of rows " + std::to_string(bp.r0) + ".." + std::to_string(bp.r1) + ", columns " +
      std::to_string(bp.c0) + ".." + std::to_string(bp.c1) + " of a " + std::to_string(g.rows) +
      "x" + std::to_string(g.cols) + " image with " + std::to_string(g.components) +
      (g.components == 1 ? " component" : " components") + " (planar); window " +
      std::to_string(g.window) + " rows, " + std::to_string(candidatesPerPixel(g, windowOf(*v))) +
      " candidates per pixel, k " + std::to_string(g.k) + "; " + std::to_string(g.blockX) + "x" +
      std::to_string(g.blockY) + " threads";
  if (*v == Variant::SharedWindow) {
    const PixelRange u = blockWindowUnion(g, q.block);
    t.description += "; pixels " + std::to_string(u.lo) + ".." + std::to_string(u.hi) +
                     " staged in shared memory at once";
  } else if (*v != Variant::Global) {
    const RowSpan rows = blockRows(g, q.block, *v == Variant::SharedRowRect);
    t.description += "; image rows " + std::to_string(rows.lo) + ".." + std::to_string(rows.hi) +
                     " staged one at a time";
  }
  return t;
}

}  // namespace kernellab::access::detail

// SPDX-License-Identifier: MIT
// KNN family runner: the image, the CPU references, then every requested variant poisoned,
// warmed up, timed, verified list by list and put into the result, with the rectangular
// variant's differences from the per-pixel window classified.
#include "fault_injection.h"
#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/knn.h"
#include "kernellab/text.h"
#include "knn_backend.h"
#include "knn_parts.h"

namespace kernellab::detail {

using namespace kernellab::knn;

void validateKnn(const RunRequest& r, const BackendDecision& d) {
  if (r.recordSchedule)
    throw InputError("--record-schedule: per-block schedules are not recorded for knn "
                     "(transpose only)");
  const ImageShape shape = shapeFor(r);
  validate(r, shape, d.device, availableMemory(d));
  // The host keeps the image, the downloaded lists and up to two references.
  const double pixels = static_cast<double>(shape.rows) * shape.cols;
  const double hostNeeded =
      4.0 * pixels * shape.components + 3.0 * 8.0 * pixels * r.section<KnnProblem>().k;
  requireHostMemory(hostNeeded, "--image " + std::to_string(shape.rows) + "x" +
                                    std::to_string(shape.cols) + "x" +
                                    std::to_string(shape.components) +
                                    " (the image, the lists and the references)");
}

namespace {

std::string mismatchText(const KnnWindowMismatch& m) {
  return "vs the per-pixel window: " + formatFixed(m.slotMismatchPct, 2) + "% of " +
         std::to_string(m.slotsCompared) + " neighbours differ (" + std::to_string(m.slotTieSwaps) +
         " at equal distance); " + formatFixed(m.mismatchPct, 2) + "% of " +
         std::to_string(m.pixels) + " lists (" + std::to_string(m.tieSwaps) + " tie swaps, " +
         std::to_string(m.differentNeighbours) + " with nearer pixels)";
}

}  // namespace

RunResult runKnn(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks) {
  const std::vector<Variant> list = parseVariants(r.variants);

  RunResult res;
  res.request = r;
  res.device = d.device;
  res.backend = d.useCuda ? "cuda" : "cpu";
  res.backendNote = d.note;

  hooks.report(r.section<KnnProblem>().inputPath.empty()
                   ? "generating the feature image"
                   : "loading " + r.section<KnnProblem>().inputPath,
               0.0);
  const Image img = imageFor(r);
  const ImageShape shape{img.rows, img.cols, img.components};
  res.request.section<KnnProblem>().rows = img.rows;  // the file's size when the image was loaded
  res.request.section<KnnProblem>().cols = img.cols;
  res.request.section<KnnProblem>().components = img.components;
  const Geometry base = makeGeometry(shape, r, Variant::Global, d.device.maxThreadsPerBlock);
  res.request.section<KnnProblem>().blockX = base.blockX;  // the shape derived from threadsPerBlock
  res.request.section<KnnProblem>().blockY = base.blockY;
  res.request.launch.threadsPerBlock = base.blockX * base.blockY;
  hooks.throwIfCancelled();

  // References: one row set for both windows, so the rectangular variant can be classified
  // against the per-pixel window on exactly the pixels it was verified on.
  bool anyRect = false;
  for (Variant v : list) anyRect = anyRect || windowOf(v) == WindowShape::Rectangular;
  std::vector<int> rows;
  Lists refPixel, refRect;
  bool sampled = false;
  if (r.verify) {
    rows = referenceRows(base, anyRect ? WindowShape::Rectangular : WindowShape::PerPixel,
                         kReferenceBudgetTerms);
    sampled = static_cast<int>(rows.size()) < base.rows;
    hooks.report("CPU reference, per-pixel window" +
                     (sampled ? " (" + std::to_string(rows.size()) + " rows)" : std::string()),
                 0.02);
    referenceKnn(img, base, WindowShape::PerPixel, refPixel, rows);
    hooks.throwIfCancelled();
    if (anyRect) {
      hooks.report("CPU reference, rectangular window", 0.06);
      referenceKnn(img, base, WindowShape::Rectangular, refRect, rows);
      hooks.throwIfCancelled();
    }
  }

  std::unique_ptr<Backend> backend;
#ifdef KERNELLAB_HAVE_CUDA
  if (d.useCuda) backend = makeCudaBackend(img, base.k, d.device);
#endif
  if (!backend) backend = makeCpuBackend(img, base.k);

  Lists out;
  const double bytes = 4.0 * img.pixels() * img.components + 8.0 * img.pixels() * base.k;
  for (size_t i = 0; i < list.size(); ++i) {
    const Variant v = list[i];
    const VariantInfo& vi = info(v);
    const WindowShape window = windowOf(v);
    // Each variant's share: its timed launches, then (when verifying) its check.
    const double begin = 0.1 + 0.9 * double(i) / double(list.size());
    const double end = 0.1 + 0.9 * double(i + 1) / double(list.size());
    const RunHooks part = hooks.within(begin, begin + (end - begin) * (r.verify ? 0.9 : 1.0), "running " + std::string(vi.id));
    part.report("", 0.0);
    const Geometry g = makeGeometry(shape, r, v, d.device.maxThreadsPerBlock);

    VariantResult vr;
    vr.variant = vi.id;
    KnnDetails det;
    det.window = toString(window);
    det.sharedBytesPerBlock = sharedBytes(g);
    det.sharedOptIn = sharedBytes(g) > kDefaultSharedBytes;
    det.candidatesPerPixel = candidatesPerPixel(g, window);

    TimedVariant tv = backend->run(v, g, r.warmup, r.repetitions, part);
    if (!tv.error.empty()) {
      vr.ok = false;
      vr.error = tv.error;
      vr.refused = tv.refused;
      vr.details.set(std::move(det));
      if (tv.resources) {
        KernelResult k;
        k.name = vi.kernel;
        k.resources = tv.resources;
        k.gridX = g.gridX;
        k.gridY = g.gridY;
        k.blockX = g.blockX;
        k.blockY = g.blockY;
        vr.kernels.push_back(k);
      }
      res.ok = false;
      res.variants.push_back(std::move(vr));
      continue;
    }
    KernelResult k;
    k.name = vi.kernel;
    k.timing = summarize(tv.samplesMs, tv.clock);
    k.totalMs = k.timing.medianMs;
    k.bytes = bytes;  // the image read once, the lists written once
    k.gbps = gigabytesPerSecond(bytes, k.timing.medianMs);
    k.flops = 3.0 * distanceTerms(g, window);  // a subtraction and a fused multiply-add per term
    k.resources = tv.resources;
    k.gridX = g.gridX;
    k.gridY = g.gridY;
    k.blockX = g.blockX;
    k.blockY = g.blockY;
    vr.kernels.push_back(k);
    vr.total = k.timing;
    vr.bytes = bytes;
    vr.gbps = k.gbps;

    if (r.verify || r.section<KnnProblem>().keepNeighbours) {
      backend->download(out);
      if (faultInjectedFor(vi.id)) {
        // One wrong neighbour in the middle of the image (a row every reference sample holds).
        const int64_t p = static_cast<int64_t>(g.rows / 2) * g.cols + g.cols / 2;
        out.index[static_cast<size_t>(p * g.k)] ^= 1;
      }
    }
    if (r.verify) {
      const Lists& expected = window == WindowShape::Rectangular ? refRect : refPixel;
      vr.verification = compareLists(expected, out, g, rows);
      vr.verification.reference =
          std::string("CPU reference (multithreaded), ") + toString(window) + " window" +
          (sampled ? ", " + std::to_string(rows.size()) + " of " + std::to_string(g.rows) +
                         " rows"
                   : std::string());
      det.referencePixels = static_cast<uint64_t>(rows.size()) * g.cols;
      det.referenceSampled = sampled;
      if (sampled) {
        // The other rows: every list must at least be a valid, exactly computed, sorted answer.
        hooks.report(std::string("checking every list of ") + vi.id, begin + (end - begin) * 0.9);
        std::string first;
        const uint64_t bad = checkConsistency(img, g, window, out, first);
        if (bad > 0) {
          vr.verification.passed = false;
          vr.verification.mismatches += bad;
          vr.verification.note += "; " + std::to_string(bad) + " lists fail the consistency " +
                                  "check, first at " + first;
        } else {
          vr.verification.note += "; every pixel's list is consistent";
        }
      }
      if (window == WindowShape::Rectangular) {
        det.versusPerPixel = classifyAgainstPerPixel(refPixel, out, g, rows);
        vr.verification.note += "; " + mismatchText(*det.versusPerPixel);
      }
      if (!vr.verification.passed) res.ok = false;
    }
    if (r.section<KnnProblem>().keepNeighbours) {
      det.k = g.k;
      det.indices = out.index;
      det.squaredDistances = out.squaredDistance;
    }
    vr.details.set(std::move(det));
    res.variants.push_back(std::move(vr));
  }
  hooks.report("done", 1.0);
  return res;
}

}  // namespace kernellab::detail

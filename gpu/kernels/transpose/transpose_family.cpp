// SPDX-License-Identifier: MIT
// Transpose family runner: seeded input, CPU reference, ceilings, then every requested variant
// poisoned, timed, verified element by element and put into the result.
#include <limits>

#include "fault_injection.h"
#include "kernellab/errors.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"
#include "transpose_backend.h"
#include "transpose_parts.h"

namespace kernellab::detail {

using namespace kernellab::transpose;

void validateTranspose(const RunRequest& r, const BackendDecision& d) {
  validate(r, d.device, availableMemory(d));
  if (d.useCuda) {
    // The host keeps input, reference and the downloaded output.
    const TransposeProblem& p = r.section<TransposeProblem>();
    const double hostNeeded = 3.0 * 4.0 * p.width * p.height;
    const uint64_t hostBytes = cpuDeviceInfo().globalMemBytes;
    if (hostBytes > 0 && hostNeeded > static_cast<double>(hostBytes))
      throw InputError("--size " + std::to_string(p.width) + "x" + std::to_string(p.height) +
                       " needs " + formatBytes(hostNeeded) +
                       " of host memory for verification; this machine has " +
                       formatBytes(static_cast<double>(hostBytes)));
  }
}

RunResult runTranspose(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks) {
  const std::vector<Variant> list = parseVariants(r.variants);
  const int64_t w = r.section<TransposeProblem>().width, h = r.section<TransposeProblem>().height;
  const int64_t count = w * h;

  RunResult res;
  res.request = r;
  const Geometry shape = makeGeometry(r, Variant::Copy, d.device.maxThreadsPerBlock);
  res.request.section<TransposeProblem>().rowsPerThread =
      shape.tile / shape.blockRows;  // derived from tpb and tile
  res.device = d.device;
  res.backend = d.useCuda ? "cuda" : "cpu";
  res.backendNote = d.note;

  hooks.report("generating a " + std::to_string(w) + "x" + std::to_string(h) + " matrix", 0.0);
  const std::vector<float> in = makeInput(w, h, r.seed);
  std::vector<float> expected;
  if (r.verify) {
    hooks.report("CPU reference transpose", 0.02);
    expected.resize(static_cast<size_t>(count));
    referenceTranspose(in.data(), w, h, expected.data());
  }
  hooks.throwIfCancelled();

  std::unique_ptr<Backend> backend;
#ifdef KERNELLAB_HAVE_CUDA
  if (d.useCuda) backend = makeCudaBackend(in.data(), w, h);
#endif
  if (!backend) backend = makeCpuBackend(in.data(), w, h);

  if (r.measureCeilings) {
    res.ceilings.push_back(backend->copyCeiling(r.warmup, r.repetitions, hooks.within(0.05, 0.1, "measuring the copy ceiling")));
  }

  // The CPU executor runs every strategy; a CUDA device runs bulk rows only with the bulk copy
  // (compute capability 9.0) and room for its stage.
  const bool bulkCopy =
      !d.useCuda || bulkRowsRunsOn(d.device.ccMajor, d.device.sharedPerBlockOptin, w);
  std::vector<float> out(r.verify ? static_cast<size_t>(count) : 0);
  const double bytes = effectiveBytes(w, h);
  for (size_t i = 0; i < list.size(); ++i) {
    const Variant v = list[i];
    const VariantInfo& vi = info(v);
    const RunHooks part = hooks.within(0.1 + 0.9 * double(i) / double(list.size()),
                                       0.1 + 0.9 * double(i + 1) / double(list.size()), "running " + std::string(vi.id));
    part.report("", 0.0);
    const Geometry g = makeGeometryOn(r, v, d.device.maxThreadsPerBlock, bulkCopy);

    VariantResult vr;
    vr.variant = vi.id;
    if (v == Variant::Best) vr.strategy = toString(g.strategy);
    TimedVariant tv = backend->run(v, g, r.warmup, r.repetitions, r.recordSchedule, part);
    if (!tv.error.empty()) {
      vr.ok = false;
      vr.error = tv.error;
      res.ok = false;
      res.variants.push_back(std::move(vr));
      continue;
    }
    KernelResult k;
    k.name = tv.kernel.empty() ? vi.kernel : tv.kernel;
    k.timing = summarize(tv.samplesMs, tv.clock);
    k.totalMs = k.timing.medianMs;
    k.bytes = bytes;
    k.gbps = gigabytesPerSecond(bytes, k.timing.medianMs);
    k.resources = tv.resources;
    k.gridX = g.gridX;
    k.gridY = g.gridY;
    k.blockX = g.tile;
    k.blockY = g.blockRows;
    vr.kernels.push_back(k);
    vr.total = k.timing;
    vr.bytes = bytes;
    vr.gbps = k.gbps;
    if (!tv.schedule.empty()) {
      vr.schedule = std::move(tv.schedule);
      const TimingStats recorded = summarize(tv.recordedSamplesMs, tv.clock);
      if (k.timing.medianMs > 0)
        vr.scheduleOverheadPct = 100.0 * (recorded.medianMs - k.timing.medianMs) / k.timing.medianMs;
    }
    if (r.verify) {
      backend->download(out.data());
      if (faultInjectedFor(vi.id)) out[static_cast<size_t>(count / 2)] += 1.0f;
      if (v == Variant::Copy) {
        // The copy is the ceiling, not a transpose: it must reproduce the input.
        vr.verification = verifyTranspose(in.data(), out.data(), count);
        vr.verification.reference = "the input matrix (copy)";
      } else {
        vr.verification = verifyTranspose(expected.data(), out.data(), count);
      }
      if (!vr.verification.passed) res.ok = false;
    }
    res.variants.push_back(std::move(vr));
  }

  // Ratios measured in this run: against cudaMemcpy D2D (or memcpy) and against the copy kernel.
  double copyGbps = 0;
  for (const auto& vr : res.variants)
    if (vr.variant == "copy" && vr.ok) copyGbps = vr.gbps;
  for (auto& vr : res.variants) {
    if (!res.ceilings.empty() && res.ceilings.front().gbps > 0)
      vr.fractionOfMemcpy = vr.gbps / res.ceilings.front().gbps;
    if (copyGbps > 0) vr.fractionOfCopyKernel = vr.gbps / copyGbps;
  }
  hooks.report("done", 1.0);
  return res;
}

}  // namespace kernellab::detail

// SPDX-License-Identifier: MIT
// The reduction runner: seeded input, the double reference, the copy ceiling, then every
// requested variant's passes timed, its answer verified (the sum within the bound of its own
// summation depth, the maximum and its index exactly) and put into the result.
#include "fault_injection.h"
#include "kernellab/errors.h"
#include "kernellab/reduction.h"
#include "kernellab/text.h"
#include "reduction_backend.h"
#include "reduction_parts.h"

namespace kernellab::reduction {

void validateRun(const RunRequest& r, const BackendDecision& d) {
  parseVariants(r.variants, d.useCuda, d.note);  // cub only where CUDA runs
  validate(r, d.device, availableMemory(d));
  if (d.useCuda) {
    // The host keeps the input (and builds it) for the reference.
    const double hostNeeded = 4.0 * double(r.section<ReductionProblem>().n);
    const uint64_t hostBytes = cpuDeviceInfo().globalMemBytes;
    if (hostBytes > 0 && hostNeeded > static_cast<double>(hostBytes))
      throw InputError("--n " + std::to_string(r.section<ReductionProblem>().n) + " needs " +
                       formatBytes(hostNeeded) +
                       " of host memory for the reference; this machine has " +
                       formatBytes(static_cast<double>(hostBytes)));
  }
}

RunResult run(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks) {
  const ReductionProblem& p = r.section<ReductionProblem>();
  const std::vector<Variant> list = parseVariants(r.variants, d.useCuda, d.note);
  const int tpb = r.launch.threadsPerBlock;
  RunResult res;
  res.request = r;
  res.device = d.device;
  res.backend = d.useCuda ? "cuda" : "cpu";
  res.backendNote = d.note;

  hooks.report("generating " + formatCount(p.n) + " floats", 0.0);
  const std::vector<float> in = makeInput(p.n, r.seed);
  Reference ref;
  if (r.verify) {
    hooks.report("CPU reference (double)", 0.02);
    ref = reference(in);
  }
  hooks.throwIfCancelled();

  std::unique_ptr<Backend> backend;
#ifdef KERNELLAB_HAVE_CUDA
  if (d.useCuda) backend = makeCudaBackend(in.data(), p.n);
#endif
  if (!backend) backend = makeCpuBackend(in.data(), p.n);
  if (r.measureCeilings)
    res.ceilings.push_back(backend->copyCeiling(
        r.warmup, r.repetitions, hooks.within(0.05, 0.1, "measuring the copy ceiling")));

  // Effective bytes: each input read once, the answer written once.
  const double bytes = 4.0 * double(p.n) + (p.op == Operation::Sum ? 4.0 : 8.0);
  const int grid = autoBlocks(d.device, tpb);
  for (size_t i = 0; i < list.size(); ++i) {
    const Variant v = list[i];
    const VariantInfo& vi = info(v);
    const RunHooks part = hooks.within(0.1 + 0.9 * double(i) / double(list.size()),
                                       0.1 + 0.9 * double(i + 1) / double(list.size()),
                                       "running " + std::string(vi.id));
    part.report("", 0.0);
    const std::vector<Geometry> passes = plan(p, v, tpb, grid);
    VariantResult vr;
    vr.variant = vi.id;
    const TimedVariant tv = backend->run(v, p.op, passes, r.warmup, r.repetitions, part);
    if (!tv.error.empty()) {
      vr.ok = false;
      vr.error = tv.error;
      res.ok = false;
      res.variants.push_back(std::move(vr));
      continue;
    }
    KernelResult k;
    k.name = tv.kernel;
    k.timing = summarize(tv.samplesMs, tv.clock);  // every pass of one reduction
    k.totalMs = k.timing.medianMs;
    // One timed unit per repetition: the passes run back to back between one pair of events
    // (ReductionOutput::passes lists them), so the timing and the bytes are those of the whole
    // reduction, and `launches` counts that unit once (median_ms x launches is its time).
    k.launches = 1;
    k.bytes = bytes;
    k.gbps = gigabytesPerSecond(bytes, k.timing.medianMs);
    k.flops = double(p.n);  // one combine per element
    k.resources = tv.resources;
    if (v != Variant::Cub) {
      k.gridX = passes.front().grid;
      k.gridY = 1;
      k.blockX = tpb;
      k.blockY = 1;
    }
    vr.kernels.push_back(k);
    vr.total = k.timing;
    vr.bytes = bytes;
    vr.gbps = k.gbps;

    Answer a = backend->answer();
    ReductionOutput out;
    out.index = p.op == Operation::Sum ? -1 : a.index;
    if (v != Variant::Cub)
      for (const Geometry& g : passes) out.passes.push_back(g.count);
    if (r.verify) {
      const int64_t depth =
          v == Variant::Cub ? cubSumDepth(p.n, d.device.smCount) : sumDepth(passes);
      if (p.op == Operation::Sum) {
        // The testing hook that proves verification catches a wrong result (fault_injection.h):
        // a change well beyond the bound.
        if (detail::faultInjectedFor(vi.id))
          a.value += static_cast<float>(1.0 + 8.0 * sumTolerance(depth, ref.absSum, p.n));
        vr.verification = verifySum(a.value, ref, depth, p.n);
      } else {
        if (detail::faultInjectedFor(vi.id)) a.index = a.index > 0 ? a.index - 1 : a.index + 1;
        vr.verification = verifyMax(a.value, a.index, ref);
      }
      if (!vr.verification.passed) res.ok = false;
    }
    out.value = a.value;
    out.index = p.op == Operation::Sum ? -1 : a.index;
    vr.details.set(std::move(out));
    res.variants.push_back(std::move(vr));
  }
  // The share of cudaMemcpy D2D (or memcpy) measured in this run.
  for (auto& vr : res.variants)
    if (!res.ceilings.empty() && res.ceilings.front().gbps > 0)
      vr.fractionOfMemcpy = vr.gbps / res.ceilings.front().gbps;
  hooks.report("done", 1.0);
  return res;
}

}  // namespace kernellab::reduction

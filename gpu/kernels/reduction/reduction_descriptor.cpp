// SPDX-License-Identifier: MIT
// The reduction family's descriptor (kernellab/family.h): what the core, the CLI, the verify
// suite, the access lens and the window know of it.
#include <algorithm>
#include <ostream>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/family_json.h"
#include "kernellab/reduction.h"
#include "kernellab/results_validation.h"
#include "kernellab/text.h"
#include "reduction_parts.h"

namespace kernellab {
namespace {

template <class F, class V>
void outputFields(F& f, V& v) {
  f("value", v.value);
  f.when(v.index >= 0, "index", v.index);
  f("passes", v.passes);
}

}  // namespace

KL_JSON_FIELDS(ReductionOutput, outputFields)

namespace {

using reduction::kFamily;
using reduction::Operation;

ReductionProblem& problemOf(RunRequest& r) { return r.section<ReductionProblem>(); }
const ReductionProblem& problemOf(const RunRequest& r) { return r.section<ReductionProblem>(); }

RequestCodec requestSection() {
  return kernellab::requestSection<ReductionProblem>(
      "reduction", [](auto& f, auto& p, Family, bool) {
        f("n", p.n);
        f.named("operation", p.op, reduction::operationFromString);
        f("blocks", p.blocks);
      });
}

std::vector<FamilyParameter> parameters() {
  std::vector<FamilyParameter> list;
  FamilyParameter n(
      "n", "N (floats)", "floats to reduce (1..2147483647)",
      [](RunRequest& r, const std::string& v) { problemOf(r).n = parseInteger(v, "--n"); });
  n.label = [](const RunRequest& r) { return "N=" + formatCount(problemOf(r).n); };
  n.number = [](const RunRequest& r) { return double(problemOf(r).n); };
  list.push_back(n);
  list.push_back(FamilyParameter(
      "op", "Operation", "sum | max (the maximum and its index)",
      [](RunRequest& r, const std::string& v) {
        const auto op = reduction::operationFromString(v);
        if (!op) throw InputError("--op " + v + " is unknown (sum, max)");
        problemOf(r).op = *op;
      },
      true));
  FamilyParameter blocks("blocks", "Grid-stride blocks",
                         "blocks of the grid-stride variant (0: one wave that fills the device)",
                         [](RunRequest& r, const std::string& v) {
                           problemOf(r).blocks = parseIntegerAs<int>(v, "--blocks", 0);
                         });
  blocks.label = [](const RunRequest& r) {
    return problemOf(r).blocks > 0 ? std::to_string(problemOf(r).blocks) + " blocks"
                                   : std::string("blocks auto");
  };
  blocks.number = [](const RunRequest& r) { return double(problemOf(r).blocks); };
  list.push_back(blocks);
  return list;
}

std::string summary(const RunRequest& r, bool detailed) {
  const ReductionProblem& p = problemOf(r);
  const std::string what = p.op == Operation::Sum ? "sum" : "max";
  if (!detailed)
    return "reduction " + what + " N=" + formatCount(p.n) + " · TPB " +
           std::to_string(r.launch.threadsPerBlock);
  return "reduction: the " + std::string(p.op == Operation::Sum ? "sum" : "maximum and its index") +
         " of " + std::to_string(p.n) + " floats, " + std::to_string(r.launch.threadsPerBlock) +
         " threads per block, grid-stride blocks " +
         (p.blocks > 0 ? std::to_string(p.blocks) : std::string("auto"));
}

// The passes of the sequential variant and of the grid-stride one (an H200's wave of blocks
// when the request says auto: the window does not know the run's device yet).
std::string launchHint(const RunRequest& r) {
  const ReductionProblem& p = problemOf(r);
  const int tpb = r.launch.threadsPerBlock;
  DeviceInfo h200;
  h200.smCount = 132;
  h200.maxThreadsPerSM = 2048;
  h200.maxBlocksPerSM = 32;
  auto chain = [&](reduction::Variant v) {
    std::string s;
    for (const reduction::Geometry& g :
         reduction::plan(p, v, tpb, reduction::autoBlocks(h200, tpb)))
      s += (s.empty() ? "" : " -> ") + formatCount(g.count);
    return s + " -> 1";
  };
  return "Blocks of " + std::to_string(tpb) + " threads; the passes of the sequential variant: " +
         chain(reduction::Variant::Sequential) + "; grid-stride (" +
         (p.blocks > 0 ? std::to_string(p.blocks) + " blocks" : std::string("an H200's wave")) +
         "): " + chain(reduction::Variant::GridStride) + ".";
}

void checkLimits(const RunRequest& r, const std::string& at) {
  checkAtMost(problemOf(r).n, reduction::kMaxElements, at + ".reduction.n");
}

void checkStored(const RunResult& run, const std::string& at) {
  const ReductionProblem& p = problemOf(run.request);
  checkWithin(p.n, 1, reduction::kMaxElements, at + ".request.reduction.n");
  for (size_t i = 0; i < run.variants.size(); ++i)
    if (const ReductionOutput* o = run.variants[i].detail<ReductionOutput>()) {
      const std::string field = at + ".variants[" + std::to_string(i) + "].reduction";
      checkWithin(o->index, -1, p.n - 1, field + ".index", "-1 or an element index");
      if (o->passes.size() > 64)
        refuseField(field + ".passes", "has " + std::to_string(o->passes.size()) +
                                           " entries; a reduction has at most 64 passes");
      for (size_t q = 0; q < o->passes.size(); ++q)
        checkWithin(o->passes[q], 1, p.n, field + ".passes[" + std::to_string(q) + "]");
    }
}

std::vector<VariantDescription> variants() {
  std::vector<VariantDescription> out;
  for (const auto& v : reduction::variants()) {
    VariantDescription d{v.id, v.title, v.explanation};
    d.cudaOnly = v.variant == reduction::Variant::Cub;
    out.push_back(d);
  }
  return out;
}

FamilyDescriptor makeDescriptor() {
  FamilyDescriptor f;
  f.family = kFamily;
  f.title = "Parallel reduction";
  f.about =
      "The best-known CUDA optimization lesson (Harris, \"Optimizing Parallel Reduction in CUDA\", "
      "2007), step by step: interleaved addressing with a divergent branch, then with bank "
      "conflicts, sequential addressing, the first add during the load, the last warp by "
      "shuffles (the old warp-synchronous trick is unsafe since Volta), a fully unrolled tree, "
      "several elements per thread; cub::DeviceReduce and the copy ceiling beside them.";
  f.reportNote =
      "Parallel reduction: times in milliseconds per reduction, every pass included (median of "
      "the timed repetitions); effective bandwidth in decimal GB/s counts the input read once; "
      "shares against cudaMemcpy D2D of the same run (read + write bytes). Sums are verified "
      "against a double reference within the rounding bound of their own summation depth, the "
      "maximum and its index exactly.";
  f.bandwidthBound = true;
  f.variants = variants;
  f.requestSections = {requestSection()};
  f.parameters = parameters();
  f.sweepAxes = {{"tpb", "32,64,128,256,512,1024"},
                 {"n", "1048576,16777216,268435456"},
                 {"blocks", "66,132,264,528,1056"}};
  f.demo = [](RunRequest& r) {
    problemOf(r).n = int64_t(1) << 22;  // 16 MB: a second per variant on the CPU executor
    r.repetitions = 3;
    r.warmup = 1;
  };
  f.summary = summary;
  f.launchHint = launchHint;
  f.validate = reduction::validateRun;
  f.run = reduction::run;
  f.resultSections = {resultSection<ReductionOutput>("reduction")};
  f.checkLimits = checkLimits;
  f.checkStored = checkStored;
  f.csvColumns = {
      csvField("n", &ReductionProblem::n),
      {"operation",
       [](const RunRequest& r, const VariantResult*) {
         return std::string(reduction::toString(problemOf(r).op));
       }},
      {"value",
       [](const RunRequest&, const VariantResult* v) {
         const ReductionOutput* o = v ? v->detail<ReductionOutput>() : nullptr;
         return o ? formatGeneral(o->value, 9) : std::string();
       }},
  };
  f.verifyCases = reduction::verifyCases;
  f.canTrace = [](const std::string& v) {
    const auto variant = reduction::variantFromString(v);
    return variant && *variant != reduction::Variant::Cub;
  };
  f.tracedKernels = []() -> const std::vector<access::KernelChoice>& {
    static const std::vector<access::KernelChoice> none;
    return none;
  };
  f.traceBlock = access::detail::traceReductionBlock;
  f.benches = {{"reduction",
                "sum and max of 2^24 and 2^28 floats: bandwidth against the copy ceiling",
                [](const BenchOptions&) { return true; }, reduction::bench, "N"}};
  return f;
}

}  // namespace

const FamilyDescriptor& reductionFamily() {
  static const FamilyDescriptor f = makeDescriptor();
  return f;
}

}  // namespace kernellab

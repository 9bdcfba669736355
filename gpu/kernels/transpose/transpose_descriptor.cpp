// SPDX-License-Identifier: MIT
// The transpose family's descriptor (kernellab/family.h): what the core, the CLI, the verify
// suite, the access lens and the window know of it.
#include <algorithm>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/family_json.h"
#include "kernellab/results_validation.h"
#include "kernellab/text.h"
#include "kernellab/transpose.h"
#include "transpose_parts.h"

namespace kernellab {
namespace {

using transpose::kFamily;

RequestCodec requestSection() {
  return kernellab::requestSection<TransposeProblem>(
      "transpose",
      [](auto& f, auto& p, Family, bool) {
        f("width", p.width);
        f("height", p.height);
      },
      [](auto& f, auto& p) {  // in the request's "launch" object (schema 1)
        f("tile", p.tile);
        f("rows_per_thread", p.rowsPerThread);
      });
}

std::vector<FamilyParameter> parameters() {
  std::vector<FamilyParameter> list;
  FamilyParameter size{"size", "Matrix size (W x H)", "WIDTHxHEIGHT of the input matrix",
                       [](RunRequest& r, const std::string& v) {
                         const auto [w, h] = parseSize(v, "--size");
                         r.section<TransposeProblem>().width = w;
                         r.section<TransposeProblem>().height = h;
                       }};
  size.label = [](const RunRequest& r) {
    const TransposeProblem& p = r.section<TransposeProblem>();
    return std::to_string(p.width) + "x" + std::to_string(p.height);
  };
  size.number = [](const RunRequest& r) {
    const TransposeProblem& p = r.section<TransposeProblem>();
    return double(p.width) * double(p.height);
  };
  list.push_back(size);
  FamilyParameter tile{"tile", "Tile", "tile edge, 16 or 32",
                       [](RunRequest& r, const std::string& v) {
                         r.section<TransposeProblem>().tile = parseIntegerAs<int>(v, "--tile");
                       }};
  tile.label = [](const RunRequest& r) {
    return "tile " + std::to_string(r.section<TransposeProblem>().tile);
  };
  tile.number = [](const RunRequest& r) { return double(r.section<TransposeProblem>().tile); };
  list.push_back(tile);
  // After the tile: the block is tile x (tile / rows) threads.
  list.push_back({"rows-per-thread", "Rows per thread",
                  "elements per thread per tile column (sets --tpb to tile*tile/rows)",
                  [](RunRequest& r, const std::string& v) {
                    TransposeProblem& p = r.section<TransposeProblem>();
                    const int rows = parseIntegerAs<int>(v, "--rows-per-thread");
                    if (rows < 1 || rows > p.tile || p.tile % rows != 0)
                      throw InputError("--rows-per-thread " + std::to_string(rows) +
                                       " must divide the tile " + std::to_string(p.tile) + " (1.." +
                                       std::to_string(p.tile) + ")");
                    p.rowsPerThread = rows;
                    r.launch.threadsPerBlock = p.tile * p.tile / rows;
                  }});
  return list;
}

// --rows-per-thread and --tpb say the same thing twice: they must agree. Rows per thread follow
// from the tile and the threads per block when they divide.
void finishRequest(RunRequest& r, const std::vector<std::string>& given) {
  auto has = [&](const char* name) {
    return std::find(given.begin(), given.end(), name) != given.end();
  };
  TransposeProblem& p = r.section<TransposeProblem>();
  if (has("rows-per-thread") && has("tpb") &&
      r.launch.threadsPerBlock != p.tile * p.tile / p.rowsPerThread)
    throw InputError("--rows-per-thread " + std::to_string(p.rowsPerThread) + " and --tpb " +
                     std::to_string(r.launch.threadsPerBlock) + " disagree: tile " +
                     std::to_string(p.tile) + " with " + std::to_string(p.rowsPerThread) +
                     " rows per thread is " + std::to_string(p.tile * p.tile / p.rowsPerThread) +
                     " threads");
  const int tpb = r.launch.threadsPerBlock;
  if (tpb > 0 && p.tile > 0 && p.tile * p.tile % tpb == 0) p.rowsPerThread = p.tile * p.tile / tpb;
}

std::string summary(const RunRequest& r, bool detailed) {
  const TransposeProblem& p = r.section<TransposeProblem>();
  const std::string size = std::to_string(p.width) + "x" + std::to_string(p.height);
  if (!detailed)
    return "transpose " + size + " · TPB " + std::to_string(r.launch.threadsPerBlock) + " · tile " +
           std::to_string(p.tile);
  return "transpose " + size + " float32, tile " + std::to_string(p.tile) + ", block " +
         std::to_string(p.tile) + "x" +
         std::to_string(r.launch.threadsPerBlock / std::max(1, p.tile)) + " (" +
         std::to_string(p.rowsPerThread) + " rows per thread)";
}

std::string launchHint(const RunRequest& r) {
  const transpose::Geometry g = transpose::makeGeometry(r, transpose::Variant::Padded);
  return "Block " + std::to_string(g.tile) + " x " + std::to_string(g.blockRows) +
         " threads; each moves " + std::to_string(g.tile / g.blockRows) +
         " elements per tile column; grid " + formatCount(g.gridX) + " x " + formatCount(g.gridY) +
         " blocks.";
}

// What the views can draw: a side of at most 2^24 elements, tiles and rows of at most 1024.
void checkLimits(const RunRequest& r, const std::string& at) {
  const TransposeProblem& p = r.section<TransposeProblem>();
  checkAtMost(p.width, int64_t(1) << 24, at + ".transpose.width");
  checkAtMost(p.height, int64_t(1) << 24, at + ".transpose.height");
  checkAtMost(p.tile, 1024, at + ".launch.tile");
  checkAtMost(p.rowsPerThread, 1024, at + ".launch.rows_per_thread");
}

void checkStored(const RunResult& run, const std::string& at) {
  const TransposeProblem& p = run.request.section<TransposeProblem>();
  const std::pair<int64_t, const char*> checks[] = {{p.width, ".transpose.width"},
                                                    {p.height, ".transpose.height"},
                                                    {p.tile, ".launch.tile"},
                                                    {p.rowsPerThread, ".launch.rows_per_thread"}};
  for (const auto& [value, field] : checks)
    if (value < 0)
      throw InputError(at + ".request" + field + " = " + std::to_string(value) + " is below 0");
}

std::vector<VariantDescription> variants() {
  std::vector<VariantDescription> out;
  for (const auto& v : transpose::variants()) {
    VariantDescription d{v.id, v.title, v.explanation};
    d.recordsSchedule = true;  // every kernel has its kRecord instance
    out.push_back(d);
  }
  return out;
}

// Transpose variants are one kernel each: --kernel has nothing to choose there.
access::BlockTrace traceBlock(const access::AccessQuery& q, access::ThreadRange keep) {
  if (!q.kernel.empty())
    throw InputError("--kernel " + q.kernel + ": transpose variants launch one kernel each");
  return access::detail::traceTransposeBlock(q, keep);
}

FamilyDescriptor makeDescriptor() {
  FamilyDescriptor f;
  f.family = kFamily;
  f.title = "Matrix transpose";
  f.about =
      "Seed 000: a transpose moves every element once, so it should run at the copy's bandwidth. "
      "Naive writes strided columns; a shared-memory tile makes reads and writes coalesced; one "
      "float of padding removes the tile's bank conflicts; diagonal block order fought partition "
      "camping before compute capability 2.0. The plain copy is the in-run ceiling.";
  f.reportNote =
      "Matrix transpose: times in milliseconds per transpose (median of the timed repetitions, min "
      "and max beside it); effective bandwidth in decimal GB/s (1 GB = 10^9 bytes), each input "
      "element read once and each output element written once; shares against the copy kernel "
      "of the same run.";
  f.bandwidthBound = true;
  f.variants = variants;
  f.requestSections = {requestSection()};
  f.parameters = parameters();
  f.sweepAxes = {{"tpb", "64,128,256,512,1024"},
                 {"tile", "16,32"},
                 {"size", "512x512,1024x1024,2048x2048,4096x4096"}};
  f.finishRequest = finishRequest;
  f.demo = [](RunRequest& r) {
    r.section<TransposeProblem>() = TransposeProblem{};  // 2048 x 2048: the paper's size
  };
  f.summary = summary;
  f.launchHint = launchHint;
  f.files = [](RunRequest&) { return std::vector<std::string*>{}; };
  f.validate = detail::validateTranspose;
  f.run = detail::runTranspose;
  f.checkLimits = checkLimits;
  f.checkStored = checkStored;
  f.csvColumns = {csvField("width", &TransposeProblem::width),
                  csvField("height", &TransposeProblem::height),
                  csvField("tile", &TransposeProblem::tile),
                  csvField("rows_per_thread", &TransposeProblem::rowsPerThread)};

  f.verifyCases = transpose::verifyCases;
  f.canTrace = [](const std::string& v) { return transpose::variantFromString(v).has_value(); };
  f.tracedKernels = []() -> const std::vector<access::KernelChoice>& {
    static const std::vector<access::KernelChoice> none;
    return none;
  };
  f.traceBlock = traceBlock;
  f.benches = {{"transpose",
                "the seed's square sizes and the point-cloud shapes, best against cudaMemcpy D2D",
                [](const BenchOptions&) { return true; }, transpose::bench, "WxH"}};
  return f;
}

}  // namespace

const FamilyDescriptor& transposeFamily() {
  static const FamilyDescriptor f = makeDescriptor();
  return f;
}

}  // namespace kernellab

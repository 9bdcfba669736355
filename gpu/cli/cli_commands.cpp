// SPDX-License-Identifier: MIT
// kernellab-cli subcommands: devices, run, sweep, verify, bench.
#include "cli_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli_bench_best.h"
#include "cli_bench_transpose.h"
#include "cli_clustering.h"
#include "cli_models.h"
#include "cli_numbers.h"
#include "cli_output.h"
#include "kernellab/atomic_file.h"
#include "kernellab/backend.h"
#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/occupancy.h"
#include "kernellab/text.h"
#include "kernellab/verify_suite.h"

namespace kernellab::cli {

void addExperimentOptions(CLI::App* cmd, CliOptions& o, bool lists) {
  const std::string many = lists ? " (comma list: one run per value)" : "";
  cmd->add_option("--variant", o.variants, "Variant ids or 'all' (default all)")->delimiter(',');
  cmd->add_option("--size", o.size, "transpose: WIDTHxHEIGHT of the input" + many);
  cmd->add_option("--tile", o.tile, "transpose: tile edge, 16 or 32" + many);
  cmd->add_option("--tpb", o.tpb, "Threads per block (1..1024; transpose: tile x rows)" + many);
  cmd->add_option("--rows-per-thread", o.rowsPerThread,
                  "transpose: elements per thread per tile column (sets tpb = tile*tile/rows)" + many);
  cmd->add_option("--n", o.n, "clustering: number of points" + many);
  cmd->add_option("--k", o.k, "clustering: clusters; knn: neighbours" + many);
  cmd->add_option("--d", o.d, "clustering: dimensions" + many);
  cmd->add_option("--image", o.image, "knn: ROWSxCOLS[xC] feature image" + many);
  cmd->add_option("--window", o.window, "knn: rows of the search window" + many);
  cmd->add_option("--block", o.block,
                  "knn: block shape XxY in threads, x along a row (sets --tpb to X*Y)" + many);
  cmd->add_option("--layout", o.layout, "clustering: coalesced | interleaved | all");
  cmd->add_option("--memory", o.memory, "clustering: shared | global | all");
  cmd->add_option("--init", o.init, "kmeans: first | random | kmeans++");
  cmd->add_option("--shape", o.shape, "clustering: seed | blobs (generated data)");
  addRealOption(cmd, "--noise", o.noise, "clustering blobs: share of uniform noise points, 0..1");
  cmd->add_option("--input", o.input, "clustering: points (.csv or .npy); knn: image (.npy)");
  cmd->add_option("--centers", o.centers, "kmeans: initial centers (.csv or .npy)");
  addIntOption(cmd, "--max-iter", o.maxIter, "kmeans: iteration limit (default 300)");
  cmd->add_option("--stop", o.stop,
                  "kmeans: fixed-point (default: stop when no point changes cluster) | score "
                  "(Campaign's rule: the score changed by at most --epsilon of itself)");
  addRealOption(cmd, "--epsilon", o.epsilon,
                "kmeans: the score rule's relative epsilon (default 1e-4; implies --stop score)");
  addIntOption(cmd, "--reps", o.reps, "Timed repetitions after warm-up (default 10)");
  addIntOption(cmd, "--warmup", o.warmup, "Warm-up launches before timing (default 2)");
  addSeedOption(cmd, "--seed", o.seed,
                "Random seed of the generated data, 0..18446744073709551615 (default 1)");
  cmd->add_option("--backend", o.backend, "auto | cpu | cuda (default auto)");
  cmd->add_flag("--no-verify", o.noVerify, "Skip the comparison with the CPU reference");
  cmd->add_flag("--record-schedule", o.recordSchedule,
                "Record every block's SM and start/end time (%smid, %globaltimer)");
  cmd->add_option("--json", o.jsonPath, "Write the results file (JSON, docs/results-format.md)");
  cmd->add_option("--csv", o.csvPath, "Write a CSV row per variant");
  cmd->add_option("--labels", o.labelsPath, "clustering: write one label per line");
}

namespace {

// Values stored in an int: larger ones are refused with this limit rather than wrapped.
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

// One value for `run`; sweep axes are taken out of the base request separately.
std::string single(const std::string& text, const std::string& option, bool lists) {
  if (!lists && text.find(',') != std::string::npos && option != "--size")
    throw InputError(option + " " + text + ": run takes one value; use sweep for lists");
  if (lists) {
    auto parts = splitList(text);
    return parts.empty() ? text : parts.front();
  }
  return text;
}

Family parseFamily(const std::string& s) {
  auto f = familyFromString(s);
  if (!f) throw InputError("family '" + s + "' is unknown (transpose, kmeans, kcenters, knn)");
  return *f;
}

}  // namespace

RunRequest buildRequest(const CliOptions& o, bool lists) {
  if (o.family.empty())
    throw InputError("a family is required (transpose, kmeans, kcenters, knn), or --request FILE");
  RunRequest r;
  r.family = parseFamily(o.family);
  r.variants = o.variants.empty() ? std::vector<std::string>{"all"} : o.variants;
  if (!o.size.empty()) {
    const std::string s = lists ? splitList(o.size).front() : o.size;
    if (!lists && splitList(o.size).size() > 1)
      throw InputError("--size " + o.size + ": run takes one value; use sweep for lists");
    const auto [w, h] = parseSize(s, "--size");
    r.transpose.width = w;
    r.transpose.height = h;
  }
  if (!o.tile.empty())
    r.launch.tile = parseIntegerAs<int>(single(o.tile, "--tile", lists), "--tile");
  if (!o.tpb.empty())
    r.launch.threadsPerBlock = parseIntegerAs<int>(single(o.tpb, "--tpb", lists), "--tpb");
  if (!o.rowsPerThread.empty()) {
    const int rows = parseIntegerAs<int>(single(o.rowsPerThread, "--rows-per-thread", lists),
                                         "--rows-per-thread");
    if (rows < 1 || rows > r.launch.tile || r.launch.tile % rows != 0)
      throw InputError("--rows-per-thread " + std::to_string(rows) + " must divide the tile " +
                       std::to_string(r.launch.tile) + " (1.." + std::to_string(r.launch.tile) + ")");
    if (!o.tpb.empty() && r.launch.threadsPerBlock != r.launch.tile * r.launch.tile / rows)
      throw InputError("--rows-per-thread " + std::to_string(rows) + " and --tpb " + o.tpb +
                       " disagree: tile " + std::to_string(r.launch.tile) + " with " +
                       std::to_string(rows) + " rows per thread is " +
                       std::to_string(r.launch.tile * r.launch.tile / rows) + " threads");
    r.launch.rowsPerThread = rows;
    r.launch.threadsPerBlock = r.launch.tile * r.launch.tile / rows;
  }
  const bool clustering = r.family == Family::KMeans || r.family == Family::KCenters;
  if (!o.input.empty()) {
    // A file decides the problem's size; a size option beside it would be silently ignored.
    const std::string sizeOption = clustering && !o.n.empty()   ? "--n " + o.n
                                   : clustering && !o.d.empty() ? "--d " + o.d
                                   : r.family == Family::Knn && !o.image.empty()
                                       ? "--image " + o.image
                                       : std::string();
    if (!sizeOption.empty())
      throw InputError(sizeOption + " does not apply with --input " + o.input +
                       ": the file's size is the problem's size");
  }
  if (!o.n.empty()) r.clustering.n = parseInteger(single(o.n, "--n", lists), "--n");
  if (!o.k.empty()) {
    // Clusters for clustering, neighbours for KNN: only the run's family gets it.
    const int k = parseIntegerAs<int>(single(o.k, "--k", lists), "--k");
    if (r.family == Family::Knn)
      r.knn.k = k;
    else
      r.clustering.k = k;
  }
  if (!o.d.empty()) r.clustering.d = parseIntegerAs<int>(single(o.d, "--d", lists), "--d");
  if (!o.image.empty()) {
    const auto dims = parseDims(single(o.image, "--image", lists), "--image", kIntMax);
    r.knn.rows = static_cast<int>(dims[0]);
    r.knn.cols = static_cast<int>(dims[1]);
    r.knn.components = dims.size() > 2 ? static_cast<int>(dims[2]) : 1;
  }
  if (!o.window.empty())
    r.knn.window = parseIntegerAs<int>(single(o.window, "--window", lists), "--window");
  if (!o.block.empty()) {
    const auto [bx, by] = parseSize(single(o.block, "--block", lists), "--block", kIntMax);
    if (bx < 1 || by < 1 || bx > 1024 || by > 1024)
      throw InputError("--block " + o.block + ": each side must be 1..1024 threads");
    if (!o.tpb.empty() && splitList(o.tpb).size() == 1 && r.launch.threadsPerBlock != bx * by)
      throw InputError("--block " + o.block + " is " + std::to_string(bx * by) +
                       " threads but --tpb says " + o.tpb);
    r.launch.blockX = static_cast<int>(bx);
    r.launch.blockY = static_cast<int>(by);
    r.launch.threadsPerBlock = static_cast<int>(bx * by);
  }
  if (!o.shape.empty()) {
    auto s = shapeFromString(o.shape);
    if (!s) throw InputError("--shape " + o.shape + " is unknown (seed, blobs)");
    r.clustering.shape = *s;
  }
  if (!o.init.empty()) {
    auto i = initFromString(o.init);
    if (!i || *i == InitMethod::Given)
      throw InputError("--init " + o.init + " is unknown (first, random, kmeans++; --centers FILE gives centers)");
    r.clustering.init = *i;
  }
  if (!o.input.empty()) {
    if (r.family == Family::Knn)
      r.knn.inputPath = o.input;
    else if (clustering)
      r.clustering.inputPath = o.input;
    else
      throw InputError("--input " + o.input + " does not apply to " + toString(r.family) +
                       " (clustering points or a KNN image)");
  }
  if (!o.centers.empty()) {
    r.clustering.centersPath = o.centers;
    r.clustering.init = InitMethod::Given;
  }
  if (o.maxIter) r.clustering.maxIterations = *o.maxIter;
  if (!o.stop.empty()) {
    auto rule = stopRuleFromString(o.stop);
    if (!rule) throw InputError("--stop " + o.stop + " is unknown (fixed-point, score)");
    r.clustering.stopRule = *rule;
  }
  if (o.epsilon) {
    if (r.clustering.stopRule == StopRule::FixedPoint && !o.stop.empty())
      throw InputError("--epsilon " + formatFixed(*o.epsilon, 6) +
                       " belongs to the score rule, but --stop says fixed-point");
    r.clustering.epsilon = *o.epsilon;
    r.clustering.stopRule = StopRule::ScoreChange;  // --epsilon alone asks for Campaign's rule
  }
  if (o.noise) r.clustering.noiseFraction = *o.noise;
  // Clustering switches pick variants "<memory>-<layout>"; "all" on either axis takes both.
  if ((r.family == Family::KMeans || r.family == Family::KCenters) &&
      (!o.layout.empty() || !o.memory.empty())) {
    std::vector<std::string> memories = {"shared", "global"}, layouts = {"coalesced", "interleaved"};
    if (!o.memory.empty() && toLower(o.memory) != "all") {
      if (!memoryFromString(o.memory)) throw InputError("--memory " + o.memory + " is unknown (shared, global, all)");
      memories = {toLower(o.memory)};
    }
    if (!o.layout.empty() && toLower(o.layout) != "all") {
      if (!layoutFromString(o.layout)) throw InputError("--layout " + o.layout + " is unknown (coalesced, interleaved, all)");
      layouts = {toLower(o.layout)};
    }
    r.variants.clear();
    for (const auto& m : memories)
      for (const auto& l : layouts) r.variants.push_back(m + "-" + l);
  }
  if (o.reps) r.repetitions = *o.reps;
  if (o.warmup) r.warmup = *o.warmup;
  if (o.seed) r.seed = *o.seed;
  auto b = backendFromString(o.backend);
  if (!b) throw InputError("--backend " + o.backend + " is unknown (auto, cpu, cuda)");
  r.backend = *b;
  r.verify = !o.noVerify;
  r.recordSchedule = o.recordSchedule;
  return r;
}

namespace {

std::vector<SweepAxis> sweepAxes(const CliOptions& o) {
  std::vector<SweepAxis> axes;
  auto add = [&](const std::string& name, const std::string& text) {
    if (text.empty()) return;
    auto values = splitList(text);
    if (values.size() > 1) axes.push_back({name, values});
  };
  add("size", o.size);
  add("tile", o.tile);
  add("tpb", o.tpb);
  add("rows-per-thread", o.rowsPerThread);
  add("n", o.n);
  add("k", o.k);
  add("d", o.d);
  add("image", o.image);
  add("window", o.window);
  add("block", o.block);
  return axes;
}

// Before any work: every output path this command will write can be written. An unwritable
// path found after an hour-long sweep loses the sweep.
void checkOutputs(const CliOptions& o) {
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  if (!o.csvPath.empty()) checkWritable(o.csvPath, "--csv");
  if (!o.labelsPath.empty()) checkWritable(o.labelsPath, "--labels");
}

void writeOutputs(const CliOptions& o, const ResultsFile& file) {
  if (!o.jsonPath.empty()) writeResultsFile(o.jsonPath, file);
  if (!o.csvPath.empty()) writeCsv(o.csvPath, file);
}

RunHooks stderrProgress(bool enabled) {
  RunHooks h;
  if (enabled)
    h.progress = [](const std::string& stage, double f) {
      std::cerr << "[" << formatFixed(100.0 * f, 0) << "%] " << stage << "\n";
    };
  return h;
}

void writeLabels(const std::string& path, const RunResult& run) {
  for (const auto& v : run.variants) {
    if (v.clustering && !v.clustering->labels.empty()) {
      std::string text;
      text.reserve(v.clustering->labels.size() * 3);
      for (int32_t l : v.clustering->labels) (text += std::to_string(l)) += '\n';
      writeFileAtomically(path, text);
      return;
    }
  }
  throw InputError("--labels " + path + ": this run produced no labels");
}

}  // namespace

int cmdDevices(const CliOptions& o) {
  if (o.jsonPath == "-") {  // the JSON alone on stdout, for scripts (the worker's hello holds it too)
    std::cout << nlohmann::json(backendStatus()).dump(2) << "\n";
    return 0;
  }
  checkOutputs(o);
  const BackendStatus s = backendStatus();
  std::cout << "CPU backend: works (" << s.cpu.name << ", " << s.cpu.smCount
            << " hardware threads, " << formatBytes(double(s.cpu.globalMemBytes)) << ")\n";
  if (!s.cudaBuilt) {
    std::cout << "CUDA backend: not built (" << s.cudaReason << ")\n";
  } else if (!s.cudaUsable) {
    std::cout << "CUDA backend: built, not usable here: " << s.cudaReason << "\n";
  } else {
    std::cout << "CUDA backend: works\n";
    for (size_t i = 0; i < s.cudaDevices.size(); ++i) {
      const DeviceInfo& d = s.cudaDevices[i];
      std::cout << "  [" << i << "] " << d.name << ", compute capability " << d.ccMajor << "."
                << d.ccMinor << ", " << d.smCount << " SMs, " << formatBytes(double(d.globalMemBytes))
                << ", L2 " << formatBytes(double(d.l2Bytes)) << "\n      " << d.maxThreadsPerSM
                << " threads/SM, " << d.maxBlocksPerSM << " blocks/SM, " << d.regsPerSM
                << " registers/SM, shared " << d.sharedPerSM / 1024 << " KiB/SM, "
                << d.sharedPerBlockOptin / 1024 << " KiB/block opt-in\n      driver "
                << d.driverVersion / 1000 << "." << (d.driverVersion % 1000) / 10 << ", runtime "
                << d.runtimeVersion / 1000 << "." << (d.runtimeVersion % 1000) / 10 << "\n";
    }
  }
  std::cout << "Runs use: " << backendSummary() << "\n";
  if (!o.jsonPath.empty()) writeFileAtomically(o.jsonPath, nlohmann::json(s).dump(2) + "\n");
  return 0;
}

namespace {

// `run --request FILE`: the file names the family; a family argument must agree with it. The
// backend may be chosen here (a GPU server's request re-run on a laptop); it is recorded.
RunRequest storedRequest(const CliOptions& o) {
  RunRequest r = readRequestFile(o.requestPath);
  if (!o.family.empty() && parseFamily(o.family) != r.family)
    throw InputError("family '" + o.family + "' disagrees with " + o.requestPath + ", a " +
                     toString(r.family) + " request; give no family (or " + toString(r.family) +
                     ") to run it");
  if (o.backend != "auto") {
    auto b = backendFromString(o.backend);
    if (!b) throw InputError("--backend " + o.backend + " is unknown (auto, cpu, cuda)");
    r.backend = *b;
  }
  return r;
}

}  // namespace

void refuseExperimentOptions(const CLI::App& cmd, const CliOptions& o) {
  if (o.requestPath.empty()) return;
  const std::vector<std::string> allowed = {"--request", "--backend", "--json", "--csv", "--reports",
                                            "--labels",  "--stream",  "family"};
  std::string given;
  for (const CLI::Option* opt : cmd.get_options()) {
    const std::string name = opt->get_name();
    if (opt->count() == 0 || std::find(allowed.begin(), allowed.end(), name) != allowed.end())
      continue;
    given += (given.empty() ? "" : ", ") + name;
  }
  if (!given.empty())
    throw InputError("--request " + o.requestPath + " is the whole experiment: " + given +
                     " cannot change it (only --backend and the outputs apply)");
}

int cmdRun(const CliOptions& o) {
  RunRequest r;
  try {
    checkOutputs(o);
    r = o.requestPath.empty() ? buildRequest(o, false) : storedRequest(o);
    validateRequest(r);
  } catch (const InputError& e) {
    if (o.stream) emitEvent({{"event", "error"}, {"input_error", true}, {"message", e.what()}});
    throw;
  }
  RunHooks hooks;
  if (o.stream) {
    hooks.progress = [](const std::string& stage, double f) {
      emitEvent({{"event", "progress"}, {"stage", stage}, {"fraction", f}});
    };
    hooks.iteration = [](const std::string& variant, const IterationRecord& rec,
                         const ClusteringOutput& current) {
      emitEvent({{"event", "iteration"}, {"variant", variant}, {"record", rec}, {"current", current}});
    };
  }
  const RunResult run = runExperiment(r, hooks);
  ResultsFile file;
  file.runs.push_back(run);
  if (o.stream) {
    emitEvent({{"event", "result"}, {"result", run}});
  } else {
    printRunTable(std::cout, run);
  }
  writeOutputs(o, file);
  if (!o.labelsPath.empty()) writeLabels(o.labelsPath, run);
  return run.ok ? 0 : 1;
}

int cmdSweep(const CliOptions& o) {
  checkOutputs(o);
  ResultsFile file;
  if (!o.requestPath.empty()) {
    // Every run of a stored sweep again, in its order, under its axes.
    ResultsFile stored = readResultsFile(o.requestPath);
    for (const auto& run : stored.runs)
      if (!o.family.empty() && parseFamily(o.family) != run.request.family)
        throw InputError("family '" + o.family + "' disagrees with " + o.requestPath +
                         ", which holds " + toString(run.request.family) + " runs");
    if (o.backend != "auto") {
      auto b = backendFromString(o.backend);
      if (!b) throw InputError("--backend " + o.backend + " is unknown (auto, cpu, cuda)");
      for (auto& run : stored.runs) run.request.backend = *b;
    }
    file = rerunResults(stored, stderrProgress(true));
  } else {
    const RunRequest base = buildRequest(o, true);
    const std::vector<SweepAxis> axes = sweepAxes(o);
    if (axes.empty())
      throw InputError("sweep needs at least one comma list, e.g. --tpb 64,128,256");
    // Every value must at least be a number of its option before anything runs (a value a
    // validator refuses, such as --tpb 2048, is a skipped point of the sweep instead).
    for (const auto& axis : axes)
      for (const auto& value : axis.values) applySweepValue(base, axis.name, value);
    file = runSweep(base, axes, stderrProgress(true));
  }
  bool ok = true;
  for (const auto& run : file.runs) {
    std::cout << "\n";
    printRunTable(std::cout, run);
    ok = ok && run.ok;
  }
  writeOutputs(o, file);
  return ok ? 0 : 1;
}

int cmdVerify(const CliOptions& o) {
  checkOutputs(o);
  auto b = backendFromString(o.backend);
  if (!b) throw InputError("--backend " + o.backend + " is unknown (auto, cpu, cuda)");
  std::vector<Family> families;
  for (const auto& name : o.families) {
    auto f = familyFromString(name);
    if (!f) throw InputError("--family " + name + " is unknown (transpose, kmeans, kcenters, knn)");
    families.push_back(*f);
  }
  const BackendDecision decision = decideBackend(*b);
  std::cout << "verify on " << (decision.useCuda ? "CUDA: " : "") << decision.note << "\n";
  const auto cases = verifySuite(o.quick, families);
  ResultsFile file;
  int failures = 0, variantRuns = 0;
  std::vector<occupancy::DeviceCheck> occupancyChecks;
  size_t done = 0;
  for (const auto& c : cases) {
    RunRequest r = c.request;
    // Verify what was asked for: once on CUDA, never fall back to the CPU half-way.
    r.backend = decision.useCuda ? BackendChoice::Cuda : *b;
    if (decision.useCuda && !backendStatus().cudaUsable) {
      std::cout << "FAIL: " << backendStatus().cudaReason << "; the remaining "
                << cases.size() - done << " cases were not run\n";
      failures += static_cast<int>(cases.size() - done);
      break;
    }
    ++done;
    RunResult run;
    try {
      run = runExperiment(r);
    } catch (const InputError& e) {
      run.ok = false;
      run.message = e.what();
    }
    std::string detail;
    for (const auto& v : run.variants) {
      ++variantRuns;
      if (!v.ok) detail += " [" + v.variant + ": not run: " + v.error + "]";
      else if (!v.verification.passed)
        detail += " [" + v.variant + ": " + std::to_string(v.verification.mismatches) + " of " +
                  std::to_string(v.verification.compared) + " differ; " + v.verification.note + "]";
    }
    if (!run.ok && detail.empty()) detail = " [" + run.message + "]";
    std::cout << (run.ok ? "PASS " : "FAIL ") << c.label << " (" << run.variants.size()
              << " variants)" << detail << "\n";
    if (!run.ok) ++failures;
    for (auto& check : occupancy::checkRun(run)) occupancyChecks.push_back(std::move(check));
    file.runs.push_back(std::move(run));
  }
  // On CUDA: for every kernel configuration the calculator must match the occupancy API.
  int occupancyMismatches = 0;
  if (!occupancyChecks.empty())
    occupancyMismatches = printOccupancyChecks(std::cout, occupancyChecks, decision.device.name);
  else
    std::cout << "occupancy: not checked (no CUDA run: the check compares with the CUDA occupancy API)\n";
  std::cout << "verify: " << cases.size() << " cases, " << variantRuns << " variant runs, "
            << failures << " failed";
  if (occupancyMismatches > 0) {
    std::cout << "; " << occupancyMismatches << " occupancy mismatch(es)";
    ++failures;
  }
  std::cout << "\n";
  writeOutputs(o, file);
  return failures == 0 ? 0 : 1;
}

namespace {

// bench knn: the seed's image (377 x 329, one PCA component, W = 14, k = 8) and a large one
// (4096 x 4096, C = 8): time, shared memory per block and resident blocks per SM per variant.
// A variant refused for a device limit (the whole window of a wide image in shared memory) is
// part of the answer, not a failure of the bench.
bool benchKnn(const CliOptions& o, BackendChoice backend, ResultsFile& file) {
  const std::vector<std::string> images =
      o.sizes.empty() ? std::vector<std::string>{"377x329x1", "4096x4096x8"} : o.sizes;
  bool ok = true;
  for (const auto& image : images) {
    RunRequest r;
    r.family = Family::Knn;
    r.variants = {"all"};
    const auto dims = parseDims(image, "--sizes", kIntMax);
    r.knn.rows = static_cast<int>(dims[0]);
    r.knn.cols = static_cast<int>(dims[1]);
    r.knn.components = dims.size() > 2 ? static_cast<int>(dims[2]) : 1;
    r.knn.window = 14;
    r.knn.k = 8;
    r.launch.threadsPerBlock = 256;
    const bool large = static_cast<double>(r.knn.rows) * r.knn.cols > 4e6;
    r.warmup = 1;
    r.repetitions = o.reps ? *o.reps : (large ? 3 : 20);
    r.backend = backend;
    try {
      validateRequest(r);
    } catch (const InputError& e) {
      if (!o.sizes.empty()) throw;  // the user's own size: a bad input
      // A default size this backend cannot take (the large image on the CPU): say so, go on.
      std::cout << "\nknn " << image << ": skipped: " << e.what() << "\n";
      RunResult skipped;
      skipped.request = r;
      skipped.ok = false;
      skipped.message = std::string("skipped: ") + e.what();
      skipped.createdAt = isoTimestampUtc();
      skipped.tool = toolVersion();
      file.runs.push_back(std::move(skipped));
      continue;
    }
    const RunResult run = runExperiment(r, stderrProgress(true));
    std::cout << "\n";
    printRunTable(std::cout, run);
    double globalMs = 0;
    for (const auto& v : run.variants)
      if (v.variant == "global" && v.ok) globalMs = v.total.medianMs;
    std::cout << "knn " << image << " per variant: time relative to global, shared memory per "
              << "block, resident blocks per SM\n";
    for (const auto& v : run.variants) {
      const bool verified = v.ok && (!v.verification.performed || v.verification.passed);
      if (!verified && !v.refused) ok = false;
      std::cout << "  " << v.variant << ": ";
      if (!v.ok) {
        std::cout << (v.refused ? "refused: " : "failed: ") << v.error << "\n";
        continue;
      }
      const auto* res = v.kernels.empty() || !v.kernels.front().resources
                            ? nullptr
                            : &*v.kernels.front().resources;
      std::cout << formatFixed(v.total.medianMs, 3) << " ms"
                << (globalMs > 0 ? " (x" + formatFixed(v.total.medianMs / globalMs, 2) + ")" : "")
                << ", " << (v.knn ? formatBytes(double(v.knn->sharedBytesPerBlock)) : "?")
                << " shared/block, "
                << (res ? std::to_string(res->maxActiveBlocksPerSM) + " blocks/SM, " +
                              std::to_string(res->registersPerThread) + " registers"
                        : std::string("blocks/SM n/a on the CPU"))
                << (verified ? "" : ", NOT VERIFIED") << "\n";
    }
    file.runs.push_back(run);
  }
  return ok;
}

}  // namespace

int cmdBench(const CliOptions& o) {
  checkOutputs(o);
  auto b = backendFromString(o.backend);
  if (!b) throw InputError("--backend " + o.backend + " is unknown (auto, cpu, cuda)");
  std::vector<std::string> families = o.families;
  if (families.empty() || (families.size() == 1 && families[0] == "all")) {
    families = {"transpose", "knn"};
    // The seed's clustering workload takes hours on the CPU executor: only with a GPU or sizes.
    if (decideBackend(*b).useCuda || !o.n.empty()) families.push_back("clustering");
    if (decideBackend(*b).useCuda) families.push_back("best");
  }
  ResultsFile file;
  bool ok = true;
  for (const auto& fam : families) {
    if (fam == "clustering" || fam == "kcenters" || fam == "kmeans") {
      ok = benchClustering(o, *b, fam, file) && ok;
      continue;
    }
    if (fam == "knn") {
      ok = benchKnn(o, *b, file) && ok;
      continue;
    }
    if (fam == "best") {
      ok = benchBest(o, *b, file) && ok;
      continue;
    }
    if (fam != "transpose")
      throw InputError("bench " + fam + " is not available (transpose, clustering, knn, best)");
    ok = benchTranspose(o, *b, file) && ok;
  }
  writeOutputs(o, file);
  return ok ? 0 : 1;
}

}  // namespace kernellab::cli

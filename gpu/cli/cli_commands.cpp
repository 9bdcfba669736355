// SPDX-License-Identifier: MIT
// kernellab-cli subcommands: devices, run, sweep, verify, bench. The families' options, sweep
// axes, verify cases and benches come from the family registry (kernellab/family.h).
#include "cli_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli_models.h"
#include "cli_numbers.h"
#include "cli_output.h"
#include "kernellab/atomic_file.h"
#include "kernellab/backend.h"
#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "kernellab/occupancy.h"
#include "kernellab/run_table.h"
#include "kernellab/text.h"
#include "kernellab/verify_suite.h"

namespace kernellab::cli {

void addFamilyOptions(CLI::App* cmd, std::map<std::string, std::string>& params, bool lists,
                      const std::map<std::string, std::string>& renamed) {
  const std::string many = lists ? " (comma list: one run per value)" : "";
  // Each parameter once, in the registry's order, its help the families' lines joined:
  // "kmeans, kcenters: clusters; knn: neighbours per pixel".
  struct Entry {
    std::string name;
    std::vector<std::pair<std::string, std::string>> helps;  // {families, help}
    bool single = false;
  };
  std::vector<Entry> entries;
  auto add = [&](const FamilyParameter& p, const std::string& family) {
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const Entry& e) { return e.name == p.name; });
    if (it == entries.end()) {
      entries.push_back({p.name, {}, p.single});
      it = entries.end() - 1;
    }
    for (auto& [families, help] : it->helps)
      if (help == p.help) {
        families += ", " + family;
        return;
      }
    it->helps.push_back({family, p.help});
  };
  for (const FamilyParameter& p : commonParameters()) add(p, "");
  for (const FamilyDescriptor* f : families())
    for (const FamilyParameter& p : f->parameters) add(p, f->family.id());
  for (const Entry& e : entries) {
    std::string help;
    for (const auto& [families, text] : e.helps)
      help += (help.empty() ? "" : "; ") + (families.empty() ? text : families + ": " + text);
    const auto rename = renamed.find(e.name);
    const std::string option = "--" + (rename == renamed.end() ? e.name : rename->second);
    cmd->add_option(option, params[e.name], help + (e.single ? "" : many));
  }
}

void addExperimentOptions(CLI::App* cmd, CliOptions& o, bool lists) {
  cmd->add_option("--variant", o.variants, "Variant ids or 'all' (default all)")->delimiter(',');
  addFamilyOptions(cmd, o.params, lists);
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
  cmd->add_option("--labels", o.labelsPath,
                  "Write the run's per-point output, one line per point (clustering: labels)");
}

namespace {

Family parseFamily(const std::string& s) {
  auto f = familyFromString(s);
  if (!f) throw InputError("family '" + s + "' is unknown (" + familyIds() + ")");
  return *f;
}

BackendChoice parseBackend(const std::string& s) {
  auto b = backendFromString(s);
  if (!b) throw InputError("--backend " + s + " is unknown (auto, cpu, cuda)");
  return *b;
}

}  // namespace

RunRequest requestFromParams(const std::string& family,
                             const std::map<std::string, std::string>& params, bool lists) {
  RunRequest r;
  r.family = parseFamily(family);
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [name, text] : params) {
    if (text.empty()) continue;
    const std::vector<std::string> parts = splitList(text);
    if (!lists && parts.size() > 1)
      throw InputError("--" + name + " " + text + ": run takes one value; use sweep for lists");
    values.emplace_back(name, lists && !parts.empty() ? parts.front() : text);
  }
  return buildRequest(r, values);
}

RunRequest buildRequest(const CliOptions& o, bool lists) {
  if (o.family.empty())
    throw InputError("a family is required (" + familyIds() + "), or --request FILE");
  RunRequest r = requestFromParams(o.family, o.params, lists);
  if (!o.variants.empty()) {
    // --memory / --layout (the clustering switches) chose the variants already.
    const bool chosen = r.variants != std::vector<std::string>{};
    if (chosen)
      throw InputError("--variant and --memory / --layout both choose variants: give one");
    r.variants = o.variants;
  }
  if (r.variants.empty()) r.variants = {"all"};
  if (o.reps) r.repetitions = *o.reps;
  if (o.warmup) r.warmup = *o.warmup;
  if (o.seed) r.seed = *o.seed;
  r.backend = parseBackend(o.backend);
  r.verify = !o.noVerify;
  r.recordSchedule = o.recordSchedule;
  return r;
}

namespace {

// The comma lists given: one axis each, in the family's parameter order (then --tpb), the first
// axis outermost.
std::vector<SweepAxis> sweepAxes(const CliOptions& o) {
  std::vector<SweepAxis> axes;
  const FamilyDescriptor& family = familyDescriptor(parseFamily(o.family));
  auto add = [&](const FamilyParameter& p) {
    const auto it = o.params.find(p.name);
    if (it == o.params.end() || it->second.empty()) return;
    auto values = splitList(it->second);
    if (values.size() > 1) {
      if (p.single) throw InputError("--" + p.name + " " + it->second + " takes one value");
      axes.push_back({p.name, values});
    }
  };
  for (const FamilyParameter& p : family.parameters) add(p);
  for (const FamilyParameter& p : commonParameters()) add(p);
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

void writeLabels(const std::string& path, const RunResult& run) {
  const FamilyDescriptor* family = findFamily(run.request.family);
  const std::string text = family && family->labels ? family->labels(run) : std::string();
  if (text.empty()) throw InputError("--labels " + path + ": this run produced no labels");
  writeFileAtomically(path, text);
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
  if (o.backend != "auto") r.backend = parseBackend(o.backend);
  return r;
}

}  // namespace

void refuseExperimentOptions(const CLI::App& cmd, const CliOptions& o) {
  if (o.requestPath.empty()) return;
  const std::vector<std::string> allowed = {"--request", "--backend", "--json",   "--csv",
                                            "--reports", "--reread",  "--labels", "--stream",
                                            "family"};
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
  RunResult run;
  try {
    checkOutputs(o);
    const RunRequest r = o.requestPath.empty() ? buildRequest(o, false) : storedRequest(o);
    run = runExperiment(r, hooks);  // validates once, before anything runs
  } catch (const InputError& e) {
    if (o.stream) emitEvent({{"event", "error"}, {"input_error", true}, {"message", e.what()}});
    throw;
  }
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
      const BackendChoice b = parseBackend(o.backend);
      for (auto& run : stored.runs) run.request.backend = b;
    }
    file = rerunResults(stored, progressOnStderr());
  } else {
    const RunRequest base = buildRequest(o, true);
    const std::vector<SweepAxis> axes = sweepAxes(o);
    if (axes.empty())
      throw InputError("sweep needs at least one comma list, e.g. --tpb 64,128,256");
    // Every value must at least be a number of its option before anything runs (a value a
    // validator refuses, such as --tpb 2048, is a skipped point of the sweep instead).
    for (const auto& axis : axes)
      for (const auto& value : axis.values) applySweepValue(base, axis.name, value);
    file = runSweep(base, axes, progressOnStderr());
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
  const BackendChoice b = parseBackend(o.backend);
  std::vector<Family> only;
  for (const auto& name : o.families) {
    auto f = familyFromString(name);
    if (!f) throw InputError("--family " + name + " is unknown (" + familyIds() + ")");
    only.push_back(*f);
  }
  const BackendDecision decision = decideBackend(b);
  std::cout << "verify on " << (decision.useCuda ? "CUDA: " : "") << decision.note << "\n";
  const auto cases = verifySuite(o.quick, only);
  ResultsFile file;
  int failures = 0, variantRuns = 0;
  std::vector<occupancy::DeviceCheck> occupancyChecks;
  size_t done = 0;
  for (const auto& c : cases) {
    RunRequest r = c.request;
    // Verify what was asked for: once on CUDA, never fall back to the CPU half-way.
    r.backend = decision.useCuda ? BackendChoice::Cuda : b;
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

std::string benchNames() {
  std::string names;
  for (const FamilyDescriptor* f : families())
    for (const FamilyBench& b : f->benches) names += (names.empty() ? "" : " | ") + b.name;
  return names;
}

std::string benchSizeForms() {
  std::string forms;
  for (const FamilyDescriptor* f : families())
    for (const FamilyBench& b : f->benches)
      if (!b.sizesForm.empty()) forms += (forms.empty() ? "" : ", ") + b.name + " " + b.sizesForm;
  return forms;
}

int cmdBench(const CliOptions& o) {
  checkOutputs(o);
  BenchOptions bo;
  bo.backend = parseBackend(o.backend);
  bo.cuda = decideBackend(bo.backend).useCuda;
  bo.sizes = o.sizes;
  bo.reps = o.reps;
  bo.maxIterations = o.maxIter;
  auto param = [&](const char* name) {
    const auto it = o.params.find(name);
    return it == o.params.end() ? std::string() : it->second;
  };
  bo.n = param("n");
  bo.k = param("k");
  bo.d = param("d");
  bo.tpb = param("tpb");
  bo.hooks = progressOnStderr();
  // The benches to run: the named ones, or (none, or "all") every family's default benches.
  std::vector<const FamilyBench*> chosen;
  const bool all = o.families.empty() || (o.families.size() == 1 && o.families[0] == "all");
  for (const FamilyDescriptor* f : families())
    for (const FamilyBench& b : f->benches)
      if (all && b.byDefault(bo)) chosen.push_back(&b);
  if (!all)
    for (const auto& name : o.families) {
      const FamilyBench* found = nullptr;
      for (const FamilyDescriptor* f : families())
        for (const FamilyBench& b : f->benches)
          if (b.name == toLower(name)) found = &b;
      if (!found)
        throw InputError("bench " + name + " is not available (" + benchNames() + ", all)");
      chosen.push_back(found);
    }
  ResultsFile file;
  bool ok = true;
  for (const FamilyBench* b : chosen) ok = b->run(bo, std::cout, file) && ok;
  writeOutputs(o, file);
  return ok ? 0 : 1;
}

}  // namespace kernellab::cli

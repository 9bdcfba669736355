// SPDX-License-Identifier: MIT
// kernellab-cli: run, sweep, verify and benchmark KernelLab's kernels on a GPU server or a laptop.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli_commands.h"
#include "cli_models.h"
#include "cli_numbers.h"
#include "cli_profile.h"
#include "cli_worker.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"

int main(int argc, char** argv) {
  using namespace kernellab;
  using namespace kernellab::cli;
  CLI::App app{"kernellab-cli: run, sweep, verify and benchmark KernelLab's CUDA kernels.\n"
               "Without a working GPU every command runs on the CPU backend and says why."};
  app.set_version_flag("--version", toolVersion());
  app.require_subcommand(1, 1);
  CliOptions o;

  auto* devices = app.add_subcommand("devices", "What backends work here (and why not), device facts");
  devices->add_option("--json", o.jsonPath, "Write the backend status as JSON (- : on stdout alone)");

  auto* run = app.add_subcommand("run", "Run one family: one variant or all, one configuration");
  const std::string familyHelp = familyIds(" | ") + " (with --request: taken from the file)";
  run->add_option("family", o.family, familyHelp);
  addExperimentOptions(run, o, false);
  run->add_option("--request", o.requestPath,
                  "Run the request in this JSON file: a request file or a results file of one run "
                  "(only --backend and the outputs may be given beside it)");
  run->add_flag("--stream", o.stream,
                "Print JSON lines (progress, iterations, result) instead of a table: for a GUI worker");

  auto* sweep = app.add_subcommand(
      "sweep", "Run the product of comma lists: e.g. --tpb 64,128,256 --tile 16,32 --size 1024x1024,4096x4096");
  sweep->add_option("family", o.family, familyHelp);
  addExperimentOptions(sweep, o, true);
  sweep->add_option("--request", o.requestPath,
                    "Run every run of this results file again, under its sweep axes (only "
                    "--backend and the outputs may be given beside it)");

  auto* verify = app.add_subcommand(
      "verify", "Every variant of every family over awkward sizes against the CPU reference; exit 1 on any mismatch");
  verify->add_option("--backend", o.backend, "auto | cpu | cuda");
  verify->add_option("--family", o.families, "Only these families (default: all)")->delimiter(',');
  verify->add_flag("--quick", o.quick, "A shorter list (CI on the CPU)");
  verify->add_option("--json", o.jsonPath, "Write every run as a results file");

  auto* bench = app.add_subcommand(
      "bench", "Reference workloads with ratios to the ceilings measured in the same run");
  bench->add_option("family", o.families, benchNames() + " | all (default all)")->delimiter(',');
  bench->add_option("--backend", o.backend, "auto | cpu | cuda");
  bench
      ->add_option("--sizes", o.sizes,
                   "Override the workloads' sizes: " + benchSizeForms() +
                       "; a comma list, e.g. 1024x1024,2048x2048")
      ->delimiter(',');
  addIntOption(bench, "--reps", o.reps, "Timed repetitions (default 20; clustering 3)");
  bench->add_option("--n", o.params["n"],
                    "clustering: points (default 1000000, the seed's workload)");
  bench->add_option("--k", o.params["k"], "clustering: clusters (default 100)");
  bench->add_option("--d", o.params["d"], "clustering: dimensions (default 200)");
  bench->add_option("--tpb", o.params["tpb"],
                    "clustering: threads per block, comma list (default 64,128,256,512,1024)");
  addIntOption(bench, "--max-iter", o.maxIter, "clustering: k-means iterations (default 10)");
  bench->add_option("--json", o.jsonPath, "Write every run as a results file");
  bench->add_option("--csv", o.csvPath, "Write a CSV row per variant");

  auto* profile = app.add_subcommand(
      "profile", "Run one family under Nsight Compute: the GPU's counters per kernel and variant "
                 "beside the models' predictions, in the results file (--json)");
  profile->add_option("family", o.family, familyHelp);
  addExperimentOptions(profile, o, false);
  profile->add_option("--request", o.requestPath, "Profile the request in this JSON file");
  profile->add_option("--reports", o.reportsDir,
                      "Keep ncu's CSV report of each variant in this folder (FAMILY-VARIANT.csv)");
  profile->add_option("--reread", o.rereadDir,
                      "Run nothing: attach the reports an earlier profile kept in this folder "
                      "(--reports) to its results file (--request FILE), print the counters "
                      "beside the models and write them (--json)");

  ModelOptions occ, sched, acc;
  sched.arch = "gt200";  // the schedule model's default: the seed's partition-camping GPU
  auto* occupancy = app.add_subcommand(
      "occupancy", "Occupancy calculator: blocks per SM by each limit, the binding one, what fits the next block");
  addOccupancyOptions(occupancy, occ);
  auto* schedule = app.add_subcommand(
      "schedule", "Block-schedule model: dispatch waves, tiles and memory-partition load (Cartesian vs diagonal)");
  addScheduleOptions(schedule, sched);
  auto* access = app.add_subcommand(
      "access", "Access-pattern model: one warp's addresses, sectors and lines, shared-memory banks");
  addAccessOptions(access, acc);

  WorkerOptions workerOptions;
  auto* worker = addWorkerCommand(app, workerOptions);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kernellab-cli: error: " << e.what() << " (see --help)\n";
    return 2;
  }

  try {
    if (devices->parsed()) return cmdDevices(o);
    if (run->parsed()) {
      refuseExperimentOptions(*run, o);
      return cmdRun(o);
    }
    if (sweep->parsed()) {
      refuseExperimentOptions(*sweep, o);
      return cmdSweep(o);
    }
    if (verify->parsed()) return cmdVerify(o);
    if (profile->parsed()) {
      refuseExperimentOptions(*profile, o);
      return cmdProfile(o);
    }
    if (bench->parsed()) return cmdBench(o);
    if (occupancy->parsed()) return cmdOccupancy(occ);
    if (schedule->parsed()) return cmdSchedule(sched);
    if (access->parsed()) return cmdAccess(acc);
    if (worker->parsed()) return cmdWorker(workerOptions);
  } catch (const InputError& e) {
    std::cerr << "kernellab-cli: error: " << e.what() << "\n";
    return 2;
  } catch (const Cancelled&) {
    std::cerr << "kernellab-cli: cancelled\n";
    return 130;
  } catch (const std::exception& e) {
    std::cerr << "kernellab-cli: failed: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

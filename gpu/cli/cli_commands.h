// SPDX-License-Identifier: MIT
// The subcommands of kernellab-cli. Each returns the process exit code:
// 0 success, 1 a variant failed to run or to verify, 2 bad input (one line on stderr).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/request.h"

namespace CLI {
class App;
}

namespace kernellab::cli {

// Raw option text: `run` takes one value per option, `sweep` takes comma lists (axes).
struct CliOptions {
  std::string family;
  std::vector<std::string> variants;
  std::string size, tile, tpb, rowsPerThread;
  std::string n, k, d, image, window, block;
  std::string layout, memory, init, shape, input, centers;
  // Numbers go through the checked layer (cli_numbers.h); unset means "the request's default".
  std::optional<int> maxIter;
  std::string stop;  // kmeans: fixed-point | score
  std::optional<double> epsilon;
  std::optional<double> noise;  // clustering blobs: share of uniform noise points
  std::optional<int> reps;
  std::optional<int> warmup;
  std::optional<uint64_t> seed;
  std::string backend = "auto";
  std::string jsonPath, csvPath, labelsPath, requestPath;
  bool noVerify = false;
  bool recordSchedule = false;
  bool stream = false;
  bool quick = false;
  std::vector<std::string> families;  // verify / bench
  std::vector<std::string> sizes;     // bench override
  std::string reportsDir;             // profile: keep ncu's CSV reports here
};

// Adds the experiment options (family knobs, launch, repetitions, backend, outputs) to a
// subcommand. `lists` documents comma lists for sweep.
void addExperimentOptions(CLI::App* cmd, CliOptions& o, bool lists);

// Builds the request; with `lists` false every option must hold a single value.
RunRequest buildRequest(const CliOptions& o, bool lists);

// With --request FILE the file is the experiment: any other experiment option given on `cmd`
// (all but --backend and the outputs) is an error naming it, never silently ignored.
void refuseExperimentOptions(const CLI::App& cmd, const CliOptions& o);

int cmdDevices(const CliOptions& o);
int cmdRun(const CliOptions& o);
int cmdSweep(const CliOptions& o);
int cmdVerify(const CliOptions& o);
int cmdBench(const CliOptions& o);

}  // namespace kernellab::cli

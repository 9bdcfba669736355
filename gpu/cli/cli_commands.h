// SPDX-License-Identifier: MIT
// The subcommands of kernellab-cli. Each returns the process exit code:
// 0 success, 1 a variant failed to run or to verify, 2 bad input (one line on stderr).
#pragma once

#include <cstdint>
#include <map>
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
  // Every family's parameters (family.h) by name, as given: "size" for --size. The options are
  // made from the registry, so a new family's knobs are options without a line here.
  std::map<std::string, std::string> params;
  // Numbers go through the checked layer (cli_numbers.h); unset means "the request's default".
  std::optional<int> reps;
  std::optional<int> warmup;
  std::optional<uint64_t> seed;
  std::optional<int> maxIter;  // bench: k-means iterations
  std::string backend = "auto";
  std::string jsonPath, csvPath, labelsPath, requestPath;
  bool noVerify = false;
  bool recordSchedule = false;
  bool stream = false;
  bool quick = false;
  std::vector<std::string> families;  // verify / bench
  std::vector<std::string> sizes;     // bench override
  std::string reportsDir;             // profile: keep ncu's CSV reports here
  std::string rereadDir;              // profile: re-read the reports kept here (no ncu run)
};

// Adds one option per family parameter (--size, --n, --window, ...) and the common --tpb, each
// once with every family's help line, writing the text into `params`. A parameter whose name is
// in `renamed` is added as the mapped option instead (`access` keeps --block for the blockIdx).
void addFamilyOptions(CLI::App* cmd, std::map<std::string, std::string>& params, bool lists,
                      const std::map<std::string, std::string>& renamed = {});

// The request of `family` from parameter text (one value each; comma lists only with `lists`,
// whose first value is taken). The one request builder (kernellab::buildRequest) does the rest.
RunRequest requestFromParams(const std::string& family,
                             const std::map<std::string, std::string>& params, bool lists);

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

// "transpose | clustering | kmeans | best | kcenters | knn": every family's benches.
std::string benchNames();
// "transpose WxH, knn ROWSxCOLS[xC]": what --sizes takes, for every bench that takes it.
std::string benchSizeForms();

}  // namespace kernellab::cli

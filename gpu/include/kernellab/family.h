// SPDX-License-Identifier: MIT
// A kernel family as one unit of the code: the descriptor its folder fills in, and the registry
// that lists every family (gpu/src/families.def, one line each). The core (runExperiment,
// sweeps, results files and their checks), the CLI, the verify suite and the models reach a
// family only through its descriptor; the window adds its form (widgets/family_form.h).
//
// Adding a family: docs/architecture.md, "Adding a family".
#pragma once

#include <functional>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/access_model.h"
#include "kernellab/backend.h"
#include "kernellab/experiment.h"
#include "kernellab/family_id.h"
#include "kernellab/request.h"
#include "kernellab/result.h"
#include "kernellab/verify_suite.h"

namespace kernellab {

// One knob of a family's request, named once for every client: `--name VALUE` on the CLI (comma
// lists make sweep axes), the sweep axis `name`, a field of the window's panel (`title`), and
// an x category of the charts (`label`, `number`).
struct FamilyParameter {
  FamilyParameter() = default;
  FamilyParameter(std::string name, std::string title, std::string help,
                  std::function<void(RunRequest&, const std::string&)> apply, bool single = false)
      : name(std::move(name)),
        title(std::move(title)),
        help(std::move(help)),
        apply(std::move(apply)),
        single(single) {}

  std::string name;   // "n"
  std::string title;  // "N (points)": the panel's and the charts' words
  std::string help;   // the CLI's help line, without the family prefix
  // Parses one value into the request; throws InputError naming --name, the value and the limit.
  std::function<void(RunRequest& r, const std::string& value)> apply;
  // Takes one value per run only (a switch such as --layout all): never a sweep axis.
  bool single = false;
  // A chart category from a run's request ("N=100,000"); empty: not a chart field.
  std::function<std::string(const RunRequest& r)> label;
  // Its value on a numeric axis; NaN (or empty): not numeric.
  std::function<double(const RunRequest& r)> number;
};

// An axis the window offers for sweeps, with values worth sweeping.
struct SweepAxisChoice {
  std::string name;      // a parameter's name, or "tpb"
  std::string defaults;  // "64,128,256,512,1024"
};

// How a family's section of a request or of a variant's result is written to JSON and read
// back. `write` adds to the request object (or the variant object) what the section holds;
// `read` takes it from there. A section keeps its own key ("transpose", "knn"), and may also
// write the launch knobs it owns into the request's "launch" object (the file format since
// schema 1).
struct RequestCodec {
  std::string key;             // "clustering"
  const void* type = nullptr;  // sectionType<S>()
  // `all`: every field (the window's saved settings), not only those the request uses.
  std::function<void(const RunRequest& r, nlohmann::json& request, bool all)> write;
  std::function<void(const nlohmann::json& request, RunRequest& r)> read;
};
struct ResultCodec {
  std::string key;  // "clustering": variants[i].clustering
  const void* type = nullptr;
  std::function<void(const VariantResult& v, nlohmann::json& variant)> write;
  std::function<void(const nlohmann::json& variant, VariantResult& v)> read;
};

// A column of the CLI's CSV (one row per kernel of a variant): empty text is an empty cell.
struct CsvColumn {
  std::string name;
  std::function<std::string(const RunRequest& r, const VariantResult* v)> cell;
};

// What `kernellab-cli bench` passes to a family's bench.
struct BenchOptions {
  BackendChoice backend = BackendChoice::Auto;
  bool cuda = false;                 // the decided backend is CUDA
  std::vector<std::string> sizes;    // --sizes, the family's own form (WxH, ROWSxCOLS[xC], N)
  std::optional<int> reps;           // --reps
  std::optional<int> maxIterations;  // --max-iter
  std::string n, k, d, tpb;          // --n, --k, --d, --tpb as given (comma lists allowed)
  RunHooks hooks;                    // progress (on stderr)
};

// `kernellab-cli bench NAME`: runs its workloads, writes its tables to `out` (ratios to the
// ceilings measured in the same run) and appends every run to `file`; false when a variant
// failed to run or to verify (a missed speed target is printed, not a failure).
struct FamilyBench {
  std::string name;  // "transpose", "clustering", "best"
  std::string what;  // one line for --help
  // Whether `bench` (or `bench all`) runs it on this backend.
  std::function<bool(const BenchOptions& o)> byDefault;
  std::function<bool(const BenchOptions& o, std::ostream& out, ResultsFile& file)> run;
  // What --sizes takes for it, for --help ("WxH"); empty: it takes no --sizes.
  std::string sizesForm = {};
};

struct FamilyDescriptor {
  Family family;
  std::string title;       // "Matrix transpose"
  std::string about;       // a paragraph: the lesson and where it comes from (reports, --help)
  std::string reportNote;  // a report's footnote: what the times, units and checks mean
  // The lesson is bandwidth (a memory-bound family): the window charts every variant's effective
  // bandwidth against the copy ceiling of the same run.
  bool bandwidthBound = false;

  // ---- variants -------------------------------------------------------------------------
  std::function<std::vector<VariantDescription>()> variants;

  // ---- the request ----------------------------------------------------------------------
  std::vector<RequestCodec> requestSections;
  std::vector<FamilyParameter> parameters;
  std::vector<SweepAxisChoice> sweepAxes;  // the window's axes, in its order ("tpb" included)
  // After the given parameters are applied (CLI or window): the rules between options (a file
  // decides the size; --epsilon asks for the score rule; --block sets --tpb). `given` lists
  // the parameters given, by name ("tpb" included).
  std::function<void(RunRequest& r, const std::vector<std::string>& given)> finishRequest;
  // The window's first request of this family (sizes that read well and run fast on the CPU).
  std::function<void(RunRequest& r)> demo;
  // One line: "transpose 2048x2048 · TPB 256 · tile 32"; `detailed` adds what the CLI's table
  // header says (block shape, stop rule).
  std::function<std::string(const RunRequest& r, bool detailed)> summary;
  // What the launch configuration gives ("Block 32 x 8 threads; grid 64 x 64 blocks."); throws
  // InputError (with CLI option names) when it is invalid. Empty function: nothing to say.
  std::function<std::string(const RunRequest& r)> launchHint;
  // The request's file fields (points, centers, images) in a fixed order, for staging on a remote
  // target and for the window's checks: pointers into `r`, so a stager can name its copy; an
  // empty field is not read, nullptr a field that does not apply now (centers without --init
  // given).
  std::function<std::vector<std::string*>(RunRequest& r)> files;

  // ---- running --------------------------------------------------------------------------
  // Throws InputError when the request cannot run on the decided backend.
  std::function<void(const RunRequest& r, const BackendDecision& d)> validate;
  // Runs a validated request (runExperiment validates once, then calls this).
  std::function<RunResult(const RunRequest& r, const BackendDecision& d, const RunHooks& hooks)>
      run;

  // ---- results --------------------------------------------------------------------------
  std::vector<ResultCodec> resultSections;
  // A request or a run of an older schema read with today's meaning (`version` is the file's;
  // each hook does nothing for the current one). upgradeRequest is called for every family
  // (a request may hold every family's section: the window's saved settings).
  std::function<void(RunRequest& r, int version)> upgradeRequest;
  std::function<void(RunResult& run, int version)> upgradeRun;
  // Upper bounds of a stored request's section that the views rely on (a skipped sweep point keeps
  // the request it refused, so only bounds from above: N = 0 stays), throwing InputError with
  // the field's path under `at` (".request" included). Called for every run of a file.
  std::function<void(const RunRequest& r, const std::string& at)> checkLimits;
  // Range checks of a stored run's request section and variant sections (results_validation.h:
  // every index and size a view uses), throwing InputError with the field's path under `at`.
  std::function<void(const RunResult& run, const std::string& at)> checkStored;
  // Text the CLI prints after a run's table (per-kernel details, speed-ups).
  std::function<void(std::ostream& out, const RunResult& run)> details;
  // One line per point of the run's per-point output (the CLI's --labels); empty text: none.
  std::function<std::string(const RunResult& run)> labels;
  std::vector<CsvColumn> csvColumns;

  // ---- verification, models, benches -----------------------------------------------------
  std::function<std::vector<VerifyCase>(bool quick)> verifyCases;
  // The access lens: whether a variant can be traced, the kernels --kernel chooses from (empty:
  // one kernel per variant), and the tracer (the family's own phase functions on a recording
  // Mem policy).
  std::function<bool(const std::string& variant)> canTrace;
  std::function<const std::vector<access::KernelChoice>&()> tracedKernels;
  std::function<access::BlockTrace(const access::AccessQuery& q, access::ThreadRange keep)>
      traceBlock;
  std::vector<FamilyBench> benches;

  // The parameter named `name`, or nullptr.
  const FamilyParameter* parameter(const std::string& name) const;
  // Whether any variant has the capability.
  bool anyVariant(bool VariantDescription::*capability) const;
};

// Every family of this build, in the order the CLI, the verify suite and the window list them.
const std::vector<const FamilyDescriptor*>& families();
// The registered family with this id (case-insensitive), or nullptr / nullopt.
const FamilyDescriptor* findFamily(Family family);
const FamilyDescriptor* findFamily(const std::string& id);
std::optional<Family> familyFromString(const std::string& id);
// The descriptor; throws InputError "family 'x' is unknown (transpose, kmeans, ...)".
const FamilyDescriptor& familyDescriptor(Family family);
// "transpose, kmeans, kcenters, knn": the ids, for messages and help.
std::string familyIds(const std::string& separator = ", ");

// Every family's request and result sections, each key once (k-means and k-centers share
// "clustering"), for the JSON layer.
const std::vector<const RequestCodec*>& allRequestSections();
const std::vector<const ResultCodec*>& allResultSections();

// The parameters every family shares: --tpb (threads per block).
const std::vector<FamilyParameter>& commonParameters();

// A request from parameter values, as both the CLI and the window's panel give them: the base
// request (the family's defaults, or what the panel keeps) with each value applied in order by
// the family's (or a common) parameter, then the family's rules between options. Throws
// InputError for an unknown family, an option the family does not take, or a bad value.
RunRequest buildRequest(RunRequest base,
                        const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace kernellab

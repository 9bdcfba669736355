// SPDX-License-Identifier: MIT
// `kernellab-cli profile`: an experiment under Nsight Compute (issue 13). Each variant runs alone
// in a child `kernellab-cli run` that ncu launches with a fixed metric set (profileMetrics()), so
// every launch of that process is the variant's; ncu's CSV report is read back and the counters
// go into the results file beside the variant's own figures, with the run marked as profiled.
#include "cli_profile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_commands.h"
#include "kernellab/atomic_file.h"
#include "kernellab/backend.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/hardware_counters.h"
#include "kernellab/input_file.h"
#include "kernellab/model_vs_counters.h"
#include "kernellab/json_io.h"
#include "kernellab/text.h"

namespace kernellab::cli {
namespace {

bool executable(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// KERNELLAB_NCU, then ncu on PATH, then the CUDA toolkit's standard place.
std::string findNcu() {
  if (const char* e = std::getenv("KERNELLAB_NCU"); e && *e) return executable(e) ? e : "";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && executable(dir + "/ncu")) return dir + "/ncu";
  }
  return executable("/usr/local/cuda/bin/ncu") ? "/usr/local/cuda/bin/ncu" : "";
}

std::string selfPath() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("kernellab-cli") : p.string();
}

// Runs argv (no shell: nothing in a path or a value is interpreted), stdout and stderr into
// `log`; returns the exit code, or 128 + the signal.
int runProcess(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string lastLines(const std::string& text, int lines) {
  size_t pos = text.size();
  for (int i = 0; i <= lines && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return text.substr(pos == std::string::npos ? 0 : pos + 1);
}

// "Nsight Compute 2025.3.1" from `ncu --version` (its "Version ..." line), or the path.
std::string ncuVersion(const std::string& ncu, const std::string& dir) {
  const std::string log = dir + "/version.txt";
  runProcess({ncu, "--version"}, log);
  std::stringstream s(readText(log));
  std::string line;
  while (std::getline(s, line))
    if (line.find("Version") != std::string::npos) return "Nsight Compute (ncu) " + trim(line);
  return "Nsight Compute (" + ncu + ")";
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A rate, or "-" when ncu did not report it.
std::string rate(double v, int digits) { return v < 0 ? std::string("-") : formatFixed(v, digits); }

void printCounters(std::ostream& os, const RunResult& run) {
  os << "\nkernel counters (Nsight Compute; profiled run: times are the profiler's)\n"
     << std::left << std::setw(22) << "variant" << std::setw(34) << "kernel" << std::right
     << std::setw(9) << "ld s/req" << std::setw(9) << "st s/req" << std::setw(10) << "shm conf"
     << std::setw(9) << "occ %" << std::setw(9) << "theo %" << std::setw(11) << "DRAM MB"
     << std::setw(11) << "ideal MB" << std::setw(8) << "L2 %" << "\n";
  for (const auto& v : run.variants)
    for (const auto& c : v.counters) {
      double ideal = 0;
      for (const auto& k : v.kernels)
        if (k.name.substr(0, k.name.find(' ')) == c.kernel) ideal = k.bytes * k.launches;
      const double conflicts = c.sharedLoadRequests + c.sharedStoreRequests > 0
                                   ? (c.sharedLoadBankConflicts + c.sharedStoreBankConflicts) /
                                         (c.sharedLoadRequests + c.sharedStoreRequests)
                                   : 0.0;
      os << std::left << std::setw(22) << v.variant.substr(0, 21) << std::setw(34)
         << c.kernel.substr(0, 33) << std::right << std::setw(9)
         << formatFixed(c.loadSectorsPerRequest(), 2) << std::setw(9)
         << formatFixed(c.storeSectorsPerRequest(), 2) << std::setw(10)
         << formatFixed(conflicts, 2) << std::setw(9) << rate(c.achievedOccupancyPct, 1)
         << std::setw(9) << rate(c.theoreticalOccupancyPct, 1) << std::setw(11)
         << formatFixed((c.dramBytesRead + c.dramBytesWritten) / 1e6, 2) << std::setw(11)
         << (ideal > 0 ? formatFixed(ideal / 1e6, 2) : std::string("-")) << std::setw(8)
         << rate(c.l2HitRatePct, 1) << "\n";
    }
}

// The models beside the counters (kernellab/model_vs_counters.h), one table per comparison.
void printComparisons(std::ostream& os, const RunResult& run) {
  std::vector<std::string> skipped;
  const std::vector<CounterComparison> access = accessComparison(run, &skipped);
  const std::vector<CounterComparison> occupancy = occupancyComparison(run);
  const std::vector<CounterComparison> memory = memoryComparison(run);
  auto table = [&os](const char* title, const std::vector<CounterComparison>& rows) {
    if (rows.empty()) return;
    os << "\n" << title << "\n"
       << std::left << std::setw(22) << "variant" << std::setw(30) << "kernel" << std::setw(40)
       << "quantity" << std::right << std::setw(10) << "model" << std::setw(11) << "measured"
       << "  agree\n";
    int differ = 0;
    for (const CounterComparison& c : rows) {
      const auto value = [&c](double v) {
        const int digits = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
        return formatFixed(v, digits) + (c.unit.empty() ? "" : " " + c.unit);
      };
      os << std::left << std::setw(22) << c.variant.substr(0, 21) << std::setw(30)
         << c.kernel.substr(0, 29) << std::setw(40) << c.quantity.substr(0, 39) << std::right
         << std::setw(10) << (c.hasPrediction ? value(c.predicted) : std::string("-"))
         << std::setw(11) << value(c.measured) << "  "
         << (!c.hasPrediction ? "(no model)" : c.agrees ? "yes" : "NO") << "\n";
      differ += c.hasPrediction && !c.agrees;
    }
    os << differ << " of " << rows.size() << " rows differ beyond the tolerance\n";
  };
  table("access model beside the counters (sectors per request, bank conflicts per request; "
        "tolerance 10 % or 0.5)",
        access);
  for (const std::string& s : skipped) os << "  not modelled: " << s << "\n";
  table("occupancy calculator beside the counters (tolerance one percentage point)", occupancy);
  table("ideal bytes beside DRAM's (tolerance 10 %), L2 and warp efficiency measured", memory);
}

// An ncu report of one variant: a few hundred kB for thousands of launches.
constexpr uint64_t kMaxReportBytes = uint64_t(256) << 20;

// --reread: the counters of an earlier profile, from the reports it kept, attached to its run.
int rereadProfile(const CliOptions& o) {
  if (o.requestPath.empty())
    throw InputError("--reread " + o.rereadDir +
                     " needs --request FILE: the results file of the profiled run");
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  ResultsFile in = readResultsFile(o.requestPath);
  if (in.runs.size() != 1)
    throw InputError("--request " + o.requestPath + " holds " + std::to_string(in.runs.size()) +
                     " runs; --reread takes the results file of one profiled run");
  RunResult run = in.runs[0];
  bool ok = true;
  for (VariantResult& v : run.variants) {
    const std::string report =
        o.rereadDir + "/" + toString(run.request.family) + "-" + v.variant + ".csv";
    std::string text;
    try {
      text = readTextFile(report, 4.0, kMaxReportBytes);
    } catch (const InputError& e) {
      std::cerr << "kernellab-cli profile --reread: " << v.variant << ": " << e.what() << "\n";
      ok = false;
      continue;
    }
    try {
      v.counters = parseNcuCsv(text);
    } catch (const InputError& e) {
      std::cerr << "kernellab-cli profile --reread: " << report << ": " << e.what() << "\n";
      ok = false;
    }
  }
  if (!run.profile) {
    ProfileInfo info;
    info.tool = "Nsight Compute (ncu), reports re-read from " + o.rereadDir;
    info.metrics = profileMetrics();
    info.note = "counters re-read from ncu reports kept by kernellab-cli profile --reports";
    run.profile = info;
  }
  printCounters(std::cout, run);
  printComparisons(std::cout, run);
  if (!o.jsonPath.empty()) {
    ResultsFile file;
    file.runs.push_back(run);
    writeResultsFile(o.jsonPath, file);
  }
  return ok ? 0 : 1;
}

}  // namespace

int cmdProfile(const CliOptions& o) {
  if (!o.rereadDir.empty()) return rereadProfile(o);
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  if (!o.reportsDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.reportsDir, ec);
    checkWritable(o.reportsDir + "/probe.csv", "--reports");
  }
  RunRequest r = o.requestPath.empty() ? buildRequest(o, false) : readRequestFile(o.requestPath);
  const std::string ncu = findNcu();
  if (ncu.empty()) {
    std::cerr << "kernellab-cli profile: Nsight Compute (ncu) was not found (KERNELLAB_NCU, "
                 "PATH, /usr/local/cuda/bin); nothing was run\n";
    return 2;
  }
  r.backend = BackendChoice::Cuda;
  const BackendDecision d = decideBackend(BackendChoice::Auto);
  if (!d.useCuda) {
    std::cerr << "kernellab-cli profile: the GPU's counters need a working CUDA device, and " << d.note
              << "; nothing was run\n";
    return 2;
  }
  validateRequest(r);
  std::vector<std::string> variants = r.variants;
  if (variants.empty() || (variants.size() == 1 && toLower(variants[0]) == "all")) {
    variants.clear();
    for (const auto& v : describeVariants(r.family)) variants.push_back(v.id);
  }

  char pattern[] = "/tmp/kernellab-profile-XXXXXX";
  const char* made = ::mkdtemp(pattern);
  if (!made) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  const std::string dir = made;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};

  const std::string self = selfPath();
  RunResult out;
  bool first = true, ok = true;
  for (size_t i = 0; i < variants.size(); ++i) {
    RunRequest rv = r;
    rv.variants = {variants[i]};
    rv.warmup = 0;
    rv.repetitions = 1;
    rv.measureCeilings = false;  // the copy ceiling's kernels are not the variant's
    rv.verify = false;           // the CPU reference is not what is measured here
    const std::string base = dir + "/v" + std::to_string(i);
    writeRequestFile(base + ".request.json", rv);
    std::cerr << "profile: " << variants[i] << " under ncu ...\n";
    const int rc = runProcess({ncu, "--csv", "--print-units", "base", "--print-kernel-base",
                               "function", "--clock-control", "none", "--metrics",
                               joined(profileMetrics(), ","), "--log-file", base + ".csv", self,
                               "run", "--request", base + ".request.json", "--backend", "cuda",
                               "--json", base + ".json"},
                              base + ".log");
    const std::string report = readText(base + ".csv"), log = readText(base + ".log");
    if (!o.reportsDir.empty())
      writeFileAtomically(o.reportsDir + "/" + toString(r.family) + "-" + variants[i] + ".csv",
                          report);
    if (report.find("ERR_NVGPUCTRPERM") != std::string::npos ||
        log.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      std::cerr << "kernellab-cli profile: ncu may not read the GPU's performance counters here "
                   "(ERR_NVGPUCTRPERM: profile as root, or allow counters for all users); "
                   "nothing more was run\n";
      return 2;
    }
    if (!std::filesystem::exists(base + ".json")) {
      std::cerr << "kernellab-cli profile: " << variants[i] << ": the profiled run wrote no results ("
                << "exit " << rc << "): " << lastLines(log + report, 6) << "\n";
      ok = false;
      continue;
    }
    ResultsFile f = readResultsFile(base + ".json");
    if (f.runs.empty() || f.runs[0].variants.empty()) continue;
    VariantResult vr = f.runs[0].variants[0];
    try {
      vr.counters = parseNcuCsv(report);
    } catch (const InputError& e) {
      std::cerr << "kernellab-cli profile: " << variants[i] << ": " << e.what() << "; "
                << lastLines(report, 4) << "\n";
      ok = false;
    }
    if (first) {
      out = f.runs[0];
      out.variants.clear();
      first = false;
    }
    ok = ok && vr.ok;
    out.variants.push_back(std::move(vr));
  }
  if (first) return 1;
  out.request.variants = variants;
  out.request.warmup = 0;
  out.request.repetitions = 1;
  out.request.measureCeilings = false;
  out.request.verify = false;
  ProfileInfo info;
  info.tool = ncuVersion(ncu, dir);
  info.metrics = profileMetrics();
  info.note = "profiled run: each variant alone under Nsight Compute (--clock-control none), "
              "warm-up 0, 1 repetition, no ceilings, not verified; its times are the "
              "profiler's (kernels replayed for the counters), not benchmark times";
  out.profile = info;
  printCounters(std::cout, out);
  printComparisons(std::cout, out);
  if (!o.jsonPath.empty()) {
    ResultsFile file;
    file.runs.push_back(out);
    writeResultsFile(o.jsonPath, file);
  }
  return ok ? 0 : 1;
}

}  // namespace kernellab::cli

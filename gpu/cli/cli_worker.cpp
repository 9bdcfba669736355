// SPDX-License-Identifier: MIT
// kernellab-cli worker: jobs in (JSON lines on stdin, or one request file), frames out (stdout).
#include "cli_worker.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "cli_output.h"
#include "kernellab/atomic_file.h"
#include "kernellab/backend.h"
#include "kernellab/device_fault.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/input_file.h"
#include "kernellab/input_text.h"
#include "kernellab/json_io.h"
#include "kernellab/results_validation.h"
#include "kernellab/run_table.h"
#include "kernellab/text.h"
#include "kernellab/worker_protocol.h"

namespace kernellab::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto kProgressInterval = std::chrono::milliseconds(40);  // at most 25 a second
constexpr int kDefaultLabelsMs = 100;

std::mutex outMutex;

// One frame on stdout, whole, flushed. A window that went away makes the write fail (SIGPIPE
// ends the worker, as it should).
void send(const json& event) {
  const std::string frame = worker::encodeEvent(event);
  std::lock_guard<std::mutex> lock(outMutex);
  std::fwrite(frame.data(), 1, frame.size(), stdout);
  std::fflush(stdout);
}

int announcedProtocol() {
  if (const char* v = std::getenv(worker::kProtocolOverrideEnv)) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && *end == '\0' && n > 0 && n < 1000000) return static_cast<int>(n);
  }
  return worker::kProtocol;
}

json helloEvent() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  json j{{"event", "hello"},
         {"protocol", announcedProtocol()},
         {"schema_version", kSchemaVersion},
         {"tool", toolVersion()},
         {"pid", static_cast<int64_t>(getpid())},
         {"pgid", static_cast<int64_t>(getpgrp())},
         {"host", std::string(host)},
         {"backend", backendStatus()},
         {"summary", backendSummary()}};
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) j["cuda_visible_devices"] = v;
  return j;
}

// Jobs arrive on stdin, read on their own thread so that a cancel line, or the end of stdin
// (the window or the connection gone), is seen while a job runs.
class Jobs {
 public:
  Jobs(bool lifeline, std::atomic<bool>& cancel) : lifeline_(lifeline), cancel_(cancel) {}

  void start() {
    std::thread([this] { read(); }).detach();
  }

  // The next job line; empty at the end of the input.
  std::string next() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return !lines_.empty() || eof_; });
    if (lines_.empty()) return {};
    std::string line = std::move(lines_.front());
    lines_.pop_front();
    return line;
  }

  // Called as job `id` starts: a cancel of it that came early still counts.
  void begin(int64_t id) {
    current_.store(id);
    cancel_.store(id != 0 && id <= cancelUpTo_.load());
  }

 private:
  void read() {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      if (isCancel(line)) continue;
      std::lock_guard<std::mutex> lock(m_);
      lines_.push_back(std::move(line));
      cv_.notify_one();
    }
    if (lifeline_) {
      // The window closed our stdin, or the SSH connection that carried it is gone: nobody will
      // read what we compute. End now, even in the middle of a launch.
      std::fflush(stdout);
      std::_Exit(0);
    }
    std::lock_guard<std::mutex> lock(m_);
    eof_ = true;
    cv_.notify_one();
  }

  // {"command":"cancel","job":N}: stop job N (and earlier ones) between two launches.
  bool isCancel(const std::string& line) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("command", "") != "cancel") return false;
    const int64_t id = j.value("job", int64_t(0));
    int64_t seen = cancelUpTo_.load();
    while (seen < id && !cancelUpTo_.compare_exchange_weak(seen, id)) {
    }
    if (current_.load() != 0 && current_.load() <= cancelUpTo_.load()) cancel_.store(true);
    return true;
  }

  bool lifeline_;
  std::atomic<bool>& cancel_;
  std::atomic<int64_t> cancelUpTo_{0};
  std::atomic<int64_t> current_{0};
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::string> lines_;
  bool eof_ = false;
};

// KERNELLAB_GPU_FAULT=<variant>: fault as that variant starts (worker_protocol.h).
void faultIfAsked(const std::string& stage, bool onCuda) {
  static const char* variant = std::getenv(worker::kFaultEnv);
  if (!variant || !*variant) return;
  const std::string mark = std::string("running ") + variant;
  const size_t at = stage.find(mark);
  if (at == std::string::npos) return;
  const size_t after = at + mark.size();
  if (after < stage.size() && stage[after] != ':') return;  // "running naive-x" is another variant
  if (onCuda && trapOnDevice()) return;  // throws the sticky CUDA error before this line
  std::cerr << "kernellab-cli worker: " << worker::kFaultEnv << "=" << variant
            << ": emulated GPU fault in variant '" << variant
            << "' (the CPU backend has no device to trap); aborting the worker" << std::endl;
  std::abort();
}

struct JobOutcome {
  int exitCode = 0;
  bool stop = false;  // the worker must not take another job
};

JobOutcome runJob(const json& job, std::atomic<bool>& cancel) {
  const int64_t id = job.value("job", int64_t(0));
  JobOutcome out;
  try {
    const int protocol = job.value("protocol", 0);
    if (protocol != worker::kProtocol) {
      send({{"event", "error"},
            {"job", id},
            {"input_error", false},
            {"protocol_mismatch", true},
            {"message", "the window speaks worker protocol " + std::to_string(protocol) +
                            ", this worker (" + toolVersion() + ") protocol " +
                            std::to_string(worker::kProtocol)}});
      return {2, true};
    }
    const std::string command = job.value("command", "");
    if (command != "run" && command != "sweep")
      throw InputError("unknown worker command '" + excerpt(command) + "' (run, sweep)");
    const RunRequest request = parseRequest(job.at("request").dump());
    const bool onCuda = decideBackend(request.backend).useCuda;
    const int labelsMs = std::max(0, job.value("live_labels_ms", kDefaultLabelsMs));

    // The first iteration's labels go out at once (the view shows the start), then a few a second.
    Clock::time_point lastProgress{}, lastLabels{};
    double shown = 0;  // progress never goes backwards, whatever a stage reports
    RunHooks hooks;
    hooks.cancel = &cancel;
    hooks.progress = [&](const std::string& stage, double fraction) {
      faultIfAsked(stage, onCuda);
      const auto now = Clock::now();
      if (now - lastProgress < kProgressInterval && fraction < 1.0) return;
      lastProgress = now;
      shown = std::max(shown, std::clamp(fraction, 0.0, 1.0));
      send({{"event", "progress"}, {"job", id}, {"stage", stage}, {"fraction", shown}});
    };
    hooks.iteration = [&](const std::string& variant, const IterationRecord& record,
                          const ClusteringOutput& current) {
      // Every record goes out (the score chart needs them all); labels a few times a second.
      json e{{"event", "iteration"}, {"job", id}, {"variant", variant}, {"record", record}};
      const auto now = Clock::now();
      if (labelsMs > 0 && now - lastLabels >= std::chrono::milliseconds(labelsMs) &&
          (!current.labels.empty() || !current.centers.empty())) {
        lastLabels = now;
        e["current"] = current;
      }
      send(e);
    };

    ResultsFile file;
    if (command == "run") {
      file.runs.push_back(runExperiment(request, hooks));
    } else {
      const auto axes = job.at("axes").get<std::vector<SweepAxis>>();
      file = runSweep(request, axes, hooks);
    }
    bool ok = true;
    for (const auto& run : file.runs) ok = ok && run.ok;
    const double sentAt = std::chrono::duration<double, std::milli>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    send({{"event", "result"}, {"job", id}, {"sent_at_ms", sentAt}, {"results", file}});
    out.exitCode = ok ? 0 : 1;
  } catch (const Cancelled&) {
    send({{"event", "cancelled"}, {"job", id}});
    out.exitCode = 130;
  } catch (const InputError& e) {
    send({{"event", "error"}, {"job", id}, {"input_error", true}, {"message", e.what()}});
    out.exitCode = 2;
  } catch (const std::exception& e) {
    send({{"event", "error"}, {"job", id}, {"input_error", false}, {"message", e.what()}});
    out.exitCode = 3;
  }
  return out;
}

std::vector<SweepAxis> parseAxes(const std::string& text) {
  std::vector<SweepAxis> axes;
  for (const std::string& part : splitList(text, ';')) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
      throw InputError("--sweep " + text + ": expected AXIS=V1,V2[;AXIS=...], e.g. tpb=64,128,256");
    axes.push_back({part.substr(0, eq), splitList(part.substr(eq + 1))});
  }
  return axes;
}

}  // namespace

CLI::App* addWorkerCommand(CLI::App& app, WorkerOptions& o) {
  auto* w = app.add_subcommand(
      "worker",
      "Run jobs for the KernelLab window (JSON lines on stdin) and answer with the worker "
      "protocol's frames on stdout (docs/architecture.md)");
  w->add_option("--request", o.requestPath,
                "Run this request file once instead of reading jobs (the stream piped to a file)");
  w->add_option("--sweep", o.sweepAxes,
                "With --request: run it as a sweep, AXIS=V1,V2[;AXIS=...], e.g. tpb=64,128,256");
  w->add_flag("--hello", o.helloOnly, "Print the hello frame (versions, devices) and exit");
  w->add_option("--decode", o.decodePath,
                "Read a stream a worker wrote (e.g. worker --request r.json > r.klw): print its "
                "events and the result's table, as `run` prints it");
  w->add_option("--json", o.jsonPath, "With --decode: write the stream's results file");
  w->add_flag(
      "--lifeline", o.lifeline,
      "The end of stdin ends the worker at once, even during a launch (the window uses it)");
  return w;
}

namespace {

// --decode: the stream as a reader sees it, so a run piped to a file on a GPU server can be
// compared with `kernellab-cli run --request` there. Exit code as `run`'s: 0 ok, 1 a variant
// failed, 3 no result (the stream's error is printed).
int decodeStream(const WorkerOptions& o) {
  if (!o.jsonPath.empty()) checkWritable(o.jsonPath, "--json");
  // A regular file only (a FIFO or device is refused without blocking), read in pieces.
  const InputFile in(o.decodePath);
  worker::FrameReader reader;
  std::vector<char> piece(1 << 20);
  for (uint64_t at = 0; at < in.size();) {
    const size_t n = in.readSome(at, piece.data(), piece.size());
    if (n == 0) break;
    reader.feed(piece.data(), n);
    at += n;
  }
  int exitCode = 3;
  int frames = 0;
  while (auto f = reader.next()) {
    ++frames;
    json e = worker::decodeFrame(*f);
    const std::string name = e.value("event", std::string());
    if (name == "result") {
      const ResultsFile file = e.at("results").get<ResultsFile>();
      validateResultsFile(file);
      bool ok = true;
      for (const auto& run : file.runs) {
        std::cout << "\n";
        printRunTable(std::cout, run);
        ok = ok && run.ok;
      }
      if (!o.jsonPath.empty()) writeResultsFile(o.jsonPath, file);
      exitCode = ok ? 0 : 1;
      continue;
    }
    if (name == "hello") e.erase("backend");  // the summary says it in one line
    if (e.contains("current")) {
      const auto& c = e["current"];
      e["current"] = {{"labels", c.value("labels", json::array()).size()},
                      {"centers", c.value("centers", json::array()).size()}};
    }
    std::cout << e.dump() << "\n";
  }
  if (!reader.noise().empty())
    std::cout << "(before the first frame: " << excerpt(reader.noise(), 400) << ")\n";
  if (!reader.error().empty()) throw InputError("--decode " + o.decodePath + ": " + reader.error());
  if (reader.pending() > 0)
    std::cout << "(the stream ends inside a frame: " << reader.pending()
              << " bytes of it; the worker died?)\n";
  std::cout << frames << " frames\n";
  return exitCode;
}

}  // namespace

int cmdWorker(const WorkerOptions& o) {
  if (!o.decodePath.empty()) return decodeStream(o);
  // Our own process group: the window (or a remote `kill -- -PGID`) ends the worker and anything
  // it started in one call. Fails harmlessly when we already lead a session (ssh, setsid).
  setpgid(0, 0);
  if (!o.sweepAxes.empty() && o.requestPath.empty())
    throw InputError("--sweep needs --request FILE (jobs on stdin carry their own axes)");
  json firstJob;
  if (!o.requestPath.empty()) {
    // Read before the hello, so a bad file is a plain CLI error (exit 2, one line on stderr).
    firstJob = {{"protocol", worker::kProtocol},
                {"job", 1},
                {"command", o.sweepAxes.empty() ? "run" : "sweep"},
                {"request", readRequestFile(o.requestPath)}};
    if (!o.sweepAxes.empty()) firstJob["axes"] = parseAxes(o.sweepAxes);
  }
  const json hello = helloEvent();
  send(hello);
  if (o.helloOnly) return 0;
  const bool cudaAtStart = hello["backend"].value("cuda_usable", false);

  std::atomic<bool> cancel{false};
  if (!firstJob.is_null()) return runJob(firstJob, cancel).exitCode;

  Jobs jobs(o.lifeline, cancel);
  jobs.start();
  int exitCode = 0;
  for (std::string line = jobs.next(); !line.empty(); line = jobs.next()) {
    json job = json::parse(line, nullptr, false);
    if (!job.is_object()) {
      send({{"event", "error"},
            {"job", 0},
            {"input_error", true},
            {"message", "a job line is not a JSON object: " + excerpt(line)}});
      exitCode = 2;
      continue;
    }
    jobs.begin(job.value("job", int64_t(0)));
    const JobOutcome outcome = runJob(job, cancel);
    exitCode = outcome.exitCode;
    if (outcome.stop) return exitCode;
    // A sticky CUDA error poisoned this process's context: a fresh worker must take the next job.
    if (cudaAtStart && !backendStatus().cudaUsable) {
      send({{"event", "bye"}, {"reason", "CUDA context lost: " + backendStatus().cudaReason}});
      return 3;
    }
    send({{"event", "ready"}});
  }
  return exitCode;
}

}  // namespace kernellab::cli

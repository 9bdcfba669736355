// SPDX-License-Identifier: MIT
// `kernellab-cli worker`: the process the window runs every experiment in, on this machine, over
// SSH or through a scheduler. It speaks the worker protocol (kernellab/worker_protocol.h).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace kernellab::cli {

struct WorkerOptions {
  std::string requestPath;  // run this request file (GUI-less: the stream piped to a file)
  std::string sweepAxes;    // with requestPath: "tpb=64,128;tile=16,32" runs it as a sweep
  bool helloOnly = false;   // print the hello (versions, devices) and exit: a target's probe
  bool lifeline = false;    // stdin's end ends the worker at once (the window is gone)
  std::string decodePath;   // read a stream a worker wrote (--request FILE > x.klw) and show it
  std::string jsonPath;     // with decodePath: write its results file here
};

CLI::App* addWorkerCommand(CLI::App& app, WorkerOptions& o);
int cmdWorker(const WorkerOptions& o);

}  // namespace kernellab::cli

// SPDX-License-Identifier: MIT
// kernellab-cli's model commands: occupancy, schedule, access. They need no GPU (except
// `--arch device`); exit 0 on success, 2 on bad input (one line on stderr).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/occupancy.h"

namespace CLI {
class App;
}

namespace kernellab::cli {

struct ModelOptions {
  std::string arch = "hopper";
  int tpb = 256;
  int regs = 0;
  int smem = -1;            // -1: occupancy 0; schedule: the padded tile's tile*(tile+1)*4 bytes
  std::string grid = "64x64";
  std::string mapping = "both";
  int tile = 32;
  int sms = 0;              // 0: the architecture's
  int blocksPerSM = 0;      // 0: from the occupancy model
  int partitions = 8;
  int partitionBytes = 256;
  bool hashed = false;
  int waves = 6;            // waves printed per mapping
  std::string family = "transpose";
  std::string variant;
  std::string kernel;       // access: kmeans assign|centroids|score, kcenters distance|select
  int warp = 0;
  std::string block = "0,0";
  bool lanes = false;
  // access: the problem as `kernellab-cli run` takes it (the families' parameters by name; empty:
  // the run's default).
  std::map<std::string, std::string> params;
  std::optional<uint64_t> seed;
  std::string jsonPath;
};

void addOccupancyOptions(CLI::App* cmd, ModelOptions& o);
void addScheduleOptions(CLI::App* cmd, ModelOptions& o);
void addAccessOptions(CLI::App* cmd, ModelOptions& o);
// The families' parameters the access command takes under another name: KNN's --block (the
// block shape) is --block-shape, --block being the traced blockIdx.
const std::map<std::string, std::string>& accessRenamed();

int cmdOccupancy(const ModelOptions& o);
int cmdSchedule(const ModelOptions& o);
int cmdAccess(const ModelOptions& o);

// "device" (this machine's GPU, InputError when none works) or a preset id.
occupancy::ArchSpec resolveArch(const std::string& id);

// The verify command's occupancy check: calculator vs cudaOccupancyMaxActiveBlocksPerMultiprocessor
// for every distinct kernel configuration; prints the comparison, returns how many disagree.
int printOccupancyChecks(std::ostream& out, const std::vector<occupancy::DeviceCheck>& checks,
                         const std::string& deviceName);

}  // namespace kernellab::cli

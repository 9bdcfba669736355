// SPDX-License-Identifier: MIT
// The experiment request: one model used by the GUI, the CLI and the tests. What every family
// shares is here; each family's own part (the transpose's matrix, k-means's points) is a section
// its folder defines (RunRequest::section), written to JSON by its descriptor (family.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernellab/family_id.h"
#include "kernellab/sections.h"

namespace kernellab {

enum class BackendChoice { Auto, Cpu, Cuda };

// Launch configuration, the way CUB uses policies: the knob every family reads. A family's own
// launch knobs (the transpose's tile, KNN's block shape) live in its section.
struct LaunchConfig {
  int threadsPerBlock = 256;
};

struct RunRequest {
  Family family;                      // a registered family (family.h); empty: none chosen
  std::vector<std::string> variants;  // variant ids of the family; empty = every variant
  LaunchConfig launch;
  int warmup = 2;
  int repetitions = 10;
  uint64_t seed = 1;
  BackendChoice backend = BackendChoice::Auto;
  bool verify = true;
  bool recordSchedule = false;  // per-block %smid and %globaltimer records
  bool measureCeilings = true;  // cudaMemcpy device-to-device (or memcpy on the CPU) in the run
  // The families' own parts: TransposeProblem, ClusteringProblem, KnnProblem, ... A request may
  // hold several (the window keeps every family's settings); JSON writes its family's only.
  Sections sections;

  // The section of type S, made with its defaults when absent.
  template <class S>
  S& section() {
    return sections.get<S>();
  }
  // The section of type S, or S's defaults when absent.
  template <class S>
  const S& section() const {
    return sections.get<S>();
  }
};

// One axis of a sweep: every request is the base request with one value changed.
struct SweepAxis {
  std::string name;  // a parameter of the family ("tpb", "tile", "size", "n", ...)
  std::vector<std::string> values;
};

// Names used in JSON, on the CLI and in the window.
const char* toString(BackendChoice b);
std::optional<BackendChoice> backendFromString(const std::string& s);

// Applies one sweep value to a copy of the request (the family's parameter of that name,
// family.h); throws InputError on an unknown axis or a bad value.
RunRequest applySweepValue(const RunRequest& base, const std::string& axis,
                           const std::string& value);

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// kernellab-cli's clustering output: per-kernel details of a run and `bench clustering` (the
// thesis's figure 19 beside the measured times, the bandwidth floor, the k-means kernel table).
#pragma once

#include <iosfwd>
#include <string>

#include "cli_commands.h"
#include "kernellab/result.h"

namespace kernellab::cli {

// Per variant: iterations, inertia, cluster sizes, each kernel's launches and times, the phases;
// then the seed's speed-up and gain of every variant against the slowest.
void printClusteringDetails(std::ostream& out, const RunResult& run);
void printClusteringSpeedups(std::ostream& out, const RunResult& run);

// `bench clustering|kcenters|kmeans`: appends every run to `file`; false when a run failed.
bool benchClustering(const CliOptions& o, BackendChoice backend, const std::string& part,
                     ResultsFile& file);

}  // namespace kernellab::cli

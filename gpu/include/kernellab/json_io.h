// SPDX-License-Identifier: MIT
// JSON form of requests and results (documented in docs/results-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab {

// nlohmann-json finds these by argument-dependent lookup: `json j = result;` and `j.get<RunResult>()`.
void to_json(nlohmann::json& j, const LaunchConfig& v);
void from_json(const nlohmann::json& j, LaunchConfig& v);
void to_json(nlohmann::json& j, const RunRequest& v);
void from_json(const nlohmann::json& j, RunRequest& v);
void to_json(nlohmann::json& j, const SweepAxis& v);
void from_json(const nlohmann::json& j, SweepAxis& v);
void to_json(nlohmann::json& j, const DeviceInfo& v);
void from_json(const nlohmann::json& j, DeviceInfo& v);
void to_json(nlohmann::json& j, const BackendStatus& v);
void from_json(const nlohmann::json& j, BackendStatus& v);
void to_json(nlohmann::json& j, const TimingStats& v);
void from_json(const nlohmann::json& j, TimingStats& v);
void to_json(nlohmann::json& j, const ResourceUsage& v);
void from_json(const nlohmann::json& j, ResourceUsage& v);
void to_json(nlohmann::json& j, const Verification& v);
void from_json(const nlohmann::json& j, Verification& v);
void to_json(nlohmann::json& j, const BlockRecord& v);
void from_json(const nlohmann::json& j, BlockRecord& v);
void to_json(nlohmann::json& j, const KernelResult& v);
void from_json(const nlohmann::json& j, KernelResult& v);
void to_json(nlohmann::json& j, const PhaseTiming& v);
void from_json(const nlohmann::json& j, PhaseTiming& v);
void to_json(nlohmann::json& j, const IterationRecord& v);
void from_json(const nlohmann::json& j, IterationRecord& v);
void to_json(nlohmann::json& j, const ClusteringOutput& v);
void from_json(const nlohmann::json& j, ClusteringOutput& v);
void to_json(nlohmann::json& j, const VariantResult& v);
void from_json(const nlohmann::json& j, VariantResult& v);
void to_json(nlohmann::json& j, const Ceiling& v);
void from_json(const nlohmann::json& j, Ceiling& v);
void to_json(nlohmann::json& j, const MeasuredCounters& v);
void from_json(const nlohmann::json& j, MeasuredCounters& v);
void to_json(nlohmann::json& j, const ProfileInfo& v);
void from_json(const nlohmann::json& j, ProfileInfo& v);
void to_json(nlohmann::json& j, const RunResult& v);
void from_json(const nlohmann::json& j, RunResult& v);
void to_json(nlohmann::json& j, const ResultsFile& v);
void from_json(const nlohmann::json& j, ResultsFile& v);

// Parses a results file's text. Throws InputError naming what is wrong: not JSON (with the byte
// offset), not a KernelLab results file, a schema newer than this build, a field of the wrong type.
ResultsFile parseResultsFile(const std::string& text);
ResultsFile readResultsFile(const std::string& path);
void writeResultsFile(const std::string& path, const ResultsFile& file, int indent = 2);

// A request alone (the GUI's --config and the CLI's --request). Accepts a bare request object,
// {"schema_version": N, "request": {...}}, or a results file of one run (its request). A request
// of schema_version 1 ran k-means with Campaign's score rule and is read so.
RunRequest parseRequest(const std::string& text);
RunRequest readRequestFile(const std::string& path);
void writeRequestFile(const std::string& path, const RunRequest& request);

// Requests and results carry only their family's sections. The window's saved settings keep
// every family's (the panel remembers the transpose size while k-means is shown): this writes
// them all; parseRequest reads either form.
nlohmann::json requestWithAllSections(const RunRequest& request);

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// JSON form of the models' answers (occupancy, block schedule, access pattern), written by
// `kernellab-cli occupancy|schedule|access --json` and documented in docs/models.md. Output only.
#pragma once

#include <nlohmann/json.hpp>

#include "kernellab/access_model.h"
#include "kernellab/occupancy.h"
#include "kernellab/schedule_model.h"

namespace kernellab {

nlohmann::json toJson(const occupancy::ArchSpec& a);
nlohmann::json toJson(const occupancy::Result& r);
nlohmann::json toJson(const occupancy::Charts& c);
nlohmann::json toJson(const occupancy::DeviceCheck& c);
// `blocks` false leaves out the per-block placements (large grids).
nlohmann::json toJson(const schedule::Model& m, bool blocks = true);
nlohmann::json toJson(const access::WarpReport& r);

// {"kind": kind, "schema_version": 1, "tool": ..., <body>}: the envelope of every model file.
nlohmann::json modelFile(const std::string& kind, nlohmann::json body);

}  // namespace kernellab

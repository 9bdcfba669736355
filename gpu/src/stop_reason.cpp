// SPDX-License-Identifier: MIT
// Names and one-line descriptions of why a k-means run stopped, shared by the
// JSON, the CLI, the window's results table and the report.
#include <array>
#include <utility>

#include "kernellab/result.h"

namespace kernellab {
namespace {

constexpr std::array<std::pair<StopReason, const char *>, 4> kReasons{{
    {StopReason::None, ""},
    {StopReason::Converged, "converged"},
    {StopReason::ScoreRule, "score-rule"},
    {StopReason::IterationLimit, "iteration-limit"},
}};

std::string iterationsText(int n) {
  return std::to_string(n) + (n == 1 ? " iteration" : " iterations");
}

}  // namespace

const char *toString(StopReason r) {
  for (const auto &[reason, name] : kReasons)
    if (reason == r) return name;
  return "";
}

std::optional<StopReason> stopReasonFromString(const std::string &s) {
  for (const auto &[reason, name] : kReasons)
    if (s == name) return reason;
  return std::nullopt;
}

std::string describeStop(StopReason r, int iterations) {
  switch (r) {
    case StopReason::Converged:
      return "converged after " + iterationsText(iterations) + " (no point changed cluster)";
    case StopReason::ScoreRule:
      return "score rule met after " + iterationsText(iterations) +
             " (score changed by at most epsilon of itself)";
    case StopReason::IterationLimit:
      return "iteration limit reached after " + iterationsText(iterations) +
             " (the stop rule was not met)";
    case StopReason::None:
      break;
  }
  return {};
}

}  // namespace kernellab

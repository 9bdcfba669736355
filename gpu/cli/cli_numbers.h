// SPDX-License-Identifier: MIT
// Numeric options of kernellab-cli: CLI11 parses the command line, the numbers go through
// kernellab's checked layer (checked_number.h), so an option and a request file's field are
// refused alike, with the value and the limit. An option left out keeps its variable unset.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kernellab::cli {

CLI::Option* addIntOption(CLI::App* cmd, const std::string& name, std::optional<int>& out,
                          const std::string& help);
// Model options with a default value in the variable.
CLI::Option* addIntOption(CLI::App* cmd, const std::string& name, int& out,
                          const std::string& help);
// Finite reals in [min, max] ("nan", "inf", "1e400" refused).
CLI::Option* addRealOption(CLI::App* cmd, const std::string& name, std::optional<double>& out,
                           const std::string& help,
                           double min = -std::numeric_limits<double>::max(),
                           double max = std::numeric_limits<double>::max());
// A seed: 0..2^64-1; -1 is refused as negative (it used to mean "the default" silently).
CLI::Option* addSeedOption(CLI::App* cmd, const std::string& name, std::optional<uint64_t>& out,
                           const std::string& help);

}  // namespace kernellab::cli

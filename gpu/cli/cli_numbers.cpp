// SPDX-License-Identifier: MIT
// CLI11 options whose text is converted by the checked number layer.
#include "cli_numbers.h"

#include <CLI/CLI.hpp>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"

namespace kernellab::cli {
namespace {

// Runs `convert` on the option's text; a refusal becomes CLI11's validation error, which main()
// reports like every other bad option (exit code 2, one line).
template <class Convert>
CLI::Option* addChecked(CLI::App* cmd, const std::string& name, const std::string& help,
                        const char* typeName, Convert convert) {
  auto* opt = cmd->add_option_function<std::string>(
      name,
      [name, convert](const std::string& text) {
        try {
          convert(text);
        } catch (const InputError& e) {
          throw CLI::ValidationError(e.what());
        }
      },
      help);
  opt->type_name(typeName);
  return opt;
}

}  // namespace

CLI::Option* addIntOption(CLI::App* cmd, const std::string& name, std::optional<int>& out,
                          const std::string& help) {
  return addChecked(cmd, name, help, "INT",
                    [&out, name](const std::string& t) { out = parseIntegerAs<int>(t, name); });
}

CLI::Option* addIntOption(CLI::App* cmd, const std::string& name, int& out,
                          const std::string& help) {
  return addChecked(cmd, name, help, "INT",
                    [&out, name](const std::string& t) { out = parseIntegerAs<int>(t, name); });
}

CLI::Option* addRealOption(CLI::App* cmd, const std::string& name, std::optional<double>& out,
                           const std::string& help, double min, double max) {
  return addChecked(cmd, name, help, "FLOAT", [&out, name, min, max](const std::string& t) {
    out = parseFinite(t, name, min, max);
  });
}

CLI::Option* addSeedOption(CLI::App* cmd, const std::string& name, std::optional<uint64_t>& out,
                           const std::string& help) {
  return addChecked(cmd, name, help, "UINT64",
                    [&out, name](const std::string& t) { out = parseUint64(t, name); });
}

}  // namespace kernellab::cli

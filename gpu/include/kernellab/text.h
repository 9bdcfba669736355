// SPDX-License-Identifier: MIT
// Small parsing and formatting helpers shared by the CLI, the request model and the loaders.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kernellab {

std::string toLower(std::string s);
std::vector<std::string> splitList(const std::string& s, char sep = ',');

// Whole-string integer; throws InputError naming `what` and the text.
int64_t parseInteger(const std::string& text, const std::string& what);
// "WxH" (also "W,H" and "WXH"); throws InputError naming `what`.
std::pair<int64_t, int64_t> parseSize(const std::string& text, const std::string& what);
// "AxBxC..." with 1 to 4 positive-or-zero integers.
std::vector<int64_t> parseDims(const std::string& text, const std::string& what);

// "1.23 GB", "512 MiB"-free decimal formatting used in messages.
std::string formatBytes(double bytes);
std::string formatFixed(double v, int decimals);
// Current time as ISO 8601 UTC ("2026-11-29T18:30:00Z").
std::string isoTimestampUtc();

}  // namespace kernellab

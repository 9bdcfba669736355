// SPDX-License-Identifier: MIT
// Small parsing and formatting helpers shared by the CLI, the request model and the loaders.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kernellab {

std::string toLower(std::string s);
std::vector<std::string> splitList(const std::string& s, char sep = ',');

// Whole-string 64-bit integer (checked_number.h); throws InputError naming `what` and the text.
int64_t parseInteger(const std::string& text, const std::string& what);
// "WxH" (also "W,H" and "WXH"); throws InputError naming `what`, the value and the limit.
std::pair<int64_t, int64_t> parseSize(const std::string& text, const std::string& what,
                                      int64_t maxEach = std::numeric_limits<int64_t>::max());
// "AxBxC..." with 2 to 4 integers in 0..maxEach (callers storing int pass INT_MAX, so
// 4294967673x329 is refused instead of wrapping to 377 rows).
std::vector<int64_t> parseDims(const std::string& text, const std::string& what,
                               int64_t maxEach = std::numeric_limits<int64_t>::max());

// "1.23 GB", "512 MiB"-free decimal formatting used in messages.
std::string formatBytes(double bytes);
std::string formatFixed(double v, int decimals);
// printf's %.<significant>g: "1234.5678", "1.5e-07" (tables and CSV cells).
std::string formatGeneral(double v, int significant);
// Shared memory as the CUDA documentation counts it: "512 B", "48 KiB", "4.13 KiB".
std::string formatKiB(double bytes);
// A count with thousands separators: "1,048,576".
std::string formatCount(int64_t n);
// Current time as ISO 8601 UTC ("2026-11-29T18:30:00Z").
std::string isoTimestampUtc();

}  // namespace kernellab

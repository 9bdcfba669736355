// SPDX-License-Identifier: MIT
// Parsing and formatting helpers.
#include "kernellab/text.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/input_text.h"

namespace kernellab {

std::string toLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> splitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

int64_t parseInteger(const std::string& text, const std::string& what) {
  return parseInt64(text, what);
}

std::vector<int64_t> parseDims(const std::string& text, const std::string& what, int64_t maxEach) {
  std::vector<int64_t> dims;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) throw InputError(what + ": '" + excerpt(text) + "' is not of the form AxB");
    dims.push_back(parseInt64(cur, what + " " + excerpt(text) + ":", 0, maxEach));
    cur.clear();
  };
  for (char c : text) {
    if (c == 'x' || c == 'X' || c == ',') flush();
    else cur.push_back(c);
  }
  flush();
  if (dims.size() < 2 || dims.size() > 4)
    throw InputError(what + ": '" + excerpt(text) + "' must have 2 to 4 dimensions, like 1024x768");
  return dims;
}

std::pair<int64_t, int64_t> parseSize(const std::string& text, const std::string& what,
                                      int64_t maxEach) {
  const auto dims = parseDims(text, what, maxEach);
  if (dims.size() != 2) throw InputError(what + ": '" + excerpt(text) + "' must be WIDTHxHEIGHT");
  return {dims[0], dims[1]};
}

std::string formatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string formatGeneral(double v, int significant) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string formatKiB(double bytes) {
  if (bytes < 1024.0) return formatCount(static_cast<int64_t>(bytes)) + " B";
  const double kib = bytes / 1024.0;
  // Whole KiB read as such ("48 KiB"); others with two decimals ("4.13 KiB" for a 33 x 32 tile).
  const bool whole = std::fabs(kib - std::round(kib)) < 1e-9;
  return formatFixed(kib, whole ? 0 : 2) + " KiB";
}

std::string formatCount(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -(n + 1) + 1ull : uint64_t(n));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(size_t(i), ",");
  return n < 0 ? "-" + digits : digits;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    ++u;
  }
  return formatFixed(bytes, u == 0 ? 0 : 2) + " " + units[u];
}

std::string isoTimestampUtc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace kernellab

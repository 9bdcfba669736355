// SPDX-License-Identifier: MIT
// Parsing and formatting helpers.
#include "kernellab/text.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "kernellab/errors.h"

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
  int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || ptr != e)
    throw InputError(what + ": '" + text + "' is not a whole number");
  return v;
}

std::vector<int64_t> parseDims(const std::string& text, const std::string& what) {
  std::vector<int64_t> dims;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) throw InputError(what + ": '" + text + "' is not of the form AxB");
    dims.push_back(parseInteger(cur, what));
    cur.clear();
  };
  for (char c : text) {
    if (c == 'x' || c == 'X' || c == ',') flush();
    else cur.push_back(c);
  }
  flush();
  if (dims.size() < 2 || dims.size() > 4)
    throw InputError(what + ": '" + text + "' must have 2 to 4 dimensions, like 1024x768");
  return dims;
}

std::pair<int64_t, int64_t> parseSize(const std::string& text, const std::string& what) {
  const auto dims = parseDims(text, what);
  if (dims.size() != 2) throw InputError(what + ": '" + text + "' must be WIDTHxHEIGHT");
  return {dims[0], dims[1]};
}

std::string formatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
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

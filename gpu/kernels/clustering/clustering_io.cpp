// SPDX-License-Identifier: MIT
// Loaders for the user's own points: CSV (header optional) and NumPy .npy (float32/float64,
// C order). Every refusal names the file and the line and field (CSV) or the header entry (.npy).
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab::clustering {
namespace {

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "' for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string extensionOf(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  return toLower(path.substr(dot));
}

constexpr double kFloatMax = std::numeric_limits<float>::max();

// ---- CSV --------------------------------------------------------------------------------------

std::string_view trim(std::string_view f) {
  while (!f.empty() && std::isspace(static_cast<unsigned char>(f.front()))) f.remove_prefix(1);
  while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.remove_suffix(1);
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
  return f;
}

// Parses a whole field as a number (locale-independent); false when it is not one.
bool parseNumber(std::string_view f, double& v) {
  if (!f.empty() && f.front() == '+') f.remove_prefix(1);
  if (f.empty()) return false;
  const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  return ec == std::errc() && ptr == f.data() + f.size();
}

std::vector<std::string_view> splitFields(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  if (sep == ' ') {  // runs of spaces and tabs separate
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size()) break;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      out.push_back(line.substr(i, j - i));
      i = j;
    }
    return out;
  }
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == sep) {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

char detectSeparator(std::string_view line) {
  if (line.find(',') != std::string_view::npos) return ',';
  if (line.find(';') != std::string_view::npos) return ';';
  return ' ';  // runs of spaces and tabs
}

bool blank(std::string_view line) {
  for (char c : line)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

PointSet loadCsv(const std::string& path) {
  const std::string text = readWholeFile(path);
  PointSet s;
  s.source = path;
  char sep = 0;
  int64_t lineNo = 0;
  int64_t firstDataLine = 0;
  bool headerChecked = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lineNo == 1 && line.size() >= 3 && std::memcmp(line.data(), "\xEF\xBB\xBF", 3) == 0)
      line.remove_prefix(3);  // UTF-8 byte order mark
    if (blank(line)) continue;
    if (!sep) sep = detectSeparator(line);
    const auto fields = splitFields(line, sep);
    const std::string where = path + " line " + std::to_string(lineNo);
    if (!headerChecked) {
      headerChecked = true;
      // A header is a first line in which no field is a number ("x,y,z"); a first line with some
      // numbers is data, and its bad fields are errors like on any other line.
      bool anyNumber = false;
      double v;
      for (auto f : fields) anyNumber = anyNumber || parseNumber(trim(f), v);
      if (!anyNumber) continue;
    }
    if (firstDataLine == 0) {
      firstDataLine = lineNo;
      s.d = static_cast<int>(fields.size());
    } else if (static_cast<int>(fields.size()) != s.d) {
      throw InputError(where + " has " + std::to_string(fields.size()) + " fields; line " +
                       std::to_string(firstDataLine) + " (the first data line) has " +
                       std::to_string(s.d) + " (ragged rows)");
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view field = trim(fields[f]);
      double v = 0;
      const std::string at = where + ", field " + std::to_string(f + 1);
      if (!parseNumber(field, v))
        throw InputError(at + ": '" + std::string(field) + "' is not a number");
      if (std::isnan(v))
        throw InputError(at + ": NaN is not allowed (every coordinate must be finite)");
      if (std::isinf(v))
        throw InputError(at + ": '" + std::string(field) +
                         "' is infinite (every coordinate must be finite)");
      if (std::fabs(v) > kFloatMax)
        throw InputError(at + ": " + std::string(field) +
                         " does not fit in float32 (|x| <= 3.4e38)");
      s.values.push_back(static_cast<float>(v));
    }
  }
  if (firstDataLine == 0)
    throw InputError(path + ": no data lines (an empty file or a header only)");
  s.n = static_cast<int64_t>(s.values.size()) / s.d;
  return s;
}

// ---- NPY --------------------------------------------------------------------------------------

// The value of `key` in the header dict, as its source text (up to the next top-level comma).
std::string headerEntry(const std::string& header, const std::string& key,
                        const std::string& path) {
  const std::string quoted1 = "'" + key + "'", quoted2 = "\"" + key + "\"";
  size_t k = header.find(quoted1);
  size_t len = quoted1.size();
  if (k == std::string::npos) {
    k = header.find(quoted2);
    len = quoted2.size();
  }
  if (k == std::string::npos) throw InputError(path + ": .npy header has no '" + key + "' entry");
  size_t colon = header.find(':', k + len);
  if (colon == std::string::npos)
    throw InputError(path + ": .npy header entry '" + key + "' is malformed");
  size_t i = colon + 1;
  int depth = 0;
  size_t start = i;
  for (; i < header.size(); ++i) {
    const char c = header[i];
    if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    } else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  std::string v = header.substr(start, i - start);
  const auto b = v.find_first_not_of(" \t");
  const auto e = v.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
}

PointSet loadNpy(const std::string& path) {
  const std::string bytes = readWholeFile(path);
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw InputError(path + ": not a .npy file (the magic string \\x93NUMPY is missing)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0, headerStart = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw InputError(path + ": .npy header is truncated");
    headerLen = 0;
    for (int b = 0; b < 4; ++b)
      headerLen |= size_t(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    headerStart = 12;
  } else {
    throw InputError(path + ": .npy format version " + std::to_string(major) +
                     " is not supported (1, 2 or 3)");
  }
  if (headerStart + headerLen > bytes.size()) throw InputError(path + ": .npy header is truncated");
  const std::string header = bytes.substr(headerStart, headerLen);

  std::string descr = headerEntry(header, "descr", path);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  size_t item = 0;
  if (descr == "<f4" || descr == "=f4" || descr == "|f4")
    item = 4;
  else if (descr == "<f8" || descr == "=f8" || descr == "|f8")
    item = 8;
  else if (descr == ">f4" || descr == ">f8")
    throw InputError(path + ": dtype '" + descr +
                     "' is big-endian; save little-endian float32 or float64 (arr.astype('<f4'))");
  else
    throw InputError(path + ": dtype '" + descr +
                     "' is not supported (float32 '<f4' or float64 '<f8')");

  const std::string order = headerEntry(header, "fortran_order", path);
  if (order == "True")
    throw InputError(path + ": the array is in Fortran order; save C order (np.ascontiguousarray)");
  if (order != "False")
    throw InputError(path + ": .npy header entry 'fortran_order' is '" + order + "'");

  const std::string shapeText = headerEntry(header, "shape", path);
  std::vector<int64_t> shape;
  {
    std::string cur;
    for (char c : shapeText) {
      if (std::isdigit(static_cast<unsigned char>(c)))
        cur.push_back(c);
      else if (c == ',' || c == ')') {
        if (!cur.empty()) shape.push_back(parseInteger(cur, path + " shape"));
        cur.clear();
      } else if (c != '(' && c != ' ' && c != 'L') {
        throw InputError(path + ": .npy shape '" + shapeText + "' is malformed");
      }
    }
    if (!cur.empty()) shape.push_back(parseInteger(cur, path + " shape"));
  }
  if (shape.empty() || shape.size() > 2)
    throw InputError(path + ": shape " + shapeText +
                     " is not (N, D) or (N,): points must be a 2-D array");
  const int64_t n = shape[0];
  const int64_t d = shape.size() == 2 ? shape[1] : 1;
  if (n == 0) throw InputError(path + ": shape " + shapeText + " holds no points (N = 0)");
  if (d == 0) throw InputError(path + ": shape " + shapeText + " has no dimensions (D = 0)");
  if (d > std::numeric_limits<int>::max())
    throw InputError(path + ": shape " + shapeText + " has too many dimensions");
  const size_t dataStart = headerStart + headerLen;
  const double expected = double(n) * double(d) * double(item);
  if (double(bytes.size() - dataStart) != expected)
    throw InputError(path + ": data is " + std::to_string(bytes.size() - dataStart) +
                     " bytes; shape " + shapeText + " of " + descr + " needs " +
                     formatFixed(expected, 0) + " (truncated or padded file)");

  PointSet s;
  s.source = path;
  s.n = n;
  s.d = static_cast<int>(d);
  s.values.resize(static_cast<size_t>(n * d));
  const char* data = bytes.data() + dataStart;
  for (int64_t e = 0; e < n * d; ++e) {
    double v;
    if (item == 4) {
      float f;
      std::memcpy(&f, data + e * 4, 4);
      v = f;
    } else {
      std::memcpy(&v, data + e * 8, 8);
    }
    if (!std::isfinite(v) || std::fabs(v) > kFloatMax) {
      const std::string at =
          path + ": element [" + std::to_string(e / d) + ", " + std::to_string(e % d) + "]";
      if (std::isnan(v)) throw InputError(at + " is NaN (every coordinate must be finite)");
      if (std::isinf(v)) throw InputError(at + " is infinite (every coordinate must be finite)");
      throw InputError(at + " = " + std::to_string(v) + " does not fit in float32");
    }
    s.values[static_cast<size_t>(e)] = static_cast<float>(v);
  }
  return s;
}

}  // namespace

PointSet loadPoints(const std::string& path) {
  const std::string ext = extensionOf(path);
  if (ext == ".npy") return loadNpy(path);
  if (ext == ".csv" || ext == ".txt" || ext == ".tsv") return loadCsv(path);
  throw InputError(path + ": unknown point file type '" + ext + "' (.csv or .npy)");
}

std::vector<float> loadCenters(const std::string& path, int k, int d) {
  PointSet c = loadPoints(path);
  if (c.d != d)
    throw InputError("--centers " + path + ": centers have " + std::to_string(c.d) +
                     " dimensions; the points have " + std::to_string(d));
  if (c.n != k)
    throw InputError("--centers " + path + ": " + std::to_string(c.n) + " centers; --k is " +
                     std::to_string(k));
  return std::move(c.values);
}

}  // namespace kernellab::clustering

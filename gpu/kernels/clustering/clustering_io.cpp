// SPDX-License-Identifier: MIT
// Loaders for the user's own points: CSV (header optional) and NumPy .npy (float32/float64,
// C order). Before anything is read the file must be a regular file (input_file.h), and the data
// it will become must fit in the memory available; the data is then read a chunk at a time, so a
// file never sits in memory twice. Every refusal names the file and the line and field (CSV) or
// the header entry (.npy).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "kernellab/checked_number.h"
#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/input_file.h"
#include "kernellab/input_text.h"
#include "kernellab/npy_header.h"
#include "kernellab/text.h"

namespace kernellab::clustering {
namespace {

std::string extensionOf(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  return toLower(path.substr(dot));
}

constexpr double kFloatMax = std::numeric_limits<float>::max();
constexpr size_t kChunkBytes = 1 << 20;

// ---- CSV --------------------------------------------------------------------------------------

std::string_view trim(std::string_view f) {
  while (!f.empty() && std::isspace(static_cast<unsigned char>(f.front()))) f.remove_prefix(1);
  while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.remove_suffix(1);
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
  return f;
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

// Line-by-line CSV reader: the loader feeds it complete lines in order.
class CsvPoints {
 public:
  explicit CsvPoints(std::string source) { s_.source = std::move(source); }

  void reserve(size_t values) { s_.values.reserve(values); }

  void line(std::string_view line) {
    ++lineNo_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lineNo_ == 1 && line.size() >= 3 && std::memcmp(line.data(), "\xEF\xBB\xBF", 3) == 0)
      line.remove_prefix(3);  // UTF-8 byte order mark
    if (blank(line)) return;
    if (!sep_) sep_ = detectSeparator(line);
    const auto fields = splitFields(line, sep_);
    const std::string where = s_.source + " line " + std::to_string(lineNo_);
    if (!headerChecked_) {
      headerChecked_ = true;
      // A header is a first line in which no field is a number ("x,y,z"); a first line with some
      // numbers is data, and its bad fields are errors like on any other line.
      bool anyNumber = false;
      double v;
      for (auto f : fields)
        anyNumber = anyNumber || readDouble(trim(f), v) != NumberRead::NotANumber;
      if (!anyNumber) return;
    }
    if (dataLines() >= kMaxPoints)
      throw InputError(where + ": more than " + std::to_string(kMaxPoints) +
                       " points (point indices are 32-bit)");
    if (firstDataLine_ == 0) {
      if (fields.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw InputError(where + " has " + std::to_string(fields.size()) + " fields; at most " +
                         std::to_string(std::numeric_limits<int>::max()) + " dimensions");
      firstDataLine_ = lineNo_;
      s_.d = static_cast<int>(fields.size());
    } else if (fields.size() != static_cast<size_t>(s_.d)) {
      throw InputError(where + " has " + std::to_string(fields.size()) + " fields; line " +
                       std::to_string(firstDataLine_) + " (the first data line) has " +
                       std::to_string(s_.d) + " (ragged rows)");
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      const std::string_view field = trim(fields[f]);
      double v = 0;
      const std::string at = where + ", field " + std::to_string(f + 1);
      const std::string shown = excerpt(field);
      switch (readDouble(field, v)) {
        case NumberRead::NotANumber:
          throw InputError(at + ": '" + shown + "' is not a number");
        case NumberRead::Overflow:
          throw InputError(at + ": '" + shown +
                           "' is out of range: it does not fit in float32 (|x| <= 3.4e38)");
        case NumberRead::Underflow:
          throw InputError(at + ": '" + shown +
                           "' is out of range: nonzero but below the smallest 64-bit float "
                           "(about 2.2e-308); write 0 if zero is meant");
        case NumberRead::Ok:
          break;
      }
      if (std::isnan(v))
        throw InputError(at + ": NaN is not allowed (every coordinate must be finite)");
      if (std::isinf(v))
        throw InputError(at + ": '" + shown + "' is infinite (every coordinate must be finite)");
      if (std::fabs(v) > kFloatMax)
        throw InputError(at + ": " + shown + " does not fit in float32 (|x| <= 3.4e38)");
      try {
        s_.values.push_back(static_cast<float>(v));
      } catch (const std::bad_alloc&) {
        throw InputError(where + ": not enough memory after " + std::to_string(s_.values.size()) +
                         " values");
      }
    }
  }

  int64_t dataLines() const { return firstDataLine_ == 0 ? 0 : int64_t(s_.values.size()) / s_.d; }
  int d() const { return s_.d; }

  PointSet finish() {
    if (firstDataLine_ == 0)
      throw InputError(s_.source + ": no data lines (an empty file or a header only)");
    s_.n = static_cast<int64_t>(s_.values.size()) / s_.d;
    s_.values.shrink_to_fit();
    return std::move(s_);
  }

 private:
  PointSet s_;
  char sep_ = 0;
  int64_t lineNo_ = 0;
  int64_t firstDataLine_ = 0;
  bool headerChecked_ = false;
};

// Feeds every complete line of `text` to `csv`; returns the bytes consumed (the rest is a line
// that continues in the next chunk).
size_t feedLines(std::string_view text, CsvPoints& csv, bool last) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      if (!last) return pos;
      csv.line(text.substr(pos));
      return text.size();
    }
    csv.line(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return pos;
}

// What the first chunk says about the whole file: dimensions and values per byte.
struct CsvSample {
  int d = 0;
  double valuesPerByte = 0.5;  // no complete line in the sample: the most a CSV can hold
  bool whole = false;          // the sample is the whole file: the numbers are exact
  int64_t n = 0;
};

CsvSample sampleCsv(const ByteSource& src, const std::string& head) {
  requireUtf8Text(head, src.name());
  CsvSample s;
  s.whole = head.size() == src.size();
  CsvPoints probe(src.name());
  const size_t used = feedLines(head, probe, s.whole);
  if (probe.dataLines() > 0) {
    s.d = probe.d();
    s.valuesPerByte = double(probe.dataLines()) * probe.d() / double(std::max<size_t>(used, 1));
  }
  if (s.whole) s.n = probe.dataLines();
  return s;
}

PointSet parseCsv(const ByteSource& src) {
  std::string carry(std::min<uint64_t>(kChunkBytes, src.size()), '\0');
  carry.resize(src.readSome(0, carry.data(), carry.size()));
  const CsvSample sample = sampleCsv(src, carry);
  // The floats the file will become (the text is read a chunk at a time and not kept).
  const double values = sample.valuesPerByte * double(src.size());
  requireHostMemory(4.0 * values, src.name() + " (about " + formatFixed(values, 0) +
                                      " values estimated from its first lines)");
  CsvPoints csv(src.name());
  try {
    csv.reserve(static_cast<size_t>(std::min(values * 1.05 + 16, 4e9)));
  } catch (const std::bad_alloc&) {
    throw InputError(src.name() + ": not enough memory for about " + formatFixed(values, 0) +
                     " values");
  }
  uint64_t offset = carry.size();
  for (;;) {
    const bool last = offset >= src.size();
    const size_t used = feedLines(carry, csv, last);
    carry.erase(0, used);
    if (last) break;
    const size_t before = carry.size();
    carry.resize(before + kChunkBytes);
    const size_t got = src.readSome(offset, carry.data() + before, kChunkBytes);
    carry.resize(before + got);
    offset += got;
    if (got == 0) offset = src.size();  // the file shrank while being read: take what is there
  }
  return csv.finish();
}

// ---- NPY --------------------------------------------------------------------------------------

struct NpyShape {
  int64_t n = 0;
  int d = 0;
};

NpyShape checkPointsHeader(const NpyHeader& h, const std::string& path) {
  const std::string shapeText = h.shapeText();
  if (h.fortranOrder)
    throw InputError(path + ": the array is in Fortran order; save C order (np.ascontiguousarray)");
  if (h.shape.empty() || h.shape.size() > 2)
    throw InputError(path + ": shape " + shapeText +
                     " is not (N, D) or (N,): points must be a 2-D array");
  const int64_t n = h.shape[0];
  const int64_t d = h.shape.size() == 2 ? h.shape[1] : 1;
  if (n == 0) throw InputError(path + ": shape " + shapeText + " holds no points (N = 0)");
  if (d == 0) throw InputError(path + ": shape " + shapeText + " has no dimensions (D = 0)");
  if (n > kMaxPoints)
    throw InputError(path + ": shape " + shapeText + " holds " + std::to_string(n) +
                     " points; at most " + std::to_string(kMaxPoints) +
                     " (point indices are 32-bit)");
  if (d > std::numeric_limits<int>::max())
    throw InputError(path + ": shape " + shapeText + " has " + std::to_string(d) +
                     " dimensions; at most " + std::to_string(std::numeric_limits<int>::max()));
  return {n, static_cast<int>(d)};
}

PointSet parseNpy(const ByteSource& src) {
  const std::string& path = src.name();
  const NpyHeader h = readNpyHeader(src);  // the data size is checked against the file here
  const NpyShape shape = checkPointsHeader(h, path);
  requireHostMemory(4.0 * double(h.elements),
                    path + " (" + std::to_string(h.elements) + " float32 values)");
  PointSet s;
  s.source = path;
  s.n = shape.n;
  s.d = shape.d;
  try {
    s.values.resize(static_cast<size_t>(h.elements));
  } catch (const std::bad_alloc&) {
    throw InputError(path + ": not enough memory for its " + std::to_string(h.elements) +
                     " values");
  }
  const size_t item = static_cast<size_t>(h.itemBytes);
  constexpr size_t kChunkValues = kChunkBytes / 8;
  std::vector<char> raw(kChunkValues * item);
  const int64_t d = shape.d;
  for (size_t first = 0; first < s.values.size(); first += kChunkValues) {
    const size_t count = std::min(kChunkValues, s.values.size() - first);
    src.readExactly(h.dataOffset + first * item, raw.data(), count * item, "the point data");
    for (size_t j = 0; j < count; ++j) {
      const int64_t e = static_cast<int64_t>(first + j);
      double v;
      if (item == 4) {
        float f;
        std::memcpy(&f, raw.data() + j * 4, 4);
        v = f;
      } else {
        std::memcpy(&v, raw.data() + j * 8, 8);
      }
      if (!std::isfinite(v) || std::fabs(v) > kFloatMax) {
        const std::string at =
            path + ": element [" + std::to_string(e / d) + ", " + std::to_string(e % d) + "]";
        if (std::isnan(v)) throw InputError(at + " is NaN (every coordinate must be finite)");
        if (std::isinf(v)) throw InputError(at + " is infinite (every coordinate must be finite)");
        throw InputError(at + " = " + numberText(v) + " does not fit in float32");
      }
      s.values[static_cast<size_t>(e)] = static_cast<float>(v);
    }
  }
  return s;
}

enum class Format { Csv, Npy };

Format formatOf(const std::string& path) {
  const std::string ext = extensionOf(path);
  if (ext == ".npy") return Format::Npy;
  if (ext == ".csv" || ext == ".txt" || ext == ".tsv") return Format::Csv;
  throw InputError(path + ": unknown point file type '" + excerpt(ext) + "' (.csv or .npy)");
}

}  // namespace

PointSet loadPoints(const std::string& path) {
  const Format format = formatOf(path);
  const InputFile file(path);
  return format == Format::Npy ? parseNpy(file) : parseCsv(file);
}

PointSet parsePointsCsv(std::string_view text, const std::string& source) {
  return parseCsv(MemoryBytes(text, source));
}

PointSet parsePointsNpy(std::string_view bytes, const std::string& source) {
  return parseNpy(MemoryBytes(bytes, source));
}

PointsFileShape peekPointsShape(const std::string& path) {
  const Format format = formatOf(path);
  const InputFile file(path);
  PointsFileShape p;
  p.fileBytes = file.size();
  if (format == Format::Npy) {
    const NpyShape s = checkPointsHeader(readNpyHeader(file), path);
    p.n = s.n;
    p.d = s.d;
    p.exact = true;
    return p;
  }
  std::string head(std::min<uint64_t>(kChunkBytes, file.size()), '\0');
  head.resize(file.readSome(0, head.data(), head.size()));
  const CsvSample s = sampleCsv(file, head);
  p.d = std::max(1, s.d);
  p.exact = s.whole;
  p.n = s.whole ? s.n
                : std::max<int64_t>(
                      1, static_cast<int64_t>(s.valuesPerByte * double(file.size()) / p.d));
  return p;
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

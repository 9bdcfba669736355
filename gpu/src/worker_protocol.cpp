// SPDX-License-Identifier: MIT
// Frames of the worker protocol (worker_protocol.h).
#include "kernellab/worker_protocol.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kernellab::worker {
namespace {

constexpr size_t kMaxNoise = 64 * 1024;

bool isMagic(const char* p) {
  return p[0] == 'K' && p[1] == 'L' && (p[2] == 'J' || p[2] == 'P') && p[3] == 0;
}

// Events whose body may be large: the binary encoding pays for itself.
bool large(const nlohmann::json& event) {
  const auto it = event.find("event");
  if (it == event.end() || !it->is_string()) return false;
  const std::string& name = it->get_ref<const std::string&>();
  return name == "result" || (name == "iteration" && event.contains("current"));
}

// --- Packed encoding: JSON text whose large number arrays travel as raw little-endian columns.
//
// body := u32 text bytes, text, u32 arrays, array...
// array := u8 shape (0: a flat list, 1: a list of equal rows), u32 columns, u64 elements per
//          column, then per column: u8 type, elements x sizeof(type) bytes.
// In the text a packed array is {"$kl_array": index}.

constexpr size_t kMinPacked = 256;
constexpr const char* kPlaceholder = "$kl_array";

enum Type : uint8_t { I8 = 1, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

size_t typeBytes(uint8_t t) {
  switch (t) {
    case I8:
    case U8:
      return 1;
    case I16:
    case U16:
      return 2;
    case I32:
    case U32:
    case F32:
      return 4;
    case I64:
    case U64:
    case F64:
      return 8;
    default:
      return 0;
  }
}

template <class T>
void putRaw(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // every host KernelLab builds for is little-endian
  out.append(b, sizeof(T));
}

// A column of numbers: the smallest type that holds every value exactly, or 0 when none does.
class Column {
 public:
  explicit Column(size_t reserve) { values_.reserve(reserve); }
  // False for an element that is not a number (null, a string...): the array stays JSON.
  bool add(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
      const uint64_t x = v.get<uint64_t>();
      if (x > uint64_t(INT64_MAX)) {
        bigUnsigned_ = true;
        intsFitDouble_ = intsFitFloat_ = false;
      } else {
        noteInt(static_cast<int64_t>(x));
      }
    } else if (v.is_number_integer()) {
      noteInt(v.get<int64_t>());
    } else if (v.is_number_float()) {
      const double x = v.get<double>();
      anyFloat_ = true;
      // Out of float's range first: converting such a double to float is undefined.
      if (!std::isnan(x) && (std::fabs(x) > std::numeric_limits<float>::max() ||
                             static_cast<double>(static_cast<float>(x)) != x))
        floatsFitFloat_ = false;
    } else {
      return false;
    }
    values_.push_back(&v);
    return true;
  }
  uint8_t type() const {
    if (anyFloat_) {
      if (!intsFitDouble_) return 0;
      return floatsFitFloat_ && intsFitFloat_ ? F32 : F64;
    }
    if (bigUnsigned_) return sawInt_ && min_ < 0 ? 0 : U64;
    if (min_ >= INT8_MIN && max_ <= INT8_MAX) return I8;
    if (min_ >= 0 && max_ <= UINT8_MAX) return U8;
    if (min_ >= INT16_MIN && max_ <= INT16_MAX) return I16;
    if (min_ >= 0 && max_ <= UINT16_MAX) return U16;
    if (min_ >= INT32_MIN && max_ <= INT32_MAX) return I32;
    if (min_ >= 0 && max_ <= int64_t(UINT32_MAX)) return U32;
    return I64;
  }
  void write(std::string& out) const {
    const uint8_t t = type();
    putRaw<uint8_t>(out, t);
    out.reserve(out.size() + values_.size() * typeBytes(t));
    for (const nlohmann::json* v : values_) {
      switch (t) {
        case I8:
          putRaw(out, static_cast<int8_t>(v->get<int64_t>()));
          break;
        case U8:
          putRaw(out, static_cast<uint8_t>(v->get<int64_t>()));
          break;
        case I16:
          putRaw(out, static_cast<int16_t>(v->get<int64_t>()));
          break;
        case U16:
          putRaw(out, static_cast<uint16_t>(v->get<int64_t>()));
          break;
        case I32:
          putRaw(out, static_cast<int32_t>(v->get<int64_t>()));
          break;
        case U32:
          putRaw(out, static_cast<uint32_t>(v->get<int64_t>()));
          break;
        case I64:
          putRaw(out, v->get<int64_t>());
          break;
        case U64:
          putRaw(out, v->get<uint64_t>());
          break;
        case F32:
          putRaw(out, static_cast<float>(v->get<double>()));
          break;
        default:
          putRaw(out, v->get<double>());
          break;
      }
    }
  }

 private:
  void noteInt(int64_t x) {
    if (!sawInt_ || x < min_) min_ = x;
    if (!sawInt_ || x > max_) max_ = x;
    sawInt_ = true;
    constexpr int64_t kFloatExact = int64_t(1) << 24, kDoubleExact = int64_t(1) << 53;
    if (x < -kFloatExact || x > kFloatExact) intsFitFloat_ = false;
    if (x < -kDoubleExact || x > kDoubleExact) intsFitDouble_ = false;
  }
  std::vector<const nlohmann::json*> values_;
  bool anyFloat_ = false, floatsFitFloat_ = true, intsFitFloat_ = true, intsFitDouble_ = true;
  bool bigUnsigned_ = false, sawInt_ = false;
  int64_t min_ = 0, max_ = 0;
};

// Tries to pack `a` (a large array): flat numbers, or rows of equal length of numbers.
bool packArray(const nlohmann::json& a, std::string& arrays) {
  const size_t n = a.size();
  if (a.front().is_array()) {
    const size_t m = a.front().size();
    if (m == 0 || m > 64) return false;
    std::vector<Column> cols(m, Column(n));
    for (const auto& row : a) {
      if (!row.is_array() || row.size() != m) return false;
      for (size_t c = 0; c < m; ++c)
        if (!cols[c].add(row[c])) return false;
    }
    for (const auto& c : cols)
      if (c.type() == 0) return false;
    putRaw<uint8_t>(arrays, 1);
    putRaw<uint32_t>(arrays, static_cast<uint32_t>(m));
    putRaw<uint64_t>(arrays, n);
    for (const auto& c : cols) c.write(arrays);
    return true;
  }
  Column col(n);
  for (const auto& v : a)
    if (!col.add(v)) return false;
  if (col.type() == 0) return false;
  putRaw<uint8_t>(arrays, 0);
  putRaw<uint32_t>(arrays, 1);
  putRaw<uint64_t>(arrays, n);
  col.write(arrays);
  return true;
}

// Replaces every large packable array below `j` by a placeholder, appending it to `arrays`.
// Results nest a handful of levels; a body nested deeper is not ours (and would cost stack).
constexpr int kMaxDepth = 256;

void extract(nlohmann::json& j, std::string& arrays, uint32_t& count, int depth = 0) {
  if (depth > kMaxDepth) throw std::runtime_error("worker event nested too deeply");
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) extract(value, arrays, count, depth + 1);
  } else if (j.is_array()) {
    if (j.size() >= kMinPacked && packArray(j, arrays)) {
      j = nlohmann::json{{kPlaceholder, count++}};
      return;
    }
    for (auto& v : j) extract(v, arrays, count, depth + 1);
  }
}

class Cursor {
 public:
  Cursor(const std::string& s, size_t pos) : s_(s), pos_(pos) {}
  template <class T>
  T get() {
    if (s_.size() - pos_ < sizeof(T)) throw std::runtime_error("packed frame is truncated");
    T v;
    std::memcpy(&v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  const char* take(uint64_t bytes) {
    if (bytes > s_.size() - pos_) throw std::runtime_error("packed frame is truncated");
    const char* p = s_.data() + pos_;
    pos_ += bytes;
    return p;
  }
  bool atEnd() const { return pos_ == s_.size(); }

 private:
  const std::string& s_;
  size_t pos_;
};

template <class T>
T rawAt(const char* p, uint64_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

nlohmann::json valueAt(uint8_t t, const char* p, uint64_t i) {
  switch (t) {
    case I8:
      return rawAt<int8_t>(p, i);
    case U8:
      return rawAt<uint8_t>(p, i);
    case I16:
      return rawAt<int16_t>(p, i);
    case U16:
      return rawAt<uint16_t>(p, i);
    case I32:
      return rawAt<int32_t>(p, i);
    case U32:
      return rawAt<uint32_t>(p, i);
    case I64:
      return rawAt<int64_t>(p, i);
    case U64:
      return rawAt<uint64_t>(p, i);
    case F32: {
      const float x = rawAt<float>(p, i);
      return std::isnan(x) ? nlohmann::json() : nlohmann::json(x);  // NaN reads as JSON's null
    }
    default: {
      const double x = rawAt<double>(p, i);
      return std::isnan(x) ? nlohmann::json() : nlohmann::json(x);
    }
  }
}

nlohmann::json readArray(Cursor& c) {
  const uint8_t shape = c.get<uint8_t>();
  const uint32_t columns = c.get<uint32_t>();
  const uint64_t n = c.get<uint64_t>();
  if (shape > 1 || columns == 0 || columns > 64 || (shape == 0 && columns != 1))
    throw std::runtime_error("packed frame has an array of unknown shape");
  std::vector<std::pair<uint8_t, const char*>> cols;
  for (uint32_t k = 0; k < columns; ++k) {
    const uint8_t t = c.get<uint8_t>();
    if (typeBytes(t) == 0) throw std::runtime_error("packed frame has an unknown number type");
    if (n > kMaxFrameBytes / typeBytes(t)) throw std::runtime_error("packed frame is truncated");
    cols.emplace_back(t, c.take(n * typeBytes(t)));
  }
  nlohmann::json out = nlohmann::json::array();
  auto& a = out.get_ref<nlohmann::json::array_t&>();
  a.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (shape == 0) {
      a.push_back(valueAt(cols[0].first, cols[0].second, i));
    } else {
      nlohmann::json row = nlohmann::json::array();
      auto& r = row.get_ref<nlohmann::json::array_t&>();
      r.reserve(columns);
      for (const auto& [t, p] : cols) r.push_back(valueAt(t, p, i));
      a.push_back(std::move(row));
    }
  }
  return out;
}

void restore(nlohmann::json& j, std::vector<nlohmann::json>& arrays, int depth = 0) {
  if (depth > kMaxDepth) throw std::runtime_error("packed frame nested too deeply");
  if (j.is_object()) {
    if (j.size() == 1 && j.contains(kPlaceholder)) {
      const auto& idx = j[kPlaceholder];
      if (!idx.is_number_unsigned() || idx.get<uint64_t>() >= arrays.size())
        throw std::runtime_error("packed frame names an array it does not hold");
      j = std::move(arrays[idx.get<size_t>()]);
      return;
    }
    for (auto& [key, value] : j.items()) restore(value, arrays, depth + 1);
  } else if (j.is_array()) {
    for (auto& v : j) restore(v, arrays, depth + 1);
  }
}

}  // namespace

std::string encodeFrame(const nlohmann::json& event, Encoding encoding) {
  std::string body;
  if (encoding == Encoding::Packed) {
    nlohmann::json small = event;
    std::string arrays;
    uint32_t count = 0;
    extract(small, arrays, count);
    const std::string text = small.dump();
    putRaw<uint32_t>(body, static_cast<uint32_t>(text.size()));
    body += text;
    putRaw<uint32_t>(body, count);
    body += arrays;
  } else {
    body = event.dump();
  }
  if (body.size() > kMaxFrameBytes)
    throw std::runtime_error("worker event of " + std::to_string(body.size()) +
                             " bytes exceeds the frame limit of " + std::to_string(kMaxFrameBytes));
  std::string frame(kHeaderBytes, '\0');
  frame[0] = 'K';
  frame[1] = 'L';
  frame[2] = static_cast<char>(encoding);
  frame[3] = 0;
  const auto n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) frame[4 + i] = static_cast<char>((n >> (8 * i)) & 0xff);
  frame += body;
  return frame;
}

std::string encodeEvent(const nlohmann::json& event) {
  return encodeFrame(event, large(event) ? Encoding::Packed : Encoding::Json);
}

nlohmann::json decodeFrame(const Frame& frame) {
  if (frame.encoding == Encoding::Packed) {
    Cursor c(frame.body, 0);
    const uint32_t textBytes = c.get<uint32_t>();
    const char* text = c.take(textBytes);
    nlohmann::json j = nlohmann::json::parse(text, text + textBytes);
    const uint32_t count = c.get<uint32_t>();
    std::vector<nlohmann::json> arrays;
    arrays.reserve(std::min<uint32_t>(count, 1u << 16));
    for (uint32_t i = 0; i < count; ++i) arrays.push_back(readArray(c));
    if (!c.atEnd()) throw std::runtime_error("packed frame has trailing bytes");
    restore(j, arrays);
    return j;
  }
  return nlohmann::json::parse(frame.body);
}

void FrameReader::feed(const char* data, size_t size) {
  if (!error_.empty()) return;
  // Drop what was consumed before growing, so a long stream does not keep every frame.
  if (offset_ > 0 && offset_ >= buffer_.size() / 2) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  buffer_.append(data, size);
}

std::optional<Frame> FrameReader::next() {
  if (!error_.empty()) return std::nullopt;
  if (!sawFrame_) {
    // Skip the shell's noise up to the first magic.
    while (buffer_.size() - offset_ >= 4 && !isMagic(buffer_.data() + offset_)) {
      if (noise_.size() < kMaxNoise) noise_ += buffer_[offset_];
      ++offset_;
    }
  }
  if (buffer_.size() - offset_ < kHeaderBytes) return std::nullopt;
  const char* h = buffer_.data() + offset_;
  if (!isMagic(h)) {
    error_ = "the worker's output is not a frame stream (bad frame header after " +
             std::to_string(offset_) + " bytes)";
    return std::nullopt;
  }
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= uint32_t(static_cast<unsigned char>(h[4 + i])) << (8 * i);
  if (n > kMaxFrameBytes) {
    error_ = "a frame of " + std::to_string(n) + " bytes exceeds the limit";
    return std::nullopt;
  }
  if (buffer_.size() - offset_ < kHeaderBytes + n) return std::nullopt;
  Frame f;
  f.encoding = static_cast<Encoding>(h[2]);
  f.body.assign(h + kHeaderBytes, n);
  offset_ += kHeaderBytes + n;
  sawFrame_ = true;
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  }
  return f;
}

std::string jobLine(const nlohmann::json& job) {
  nlohmann::json j = job;
  j["protocol"] = kProtocol;
  return j.dump() + "\n";
}

}  // namespace kernellab::worker

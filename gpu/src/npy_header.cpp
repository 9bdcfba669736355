// SPDX-License-Identifier: MIT
// .npy header parsing: a strict reader of the small Python literal NumPy writes.
#include "kernellab/npy_header.h"

#include <cctype>
#include <cstring>

#include "kernellab/checked_number.h"
#include "kernellab/errors.h"
#include "kernellab/input_text.h"

namespace kernellab {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
// NumPy pads headers to 64 bytes and writes a few hundred; a larger one is not a file we wrote
// or NumPy did, and reading it whole would let a header claim gigabytes.
constexpr uint64_t kMaxHeaderBytes = 1u << 20;

// The dict literal, parsed by hand: keys are quoted strings; values are quoted strings, True or
// False, or a tuple of integers (with an optional trailing comma, Python 2's "L" suffix).
class DictParser {
 public:
  DictParser(const std::string& text, const std::string& source) : t_(text), source_(source) {}

  NpyHeader parse() {
    NpyHeader h;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    expect('{', "the header does not start with '{'");
    skipSpace();
    while (peek() != '}') {
      const std::string key = quoted("a quoted key");
      skipSpace();
      expect(':', "no ':' after the key '" + excerpt(key) + "'");
      skipSpace();
      if (key == "descr") {
        h.descr = quoted("the 'descr' value (a quoted dtype such as '<f4')");
        haveDescr = true;
      } else if (key == "fortran_order") {
        h.fortranOrder = boolean();
        haveOrder = true;
      } else if (key == "shape") {
        h.shape = tuple();
        haveShape = true;
      } else {
        skipValue();  // NumPy writes no other keys; a newer writer's extras are ignored
      }
      skipSpace();
      if (peek() == ',') {
        ++i_;
        skipSpace();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the '" + excerpt(key) + "' entry");
      }
    }
    if (!haveDescr) fail("no 'descr' entry (the dtype)");
    if (!haveOrder) fail("no 'fortran_order' entry");
    if (!haveShape) fail("no 'shape' entry");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    // NumPy pads the header with spaces and a newline: not worth quoting.
    std::string_view shown = t_;
    while (!shown.empty() && std::isspace(static_cast<unsigned char>(shown.back())))
      shown.remove_suffix(1);
    throw InputError(source_ + ": malformed .npy header: " + what + " (header: " + excerpt(shown) +
                     ")");
  }
  char peek() const {
    if (i_ >= t_.size()) fail("it ends early");
    return t_[i_];
  }
  void expect(char c, const std::string& what) {
    if (peek() != c) fail(what);
    ++i_;
  }
  void skipSpace() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  std::string quoted(const std::string& what) {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected " + what);
    const size_t end = t_.find(q, i_ + 1);
    if (end == std::string::npos) fail("an unterminated string");
    std::string s = t_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return s;
  }
  bool boolean() {
    if (t_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (t_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    fail("'fortran_order' is neither True nor False");
  }
  std::vector<int64_t> tuple() {
    expect('(', "'shape' is not a tuple such as (100, 3)");
    std::vector<int64_t> dims;
    skipSpace();
    while (peek() != ')') {
      const size_t b = i_;
      while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
      if (i_ == b) fail("'shape' holds something that is not a whole number");
      dims.push_back(
          parseInt64(std::string_view(t_).substr(b, i_ - b), source_ + ": .npy shape dimension"));
      if (i_ < t_.size() && t_[i_] == 'L') ++i_;  // Python 2 long
      skipSpace();
      if (peek() == ',') {
        ++i_;
        skipSpace();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    ++i_;
    return dims;
  }
  void skipValue() {
    int depth = 0;
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\'' || c == '"') {
        quoted("a string");
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return;
        --depth;
      }
      if (c == ',' && depth == 0) return;
      ++i_;
    }
  }

  const std::string& t_;
  const std::string& source_;
  size_t i_ = 0;
};

}  // namespace

std::string NpyHeader::shapeText() const {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

NpyHeader readNpyHeader(const ByteSource& bytes) {
  const std::string& src = bytes.name();
  char pre[12] = {};
  const size_t got = bytes.readSome(0, pre, sizeof pre);
  const size_t magicSeen = std::min(got, kMagicBytes);
  if (std::memcmp(pre, kMagic, magicSeen) != 0 || got == 0)
    throw InputError(src + ": not a .npy file (the magic string \\x93NUMPY is missing)");
  if (got < 8)
    throw InputError(src + ": truncated .npy header: the file ends after " + std::to_string(got) +
                     " bytes, inside the preamble (magic string, version)");
  const int major = static_cast<unsigned char>(pre[6]);
  size_t prefix = 0;
  uint64_t headerLen = 0;
  if (major == 1) {
    prefix = 10;
  } else if (major == 2 || major == 3) {
    prefix = 12;
  } else {
    throw InputError(src + ": .npy format version " + std::to_string(major) +
                     " is not supported (1, 2 or 3)");
  }
  if (got < prefix)
    throw InputError(src + ": truncated .npy header: the file ends after " + std::to_string(got) +
                     " bytes, inside the preamble (the header length)");
  for (size_t b = 0; b + 8 < prefix; ++b)
    headerLen |= uint64_t(static_cast<unsigned char>(pre[8 + b])) << (8 * b);
  if (headerLen > kMaxHeaderBytes)
    throw InputError(src + ": .npy header length " + std::to_string(headerLen) +
                     " bytes is above the " + std::to_string(kMaxHeaderBytes) +
                     " this reader accepts (a corrupt file?)");
  if (prefix + headerLen > bytes.size())
    throw InputError(src + ": truncated .npy header: it says " + std::to_string(headerLen) +
                     " bytes, the file has " + std::to_string(bytes.size() - prefix) +
                     " after the preamble");
  std::string text(static_cast<size_t>(headerLen), '\0');
  bytes.readExactly(prefix, text.data(), text.size(), "the .npy header");

  NpyHeader h = DictParser(text, src).parse();
  h.dataOffset = prefix + headerLen;

  const std::string& d = h.descr;
  if (d == "<f4" || d == "=f4" || d == "|f4")
    h.itemBytes = 4;
  else if (d == "<f8" || d == "=f8" || d == "|f8")
    h.itemBytes = 8;
  else if (d == ">f4" || d == ">f8")
    throw InputError(src + ": dtype '" + d +
                     "' is big-endian; save it little-endian (arr.astype('<f4'))");
  else
    throw InputError(src + ": dtype '" + excerpt(d) +
                     "' is not supported (float32 '<f4' or float64 '<f8')");

  uint64_t elements = 1;
  for (int64_t dim : h.shape)
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(dim), &elements))
      throw InputError(src + ": shape " + h.shapeText() +
                       " holds more than 2^64 elements (a corrupt header?)");
  uint64_t dataBytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<uint64_t>(h.itemBytes), &dataBytes))
    throw InputError(src + ": shape " + h.shapeText() + " of " + d +
                     " needs more than 2^64 bytes (a corrupt header?)");
  h.elements = elements;
  h.dataBytes = dataBytes;
  const uint64_t present = bytes.size() - h.dataOffset;
  if (present != dataBytes)
    throw InputError(src + ": data is " + std::to_string(present) + " bytes; shape " +
                     h.shapeText() + " of " + d + " needs " + std::to_string(dataBytes) +
                     (present < dataBytes ? " (a truncated file)" : " (a padded file)"));
  return h;
}

}  // namespace kernellab

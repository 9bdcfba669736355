// SPDX-License-Identifier: MIT
// Quoting user text in messages, and the not-UTF-8 check.
#include "kernellab/input_text.h"

#include <cstdio>
#include <cstring>

#include "kernellab/errors.h"

namespace kernellab {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8Length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF)
    len = 2;
  else if (b >= 0xE0 && b <= 0xEF)
    len = 3;
  else if (b >= 0xF0 && b <= 0xF4)
    len = 4;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return len;
}

}  // namespace

std::string excerpt(std::string_view text, size_t max) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && i < max) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t len = utf8Length(text, i);
    if (len == 1 && b >= 0x20 && b != 0x7F) {
      out.push_back(text[i]);
    } else if (len > 1) {
      if (i + len > max) break;  // never cut a character in half
      out.append(text.substr(i, len));
      i += len;
      continue;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    }
    ++i;
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void requireUtf8Text(std::string_view head, const std::string& source) {
  const std::string at = source.empty() ? "" : source + ": ";
  auto starts = [&](const char* bom, size_t n) {
    return head.size() >= n && std::memcmp(head.data(), bom, n) == 0;
  };
  // UTF-32 first: its little-endian mark begins with UTF-16's.
  if (starts("\xFF\xFE\x00\x00", 4) || starts("\x00\x00\xFE\xFF", 4))
    throw InputError(at +
                     "not UTF-8 text (it starts with a UTF-32 byte order mark); "
                     "save it as UTF-8");
  if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2))
    throw InputError(at +
                     "not UTF-8 text (it starts with a UTF-16 byte order mark); "
                     "save it as UTF-8");
  const size_t nul = head.find('\0');
  if (nul != std::string_view::npos)
    throw InputError(at + "not UTF-8 text (a NUL byte at offset " + std::to_string(nul) +
                     "; UTF-16 text or a binary file?)");
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// Text that came from the user (a field, an option, a file's bytes), checked and quoted for
// messages: a 5 MB field is never echoed whole, and UTF-16 input is named as such instead of
// printing NUL bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kernellab {

// The text as a message shows it: at most `max` bytes (cut at a character boundary), control
// bytes and bytes that are not UTF-8 written as \xNN, and "... (5242880 bytes)" when cut.
std::string excerpt(std::string_view text, size_t max = 80);

// Throws InputError("<source>: not UTF-8 text (...)") when `head` (the first bytes of a file, or
// all of them) starts with a UTF-16 or UTF-32 byte order mark or holds a NUL byte. A UTF-8 byte
// order mark is fine. An empty `source` leaves the prefix to the caller.
void requireUtf8Text(std::string_view head, const std::string& source);

}  // namespace kernellab

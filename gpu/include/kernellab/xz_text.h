// SPDX-License-Identifier: MIT
// xz-compressed text (the results files kept compressed under docs/data): recognised by the
// format's magic bytes, decompressed with liblzma under the same limits as a plain file (at most
// `maxBytes` of text, `workFactor` x that in free host memory, checked as the text grows), so a
// small file cannot unpack into more memory than the machine has.
#pragma once

#include <cstdint>
#include <string>

namespace kernellab {

// True when `head` (a file's first bytes) starts with the xz magic FD 37 7A 58 5A 00.
bool looksLikeXz(const std::string& head);

// The decompressed text of an xz file's bytes; InputError naming `path` for a damaged stream, a
// text over the limits, or a build without liblzma (with what to install).
std::string decompressXz(const std::string& compressed, const std::string& path, double workFactor,
                         uint64_t maxBytes);

}  // namespace kernellab

// SPDX-License-Identifier: MIT
#include "kernellab/xz_text.h"

#include <algorithm>
#include <new>

#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/text.h"

#ifdef KERNELLAB_HAVE_LZMA
#include <lzma.h>
#endif

namespace kernellab {

bool looksLikeXz(const std::string& head) {
  static const char kMagic[6] = {'\xFD', '7', 'z', 'X', 'Z', '\0'};
  return head.size() >= 6 && std::equal(kMagic, kMagic + 6, head.begin());
}

#ifdef KERNELLAB_HAVE_LZMA
std::string decompressXz(const std::string& compressed, const std::string& path, double workFactor,
                         uint64_t maxBytes) {
  lzma_stream strm = LZMA_STREAM_INIT;
  // The decoder's own memory: 1 GiB bounds any preset xz writes (-9e: 674 MiB).
  if (lzma_stream_decoder(&strm, uint64_t(1) << 30, LZMA_CONCATENATED) != LZMA_OK)
    throw InputError(path + ": the xz decoder could not start");
  struct End {
    lzma_stream* s;
    ~End() { lzma_end(s); }
  } end{&strm};
  std::string text;
  size_t used = 0;
  strm.next_in = reinterpret_cast<const uint8_t*>(compressed.data());
  strm.avail_in = compressed.size();
  for (;;) {
    if (used == text.size()) {  // grow: the limits first, then the memory
      const uint64_t next = std::max<uint64_t>(uint64_t(1) << 20, uint64_t(text.size()) * 2);
      if (text.size() >= maxBytes)
        throw InputError(path + ": unpacks to more than the " + formatBytes(double(maxBytes)) +
                         " this reader accepts");
      const uint64_t grown = std::min(next, maxBytes);
      requireHostMemory(double(grown) * workFactor,
                        path + " (unpacked: at least " + formatBytes(double(text.size())) + ")");
      try {
        text.resize(static_cast<size_t>(grown));
      } catch (const std::bad_alloc&) {
        throw InputError(path + ": not enough memory to unpack it");
      }
    }
    strm.next_out = reinterpret_cast<uint8_t*>(&text[used]);
    strm.avail_out = text.size() - used;
    const lzma_ret r = lzma_code(&strm, LZMA_FINISH);
    used = text.size() - strm.avail_out;
    if (r == LZMA_STREAM_END) break;
    if (r == LZMA_OK || r == LZMA_BUF_ERROR) {
      if (strm.avail_out == 0) continue;  // the output was full: grow and go on
      throw InputError(path + ": the xz data ends early (truncated file)");
    }
    const char* why = r == LZMA_DATA_ERROR      ? "damaged xz data"
                      : r == LZMA_FORMAT_ERROR  ? "not xz data"
                      : r == LZMA_MEM_ERROR     ? "not enough memory to unpack it"
                      : r == LZMA_MEMLIMIT_ERROR ? "its xz dictionary is larger than 1 GiB"
                      : r == LZMA_OPTIONS_ERROR ? "xz options this library does not read"
                                                : "the xz decoder failed";
    throw InputError(path + ": " + why);
  }
  text.resize(used);
  return text;
}
#else
std::string decompressXz(const std::string&, const std::string& path, double, uint64_t) {
  throw InputError(path + ": is xz-compressed, and this build reads xz only with liblzma "
                   "(install liblzma-dev and rebuild, or unpack it first: xz -dk " + path + ")");
}
#endif

}  // namespace kernellab

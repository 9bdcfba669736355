// SPDX-License-Identifier: MIT
// Regular-file checks and exact reads for every loader (input_file.h).
#include "kernellab/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/input_text.h"
#include "kernellab/text.h"
#include "kernellab/xz_text.h"

namespace kernellab {
namespace {

// Why a file of this type is not read, in words a user recognises.
const char* notRegular(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode))
    return "is a FIFO (named pipe), not a regular file: reading it could wait forever";
  if (S_ISCHR(mode))
    return "is a character device (like /dev/zero), not a regular file: it may never end";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    // A directory opens read-only on Linux; other errors say why (missing, permission).
    throw InputError("cannot open '" + path + "' for reading: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw InputError("cannot read '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(path + ": " + notRegular(st.st_mode));
  }
  // Regular files never block; clear the flag anyway so reads behave plainly.
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t InputFile::readSome(uint64_t offset, char* out, size_t n) const {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError("cannot read '" + path_ + "': " + std::strerror(errno));
    }
    if (got == 0) break;  // end of file
    done += static_cast<size_t>(got);
  }
  return done;
}

void ByteSource::readExactly(uint64_t offset, char* out, size_t n, const std::string& what) const {
  const size_t got = readSome(offset, out, n);
  if (got != n)
    throw InputError(name() + ": truncated: " + what + " needs " + std::to_string(n) +
                     " bytes from offset " + std::to_string(offset) + "; the file has " +
                     std::to_string(got));
}

size_t MemoryBytes::readSome(uint64_t offset, char* out, size_t n) const {
  if (offset >= bytes_.size()) return 0;
  const size_t got = std::min<uint64_t>(n, bytes_.size() - offset);
  std::memcpy(out, bytes_.data() + offset, got);
  return got;
}

std::string readTextFile(const std::string& path, double workFactor, uint64_t maxBytes) {
  InputFile file(path);
  if (file.size() > maxBytes)
    throw InputError(path + ": " + formatBytes(double(file.size())) + " is larger than the " +
                     formatBytes(double(maxBytes)) + " this reader accepts");
  requireHostMemory(double(file.size()) * workFactor,
                    path + " (" + formatBytes(double(file.size())) + ")");
  std::string text;
  try {
    text.resize(static_cast<size_t>(file.size()));
  } catch (const std::bad_alloc&) {
    throw InputError(path + ": not enough memory to read its " + formatBytes(double(file.size())));
  }
  file.readExactly(
      0, text.data(), text.size(),
      "the file's " + std::to_string(text.size()) + " bytes (it shrank while being read)");
  // An xz file (docs/data keeps the large results compressed) is the text it unpacks to.
  if (looksLikeXz(text)) text = decompressXz(text, path, workFactor, maxBytes);
  requireUtf8Text(text, path);
  return text;
}

}  // namespace kernellab

// SPDX-License-Identifier: MIT
// Opening a file the user named, before anything is read from it: it must be a regular file
// (a FIFO would block forever, /dev/zero never ends, a directory is not data), and what it holds
// must fit in the memory available. Reads are exact: a short read is a truncated file, and an
// out-of-memory is reported, never turned into a silently shorter input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace kernellab {

// Bytes a loader reads: a file (InputFile) or a buffer already in memory (MemoryBytes, for the
// fuzz targets and tests). Loaders are written once against this, so both take the same path.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual const std::string& name() const = 0;  // the path, as messages show it
  virtual uint64_t size() const = 0;
  // Up to `n` bytes at `offset`; fewer only at the end.
  virtual size_t readSome(uint64_t offset, char* out, size_t n) const = 0;
  // Exactly `n` bytes at `offset`, or InputError "<name>: truncated: <what> needs ...".
  void readExactly(uint64_t offset, char* out, size_t n, const std::string& what) const;
};

class MemoryBytes final : public ByteSource {
 public:
  MemoryBytes(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return bytes_.size(); }
  size_t readSome(uint64_t offset, char* out, size_t n) const override;

 private:
  std::string_view bytes_;
  std::string name_;
};

class InputFile final : public ByteSource {
 public:
  // Opens without blocking (O_NONBLOCK, so a FIFO cannot stall the open), then refuses anything
  // but a regular file: "<path>: is a directory", "is a FIFO (named pipe)", "is a character
  // device", ... Throws InputError; the message starts with the path.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& name() const override { return path_; }
  uint64_t size() const override { return size_; }
  size_t readSome(uint64_t offset, char* out, size_t n) const override;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole file as text for a parser that needs it in one piece (JSON): regular file, at most
// `maxBytes`, `workFactor` x its size free in host memory (the parsed form), not UTF-16.
std::string readTextFile(const std::string& path, double workFactor, uint64_t maxBytes);

}  // namespace kernellab

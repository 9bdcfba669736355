// SPDX-License-Identifier: MIT
// The worker protocol (docs/architecture.md, "Worker processes"): how the window talks to a
// `kernellab-cli worker` process on this machine, over SSH or through a scheduler.
//
// The window writes one JSON line per job on the worker's stdin; the worker answers with a
// stream of frames on its stdout. A frame is an 8-byte header and a body:
//
//   'K' 'L' <encoding> <flags=0>  uint32 little-endian body length   body
//
// encoding 'J': the body is UTF-8 JSON text (the hello and small events: readable with `less`);
// encoding 'P' (packed): the same JSON, except that every array of 256 or more numbers (or of
// rows of numbers, such as a block schedule) is replaced by {"$kl_array": i} and carried after
// the text as raw little-endian columns of the smallest type that holds every value exactly
// (a million labels of K = 16 are 1 MB of bytes). Events with large arrays (the final results,
// live labels) use it: decoding is a memcpy-like pass instead of parsing digits, about 8x faster
// than JSON text or MessagePack (docs/BENCHMARKS.md, "Worker stream").
//
// packed body := u32 text bytes, text, u32 arrays, array...
// array := u8 shape (0: a flat list, 1: a list of equal rows), u32 columns, u64 elements per
//          column, then per column: u8 type (1 i8, 2 u8, 3 i16, 4 u16, 5 i32, 6 u32, 7 i64, 8 u64,
//          9 f32, 10 f64), elements x size bytes. A NaN float reads back as JSON's null, as the
//          text form writes it.
//
// Everything before the first frame header is noise the remote shell printed (a login banner,
// "command not found"); the reader keeps it so the window can show it when no hello arrives.
// No Qt here: the CLI (writer), the window (reader) and the tests share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kernellab::worker {

// Bumped when a message changes meaning or disappears (adding fields keeps it). A window runs a
// worker only of its own protocol, and says both versions otherwise.
inline constexpr int kProtocol = 1;

// Test hook: a worker started with KERNELLAB_WORKER_PROTOCOL=N announces protocol N, so tests
// (and a user's doubt) can see the window's mismatch message without an old build at hand.
inline constexpr const char* kProtocolOverrideEnv = "KERNELLAB_WORKER_PROTOCOL";

// Test hook: KERNELLAB_GPU_FAULT=<variant id> makes the worker fault when that variant starts:
// on CUDA a kernel that executes a trap instruction (a sticky error, as a real illegal address
// would give); on the CPU backend the worker aborts with a message naming the hook.
inline constexpr const char* kFaultEnv = "KERNELLAB_GPU_FAULT";

inline constexpr size_t kHeaderBytes = 8;
// A frame larger than this is refused by the reader (a corrupt length, not a result).
inline constexpr uint64_t kMaxFrameBytes = uint64_t(3) << 30;

enum class Encoding : char { Json = 'J', Packed = 'P' };

// One frame, header included, ready to write.
std::string encodeFrame(const nlohmann::json& event, Encoding encoding);
// JSON text for small events, packed for those that carry large arrays.
std::string encodeEvent(const nlohmann::json& event);

struct Frame {
  Encoding encoding = Encoding::Json;
  std::string body;
};

// Parses a frame's body; throws std::runtime_error (or nlohmann's parse error) on a bad body.
nlohmann::json decodeFrame(const Frame& frame);

// Incremental reader: feed it whatever arrived, take the complete frames out.
class FrameReader {
 public:
  void feed(const char* data, size_t size);
  // The next complete frame, or nothing yet. Once a header is bad (a wrong magic after the first
  // frame, a length above kMaxFrameBytes) every call returns nothing and error() says why.
  std::optional<Frame> next();
  // Bytes before the first frame (shell noise), at most 64 KiB of them.
  const std::string& noise() const { return noise_; }
  const std::string& error() const { return error_; }
  bool sawFrame() const { return sawFrame_; }
  // Bytes of a frame begun but not complete (0 between frames): a worker that died mid-frame.
  size_t pending() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  size_t offset_ = 0;
  std::string noise_;
  std::string error_;
  bool sawFrame_ = false;
};

// A job line for the worker's stdin: {"protocol":1,"command":"run"|"sweep",...}.
std::string jobLine(const nlohmann::json& job);

}  // namespace kernellab::worker

// SPDX-License-Identifier: MIT
// libFuzzer target: a worker's stream as the window reads it (worker_protocol.h): frames out of
// arbitrary bytes, each body decoded, a result's results file read and validated. A decoded
// value packed again must decode to the same value.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernellab/json_io.h"
#include "kernellab/results_validation.h"
#include "kernellab/worker_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kernellab;
  worker::FrameReader reader;
  // In two pieces, as a pipe delivers them.
  const size_t half = size / 2;
  reader.feed(reinterpret_cast<const char*>(data), half);
  while (reader.next()) {
  }
  reader.feed(reinterpret_cast<const char*>(data) + half, size - half);
  worker::FrameReader whole;
  whole.feed(reinterpret_cast<const char*>(data), size);
  while (auto f = whole.next()) {
    nlohmann::json j;
    try {
      j = worker::decodeFrame(*f);
    } catch (const std::exception&) {
      continue;
    }
    try {
      const std::string again = worker::encodeFrame(j, worker::Encoding::Packed);
      worker::Frame g{worker::Encoding::Packed, again.substr(worker::kHeaderBytes)};
      if (worker::decodeFrame(g) != j) __builtin_trap();  // packing changed a value
    } catch (const std::runtime_error&) {
      // nested too deeply: refused on both sides
    }
    if (j.is_object() && j.contains("results")) {
      try {
        const ResultsFile file = j["results"].get<ResultsFile>();
        validateResultsFile(file);
      } catch (const std::exception&) {
      }
    }
  }
  return 0;
}

// SPDX-License-Identifier: MIT
// libFuzzer target: the results-file reader with its validation. A file that is accepted must
// be accepted again after a trip through JSON (what the history stores and reads back).
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernellab/errors.h"
#include "kernellab/json_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kernellab::ResultsFile f =
        kernellab::parseResultsFile(std::string(reinterpret_cast<const char*>(data), size));
    try {
      kernellab::parseResultsFile(nlohmann::json(f).dump());
    } catch (const kernellab::InputError&) {
      __builtin_trap();  // we wrote something we refuse to read
    }
  } catch (const kernellab::InputError&) {
  }
  return 0;
}

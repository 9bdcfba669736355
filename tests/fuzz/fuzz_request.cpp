// SPDX-License-Identifier: MIT
// libFuzzer target: the request parser (the CLI's --request, the window's --config). A request
// that parses must also survive a trip through JSON unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernellab/errors.h"
#include "kernellab/json_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const kernellab::RunRequest r =
        kernellab::parseRequest(std::string(reinterpret_cast<const char*>(data), size));
    const nlohmann::json j = r;
    if (nlohmann::json(kernellab::parseRequest(j.dump())) != j) __builtin_trap();
  } catch (const kernellab::InputError&) {
  }
  return 0;
}
